"""Train the claim verifier (see grounding_lab/train_verifier.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from grounding_lab import train_verifier


class Command(BaseCommand):
    help = "Train the cross-encoder claim verifier on shared/data/grounding (resumable)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("args", nargs="*", help="options of the trainer, e.g. --epochs 1")

    def run_from_argv(self, argv: list[str]) -> None:
        # The trainer owns its options; pass them through untouched.
        train_verifier.main(argv[2:])

    def handle(self, *args: str, **options: Any) -> None:
        train_verifier.main(list(args))
