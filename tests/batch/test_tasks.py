"""The task layer without a worker: sending to the embedded broker, and pruning the
messages kombu's SQLAlchemy transport leaves behind once consumed."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from grounding_app.batch import intake, messages, tasks
from grounding_app.batch.models import BatchChunk
from grounding_app.celery import app
from tests.batch.conftest import jsonl


@pytest.fixture
def embedded(tmp_path: Path, settings: Any) -> Path:
    path = tmp_path / "broker.sqlite3"
    settings.CELERY_BROKER_URL = f"sqla+sqlite:///{path}"
    saved = app.conf.broker_transport_options
    app.conf.broker_transport_options = {}
    yield path
    app.conf.broker_transport_options = saved


@pytest.mark.django_db
def test_send_queues_one_message_per_chunk_and_prune_drops_consumed_ones(
    embedded: Path, settings: Any
) -> None:
    settings.BATCH_CHUNK_LINES = 1
    job = intake.create_job(jsonl(3), send=False)
    ids = list(BatchChunk.objects.filter(job=job).values_list("pk", flat=True))
    messages.send(ids)
    assert set(BatchChunk.objects.values_list("sends", flat=True)) == {1}  # marked sent
    with sqlite3.connect(embedded) as db:
        queue = db.execute("SELECT name FROM kombu_queue").fetchone()[0]
        assert queue == settings.CELERY_TASK_DEFAULT_QUEUE
        assert db.execute("SELECT count(*) FROM kombu_message WHERE visible").fetchone()[0] == 3
        # Two handed out: one an hour and more ago, one just now.
        ids = [row[0] for row in db.execute("SELECT id FROM kombu_message ORDER BY id")]
        db.execute(
            "UPDATE kombu_message SET visible = 0, timestamp = datetime('now', 'localtime', "
            "'-2 hours') WHERE id = ?",
            (ids[0],),
        )
        db.execute(
            "UPDATE kombu_message SET visible = 0, timestamp = datetime('now', 'localtime') "
            "WHERE id = ?",
            (ids[1],),
        )
    tasks.prune_consumed_messages()
    with sqlite3.connect(embedded) as db:
        left = [row[0] for row in db.execute("SELECT id FROM kombu_message ORDER BY id")]
    assert left == ids[1:]


def test_prune_leaves_other_brokers_alone(settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    tasks.prune_consumed_messages()  # nothing to do, nothing to reach
