"""UTF-8 byte offset <-> str index mapping (SPEC §1: offsets are bytes, never chars)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding_app.engine.offsets import (
    OffsetError,
    byte_prefix,
    char_index,
    find_lone_surrogate,
    require_utf8,
    slice_bytes,
    utf8_len,
)

utf8_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)))

SAMPLES = {
    "ascii": "Paris is big.",
    "hebrew": "שלום עולם",
    "cjk": "東京は日本",
    "emoji": "I love 🍕!",
    "zwj": "👨\u200d👩\u200d👧 family",
    "combining": "Cafe\u0301",
    "empty": "",
}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", [0]),
        ("ab", [0, 1, 2]),
        ("é", [0, 2]),
        ("aé€🍕b", [0, 1, 3, 6, 10, 11]),
        ("שלום", [0, 2, 4, 6, 8]),
    ],
    ids=["empty", "ascii", "two-byte", "one-to-four-bytes", "hebrew"],
)
def test_byte_prefix_table(text: str, expected: list[int]) -> None:
    assert byte_prefix(text) == expected


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_utf8_len_matches_encode(name: str) -> None:
    text = SAMPLES[name]
    assert utf8_len(text) == len(text.encode("utf-8"))


@pytest.mark.parametrize(
    ("text", "offset", "expected"),
    [
        ("abc", 0, 0),
        ("abc", 3, 3),
        ("aé€🍕b", 1, 1),
        ("aé€🍕b", 3, 2),
        ("aé€🍕b", 6, 3),
        ("aé€🍕b", 10, 4),
        ("aé€🍕b", 11, 5),
    ],
    ids=["start", "end", "before-2byte", "before-3byte", "before-4byte", "before-b", "end-mb"],
)
def test_char_index_table(text: str, offset: int, expected: int) -> None:
    assert char_index(text, offset) == expected
    assert char_index(text, offset, byte_prefix(text)) == expected


@pytest.mark.parametrize(
    ("text", "offset", "reason"),
    [
        ("abc", -1, "out of range"),
        ("abc", 4, "out of range"),
        ("é", 1, "inside"),
        ("🍕", 2, "inside"),
        ("🍕", 5, "out of range"),
    ],
    ids=["negative", "past-end-ascii", "inside-2byte", "inside-4byte", "past-end-mb"],
)
def test_char_index_rejects(text: str, offset: int, reason: str) -> None:
    with pytest.raises(OffsetError, match=reason):
        char_index(text, offset)
    with pytest.raises(OffsetError, match=reason):
        char_index(text, offset, byte_prefix(text))


def test_char_index_rejects_foreign_prefix() -> None:
    with pytest.raises(ValueError, match="prefix"):
        char_index("abc", 1, [0, 1])


@pytest.mark.parametrize("bad", [True, 1.0, "1"], ids=["bool", "float", "str"])
def test_offsets_must_be_integers(bad: object) -> None:
    with pytest.raises(OffsetError, match="not an integer"):
        slice_bytes("abc", bad, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "start", "end", "expected"),
    [
        ("Here is what I found. Titanic", 0, 21, "Here is what I found."),
        ("שלום עולם. זה", 0, 18, "שלום עולם."),
        ("שלום עולם. זה", 19, 23, "זה"),
        ("I love 🍕. It", 7, 11, "🍕"),
        ("東京は日本", 3, 9, "京は"),
        ("abc", 1, 1, ""),
    ],
    ids=["google-example", "hebrew-first", "hebrew-second", "emoji", "cjk", "empty-span"],
)
def test_slice_bytes_table(text: str, start: int, end: int, expected: str) -> None:
    assert slice_bytes(text, start, end) == expected


@pytest.mark.parametrize(
    ("text", "start", "end", "reason"),
    [
        ("abc", 2, 1, "after end offset"),
        ("abc", 0, 9, "end offset 9 is out of range"),
        ("abc", -2, 1, "start offset -2 is out of range"),
        ("é€", 3, 1, "after end offset"),
        ("é€", 1, 5, "start offset 1 falls inside"),
        ("é€", 0, 3, "end offset 3 falls inside"),
        ("é€", 0, 6, "end offset 6 is out of range"),
    ],
    ids=[
        "reversed",
        "end-past",
        "start-negative",
        "reversed-mb",
        "start-inside",
        "end-inside",
        "end-past-mb",
    ],
)
def test_slice_bytes_rejects(text: str, start: int, end: int, reason: str) -> None:
    with pytest.raises(OffsetError, match=reason):
        slice_bytes(text, start, end)


def test_offset_error_is_value_error() -> None:
    assert issubclass(OffsetError, ValueError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", None),
        ("plain", None),
        ("🍕 emoji is fine", None),
        ("a\ud800b", 1),
        ("ok\udfff", 2),
        ("\udc80\ud800", 0),
    ],
    ids=["empty", "ascii", "astral", "high", "low-at-end", "first-of-two"],
)
def test_find_lone_surrogate(text: str, expected: int | None) -> None:
    assert find_lone_surrogate(text) == expected


@pytest.mark.parametrize(
    "call",
    [
        lambda: utf8_len("a\ud800"),
        lambda: byte_prefix("a\ud800"),
        lambda: char_index("a\ud800", 1),
        lambda: slice_bytes("a\ud800", 0, 1),
        lambda: require_utf8("a\ud800"),
    ],
    ids=["utf8_len", "byte_prefix", "char_index", "slice_bytes", "require_utf8"],
)
def test_lone_surrogates_are_rejected(call: object) -> None:
    with pytest.raises(OffsetError, match="lone surrogate U\\+D800"):
        call()  # type: ignore[operator]


@given(utf8_text)
def test_byte_prefix_agrees_with_encode(text: str) -> None:
    prefix = byte_prefix(text)
    assert len(prefix) == len(text) + 1
    for i in range(len(text) + 1):
        assert prefix[i] == len(text[:i].encode("utf-8"))
    assert prefix[-1] == utf8_len(text)


@given(utf8_text)
def test_char_index_round_trips(text: str) -> None:
    prefix = byte_prefix(text)
    for i, offset in enumerate(prefix):
        assert char_index(text, offset) == i
        assert char_index(text, offset, prefix) == i


@given(utf8_text, st.data())
def test_offsets_inside_a_character_raise(text: str, data: st.DataObject) -> None:
    prefix = byte_prefix(text)
    boundaries = set(prefix)
    inside = [b for b in range(prefix[-1]) if b not in boundaries]
    if not inside:
        return
    offset = data.draw(st.sampled_from(inside))
    with pytest.raises(OffsetError, match="inside"):
        char_index(text, offset)
    with pytest.raises(OffsetError, match="inside"):
        char_index(text, offset, prefix)
    with pytest.raises(OffsetError, match="inside"):
        slice_bytes(text, 0, offset)


@given(utf8_text, st.data())
def test_slice_bytes_matches_byte_slicing(text: str, data: st.DataObject) -> None:
    prefix = byte_prefix(text)
    i = data.draw(st.integers(0, len(text)))
    j = data.draw(st.integers(i, len(text)))
    assert slice_bytes(text, prefix[i], prefix[j]) == text[i:j]
    assert text.encode("utf-8")[prefix[i] : prefix[j]].decode("utf-8") == text[i:j]
