"""A Django cache backend for integer counters, kept in the database.

`limits.RateLimit` counts with `add` then `incr`, which must be atomic across processes.
Django's own database cache is not: its `incr` reads, then writes a pickled value. Here
`incr` is one conditional `UPDATE ... SET count = count + delta`, whose row lock makes
concurrent increments queue, and the count is read back in the same transaction, so
each caller sees its own number. Values are integers only; expired rows are deleted
whenever a new counter is added.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.db import IntegrityError, router, transaction
from django.db.models import F
from django.utils import timezone

from grounding_app.counters.models import SharedCounter

_FOREVER = timedelta(days=365 * 100)


class DatabaseCounterCache(BaseCache):
    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)

    def _db(self) -> str:
        return router.db_for_write(SharedCounter)

    def _expires(self, timeout: Any) -> datetime:
        seconds = self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout
        if seconds is None:
            return timezone.now() + _FOREVER
        return timezone.now() + timedelta(seconds=float(seconds))

    def _live(self, key: str, version: int | None) -> Any:
        key = self.make_and_validate_key(key, version)
        return SharedCounter.objects.using(self._db()).filter(key=key, expires__gt=timezone.now())

    def add(
        self,
        key: str,
        value: Any,
        timeout: Any = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> bool:
        full_key = self.make_and_validate_key(key, version)
        now, db = timezone.now(), self._db()
        counters = SharedCounter.objects.using(db)
        fields = {"count": int(value), "expires": self._expires(timeout)}
        with transaction.atomic(using=db):
            if counters.filter(key=full_key, expires__lte=now).update(**fields):
                return True
            try:
                with transaction.atomic(using=db):
                    counters.create(key=full_key, **fields)
            except IntegrityError:
                return False
            counters.filter(expires__lte=now).delete()
        return True

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        count = self._live(key, version).values_list("count", flat=True).first()
        return default if count is None else count

    def set(
        self,
        key: str,
        value: Any,
        timeout: Any = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> None:
        SharedCounter.objects.using(self._db()).update_or_create(
            key=self.make_and_validate_key(key, version),
            defaults={"count": int(value), "expires": self._expires(timeout)},
        )

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with transaction.atomic(using=self._db()):
            live = self._live(key, version)
            if not live.update(count=F("count") + delta):
                raise ValueError(f"Key '{key}' not found.")
            return int(live.values_list("count", flat=True).get())

    def touch(
        self,
        key: str,
        timeout: Any = DEFAULT_TIMEOUT,
        version: int | None = None,
    ) -> bool:
        return bool(self._live(key, version).update(expires=self._expires(timeout)))

    def delete(self, key: str, version: int | None = None) -> bool:
        key = self.make_and_validate_key(key, version)
        return bool(SharedCounter.objects.using(self._db()).filter(key=key).delete()[0])

    def clear(self) -> None:
        SharedCounter.objects.using(self._db()).all().delete()
