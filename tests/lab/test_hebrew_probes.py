"""The Hebrew probe set: a copy and a one-word swap per sentence, the swap from the paragraph."""

from __future__ import annotations

from grounding_app.engine import profile
from grounding_app.formats.grounding_jsonl import Example, Fact
from grounding_lab.hebrew_probes import probes

HEBREW = profile("he")
PREMISES = [
    "ג'יימס קמרון ביים את הסרט טיטניק בשנת 1997.",
    "קייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו.",
    "הסרט זכה באחד עשר פרסי אוסקר ובהם הסרט הטוב ביותר.",
]


def example(i: int, text: str) -> Example:
    return Example(id=str(i), source="s", facts=(Fact(text),), claim="x", label=0)


def test_each_sentence_gives_a_copy_and_a_swap_from_the_paragraph():
    rows = probes([example(i, t) for i, t in enumerate(PREMISES)])
    copies = [r for r in rows if r["label"] == 1]
    swaps = [r for r in rows if r["label"] == 0]
    assert [r["claim"] for r in copies] == PREMISES
    assert len(swaps) == 3
    paragraph = " ".join(PREMISES)
    for copy, swap in zip(copies, swaps, strict=True):
        assert copy["facts"] == swap["facts"] == [{"text": paragraph}]
        before, after = copy["claim"].split(" "), swap["claim"].split(" ")
        assert len(before) == len(after)
        changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
        assert len(changed) == 1
        donor = swap["meta"]["donor"]
        assert donor in HEBREW.words(paragraph) and donor not in HEBREW.words(copy["claim"])
