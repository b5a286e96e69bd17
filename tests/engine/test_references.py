"""A claim's leading pronoun resolved to the name that opens the sentence before it."""

from __future__ import annotations

import pytest

from grounding_app.engine.lexical import opens_with_pronoun, resolve_reference, stem, subject_stems

NAMES = frozenset(stem(w) for w in ("Malala", "Yousafzai", "Taliban", "Titanic", "Buhari"))

CASES = [
    # capitals: the name phrase that opens the last context sentence
    ("It won 11 awards.", "Titanic is a film.", frozenset(), "Titanic won 11 awards."),
    ("Its budget was huge.", "Titanic is a film.", frozenset(), "Titanic's budget was huge."),
    ("She was shot.", "Cats purr. Malala Yousafzai spoke.", frozenset(),
     "Malala Yousafzai was shot."),
    ("It won.", "It is a film.", frozenset(), None),
    ("The film won.", "Titanic is a film.", frozenset(), None),
    ("It won.", "", frozenset(), None),
    # lower case: the opening words that are the facts' names
    ("she was shot.", "malala yousafzai won a prize.", NAMES, "malala yousafzai was shot."),
    ("her father spoke.", "malala yousafzai won.", NAMES, "malala yousafzai's father spoke."),
    ("it sank in 1912.", "the titanic left southampton.", NAMES, "titanic sank in 1912."),
    ("she was shot.", "malala yousafzai won a prize.", frozenset(), None),
    ("she was shot.", "in 2012 malala yousafzai won.", NAMES, None),
    ("she was shot.", "yesterday she won.", NAMES, None),
    ("the prize was hers.", "malala yousafzai won.", NAMES, None),
]  # fmt: skip


@pytest.mark.parametrize(("claim", "context", "names", "expected"), CASES)
def test_resolve_reference(claim, context, names, expected):
    assert resolve_reference(claim, context, names) == expected


@pytest.mark.parametrize(
    ("sentence", "pronoun", "subject"),
    [
        ("The film was released in 1997.", False, ["film"]),
        ("It won eleven Academy Awards.", True, ["won", "eleven", "academi", "award"]),
        ("Mayor Sandra Whitfield, who proposed the plan, praised it.", False, None),
        ("His plan passed.", True, ["plan", "pass"]),
        ("They joined the council.", True, ["join"]),
        ("The the of.", False, []),
        ("", False, []),
        ("Itself a film.", False, None),
    ],
)
def test_a_sentence_opening_with_a_pronoun_and_the_subject_it_stands_for(
    sentence, pronoun, subject
):
    assert opens_with_pronoun(sentence) is pronoun
    if subject is not None:
        assert subject_stems(sentence) == subject
