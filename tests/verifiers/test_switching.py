"""The Verifier page's switch: an audit row, the new verifier judging the next check in
this process and in a long-lived other one (no restart), the old scores back exactly on
switching back, reviews and batch lines naming their verifier, refusals, and access."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from grounding_app.active_verifier import services as active_verifier
from grounding_app.active_verifier.checker import FOLLOW_SECONDS
from grounding_app.active_verifier.models import ActiveVerifier, VerifierSwitch
from grounding_app.api.models import ApiKey
from grounding_app.batch import intake as batch_intake
from grounding_app.batch import line_reviews as batch_line_reviews
from grounding_app.batch import running as batch_running
from grounding_app.batch.models import BatchChunk, BatchJob, BatchLine
from grounding_app.engine import VERIFIER_DIR, CrossEncoderJudge
from grounding_app.reviews.models import Review
from tests.batch.conftest import _database_url
from tests.verifiers.conftest import API, BODY

ROOT = Path(__file__).resolve().parents[2]


def check_api(client: Client) -> dict[str, Any]:
    response = client.post(
        API,
        json.dumps(BODY),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("tests")[1]},
    )
    assert response.status_code == 200, response.content
    return response.json()


def scores(data: dict[str, Any]) -> list[float]:
    return [c["score"] for c in data["claims"] if c.get("groundingCheckRequired")]


def switch(client: Client, directory: Path) -> str:
    response = client.post("/verifiers/switch/", {"directory": str(directory)}, follow=True)
    assert response.status_code == 200
    return response.content.decode()


def vid(directory: Path) -> str:
    return CrossEncoderJudge(directory).verifier_id


@pytest.mark.django_db
def test_switching_writes_an_audit_row_and_the_next_check_uses_the_new_verifier(
    admin_client: Client, admin: Any, verifiers: dict[str, Path], client: Client
) -> None:
    page = switch(admin_client, verifiers["nli"])
    assert "judges now" in page and vid(verifiers["nli"]) in page
    record = VerifierSwitch.objects.get()
    bundled = active_verifier.describe(VERIFIER_DIR).verifier_id
    assert bundled.startswith("minilm-l6-v4@sha256:")
    assert (record.changed_by, record.username) == (admin, "ada-admin")
    assert (record.from_verifier, record.to_verifier) == (bundled, vid(verifiers["nli"]))
    assert (record.from_directory, record.to_directory) == (
        str(VERIFIER_DIR),
        str(verifiers["nli"]),
    )
    assert ActiveVerifier.objects.get().directory == str(verifiers["nli"])
    assert check_api(client)["verifier"] == vid(verifiers["nli"])

    switch(admin_client, verifiers["binary"])
    assert check_api(client)["verifier"] == vid(verifiers["binary"])
    latest = VerifierSwitch.objects.first()  # latest first
    assert latest is not None and latest.from_verifier == vid(verifiers["nli"])
    page = admin_client.get("/verifiers/").content.decode()
    assert page.index(vid(verifiers["binary"]), page.index("Switches")) < page.rindex(
        vid(verifiers["nli"])
    )


@pytest.mark.django_db
def test_switching_back_restores_the_same_scores_exactly(
    admin_client: Client, verifiers: dict[str, Path], client: Client
) -> None:
    switch(admin_client, verifiers["nli"])
    first = scores(check_api(client))
    switch(admin_client, verifiers["binary"])
    other = scores(check_api(client))
    switch(admin_client, verifiers["nli"])
    again = scores(check_api(client))
    assert first and other != first  # the tiny models score differently
    assert again == first  # exactly, not approximately


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["nli", "binary"])
def test_a_new_review_stores_and_shows_its_verifier(
    admin_client: Client, verifiers: dict[str, Path], kind: str
) -> None:
    switch(admin_client, verifiers[kind])
    response = admin_client.post(
        "/reviews/new/",
        {
            "answer": BODY["answerCandidate"],
            "citation_threshold": "0.6",
            "fact-0-text": BODY["facts"][0]["factText"],
            "fact-1-text": "",
            "fact-2-text": "",
        },
    )
    assert response.status_code == 302
    review = Review.objects.get()
    assert review.verifier == vid(verifiers[kind])
    page = admin_client.get(review.get_absolute_url()).content.decode()
    name, digest = review.verifier.split("@")
    assert f"Judged by <bdi>{name}</bdi>" in page and f"({digest})" in page


@pytest.mark.django_db
def test_batch_lines_and_their_job_name_the_verifier(
    admin_client: Client, verifiers: dict[str, Path]
) -> None:
    switch(admin_client, verifiers["nli"])
    line = {"id": "a", "facts": [{"text": "the film was directed by the mayor ."}]}
    data = "\n".join(
        json.dumps({**line, "id": str(n), "claim": "the film was directed by the mayor."})
        for n in range(2)
    )
    key, secret = ApiKey.issue("batch")
    job = batch_intake.create_job(data.encode(), name="two.jsonl", api_key=key, send=False)
    for chunk in BatchChunk.objects.filter(job=job):
        batch_running.run_chunk(chunk.pk)
    job = BatchJob.objects.get(pk=job.pk)
    expected = vid(verifiers["nli"])
    assert job.verifier == expected
    assert set(BatchLine.objects.filter(job=job).values_list("verifier", flat=True)) == {expected}
    page = admin_client.get(job.get_absolute_url()).content.decode()
    assert f'data-verifier="{expected}"' in page
    api = Client().get(f"/v1/batchJobs/{job.public_id}", headers={"x-goog-api-key": secret})
    assert api.json()["verifier"] == expected
    exported = admin_client.get(f"/batch/{job.public_id}/results.jsonl")
    lines = [json.loads(x) for x in b"".join(exported.streaming_content).splitlines()]
    assert [x["verifier"] for x in lines] == [expected, expected]
    review = batch_line_reviews.review_for(None, BatchLine.objects.filter(job=job).first())
    assert review.verifier == expected


@pytest.mark.django_db(transaction=True)
def test_a_running_process_follows_a_switch_without_a_restart(
    admin_client: Client, verifiers: dict[str, Path], tmp_path: Path
) -> None:
    """A second process, started on the binary verifier and kept running, judges with
    the NLI one within FOLLOW_SECONDS of the switch made here."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
    env.update(
        DJANGO_SETTINGS_MODULE="grounding_app.settings",
        SECRET_KEY="test-secret-key-not-for-production",
        DATABASE_URL=_database_url(),
        GROUNDING_VERIFIER_DIR=str(verifiers["binary"]),
        GROUNDING_PRELOAD="0",
    )
    follower = subprocess.Popen(
        [sys.executable, "-m", "tests.verifiers.follower"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert follower.stdout is not None and follower.stdin is not None
        assert follower.stdout.readline().strip() == "ready"

        def ask() -> dict[str, Any]:
            follower.stdin.write("check\n")
            follower.stdin.flush()
            return json.loads(follower.stdout.readline())

        before = ask()
        assert before["verifier"] == vid(verifiers["binary"])
        switch(admin_client, verifiers["nli"])
        time.sleep(FOLLOW_SECONDS + 0.2)
        after = ask()
        assert after["verifier"] == vid(verifiers["nli"])
        assert after["scores"] != before["scores"]
        assert follower.poll() is None  # the same process: no restart
    finally:
        follower.kill()
        follower.wait(10)


@pytest.mark.django_db
def test_a_directory_that_does_not_load_cannot_be_chosen(
    admin_client: Client, verifiers: dict[str, Path], tmp_path: Path, settings: Any
) -> None:
    root = tmp_path / "root"
    broken = root / "broken"
    broken.mkdir(parents=True)
    (broken / "verifier.json").write_text(json.dumps({"name": "broken", "max_length": 128}))
    (broken / "model.safetensors").write_bytes(b"not weights at all")
    settings.GROUNDING_VERIFIERS_ROOT = root
    page = admin_client.get("/verifiers/").content.decode()
    assert f'data-directory="{broken}"' in page  # listed: it has weights and verifier.json
    page = switch(admin_client, broken)
    assert "Not switched:" in page and "cannot judge" in page
    assert not VerifierSwitch.objects.exists() and not ActiveVerifier.objects.exists()
    assert active_verifier.active_directory() == VERIFIER_DIR

    page = switch(admin_client, Path("/etc"))  # not a listed directory
    assert "none of the verifiers listed here" in page
    assert not VerifierSwitch.objects.exists()


@pytest.mark.django_db
def test_the_page_lists_the_verifiers_on_disk_with_their_ids(
    admin_client: Client, verifiers: dict[str, Path]
) -> None:
    page = admin_client.get("/verifiers/").content.decode()
    for directory in (verifiers["nli"], verifiers["binary"]):
        assert f'data-verifier="{vid(directory)}"' in page  # the id responses will carry
    assert "minilm-l6-v4" in page and "Model card (MODEL_CARD.md)" in page
    assert page.count("Use this verifier") == 2  # the bundled one judges now
    assert 'href="/verifiers/" aria-current="page"' in page


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/verifiers/"),
        ("post", "/verifiers/switch/"),
        ("post", "/verifiers/adapt/"),
        ("get", "/verifiers/jobs/"),
    ],
)
def test_only_admins_reach_the_page(
    make_user: Any, client: Client, verifiers: dict[str, Path], method: str, path: str
) -> None:
    data = {"directory": str(verifiers["nli"])} if method == "post" else {}
    response = getattr(client, method)(path, data)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    for role in ("reviewer", "annotator"):
        client.force_login(make_user(role))
        assert getattr(client, method)(path, data).status_code == 403
    assert 'href="/verifiers/"' not in client.get("/annotations/").content.decode()
    assert not VerifierSwitch.objects.exists()
