"""`manage.py sample_claims [--day YYYY-MM-DD]`: run every sampling rule once; cron
runs it daily (a second run the same day only fills what is left of the quotas)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone

from grounding_app.monitoring.sampling import sample_all


class Command(BaseCommand):
    help = "Send today's least-sure claims of every sampling rule to its labeling project."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--day", type=date.fromisoformat, help="The day (UTC); today.")

    def handle(self, *args: Any, **options: Any) -> None:
        today = options["day"] or timezone.now().date()
        for rule_id, sent in sample_all(today).items():
            self.stdout.write(f"rule {rule_id}: {sent} claim(s) sent")
