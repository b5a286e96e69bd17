"""A Markdown answer checked by the real engine, in Chromium (issue 43): its heading,
lead-in, instruction and pointer shown as not checked with their reasons in words, its
code block and table rendered and kept out of the claims, a wrong year unsupported, the
true sentences supported and the support summary counting checked claims only; light and
dark, phone and desktop, no sideways scroll, no serious axe violation (slow: `-m slow`;
writes var/shots/markdown-answer-*.png)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from playwright.sync_api import Page

from grounding_app.engine import CheckRequest, Fact
from grounding_app.reviews import services
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHOTS = Path(__file__).resolve().parents[2] / "var" / "shots"

ANSWER = """## Paris at a glance

Paris is the capital of France. The Eiffel Tower was completed in 1889.

Highlights for a first visit:

- The Louvre is the world's most-visited museum.
- The Arc de Triomphe was inaugurated in 1846.

| Landmark | Opened |
|---|---|
| Eiffel Tower | 1889 |

To pull the latest figure yourself, you could call the statistics API:

```python
requests.get("https://example.org/stats")
```

See the official city site for opening hours. It opened in 1889.
"""
FACTS = (
    Fact("Paris is the capital of France. It holds roughly 2.1 million people."),
    Fact(
        "The Eiffel Tower was completed in 1889 as the centrepiece of the Exposition "
        "Universelle. It is 330 metres tall."
    ),
    Fact("The Louvre is the world's most-visited museum, with 8.7 million visitors in 2023."),
    Fact("The Arc de Triomphe was inaugurated in 1836."),
)
NOT_CHECKED = {
    "Paris at a glance": "Heading — not checked",
    "Highlights for a first visit:": "Introduces what follows — not checked",
    "To pull the latest figure yourself": "Instruction to the reader — not checked",
    "See the official city site for opening hours.": "Pointer to another source — not checked",
}
TRUE = (
    "Paris is the capital of France.",
    "The Eiffel Tower was completed in 1889.",
    "The Louvre is the world's most-visited museum.",
    "| Eiffel Tower | 1889 |",
)
WRONG = "The Arc de Triomphe was inaugurated in 1846."


def _rows(page: Page) -> dict[str, tuple[str, str, str]]:
    """Each claims-table row by its claim's first line: (row class, verdict in words,
    score shown)."""
    found: list[list[str]] = page.evaluate(
        """() => [...document.querySelectorAll('table.claims tr.claim-row')].map((r) => [
            r.querySelector('.claim-text').innerText.split('\\n')[0].replace(/Copy$/, '')
                .trim(),
            r.className,
            r.querySelector('.verdict .badge').innerText,
            r.querySelector('.score .score-tag')?.innerText ?? ''])"""
    )
    return {text: (classes, verdict, score) for text, classes, verdict, score in found}


def _assert_shown(page: Page) -> None:
    """What the screenshots are there to show, on the page as it is now."""
    answer = page.locator(".answer-md")
    heading = answer.locator("h2", has_text="Paris at a glance")
    assert heading.locator(".claim.v-no_check").count() == 1
    for text, label in NOT_CHECKED.items():
        spoken = answer.locator("span.claim.v-no_check", has_text=text).locator(
            "xpath=following-sibling::span[contains(@class, 'sr-only')][1]"
        )
        assert spoken.inner_text() == f"({label})", text
    table = answer.locator(".table-scroll > table")
    assert table.locator("thead th").all_inner_texts() == ["Landmark", "Opened"]
    assert table.locator("tbody tr").count() == 1
    code = answer.locator("pre code.language-python")
    assert code.inner_text().strip() == 'requests.get("https://example.org/stats")'
    assert code.locator(".claim").count() == 0

    rows = _rows(page)
    claims = page.locator("table.claims tbody").inner_text()
    for layout in ("| Landmark", "|---", "```", "requests.get"):
        assert layout not in claims, f"{layout!r} is listed as a claim"
    for text, label in NOT_CHECKED.items():
        (row,) = [r for t, r in rows.items() if t.startswith(text)]
        assert "v-no_check" in row[0] and row[1] == label and row[2] == "", text
    assert "v-unsupported" in rows[WRONG][0] and rows[WRONG][1] == "Unsupported"
    wrong = page.locator("table.claims tr.claim-row.v-unsupported")
    assert wrong.locator(".unsupported-word").all_inner_texts() == ["1846"]
    assert wrong.locator(".context-note").inner_text() == (
        "Read with “Highlights for a first visit:”"
    )
    for text in TRUE:
        assert rows[text][1] == "Supported", text

    # The summary counts checked claims only: the score is their mean, the badges add
    # up to the table's rows, the pieces not checked counted apart.
    checked = [float(score) for _, _, score in rows.values() if score]
    counts = page.locator(".counts").inner_text()
    supported = sum(r[1] == "Supported" for r in rows.values())
    assert f"{supported} supported" in counts and "1 unsupported" in counts
    assert f"{len(rows) - len(checked)} no check needed" in counts
    assert len(checked) == supported + 1
    shown = float(page.locator(".support-value").inner_text())
    assert abs(shown - sum(checked) / len(checked)) < 0.01


def test_a_markdown_answer_shows_what_is_not_checked_and_why(
    open_session: Callable[..., Session], fresh_checker: object
) -> None:
    """With the real engine: this is the product's behaviour on a realistic answer."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    session = open_session(name="marguerite")
    review = services.check_and_save(session.user, CheckRequest(ANSWER, FACTS, 0.6, True))
    page = session.page
    problems: list[str] = []
    for scheme in ("light", "dark"):
        for width in (375, 1280):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            session.goto(review.get_absolute_url())
            page.wait_for_load_state("networkidle")
            _assert_shown(page)
            where = f"{scheme} {width}"
            problems += [f"{where}: {p}" for p in widths_problems(page)]
            problems += [f"{where}: {v}" for v in violations(page)]
            page.wait_for_timeout(300)  # colour transitions end before the shot
            page.screenshot(
                path=str(SHOTS / f"markdown-answer-{scheme}-{width}.png"), full_page=True
            )
    assert not problems, "\n".join(problems)
    session.no_xss()
