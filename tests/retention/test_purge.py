"""purge_expired deletes for real, in batches, idempotently, and records counts only."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.management import call_command
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext

from grounding_app.api.models import ApiKey
from grounding_app.retention.models import Purge
from grounding_app.retention.scheduler import start_purging
from grounding_app.reviews.models import Review

DAY = timedelta(days=1)


def purge(*args: str) -> str:
    out = io.StringIO()
    call_command("purge_expired", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_purge_deletes_only_what_expired_prints_it_and_is_idempotent(
    clock, make_review: Callable[..., Review], make_user: Callable[..., object]
) -> None:
    old = [make_review(f"Old answer {n}.") for n in range(3)]
    clock.shift(20 * DAY)
    kept = make_review("Recent answer.")
    recheck = make_review("A re-check of an old one.")
    recheck.rechecked_from = old[0]
    recheck.save()
    staff = make_user("superuser")
    LogEntry.objects.log_actions(staff.pk, [old[1], kept], CHANGE, change_message="Edited.")
    key, _ = ApiKey.issue("chatbot")
    LogEntry.objects.log_actions(staff.pk, [key], CHANGE, change_message="Renamed.")
    clock.shift(11 * DAY)

    output = purge()
    assert "Deleted 4 rows past their retention period (site period 30 days" in output
    assert "  3 reviews\n" in output
    assert "  1 log entry\n" in output
    assert Review._base_manager.filter(pk__in=[r.pk for r in old]).count() == 0
    assert set(Review.objects.values_list("pk", flat=True)) == {kept.pk, recheck.pk}
    recheck.refresh_from_db()
    assert recheck.rechecked_from is None
    assert set(LogEntry.objects.values_list("object_repr", flat=True)) == {str(kept), str(key)}

    audit = Purge.objects.get()
    assert audit.trigger == Purge.Trigger.COMMAND
    assert audit.counts == {"admin.LogEntry": 1, "reviews.Review": 3}
    assert audit.total == 4 and audit.retention_days == 30
    assert audit.cutoff == audit.started_at - 30 * DAY

    assert "Nothing has expired" in purge()
    assert Purge.objects.count() == 2 and Purge.objects.first().total == 0
    assert Review.objects.count() == 2


@pytest.mark.django_db
def test_purge_works_in_batches_of_its_own_transactions(
    clock, make_review: Callable[..., Review]
) -> None:
    for n in range(5):
        make_review(f"Answer {n}.")
    clock.shift(31 * DAY)
    with CaptureQueriesContext(connection) as queries:
        purge("--batch-size", "2")
    deletes = [q["sql"] for q in queries if q["sql"].startswith('DELETE FROM "reviews_review"')]
    assert len(deletes) == 3
    assert Review._base_manager.count() == 0


@pytest.mark.django_db
def test_the_audit_row_holds_counts_never_content(
    clock, make_review: Callable[..., Review]
) -> None:
    make_review("Secret-ish answer text 7f3a.")
    clock.shift(31 * DAY)
    purge()
    audit = Purge.objects.values().get()
    assert "7f3a" not in repr(audit)


@pytest.mark.django_db
def test_purge_history_is_read_only_in_the_admin(
    clock, make_review: Callable[..., Review], client, make_user
) -> None:
    make_review()
    clock.shift(31 * DAY)
    purge()
    client.force_login(make_user("superuser"))
    listing = client.get("/admin/retention/purge/").content.decode()
    assert "1 review" in listing
    audit = Purge.objects.get()
    assert client.get(f"/admin/retention/purge/{audit.pk}/change/").status_code == 200
    assert client.get("/admin/retention/purge/add/").status_code == 403
    assert client.post(f"/admin/retention/purge/{audit.pk}/delete/").status_code == 403


def _file_bytes(database: Path) -> bytes:
    return b"".join(
        path.read_bytes() for path in (database, Path(f"{database}-wal")) if path.exists()
    )


@pytest.mark.skipif(
    connection.vendor != "sqlite",
    reason="SQLite only: reads the database file and its write-ahead log",
)
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("secure_delete", [True, False], ids=["secure_delete", "control"])
def test_purged_text_is_gone_from_the_database_file(
    clock,
    make_review: Callable[..., Review],
    make_user: Callable[..., object],
    secure_delete: bool,
) -> None:
    """The control run turns secure_delete off and finds the text still in the file:
    proof that the search can see deleted text, and that the pragma is what removes it."""
    marker = "PURGE-MARKER-8c1d2e6f-once-only"
    review = make_review(f"The answer {marker} says T is the capital of O.")
    LogEntry.objects.log_actions(
        make_user("superuser").pk, [review], CHANGE, change_message=f"Noted {marker}."
    )
    database = Path(connection.settings_dict["NAME"])
    assert marker.encode() in _file_bytes(database)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA secure_delete")
        assert cursor.fetchone()[0] == 1  # settings.py's init_command
        if not secure_delete:
            cursor.execute("PRAGMA secure_delete=OFF")

    clock.shift(31 * DAY)
    try:
        output = purge()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA secure_delete=ON")
    assert "1 review" in output and "1 log entry" in output
    assert "write-ahead log checkpointed and truncated" in output
    assert (marker.encode() in _file_bytes(database)) is not secure_delete


@pytest.mark.django_db(transaction=True)
def test_the_scheduler_purges_in_the_background(
    make_review: Callable[..., Review], settings
) -> None:
    make_review()
    Review.objects.update(created_at=Review._base_manager.get().created_at - 31 * DAY)
    stop = start_purging(3600)
    try:
        deadline = time.monotonic() + 20
        # The history row appears when a purge starts; wait until it has finished.
        finished = Purge.objects.filter(finished_at__isnull=False)
        while not finished.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
    audit = Purge.objects.get()
    assert audit.trigger == Purge.Trigger.SCHEDULE
    assert audit.counts == {"reviews.Review": 1}


@pytest.mark.django_db
def test_a_purge_stopped_mid_way_leaves_history_of_what_it_deleted(
    clock, make_review: Callable[..., Review], client, make_user, monkeypatch
) -> None:
    """A kill between two statements: the batches committed so far are in the history,
    as an unfinished purge; the next purge deletes the rest and finishes."""
    for n in range(5):
        make_review(f"Answer {n}.")
    clock.shift(31 * DAY)
    real_delete = QuerySet.delete
    calls = {"n": 0}

    def killed_on_third(self: QuerySet, *args: object, **kwargs: object) -> object:
        if self.model is Review:
            calls["n"] += 1
            if calls["n"] == 3:
                raise KeyboardInterrupt  # a BaseException, as SIGINT/SIGKILL leave no handler
        return real_delete(self, *args, **kwargs)

    monkeypatch.setattr(QuerySet, "delete", killed_on_third)
    with pytest.raises(KeyboardInterrupt):
        purge("--batch-size", "1")
    monkeypatch.setattr(QuerySet, "delete", real_delete)

    stopped = Purge.objects.get()
    assert stopped.finished_at is None
    assert stopped.counts == {"reviews.Review": 2} and stopped.total == 2
    assert Review._base_manager.count() == 3
    client.force_login(make_user("superuser"))
    assert "not finished" in client.get("/admin/retention/purge/").content.decode()

    purge()
    finished = Purge.objects.first()
    assert finished.finished_at is not None and finished.total == 3
    assert Review._base_manager.count() == 0
