"""A copied sentence with one stretch exchanged for words from elsewhere in the evidence.

"קייט וינסלט ביימה את הסרט" against "ג'יימס קמרון ביים את הסרט. קייט וינסלט כיכבה בו.":
every word of the claim is in the evidence, so counting words says "supported"; read in
order, the claim copies a sentence and puts other words of the evidence in one place.
This reads any language through its profile's word forms (Hebrew sheds its prefixes),
so it serves the claims word matching judges, where no model reads the order.

It fires when the claim follows one evidence sentence word for word except for one
stretch of at most three words: the claim's stretch is found in another sentence of the
evidence (not this one: a word moved within a sentence is most often a paraphrase, "in
Kamakura there are many temples"; nor elsewhere in the claim, where it is only the
aligner's choice of which copy to match), and the sentence's stretch (content words)
is nowhere in the claim. A reordering keeps
the sentence's words, and a synonym is not elsewhere in the evidence; neither fires.
"""

from __future__ import annotations

from collections import Counter
from difflib import SequenceMatcher

from grounding_app.engine.checks import CONTRADICTION, Check, Reading
from grounding_app.engine.lang import Profile, profile
from grounding_app.engine.lang.sentences import sentences as split

_MAX_STRETCH = 3
# Share of the claim's words that follow the sentence in order: a copy, not a new claim.
_COPIED = 0.6
_MIN_COPIED = 3


def _keys(words: list[str], reader: Profile, seen: dict[str, str]) -> list[str]:
    """Each word as the first evidence word it shares a form with, or as itself."""
    out = []
    for word in words:
        forms = sorted(reader.word_forms(word), key=len, reverse=True)
        out.append(next((seen[f] for f in forms if f in seen), word))
    return out


def swapped(claim: str, passages: tuple[str, ...], reader: Profile) -> bool:
    """Whether the claim copies an evidence sentence with one stretch exchanged."""
    seen: dict[str, str] = {}
    sentences = [s for p in passages for s in split(p)]
    for sentence in sentences:
        for word in reader.words(sentence):
            for form in reader.word_forms(word):
                seen.setdefault(form, word)
    claim_keys = _keys(reader.words(claim), reader, seen)
    known = set(seen.values())
    claim_counts = Counter(claim_keys)
    needed = max(_MIN_COPIED, _COPIED * len(claim_keys))
    for sentence in sentences:
        keys = _keys(reader.words(sentence), reader, seen)
        if sum((claim_counts & Counter(keys)).values()) < needed:
            continue
        matcher = SequenceMatcher(None, claim_keys, keys, autojunk=False)
        copied = sum(block.size for block in matcher.get_matching_blocks())
        if copied < needed:
            continue
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "replace" or i2 - i1 > _MAX_STRETCH or j2 - j1 > _MAX_STRETCH:
                continue
            theirs = [k for k in keys[j1:j2] if reader.content_words(k)]
            ours = [k for k in claim_keys[i1:i2] if reader.content_words(k)]
            if (
                theirs
                and ours
                and all(
                    k in known and k not in keys and claim_counts[k] == ours.count(k) for k in ours
                )
                and not any(k in claim_counts for k in theirs)
            ):
                return True
    return False


def _fires(reading: Reading) -> bool:
    return swapped(reading.claim, reading.passages, profile(reading.language))


_FILM = ("ג'יימס קמרון ביים את הסרט טיטניק. קייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו.",)

CHECK = Check(
    "swap",
    CONTRADICTION,
    _fires,
    {
        "he": (
            ("קייט וינסלט ביים את הסרט טיטניק.", _FILM, True),
            ("ג'יימס קמרון ביים את הסרט טיטניק.", _FILM, False),
            ("קייט וינסלט כיכבה בסרט לצד ג'יימס קמרון.", _FILM, True),
            # A word of the same sentence moved to the front: a paraphrase.
            (
                "בקמאקורה יש מספר רב של מקדשי זן.",
                ("השוגונט ייסד מספר רב של מקדשי זן בקמאקורה.",),
                False,
            ),
            ("קייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו.", _FILM, False),
            # Reordered, and with a word the evidence never has: not a swap.
            ("את הסרט טיטניק ביים ג'יימס קמרון.", _FILM, False),
            ("ג'יימס קמרון צילם את הסרט טיטניק.", _FILM, False),
            # Prefixes shed: "ובסרט" is "בסרט".
            ("וקייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו.", _FILM, False),
        ),
    },
)
