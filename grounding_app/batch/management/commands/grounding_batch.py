"""Check a JSONL file of answers as a batch job, with a progress bar in the terminal.

    manage.py grounding_batch IN.jsonl OUT.jsonl [--threshold 0.6] [--policy NAME] [--local]

The job runs on the Celery workers (start them with `celery -A grounding_app.celery
worker`, as scripts/run does), appears on the batch pages like any other, and OUT gets
the results export (one JSON line per input line). `--local` checks the lines in this
process instead, with no broker and no worker. When no worker has written a heartbeat
lately (none runs, or the last one stopped mid-job) the command says so, with how to
start one, and checks the remaining lines itself rather than wait forever. Ctrl-C
cancels the job.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from tqdm import tqdm

from grounding_app.batch import exports, intake, queueing, results, running
from grounding_app.batch.models import BatchChunk, BatchJob
from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.policies.models import SourcePolicy


class Command(BaseCommand):
    help = "Check every line of a JSONL file as a batch job and write the results as JSONL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("input", type=Path)
        parser.add_argument("output", type=Path)
        parser.add_argument("--threshold", type=float, default=DEFAULT_CITATION_THRESHOLD)
        parser.add_argument("--policy", default="", help="a source policy's name")
        parser.add_argument(
            "--local", action="store_true", help="check in this process, without workers"
        )
        parser.add_argument("--poll", type=float, default=0.5, help="seconds between updates")

    def handle(self, *args: Any, **options: Any) -> None:
        if not 0.0 <= options["threshold"] <= 1.0:
            raise CommandError("--threshold must be in [0, 1]")
        policy = None
        if options["policy"]:
            policy = SourcePolicy.objects.filter(name=options["policy"]).first()
            if policy is None:
                raise CommandError(f"no source policy is named {options['policy']!r}")
        try:
            data = options["input"].read_bytes()
            with transaction.atomic():
                job = intake.create_job(
                    data,
                    name=options["input"].name,
                    citation_threshold=options["threshold"],
                    source_policy=policy,
                    send=not options["local"],
                )
                if options["local"]:  # no worker's message may take its chunks
                    BatchJob.objects.filter(pk=job.pk).update(local=True)
        except (OSError, intake.BatchInputError) as exc:
            raise CommandError(str(exc)) from exc
        # Information, not an error: Django would print stderr in red.
        self.stderr.write(f"Job {job.public_id}: {job.total} lines", style_func=_plain)
        try:
            self._follow(job, options["local"], options["poll"])
        except KeyboardInterrupt:
            running.cancel(job)
            self.stderr.write("Cancelled; the lines checked so far are written.", _plain)
        job.refresh_from_db()
        with options["output"].open("w", encoding="utf-8") as out:
            out.writelines(exports.jsonl_lines(job))
        progress = results.progress(job)
        rate = f", {progress.rate:.2f} lines/s" if progress.rate else ""
        self.stdout.write(
            f"{progress.done} checked, {progress.failed} failed, {progress.pending} not checked"
            f"{rate}: {options['output']}"
        )
        for line in results.failed_lines(job, limit=10):
            self.stderr.write(f"  {line.error}")

    def _follow(self, job: BatchJob, local: bool, poll: float) -> None:
        with tqdm(total=job.total, unit="line", file=self.stderr._out) as bar:

            def update() -> results.Progress:
                progress = results.progress(job)
                bar.n = progress.finished
                bar.set_postfix(failed=progress.failed, refresh=False)
                bar.refresh()
                return progress

            update()
            while True:
                job.refresh_from_db(fields=["status", "started_at"])
                update()
                if not job.active:
                    return
                if not local and not queueing.live_workers():
                    bar.clear()
                    self.stderr.write(NO_WORKER, style_func=self.style.WARNING)
                    local = True
                if local:
                    chunks = BatchChunk.objects.filter(job=job).exclude(state=BatchChunk.State.DONE)
                    for chunk_id in chunks.order_by("first").values_list("pk", flat=True):
                        running.run_chunk(chunk_id)
                        update()
                    return
                time.sleep(poll)


NO_WORKER = (
    "No batch worker is running, so this process checks the lines itself (as --local "
    "does). To use workers, start one beside the server:\n"
    "    .venv/bin/celery -A grounding_app.celery worker --concurrency=2\n"
    "(scripts/run starts one), or pass --local to skip this check."
)


def _plain(text: str) -> str:
    return text
