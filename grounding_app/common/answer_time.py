"""When an answer was given, read from the line that carries it, so trends count it on
its own day and history can be sent.

Plain Python. A line's object may name its time under one of TIME_KEYS, as an ISO 8601
string (a naive one is UTC) or a number of seconds since the Unix epoch (milliseconds,
microseconds and nanoseconds are told apart by size, as exporters send all four). A time
is accepted from `oldest` to `newest` (the caller sets them: now less the retention
period, now plus a small clock skew); any other, or one that cannot be read, is refused
with a sentence saying why, and the line counts at the time it came instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

TIME_KEYS = ("time", "timestamp")

# Larger than any seconds count before the year 5000: the number is finer than seconds.
_SCALES = ((1e17, 1e9), (1e14, 1e6), (1e11, 1e3))


@dataclass(frozen=True)
class AnswerTime:
    at: datetime | None  # None: none given, or refused
    key: str = ""  # the key it was read from
    problem: str = ""  # why a time given was refused


def _read(value: object) -> datetime | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        seconds = float(value)
        for size, scale in _SCALES:
            if abs(seconds) >= size:
                seconds /= scale
                break
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str) and 0 < len(value) <= 64:
        try:
            found = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
        return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
    return None


def answer_time(data: object, *, oldest: datetime, newest: datetime) -> AnswerTime:
    """The time a line's object gives for its answer, checked against the bounds."""
    if not isinstance(data, dict):
        return AnswerTime(None)
    for key in TIME_KEYS:
        if key not in data:
            continue
        value = data[key]
        found = _read(value)
        shown = str(value)[:64]
        if found is None:
            return AnswerTime(None, key, f'"{key}" ({shown}) is not an ISO 8601 time or epoch')
        if found > newest:
            return AnswerTime(None, key, f'"{key}" ({shown}) is in the future')
        if found < oldest:
            days = (newest - oldest).days
            return AnswerTime(None, key, f'"{key}" ({shown}) is more than {days} days ago')
        return AnswerTime(found, key)
    return AnswerTime(None)
