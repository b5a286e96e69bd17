"""`manage.py create_api_key NAME`: issue a key from a shell or a deployment script.

The key is the last word of the one line on stdout, so scripts can take it with
`awk '{print $NF}'`; the warning goes to stderr.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from grounding_app.api.models import ApiKey


class Command(BaseCommand):
    help = "Create an API key for the check-grounding API and print it (shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="who or what will use the key")

    def handle(self, *args: Any, **options: Any) -> None:
        key, raw = ApiKey.issue(options["name"])
        self.stderr.write(
            self.style.WARNING("The key is shown only once and cannot be recovered: store it now.")
        )
        self.stdout.write(f"API key {key.prefix}… for {key.name!r}: {raw}")
