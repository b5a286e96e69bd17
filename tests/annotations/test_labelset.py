from __future__ import annotations

import pytest

from grounding_app.annotations.labelset import (
    LabelSetError,
    build_label_set,
    grounding_label,
    label_key,
)


def test_fixed_labels_come_first_with_shortcuts() -> None:
    labels = build_label_set(["Partially supported", "  Contradicted  ", ""])
    assert [(lab.key, lab.shortcut) for lab in labels] == [
        ("supported", 1),
        ("unsupported", 2),
        ("no_check", 3),
        ("partially_supported", 4),
        ("contradicted", 5),
    ]
    assert labels[4].name == "Contradicted"


def test_label_keys_are_ascii() -> None:
    assert label_key("Héllo wörld!") == "hello_world"
    assert label_key("Partially-supported") == "partially_supported"


@pytest.mark.parametrize(
    ("names", "message"),
    [
        (["Supported"], "already"),
        (["a", "A"], "already"),
        (["???"], "letter or digit"),
        (["x" * 41], "longer"),
        ([f"extra {n}" for n in range(7)], "at most 6"),
    ],
)
def test_bad_label_sets_are_refused(names: list[str], message: str) -> None:
    with pytest.raises(LabelSetError, match=message):
        build_label_set(names)


def test_grounding_schema_mapping() -> None:
    assert grounding_label("supported") == 1
    assert grounding_label("unsupported") == 0
    assert grounding_label("partially_supported") == 0
    assert grounding_label("no_check") is None
    assert grounding_label("") is None
