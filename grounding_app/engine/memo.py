"""Memos of pure per-text readings that outlive a request.

Facts come back request after request (a RAG system's sources), and reading a long
fact's words or index tokens again costs as much as the first time. Each memo is
bounded (least recently used out first); `clear_text_caches` empties them all, for
a profile of facts seen the first time (`lab/profile_bench.py --cold`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any, TypeVar

Reading = TypeVar("Reading", bound=Callable[..., Any])

_MEMOS: list[Any] = []
_CLEARS: list[Callable[[], None]] = []


def text_memo(maxsize: int) -> Callable[[Reading], Reading]:
    """lru_cache, registered for `clear_text_caches`: only for functions of text alone
    whose result is immutable (a frozenset, a tuple), as callers share it."""

    def wrap(function: Reading) -> Reading:
        cached = lru_cache(maxsize=maxsize)(function)
        _MEMOS.append(cached)
        return cached  # type: ignore[return-value]

    return wrap


def on_clear(clear: Callable[[], None]) -> None:
    """Register a memo of another shape (`lang.text`'s readings) with `clear_text_caches`."""
    _CLEARS.append(clear)


def clear_text_caches() -> None:
    for memo in _MEMOS:
        memo.cache_clear()
    for clear in _CLEARS:
        clear()
