# Purging deletes, for real and in batches, what has outlived its retention period.
#
# What is deleted:
# - every row of a governed model (one whose default manager is a RetentionManager,
#   see expiry.py) whose own clock is older than its cutoff: reviews (their answer,
#   facts, imported payload and claims live in the row), annotation items (with the
#   site period, or their project's own period where the project sets one), batch jobs
#   (grounding_app.batch: each line's uploaded answer and result live in its line row);
# - everything that cascades from those rows: annotation items sent from a review,
#   their claims, assignments and labels; a batch job's lines and chunks (a review
#   opened from a line is dated with its job, so it goes in the same purge);
# - admin log entries (django.contrib.admin) that name a governed row that is no
#   longer live, expired or already deleted: their object_repr quotes it.
#
# What is NEVER deleted: users, groups and roles; API keys; the retention settings;
# the purge history (counts only, never content); labeling projects themselves (their
# name and settings; only their items expire); sessions (Django's `clearsessions`
# prunes them); and any row still inside its period. Rows are chosen by age alone,
# never by what they say.
#
# Each batch is its own transaction, so a purge never holds the write lock for long and
# an interrupted purge resumes where it stopped: running it again deletes only what is
# left (idempotent). The history row is written before the first batch and its counts in
# the same transaction as each batch, so a purge killed mid-way (SIGKILL, OOM, a lost
# connection) still leaves a row saying exactly what it deleted, unfinished. On SQLite,
# connections run with `secure_delete` (settings.py), so freed pages are zeroed; the
# write-ahead log still holds the old page images until a checkpoint, so the purge ends
# with `wal_checkpoint(TRUNCATE)`.
"""Delete expired rows in batches and record what was deleted, as counts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from datetime import timedelta

from django.apps import apps
from django.contrib.admin.models import LogEntry
from django.db import connection, models, transaction
from django.utils import timezone

from grounding_app.retention.expiry import (
    expired_by_own_clock,
    policies,
    site_days,
    stale_log_entries,
)
from grounding_app.retention.models import Purge

BATCH_SIZE = 500


def _delete_in_batches(
    rows: models.QuerySet[models.Model], batch_size: int, audit: Purge, deleted: Counter[str]
) -> None:
    """Delete `rows` (cascades included), one transaction per batch of primary keys, each
    also writing the running counts to `audit`; `deleted` holds the committed counts."""
    base = rows.model._base_manager
    while True:
        with transaction.atomic():
            pks = list(rows.values_list("pk", flat=True)[:batch_size])
            if not pks:
                return
            # only("pk"): the collector loads the rows it deletes, and a review's
            # imported payload can be megabytes.
            _, per_model = base.filter(pk__in=pks).only("pk").delete()
            batch = Counter({label: count for label, count in per_model.items() if count})
            counts = deleted + batch
            Purge.objects.filter(pk=audit.pk).update(
                counts=dict(sorted(counts.items())), total=sum(counts.values())
            )
        deleted.update(batch)


def _truncate_wal() -> bool | None:
    """Checkpoint SQLite's write-ahead log into the file and empty it; None elsewhere.

    False when a reader still holds an old snapshot, or when called inside a transaction
    (tests); the next purge tries again.
    """
    if connection.vendor != "sqlite":
        return None
    if connection.in_atomic_block:
        return False
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        busy, _, _ = cursor.fetchone()
    return not busy


def purge_expired(trigger: str = Purge.Trigger.COMMAND, batch_size: int = BATCH_SIZE) -> Purge:
    """Delete everything expired now; return the saved audit row (counts only)."""
    started = timezone.now()
    days = site_days()
    audit = Purge.objects.create(
        started_at=started,
        trigger=trigger,
        retention_days=days,
        cutoff=started - timedelta(days=days),
    )
    deleted: Counter[str] = Counter()
    for policy in policies():
        if policy.date_field is not None:
            expired = policy.model._base_manager.filter(expired_by_own_clock(policy))
            _delete_in_batches(expired, batch_size, audit, deleted)
    _delete_in_batches(LogEntry.objects.filter(stale_log_entries()), batch_size, audit, deleted)
    audit.counts = dict(sorted(deleted.items()))
    audit.total = sum(deleted.values())
    audit.finished_at = timezone.now()
    audit.wal_truncated = _truncate_wal()
    audit.save(update_fields=["counts", "total", "finished_at", "wal_truncated"])
    return audit


def describe_counts(counts: dict[str, int]) -> Iterable[str]:
    """ "3 reviews", "1 log entry": one line per model, in the models' own words."""
    for label, count in counts.items():
        try:
            meta = apps.get_model(label)._meta
            noun = meta.verbose_name if count == 1 else meta.verbose_name_plural
        except LookupError:  # a model removed since the purge ran
            noun = label
        yield f"{count} {noun}"
