"""A project's label set: three fixed labels, then the project's extra ones (no Django).

The three fixed labels keep their keys in every project, so exports and the
grounding-schema mapping mean the same everywhere: `supported` is 1, `no_check` is
left out, and every other label (unsupported and every extra label, such as
"partially supported") is 0 — the shared data's rule that partly true is not supported.
Keys 1-9 pick labels on the keyboard, so a project has at most nine.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

SUPPORTED = "supported"
UNSUPPORTED = "unsupported"
NO_CHECK = "no_check"
BASE_LABELS = (
    (SUPPORTED, "Supported"),
    (UNSUPPORTED, "Unsupported"),
    (NO_CHECK, "No check needed"),
)
MAX_LABELS = 9
MAX_NAME_CHARS = 40

_NOT_KEY = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Label:
    key: str  # stored with every label and in exports
    name: str  # shown to people
    shortcut: int  # the digit that picks it


class LabelSetError(ValueError):
    pass


def label_key(name: str) -> str:
    """A stable ASCII key for a label name: "Partially supported" -> "partially_supported"."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    return _NOT_KEY.sub("_", ascii_name.lower()).strip("_")


def build_label_set(extra_names: Iterable[str]) -> tuple[Label, ...]:
    """The fixed labels followed by the extra ones; raises LabelSetError on a bad set."""
    pairs = list(BASE_LABELS)
    for raw in extra_names:
        name = " ".join(raw.split())
        if not name:
            continue
        if len(name) > MAX_NAME_CHARS:
            raise LabelSetError(f"the label {name!r} is longer than {MAX_NAME_CHARS} characters")
        key = label_key(name)
        if not key:
            raise LabelSetError(f"the label {name!r} needs at least one letter or digit")
        if key in {k for k, _ in pairs}:
            raise LabelSetError(f"the label {name!r} is already in the set")
        pairs.append((key, name))
    if len(pairs) > MAX_LABELS:
        raise LabelSetError(
            f"at most {MAX_LABELS - len(BASE_LABELS)} extra labels: keys 1-9 pick labels"
        )
    return tuple(Label(key, name, n) for n, (key, name) in enumerate(pairs, start=1))


def grounding_label(key: str) -> int | None:
    """The shared grounding schema's label for a label key: 1, 0, or None to leave out."""
    if key == SUPPORTED:
        return 1
    if key == NO_CHECK or not key:
        return None
    return 0
