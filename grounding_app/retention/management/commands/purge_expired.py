"""Delete everything past its retention period, now; safe to run as often as you like.

Like Django's `clearsessions`, made for cron or a systemd timer
(docs/operations.md#retention). Prints what it deleted, as counts, and records the same
counts in the purge history.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from grounding_app.retention.models import Purge
from grounding_app.retention.purge import BATCH_SIZE, describe_counts, purge_expired


class Command(BaseCommand):
    help = "Delete reviews and annotation data past their retention period (batched)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--batch-size",
            type=int,
            default=BATCH_SIZE,
            help=f"Rows per transaction (default {BATCH_SIZE}).",
        )

    def handle(self, *args: object, **options: Any) -> None:
        batch_size = int(options["batch_size"])
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")
        purge = purge_expired(Purge.Trigger.COMMAND, batch_size)
        period = (
            f"site period {purge.retention_days} days, cutoff {purge.cutoff:%Y-%m-%d %H:%M} UTC"
        )
        if purge.total:
            self.stdout.write(f"Deleted {purge.total} rows past their retention period ({period}):")
            for line in describe_counts(purge.counts):
                self.stdout.write(f"  {line}")
        else:
            self.stdout.write(f"Nothing has expired ({period}).")
        if purge.wal_truncated is not None:
            self.stdout.write(
                "SQLite write-ahead log checkpointed and truncated."
                if purge.wal_truncated
                else "SQLite write-ahead log not checkpointed (busy); the next purge retries."
            )
