"""Adaptations from the Verifier page: a Celery job on a real worker (the batch tests'
worker process and embedded broker) adapts a tiny verifier on a labeling project,
reporting progress on its row, and the new directory is listed, chosen and shown with
its held-back figures; refusals of the labels show on the job."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from grounding_app.active_verifier.models import VerifierSwitch
from grounding_app.engine import GroundingEngine
from grounding_app.verifiers import services
from grounding_app.verifiers.models import AdaptJob
from tests.batch.conftest import running_workers
from tests.lab.test_adapt_verifier import label_lines
from tests.verifiers.conftest import labeled_project

FORM = {"epochs": "1", "replay": "0", "max_minutes": "5"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (label_lines(5), "15 labels (10 supported, 5 not): too few"),
        ([line for line in label_lines(30) if line["label"] == 1], "one class only"),
    ],
    ids=["too-few", "one-class"],
)
def test_a_refused_adaptation_shows_its_error_on_the_job(
    admin_client: Client,
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    verifiers: dict[str, Path],
    lines: list[dict[str, Any]],
    message: str,
) -> None:
    project = labeled_project(lines, make_user)
    response = admin_client.post(
        "/verifiers/adapt/", {**FORM, "project": project.pk, "name": "refused"}
    )
    assert response.status_code == 302
    job = AdaptJob.objects.get()
    assert job.status == "queued" and job.start_verifier.startswith("minilm-l6-v4@sha256:")
    services.run(job.pk)  # the task's body (the worker test below runs the task itself)
    job.refresh_from_db()
    assert job.status == "failed" and message in job.error
    assert job.labels == len(lines) and job.finished_at is not None
    assert not (verifiers["root"] / "refused").exists()
    page = admin_client.get("/verifiers/").content.decode()
    assert "Not adapted:" in page and message in page
    assert 'data-status="failed"' in page and "hx-trigger" not in page  # nothing to poll


@pytest.mark.django_db
def test_a_taken_name_is_refused_before_anything_is_queued(
    admin_client: Client,
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    verifiers: dict[str, Path],
) -> None:
    project = labeled_project(label_lines(2), make_user)
    for name, error in (("tiny-nli", "exists already"), ("Not A Name", "lower-case letters")):
        response = admin_client.post(
            "/verifiers/adapt/", {**FORM, "project": project.pk, "name": name}
        )
        assert response.status_code == 400 and error in response.content.decode()
    assert not AdaptJob.objects.exists()


def test_the_progress_callback_throttles_within_a_phase_and_writes_each_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    saved: list[dict[str, Any]] = []
    now = [0.0]
    recorder = services._Recorder(0)

    def save(**fields: Any) -> None:
        saved.append(fields)
        recorder.saved_at = now[0]

    monkeypatch.setattr(recorder, "_save", save)
    monkeypatch.setattr(services.time, "monotonic", lambda: now[0])
    recorder.progress("training", 0.2)  # a new phase: written
    now[0] = 0.1
    recorder.progress("training", 0.3)  # 0.1 s later, same phase: skipped
    recorder.progress("calibrating", 0.8)  # a new phase: written
    now[0] = 0.7
    recorder.progress("calibrating", 0.85)  # 0.6 s after the last write: written
    recorder.say("calibrating on the held-back labels\n")
    assert saved == [
        {"phase": "training", "fraction": 0.2},
        {"phase": "calibrating", "fraction": 0.8},
        {"phase": "calibrating", "fraction": 0.85},
        {"last_line": "calibrating on the held-back labels"},
    ]


@pytest.mark.django_db(transaction=True)
def test_a_celery_worker_adapts_on_a_labeling_project_with_progress(
    admin_client: Client,
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    verifiers: dict[str, Path],
    tmp_path: Path,
) -> None:
    project = labeled_project(label_lines(20), make_user)
    admin_client.post("/verifiers/switch/", {"directory": str(verifiers["nli"])})
    with running_workers("embedded", tmp_path) as workers:
        workers.env["GROUNDING_VERIFIERS_ROOT"] = str(verifiers["root"])
        workers.start()
        response = admin_client.post(
            "/verifiers/adapt/", {**FORM, "project": project.pk, "name": "team-adapted"}
        )
        assert response.status_code == 302
        page = admin_client.get("/verifiers/").content.decode()
        assert 'hx-get="/verifiers/jobs/?was=active"' in page  # the bar polls
        seen: list[tuple[str, str, float]] = []
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            job = AdaptJob.objects.get()
            seen.append((job.status, job.phase, job.fraction))
            if not job.active:
                break
            time.sleep(0.1)
    assert job.status == "done", (job.error, seen[-5:])
    assert (job.phase, job.fraction, job.labels) == ("done", 1.0, 60)
    running = [(phase, fraction) for status, phase, fraction in seen if status == "running"]
    assert any(0.0 < fraction < 1.0 for _, fraction in running), running
    fractions = [fraction for _, fraction in running]
    assert fractions == sorted(fractions)  # the bar only moves forward
    assert {"measuring the start", "training"} & {phase for phase, _ in running}
    assert job.verifier.startswith("team-adapted@sha256:")
    assert job.start_directory == str(verifiers["nli"])
    out = verifiers["root"] / "team-adapted"
    assert (out / "verifier.json").is_file() and (out / "MODEL_CARD.md").is_file()

    # Once nothing runs the partial asks htmx to reload the page, which lists it.
    partial = admin_client.get("/verifiers/jobs/?was=active", HTTP_HX_REQUEST="true")
    assert partial.headers.get("HX-Refresh") == "true"
    page = admin_client.get("/verifiers/").content.decode()
    assert f'data-directory="{out}"' in page and f'data-verifier="{job.verifier}"' in page
    admin_client.post("/verifiers/switch/", {"directory": str(out)})
    assert VerifierSwitch.objects.first().to_verifier == job.verifier
    page = admin_client.get("/verifiers/").content.decode()
    assert "Reliability on" in page and "<svg" in page  # the held-back bins, drawn
    assert "a verifier adapted to a team" in page  # its model card, rendered
    assert "<script" not in page.split("Model card (MODEL_CARD.md)")[1].split("</details>")[0]
