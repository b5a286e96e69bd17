"""What the Verifier page does, without HTTP: adapt the active verifier on a labeling
project's labels (a Celery job), and read a verifier's figures.

An adaptation is a row (`AdaptJob`) and one Celery message. The worker exports the
project's labels in the training schema (`annotations.exports.grounding_lines`) and
calls `adapt.adapt` on them (the package under this app; the lab's `manage.py
adapt_verifier` calls it too), into GROUNDING_VERIFIERS_ROOT/<name>, starting from the
verifier active when the job was asked for. Its progress and its lines are written to
the row, which the page polls.
"""

from __future__ import annotations

import logging
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from grounding_app.active_verifier import services as active_verifier
from grounding_app.active_verifier.services import OnDisk
from grounding_app.annotations.exports import grounding_lines
from grounding_app.annotations.models import LabelingProject
from grounding_app.metrics import ReliabilityBin
from grounding_app.rendering.charts import reliability_svg
from grounding_app.verifiers.adapt import AdaptError, Options, adapt, summary
from grounding_app.verifiers.messages import send_adaptation
from grounding_app.verifiers.models import AdaptJob

logger = logging.getLogger(__name__)

NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
SAVE_EVERY = 0.5  # seconds between progress writes within one phase
JOBS_SHOWN = 10


class AdaptRequestError(ValueError):
    """The adaptation cannot be queued as asked (its name is taken, the start is broken)."""


@dataclass(frozen=True)
class AdaptOptions:
    """What the page lets an admin choose; the rest are adapt_verifier's defaults."""

    epochs: float = 1.0
    replay: int | None = None  # None: as many original pairs as the labels trained on
    max_minutes: float | None = 30.0
    hold_out: float = 0.2


def target(name: str) -> Path:
    return active_verifier.verifiers_root() / name


def check_name(name: str) -> None:
    if not NAME.fullmatch(name):
        raise AdaptRequestError(
            "a name of lower-case letters, digits, '.', '_' and '-' (at most 64), starting"
            " with a letter or digit"
        )
    if target(name).exists():
        raise AdaptRequestError(f"{target(name)} exists already: choose another name")
    waiting = (AdaptJob.Status.QUEUED, AdaptJob.Status.RUNNING)
    if AdaptJob.objects.filter(name=name, status__in=waiting).exists():
        raise AdaptRequestError(f"an adaptation named {name} is already queued or running")


def start(user: Any, project: LabelingProject, name: str, options: AdaptOptions) -> AdaptJob:
    """Queue an adaptation of the active verifier on `project`'s labels; the message is
    sent once the row is committed."""
    check_name(name)
    start_from = active_verifier.active()
    if start_from.problem:
        raise AdaptRequestError(f"the active verifier cannot be adapted: {start_from.problem}")
    with transaction.atomic():
        job = AdaptJob.objects.create(
            project=project,
            project_name=project.name[:200],
            name=name,
            directory=str(target(name)),
            start_directory=str(start_from.directory),
            start_verifier=start_from.verifier_id,
            options={
                "epochs": options.epochs,
                "replay": options.replay,
                "max_minutes": options.max_minutes,
                "hold_out": options.hold_out,
            },
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
        transaction.on_commit(lambda: send(job.pk))
    return job


def send(job_id: int) -> None:
    """One message for the job; a broker that cannot be reached fails the job, saying so."""
    try:
        send_adaptation(job_id)
    except Exception as exc:
        logger.exception("could not send adaptation %s to the broker", job_id)
        _finish(job_id, AdaptJob.Status.FAILED, error=f"the job could not be queued: {exc}")


def recent_jobs() -> QuerySet[AdaptJob]:
    return AdaptJob.objects.select_related("created_by")[:JOBS_SHOWN]


# --- in the worker -----------------------------------------------------------------


class _Recorder:
    """The adaptation's lines and progress callback, written onto the job's row: each
    line at once, progress within a phase at most every SAVE_EVERY seconds."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.phase = ""
        self.saved_at = float("-inf")

    def _save(self, **fields: Any) -> None:
        AdaptJob.objects.filter(pk=self.job_id, status=AdaptJob.Status.RUNNING).update(
            **fields, updated_at=timezone.now()
        )
        self.saved_at = time.monotonic()

    def say(self, text: str) -> None:
        if line := text.strip():
            self._save(last_line=line[-2000:])

    def progress(self, phase: str, fraction: float) -> None:
        if phase != self.phase or time.monotonic() - self.saved_at >= SAVE_EVERY:
            self.phase = phase
            self._save(phase=phase[:100], fraction=fraction)


def _finish(job_id: int, status: str, **fields: Any) -> None:
    AdaptJob.objects.filter(pk=job_id).update(
        status=status, finished_at=timezone.now(), updated_at=timezone.now(), **fields
    )


def run(job_id: int) -> None:
    """The Celery task's body: take the queued job, export its labels, adapt, record."""
    now = timezone.now()
    taken = AdaptJob.objects.filter(pk=job_id, status=AdaptJob.Status.QUEUED).update(
        status=AdaptJob.Status.RUNNING, started_at=now, updated_at=now, phase="exporting labels"
    )
    job = AdaptJob.objects.select_related("project").filter(pk=job_id).first()
    if not taken or job is None:
        return
    if job.project is None:
        _finish(job_id, AdaptJob.Status.FAILED, error="the labeling project was deleted")
        return
    recorder = _Recorder(job_id)
    options = job.options
    try:
        with tempfile.TemporaryDirectory(prefix="adapt-") as folder:
            labels = Path(folder) / f"labeling-project-{job.project.pk}.jsonl"
            with labels.open("w", encoding="utf-8") as handle:
                count = 0
                for line in grounding_lines(job.project):
                    handle.write(line)
                    count += 1
            AdaptJob.objects.filter(pk=job_id).update(labels=count)
            chosen = Options(
                name=job.name,
                epochs=options.get("epochs", 1.0),
                replay=options.get("replay"),
                max_minutes=options.get("max_minutes"),
                hold_out=options.get("hold_out", 0.2),
            )
            result = adapt(
                labels,
                Path(job.directory),
                Path(job.start_directory),
                chosen,
                recorder.say,
                recorder.progress,
            )
            recorder.say(summary(result))
    except AdaptError as exc:  # the labels or options refused, before anything is written
        _finish(job_id, AdaptJob.Status.FAILED, error=str(exc))
        return
    except ImportError as exc:
        _finish(
            job_id,
            AdaptJob.Status.FAILED,
            error=f"this worker lacks the training packages (pip install '.[train]'): {exc}",
        )
        return
    except Exception as exc:
        logger.exception("adaptation %s failed", job_id)
        _finish(job_id, AdaptJob.Status.FAILED, error=f"the adaptation failed: {exc}")
        return
    made = active_verifier.describe(Path(job.directory))
    _finish(
        job_id,
        AdaptJob.Status.DONE,
        phase="done",
        fraction=1.0,
        verifier=made.verifier_id,
        error=made.problem,
    )


# --- a verifier's figures ----------------------------------------------------------


@dataclass(frozen=True)
class HeldBack:
    """A verifier's held-back figures from its verifier.json (adapt_verifier writes them)."""

    before: dict[str, Any]
    after: dict[str, Any]
    chart: str  # the reliability diagram (SVG), "" when verifier.json has no bins


def _bins(figures: dict[str, Any]) -> list[ReliabilityBin]:
    rows = figures.get("reliability") or []
    try:
        return [ReliabilityBin(**row) for row in rows]
    except TypeError:
        return []


def held_back(entry: OnDisk) -> HeldBack | None:
    """The held-back figures of `entry`, before and after its adaptation, or None."""
    figures = entry.config.get("figures")
    held = figures.get("held_back") if isinstance(figures, dict) else None
    if not isinstance(held, dict) or not {"before", "after"} <= held.keys():
        return None
    before, after = held["before"], held["after"]
    series = {
        f"adapted ({entry.name})": _bins(after),
        "before (the start)": _bins(before),
    }
    series = {name: bins for name, bins in series.items() if bins}
    labels = after.get("labels", "?")
    chart = reliability_svg(series, f"Reliability on {labels} held-back labels") if series else ""
    return HeldBack(before, after, chart)
