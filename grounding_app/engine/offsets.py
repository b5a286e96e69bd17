"""The one place where UTF-8 byte offsets (the wire) meet Python ``str`` indices.

The API speaks UTF-8 byte offsets (SPEC §1, §2, §3); Python slices by code point.
Hebrew, CJK and emoji make the two differ, so every conversion goes through here.

Python strings can hold lone surrogates (U+D800..U+DFFF) that have no UTF-8 form;
every function here rejects them with :class:`OffsetError` rather than guess.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import accumulate

__all__ = [
    "OffsetError",
    "byte_prefix",
    "char_index",
    "find_lone_surrogate",
    "require_utf8",
    "slice_bytes",
    "utf8_len",
]

_SURROGATE = re.compile("[\ud800-\udfff]")


class OffsetError(ValueError):
    """A byte offset (or the text itself) cannot be mapped onto the text.

    A ``ValueError`` so that request validation can turn it into a 400 as is.
    """


def find_lone_surrogate(text: str) -> int | None:
    """Return the char index of the first lone surrogate, or None.

    Such strings cannot be UTF-8 encoded, so callers must reject them up front.
    (A ``str`` never pairs surrogates, so every surrogate code point is lone.)
    """
    match = _SURROGATE.search(text)
    return None if match is None else match.start()


def require_utf8(text: str) -> None:
    """Raise :class:`OffsetError` if ``text`` has no UTF-8 form."""
    index = find_lone_surrogate(text)
    if index is not None:
        raise OffsetError(
            f"character {index} is a lone surrogate U+{ord(text[index]):04X}; "
            "the text cannot be encoded as UTF-8"
        )


def _encode(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        require_utf8(text)
        raise  # pragma: no cover - require_utf8 always raises here


def utf8_len(text: str) -> int:
    """Length of ``text`` in UTF-8 bytes (the unit of every wire offset)."""
    if text.isascii():
        return len(text)
    return len(_encode(text))


def _char_utf8_len(char: str) -> int:
    if char < "\x80":
        return 1
    if char < "\u0800":
        return 2
    if char < "\U00010000":
        return 3
    return 4


def byte_prefix(text: str) -> list[int]:
    """Entry ``i`` is the UTF-8 byte offset of char ``i``; length ``len(text) + 1``.

    Built in one O(n) pass so that many offsets can be mapped with :func:`char_index`.
    """
    if text.isascii():
        return list(range(len(text) + 1))
    require_utf8(text)
    return list(accumulate(map(_char_utf8_len, text), initial=0))


def _check_range(name: str, offset: int, total: int) -> None:
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise OffsetError(f"{name} {offset!r} is not an integer")
    if not 0 <= offset <= total:
        raise OffsetError(f"{name} {offset} is out of range: the text has {total} UTF-8 bytes")


def _inside_char(name: str, offset: int) -> OffsetError:
    return OffsetError(f"{name} {offset} falls inside a multi-byte UTF-8 character")


def _is_continuation(data: bytes, offset: int) -> bool:
    return offset < len(data) and data[offset] & 0xC0 == 0x80


def char_index(text: str, byte_offset: int, prefix: list[int] | None = None) -> int:
    """Map a UTF-8 byte offset to the char index it starts at.

    Pass ``prefix`` (from :func:`byte_prefix`) when mapping many offsets of one text:
    each lookup is then a bisect instead of a re-encode.
    """
    if prefix is not None:
        if len(prefix) != len(text) + 1:
            raise ValueError("prefix was not built from this text")
        _check_range("byte offset", byte_offset, prefix[-1])
        index = bisect_left(prefix, byte_offset)
        if prefix[index] != byte_offset:
            raise _inside_char("byte offset", byte_offset)
        return index
    if text.isascii():
        _check_range("byte offset", byte_offset, len(text))
        return byte_offset
    data = _encode(text)
    _check_range("byte offset", byte_offset, len(data))
    if _is_continuation(data, byte_offset):
        raise _inside_char("byte offset", byte_offset)
    return len(data[:byte_offset].decode("utf-8"))


def slice_bytes(text: str, start: int, end: int) -> str:
    """The text between UTF-8 byte offsets ``start`` and ``end`` (exclusive), validated.

    Rejects rather than repairs bad offsets, since a client sending them has a bug.
    """
    if text.isascii():
        _check_range("start offset", start, len(text))
        _check_range("end offset", end, len(text))
        if start > end:
            raise OffsetError(f"start offset {start} is after end offset {end}")
        return text[start:end]
    data = _encode(text)
    _check_range("start offset", start, len(data))
    _check_range("end offset", end, len(data))
    if start > end:
        raise OffsetError(f"start offset {start} is after end offset {end}")
    if _is_continuation(data, start):
        raise _inside_char("start offset", start)
    if _is_continuation(data, end):
        raise _inside_char("end offset", end)
    return data[start:end].decode("utf-8")
