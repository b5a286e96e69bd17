"""What one speaker of a transcript said, given to another ("marketing thought ..." for the
designer's words): the commonest error of meeting summaries, and one a judge misses, as
it reads what was said and not who said it (the words are all in its window)."""

from __future__ import annotations

from collections.abc import Sequence

from grounding_app.engine.checks import ROLE, Check, Reading
from grounding_app.engine.lang.text import read
from grounding_app.engine.retrieval import turns

# A claim this short ("Bob agreed.") says too little to place in one turn.
MIN_WORDS = 4
# Another speaker's turn holds at least this share of the claim's words, and the named
# speaker's best turn less than half of that share: the words are someone else's.
OTHERS_SHARE = 0.5


def _names(words: Sequence[str], speaker: Sequence[str]) -> bool:
    n = len(speaker)
    return any(tuple(words[i : i + n]) == tuple(speaker) for i in range(len(words) - n + 1))


def _fires(reading: Reading) -> bool:
    """Read in the whole transcript where the pipeline gives it: the turn the claim's
    words come from may lie outside the judge's window."""
    claim = read(reading.claim)
    words = [w.casefold() for w in claim.words]
    for fact in reading.facts or reading.passages:
        spoken = turns(fact)
        speakers = {who: [w.casefold() for w in read(who).words] for who, _ in spoken}
        named = [who for who, name in speakers.items() if name and _names(words, name)]
        # "barry" and "barry hughes" both named: the longer name is the one meant.
        named = [a for a in named if not any(a != b and a in b for b in named)]
        if len(named) != 1:
            continue
        speaker = named[0]
        wanted = set(claim.content_stems) - set(read(speaker).content_stems)
        if len(wanted) < MIN_WORDS:
            continue
        share: dict[str, float] = {}
        for who, said in spoken:
            held = len(wanted & set(read(said).content_stems)) / len(wanted)
            share[who] = max(share.get(who, 0.0), held)
        others = max((v for who, v in share.items() if who != speaker), default=0.0)
        if others >= OTHERS_SHARE and share.get(speaker, 0.0) < others / 2:
            return True
    return False


_ROOF = (
    "alice: The budget is too small for a new roof this year.\n"
    "bob: I think we should repair the old roof instead.\n"
    "alice: The roof leaks every winter, and it will only get worse.\n"
    "bob: Then we ask the council for more money.",
)
_MEETING = (
    "project manager: Let's decide on the case today.\n"
    "industrial designer: Rubber is cheap and it feels soft in the hand.\n"
    "marketing: Young people want bright colours, yellow and red.\n"
    "project manager: So a rubber case in yellow and red?",
)

CHECK = Check(
    "speaker",
    ROLE,
    _fires,
    {
        "en": (
            ("Bob suggested repairing the old roof instead.", _ROOF, False),
            ("Alice suggested repairing the old roof instead.", _ROOF, True),
            ("Alice said the budget was too small for a new roof.", _ROOF, False),
            ("Bob said the budget was too small for a new roof.", _ROOF, True),
            ("Bob wanted to ask the council for more money.", _ROOF, False),
            ("Alice wanted to ask the council for more money.", _ROOF, True),
            # Both named, or none: whose words they are is not the claim's point.
            ("Alice and Bob discussed repairing the old roof.", _ROOF, False),
            ("The old roof should be repaired instead.", _ROOF, False),
            # Too few words to place in one turn.
            ("Alice agreed.", _ROOF, False),
            ("The industrial designer said rubber is cheap and soft.", _MEETING, False),
            ("Marketing said rubber is cheap and soft in the hand.", _MEETING, True),
            ("Marketing said young people want bright colours.", _MEETING, False),
            ("The project manager said young people want bright colours.", _MEETING, True),
            # The speaker's own turn also holds the words: a summary may repeat a question.
            ("The project manager proposed a rubber case in yellow and red.", _MEETING, False),
            # No transcript: a record and prose are not read.
            (
                "Bob said the budget was too small for a new roof.",
                ("Alice said the budget is too small for a new roof this year.",),
                False,
            ),
        ),
    },
)
