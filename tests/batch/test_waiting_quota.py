"""The API's waiting-lines quota under concurrent uploads (issue 44, item 10): uploads
of one key at once, each within BATCH_KEY_WAITING_LINES alone and over it together,
store one job between them; the others are refused with 429. Three 60,000-line uploads
at once used to leave 120,000 lines waiting against a limit of 100,000: each counted
what waited before any had stored its job."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.batch import intake, queueing
from grounding_app.batch.models import BatchJob
from tests.batch.conftest import jsonl

pytestmark = pytest.mark.django_db(transaction=True)

UPLOADS = 3


@pytest.mark.parametrize("split_inline", [True, False], ids=["inline", "split-by-a-worker"])
def test_concurrent_uploads_of_one_key_stay_within_the_waiting_limit(
    settings: Any, monkeypatch: pytest.MonkeyPatch, split_inline: bool
) -> None:
    settings.BATCH_KEY_WAITING_LINES = 100
    # 60 lines each: stored as lines at once, or (as a 60,000-line upload is) whole.
    settings.BATCH_SPLIT_INLINE_LINES = 100 if split_inline else 10
    monkeypatch.setattr(intake, "send_chunks", lambda ids: None)
    monkeypatch.setattr(intake, "send_split", lambda job_id: None)
    api_key, secret = ApiKey.issue("concurrent uploads")
    # Each upload, once it has counted, waits until all have counted (3 s at most): what
    # unlocked counts allow. With the key locked, the others cannot count meanwhile;
    # the barrier breaks after 3 s and they count one after another.
    counted = threading.Barrier(UPLOADS, timeout=3)
    count = queueing.waiting_lines

    def count_then_meet(**owner: object) -> int:
        waiting = count(**owner)
        with contextlib.suppress(threading.BrokenBarrierError):
            counted.wait()
        return waiting

    monkeypatch.setattr(queueing, "waiting_lines", count_then_meet)
    codes: list[int] = []

    def upload() -> None:
        try:
            response = Client().post(
                "/v1/batchJobs",
                jsonl(60),
                content_type="application/x-ndjson",
                headers={"x-goog-api-key": secret},
            )
            codes.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=upload) for _ in range(UPLOADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(codes) == [200, 429, 429]
    assert BatchJob.objects.filter(api_key=api_key).count() == 1
    assert count(api_key=api_key) == 60
