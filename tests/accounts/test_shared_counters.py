"""The database counter store: atomic across connections, expiring, integers only."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import time_machine
from django.contrib.auth import authenticate
from django.core.cache import caches
from django.db import connections
from django.test import RequestFactory

from grounding_app.counters.cache import DatabaseCounterCache
from grounding_app.limits import login_limit

pytestmark = pytest.mark.skipif(
    not isinstance(caches["limits"], DatabaseCounterCache), reason="counters are in Redis"
)


@pytest.mark.django_db(transaction=True)
def test_concurrent_increments_each_get_their_own_number() -> None:
    cache = caches["limits"]
    assert cache.add("k", 0, timeout=60)

    def incr(_: int) -> int:
        try:
            return int(cache.incr("k"))
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=8) as pool:
        numbers = sorted(pool.map(incr, range(40)))
    assert numbers == list(range(1, 41))
    assert cache.get("k") == 40


@pytest.mark.django_db
def test_add_get_incr_and_expiry(time_machine: time_machine.TimeMachineFixture) -> None:
    cache = caches["limits"]
    time_machine.move_to("2030-01-01 12:00:00+00:00", tick=False)
    assert cache.add("w", 0, timeout=10) and not cache.add("w", 5, timeout=10)
    assert cache.incr("w") == 1 and cache.decr("w") == 0
    time_machine.shift(11)
    assert cache.get("w") is None
    with pytest.raises(ValueError):
        cache.incr("w")
    assert cache.add("w", 1, timeout=10)  # an expired counter is replaced
    assert cache.get("w") == 1


@pytest.mark.django_db
def test_a_form_that_does_not_ask_still_has_its_failures_counted(settings) -> None:
    settings.LOGIN_RATE_LIMIT = 5
    request = RequestFactory().post("/elsewhere/", REMOTE_ADDR="198.51.100.4")
    assert authenticate(request, username="nobody", password="wrong") is None
    assert login_limit().hit("198.51.100.4") == 2
