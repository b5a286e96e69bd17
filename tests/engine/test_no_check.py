# ruff: noqa: RUF001
"""Pieces of an answer that assert nothing are not checked, each with its reason; their
look-alikes that state something are checked. Tables per language and kind, both ways,
then the realistic Markdown answer of issue 43 through the engine."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grounding_app.engine.claims import split_claims
from grounding_app.engine.encoders import Encoder, HashingEncoder
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.lang.sentences import unchecked_reason
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import (
    CODE,
    GREETING,
    HEADING,
    INSTRUCTION,
    LEAD_IN,
    NO_CHECK_REASONS,
    NO_CLAIM,
    POINTER,
    QUESTION,
    SIGN_OFF,
    TABLE_HEADER,
    TABLE_RULE,
    CheckRequest,
    Fact,
)

# (sentence, reason or None for a claim to check), by language and kind.
SENTENCES: dict[str, dict[str, list[tuple[str, str | None]]]] = {
    "en": {
        INSTRUCTION: [
            ("To pull the latest figure yourself, you could call the statistics API:", INSTRUCTION),
            ("To get the current price, check the operator's app.", INSTRUCTION),
            ("If you want the raw data, you can query the endpoint directly.", INSTRUCTION),
            ("Make sure to book ahead.", INSTRUCTION),
            ("Make sure you have a valid ticket.", INSTRUCTION),
            ("Remember to bring your passport.", INSTRUCTION),
            ("Don't forget to validate your ticket.", INSTRUCTION),
            ("Click **Save**.", INSTRUCTION),
            ("Tap the menu icon.", INSTRUCTION),
            ("Try again later.", INSTRUCTION),
            ("Try restarting the app.", INSTRUCTION),
            ("You may want to check the schedule.", INSTRUCTION),
            ("You should check the opening hours before you go.", INSTRUCTION),
            ("You can call the statistics API.", INSTRUCTION),
            ("Run this command daily to back up the database.", INSTRUCTION),
            ("Install the package with pip.", INSTRUCTION),
            ("Check the opening hours before you go.", INSTRUCTION),
            # claims that look like instructions
            ("You can see the Eiffel Tower from the Trocadéro.", None),
            ("You can book tickets online.", None),
            ("You can request a refund within 14 days.", None),
            ("To reach Paris from London, take the Eurostar.", None),
            ("You need to show a passport at the border.", None),
            ("Remember that the Louvre is closed on Tuesdays.", None),
            ("Make sure to book ahead, because the tower sells out in summer.", None),
            ("Try the croissants at Du Pain et des Idées.", None),
            ("Open Championship winners receive the Claret Jug.", None),
            ("Select Committee members were appointed in 1979.", None),
            ("Use Python 3.12.", None),
            ("You can call the museum on 01 40 20 50 50.", None),
            ("Clicking the button saves the file.", None),
        ],
        POINTER: [
            ("See the official city site for opening hours.", POINTER),
            ("For more, visit paris.fr.", POINTER),
            ("For details, see the city's tourism page.", POINTER),
            ("For more information, see https://www.paris.fr/musees.", POINTER),
            ("Check out the official guide.", POINTER),
            ("Refer to the documentation.", POINTER),
            ("More at paris.fr.", POINTER),
            ("See the table below.", POINTER),
            ("See [the museum's website](https://www.louvre.fr).", POINTER),
            ("You can find more details on the official website.", POINTER),
            ("Learn more at example.org.", POINTER),
            # claims that look like pointers
            ("See's Candies was founded in 1921.", None),
            ("You can see the Eiffel Tower from the Trocadéro.", None),
            ("Visit the site of the Bastille, where the prison stood.", None),
            ("Visit the site of the former Bastille prison.", None),
            ("Check out the Louvre, the world's most-visited museum.", None),
            ("See the official site, which lists 130 museums.", None),
            ("See page 12 of the 2023 report.", None),
            ("The official site lists the opening hours.", None),
            ("Seeing the tower at night is free.", None),
        ],
        QUESTION: [
            ("What year was Titanic released?", QUESTION),
            ("Would you like to know more?", QUESTION),
            ("Who directed it？", QUESTION),
            ("Did you know about the sequel?", QUESTION),
            # a question that asserts a statement is checked as that statement
            ("Did you know that the Eiffel Tower was completed in 1889?", None),
            ("The film won 11 Oscars, right?", None),
            ("Paris is the capital of France.", None),
        ],
        GREETING: [
            ("Hi!", GREETING),
            ("Hello,", GREETING),
            ("Hello there.", GREETING),
            ("Sure!", GREETING),
            ("Great question!", GREETING),
            ("Here is what I found.", GREETING),
            ("Here's a summary:", GREETING),
            ("Thanks for asking.", GREETING),
            ("Based on the sources, here is the answer:", GREETING),
            # claims that open like greetings
            ("Hello Kitty is a Japanese character.", None),
            ("Sure, Paris is the capital of France.", None),
            ("Here is a summary of the film that won 11 Oscars in 1998.", None),
            ("Thanks to the treaty, the war ended in 1918.", None),
            ("Great Britain is an island.", None),
        ],
        SIGN_OFF: [
            ("Hope this helps!", SIGN_OFF),
            ("I hope this helps.", SIGN_OFF),
            ("Let me know if you have other questions.", SIGN_OFF),
            ("Feel free to ask if you have any other questions.", SIGN_OFF),
            ("Best regards", SIGN_OFF),
            ("Cheers", SIGN_OFF),
            ("Have a great day!", SIGN_OFF),
            ("Is there anything else I can help you with?", SIGN_OFF),
            # claims that end like sign-offs
            ("Cheers is an American sitcom that ran for 11 seasons.", None),
            ("The hope is that the bridge reopens in 2026.", None),
        ],
        NO_CLAIM: [
            ("That's awesome!", NO_CLAIM),
            ("I agree!", NO_CLAIM),
            ("I'm not sure.", NO_CLAIM),
            ("Sorry, but I don't know.", NO_CLAIM),
            ("In summary", NO_CLAIM),
            ("Yes.", NO_CLAIM),
            ("—", NO_CLAIM),
            ("---", NO_CLAIM),
            # claims
            ("I'm not sure, but it was released in 1997.", None),
            ("That is a great movie.", None),
            ("I love steak!", None),
        ],
    },
    "he": {
        INSTRUCTION: [
            ("כדי לקבל את הנתון העדכני, אפשר לפנות ל-API של הלשכה.", INSTRUCTION),
            ("לחצו על שמירה.", INSTRUCTION),
            ("הקפידו להזמין מראש.", INSTRUCTION),
            ("זכרו להביא דרכון.", INSTRUCTION),
            ("נסו שוב מאוחר יותר.", INSTRUCTION),
            ("ודאו שהכרטיס בתוקף.", INSTRUCTION),
            # claims
            ("אפשר לראות את מגדל אייפל מהטרוקדרו.", None),
            ("כדי להגיע לפריז מלונדון, נוסעים ברכבת יורוסטאר.", None),
            ("הלחיצה על הכפתור שומרת את הקובץ.", None),
            ("זכרו ל-14 יום מראש.", None),
        ],
        POINTER: [
            ("ראו את אתר העירייה.", POINTER),
            ("לפרטים נוספים, בקרו באתר העירייה.", POINTER),
            ("למידע נוסף ראו את המדריך הרשמי.", POINTER),
            ("פרטים נוספים באתר www.paris.fr.", POINTER),
            ("ראו את הטבלה למטה.", POINTER),
            # claims
            ("אתר העירייה מפרט את שעות הפתיחה.", None),
            ("ראו את מגדל אייפל מהטרוקדרו.", None),
            ("ראו את עמוד 12 בדוח 2023.", None),
        ],
        QUESTION: [
            ("מה השעה?", QUESTION),
            ("האם תרצו לדעת עוד?", QUESTION),
            ("פריז היא בירת צרפת.", None),
        ],
        GREETING: [
            ("שלום", GREETING),
            ("שלום!", GREETING),
            ("בשמחה!", GREETING),
            ("שאלה מצוינת!", GREETING),
            ("הנה מה שמצאתי.", GREETING),
            ("תודה רבה.", GREETING),
            # claims
            ("שלום עולם.", None),
            ("שלום עליכם הוא שיר שבת.", None),
        ],
        SIGN_OFF: [
            ("מקווה שזה עוזר!", SIGN_OFF),
            ("בהצלחה!", SIGN_OFF),
            ("להתראות", SIGN_OFF),
            ("אם יש לך עוד שאלות, אשמח לעזור.", SIGN_OFF),
            # claims
            ("בהצלחה היא סדרת טלוויזיה ישראלית.", None),
        ],
        NO_CLAIM: [
            ("זה מדהים!", NO_CLAIM),
            ("אני מסכים!", NO_CLAIM),
            ("אני לא יודע.", NO_CLAIM),
            ("זה מדהים שהנהר זורם לים המלח.", None),
            ("הירדן זורם לים המלח.", None),
        ],
    },
}

SENTENCE_CASES = [
    pytest.param(text, reason, id=f"{language}-{kind}-{i:02d}-{reason or 'claim'}")
    for language, kinds in SENTENCES.items()
    for kind, rows in kinds.items()
    for i, (text, reason) in enumerate(rows)
]


@pytest.mark.parametrize(("text", "reason"), SENTENCE_CASES)
def test_unchecked_reason(text: str, reason: str | None) -> None:
    assert unchecked_reason(text) == reason


def test_every_language_has_cases_both_ways_for_every_kind() -> None:
    for kinds in SENTENCES.values():
        assert set(kinds) == {INSTRUCTION, POINTER, QUESTION, GREETING, SIGN_OFF, NO_CLAIM}
        for kind, rows in kinds.items():
            reasons = {reason for _, reason in rows}
            assert kind in reasons
            assert None in reasons


# (Markdown, [(piece, reason)]): headings and lead-ins, read from the Markdown's blocks.
MARKDOWN: dict[str, list[tuple[str, list[tuple[str, str | None]]]]] = {
    "en": [
        ("## Paris at a glance", [("## Paris at a glance", HEADING)]),
        ("# Paris\n\nParis is big.", [("# Paris", HEADING), ("Paris is big.", None)]),
        ("### Eiffel Tower ###", [("### Eiffel Tower ###", HEADING)]),
        ("Paris\n=====\n\nIt is big.", [("Paris\n=====", HEADING), ("It is big.", None)]),
        ("Paris\n-----\nIt is big.", [("Paris\n-----", HEADING), ("It is big.", None)]),
        # no heading: no space after the hash, a hashtag, escaped, a thematic break
        ("#Paris is big.", [("#Paris is big.", None)]),
        ("The tag #Paris trends.", [("The tag #Paris trends.", None)]),
        ("\\# Paris is big.", [("\\# Paris is big.", None)]),
        ("Paris is big.\n\n---\n\nIt is old.", [
            ("Paris is big.", None), ("---", NO_CLAIM), ("It is old.", None)
        ]),
        # lead-ins to a list, a table and code
        ("Highlights for a first visit:\n\n- The Louvre.", [
            ("Highlights for a first visit:", LEAD_IN), ("- The Louvre.", None)
        ]),
        ("The cast includes:\n- Kate Winslet", [
            ("The cast includes:", LEAD_IN), ("- Kate Winslet", None)
        ]),
        ("Opening years:\n\n| Landmark | Opened |\n|---|---|\n| Eiffel Tower | 1889 |", [
            ("Opening years:", LEAD_IN),
            ("| Landmark | Opened |", TABLE_HEADER),
            ("|---|---|", TABLE_RULE),
            ("| Eiffel Tower | 1889 |", None),
        ]),
        ("The query is:\n\n```sql\nSELECT 1;\n```", [
            ("The query is:", LEAD_IN), ("```sql\nSELECT 1;\n```", CODE)
        ]),
        # a lead-in that says more keeps what its words are
        ("Here's a summary:\n\n- Paris is big.", [
            ("Here's a summary:", GREETING), ("- Paris is big.", None)
        ]),
        ("To list them yourself, you can run the script:\n\n```\nls\n```", [
            ("To list them yourself, you can run the script:", INSTRUCTION),
            ("```\nls\n```", CODE),
        ]),
        # a colon with no list, table or code after it introduces nothing
        ("Paris has three famous museums:\nThe Louvre is one.", [
            ("Paris has three famous museums:", None), ("The Louvre is one.", None)
        ]),
        ("The rule is simple: buy early.", [("The rule is simple: buy early.", None)]),
    ],
    "he": [
        ("## פריז במבט חטוף", [("## פריז במבט חטוף", HEADING)]),
        ("פריז\n====\n\nהיא גדולה.", [("פריז\n====", HEADING), ("היא גדולה.", None)]),
        ("#פריז גדולה.", [("#פריז גדולה.", None)]),
        ("אתרים מומלצים:\n\n- הלובר.", [("אתרים מומלצים:", LEAD_IN), ("- הלובר.", None)]),
        ("שנות פתיחה:\n\n| אתר | שנה |\n|---|---|\n| מגדל אייפל | 1889 |", [
            ("שנות פתיחה:", LEAD_IN),
            ("| אתר | שנה |", TABLE_HEADER),
            ("|---|---|", TABLE_RULE),
            ("| מגדל אייפל | 1889 |", None),
        ]),
        ("לפריז שלושה מוזיאונים מפורסמים:\nהלובר הוא אחד מהם.", [
            ("לפריז שלושה מוזיאונים מפורסמים:", None), ("הלובר הוא אחד מהם.", None)
        ]),
    ],
}  # fmt: skip

MARKDOWN_CASES = [
    pytest.param(text, pieces, id=f"{language}-{i:02d}")
    for language, rows in MARKDOWN.items()
    for i, (text, pieces) in enumerate(rows)
]


@pytest.mark.parametrize(("text", "pieces"), MARKDOWN_CASES)
def test_markdown_pieces_that_are_no_claim(text: str, pieces: list[tuple[str, str | None]]) -> None:
    found = [
        (p.text, p.no_check_reason or unchecked_reason(p.reading or p.text))
        for p in split_claims(text)
    ]
    assert found == pieces


def test_a_lead_in_is_still_read_with_its_items() -> None:
    items = split_claims("Highlights for a first visit:\n\n- The Louvre.\n- The Arc.")
    assert [p.lead_in for p in items] == ["", *["Highlights for a first visit:"] * 2]


PARIS = """## Paris at a glance

Paris is the capital of France. The Eiffel Tower was completed in 1889.

Highlights for a first visit:

- The Louvre is the world's most-visited museum.
- The Arc de Triomphe was inaugurated in 1836.

| Landmark | Opened |
|---|---|
| Eiffel Tower | 1889 |

To pull the latest figure yourself, you could call the statistics API:

```python
requests.get("https://example.org/stats")
```

See the official city site for opening hours.
"""
PARIS_FACTS = (
    Fact("Paris is the capital and largest city of France."),
    Fact("The Eiffel Tower was completed in 1889 for the World's Fair."),
    Fact("The Louvre is the world's most-visited museum."),
    Fact("The Arc de Triomphe was inaugurated in 1836."),
)


class _Scoring:
    """A judge that scores each claim by its length, so that the mean says which claims
    it counts; records what it reads."""

    def __init__(self) -> None:
        self.read: list[str] = []

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        self.read.extend(claim.claim for claim, _ in pairs)
        return [0.5 + (len(claim.claim) % 7) / 20 for claim, _ in pairs]


def test_the_realistic_answer_checks_only_its_claims() -> None:
    judge = _Scoring()
    engine = GroundingEngine(HashingEncoder(), judge)
    request = CheckRequest(PARIS, PARIS_FACTS, enable_claim_level_score=True)
    response = engine.check(request)
    pieces = [(c.text, c.grounding_check_required, c.no_check_reason) for c in response.claims]
    assert pieces == [
        ("## Paris at a glance", False, HEADING),
        ("Paris is the capital of France.", True, None),
        ("The Eiffel Tower was completed in 1889.", True, None),
        ("Highlights for a first visit:", False, LEAD_IN),
        ("- The Louvre is the world's most-visited museum.", True, None),
        ("- The Arc de Triomphe was inaugurated in 1836.", True, None),
        ("| Landmark | Opened |", False, TABLE_HEADER),
        ("|---|---|", False, TABLE_RULE),
        ("| Eiffel Tower | 1889 |", True, None),
        (
            "To pull the latest figure yourself, you could call the statistics API:",
            False,
            INSTRUCTION,
        ),
        ('```python\nrequests.get("https://example.org/stats")\n```', False, CODE),
        ("See the official city site for opening hours.", False, POINTER),
    ]
    unchecked = [c for c in response.claims if not c.grounding_check_required]
    assert all(c.score is None and not c.citation_indices for c in unchecked)
    assert all(c.language is None and c.checked_by is None for c in unchecked)
    assert not any(c.text in judge.read for c in unchecked)
    checked = [c.score for c in response.claims if c.grounding_check_required]
    assert None not in checked
    assert response.support_score == pytest.approx(sum(checked) / len(checked))


def test_every_reason_has_a_lower_case_snake_name() -> None:
    assert len(set(NO_CHECK_REASONS)) == len(NO_CHECK_REASONS)
    assert all(reason.isidentifier() and reason.islower() for reason in NO_CHECK_REASONS)
