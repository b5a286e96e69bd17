"""Concurrent review saves never fail with "database is locked" (WAL, busy timeout and
IMMEDIATE transactions on SQLite; row locks on PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, transaction

from grounding_app.engine import CheckRequest, Fact
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import ReviewFilter

THREADS = 8
SAVES = 10


@pytest.mark.django_db(transaction=True)
def test_eight_threads_save_and_read_reviews_at_once(
    fake_engine: object, make_user: Callable[..., object]
) -> None:
    user = make_user("reviewer")
    start = threading.Barrier(THREADS)
    failures: list[BaseException] = []

    def work(number: int) -> None:
        try:
            start.wait()
            for n in range(SAVES):
                request = CheckRequest(
                    f"Worker {number} saves answer {n}. T is the capital of O.",
                    (Fact("T is the capital of O", {"n": str(n)}),),
                )
                # Read, then write, in one transaction: the pattern that fails at once
                # with "database is locked" when SQLite starts transactions DEFERRED.
                with transaction.atomic():
                    list(services.find_reviews(ReviewFilter(text=f"Worker {number}"))[:5])
                    services.check_and_save(user, request)
        except BaseException as exc:  # reported below, with the thread's number
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert failures == []
    assert Review.objects.count() == THREADS * SAVES
