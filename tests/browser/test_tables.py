"""An answer with a GFM table, a list and code, checked by the engine: the table renders
as a table with citations in its cells, light and dark, phone and desktop; no rule row or
code fence is a claim (slow: `-m slow`; writes docs/img/review-table-*.png).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services
from tests.browser.conftest import Session
from tests.browser.test_axe import violations
from tests.browser.test_widths import widths_problems

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

ANSWER = """James Cameron directed these films:

| Film | Year | Box office | Main cast |
|:-----|:----:|-----------:|:----------|
| **Titanic** | 1997 | $2.264 billion | Kate Winslet, Leonardo DiCaprio |
| Avatar | 2009 | $2.923 billion | Sam Worthington, Zoe Saldana |
| The Terminator | 1984 | $78.4 million | Arnold Schwarzenegger |

Titanic's cast includes:

- Kate Winslet
- Leonardo DiCaprio
- Brad Pitt

To list them in Python:

```python
films = ["Titanic", "Avatar"]
print(" | ".join(films))
```
"""
FACTS = (
    Fact(
        "Film: Titanic; Year: 1997; Box office: $2.264 billion; Main cast: Kate Winslet, "
        "Leonardo DiCaprio. Titanic is a 1997 film directed by James Cameron.",
        {"author": "Film database"},
    ),
    Fact(
        "Film: Avatar; Year: 2009; Box office: $2.923 billion; Main cast: Sam Worthington, "
        "Zoe Saldana. Avatar is a 2009 film directed by James Cameron.",
        {"author": "Film database"},
    ),
    Fact(
        "Titanic's cast includes Kate Winslet and Leonardo DiCaprio.",
        {"author": "Simple Wikipedia"},
    ),
)


def test_a_table_list_and_code_render_as_written(
    open_session: Callable[..., Session], fake_engine: GroundingEngine
) -> None:
    IMG.mkdir(parents=True, exist_ok=True)
    session = open_session(name="tabitha")
    review = services.check_and_save(session.user, CheckRequest(ANSWER, FACTS, 0.6, True))
    page = session.page
    problems: list[str] = []
    for scheme in ("light", "dark"):
        for width in (375, 1280):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": 900})
            session.goto(review.get_absolute_url())
            page.wait_for_load_state("networkidle")
            answer = page.locator(".answer-md")
            table = answer.locator(".table-scroll > table")
            assert table.count() == 1
            headers = table.locator("thead th").all_inner_texts()
            assert headers == ["Film", "Year", "Box office", "Main cast"]
            assert table.locator("tbody tr").count() == 3
            assert table.locator("td sup.cite").count() >= 1, "a citation in a cell"
            assert table.locator("td .claim").count() >= 4
            assert answer.locator("ul > li").count() == 3
            assert answer.locator("pre code").inner_text().startswith("films = ")
            claims = page.locator("table.claims tbody").inner_text()
            assert "---" not in claims and "```" not in claims and "| Film |" not in claims
            assert "Titanic | 1997" in claims
            lead_in = page.locator(
                ".answer-md .claim.v-unsupported", has_text="To list them in Python"
            )
            assert lead_in.count() == 0, "a line introducing the code is no claim"
            problems += [f"{scheme} {width}: {p}" for p in widths_problems(page)]
            problems += [f"{scheme} {width}: {v}" for v in violations(page)]
            page.wait_for_timeout(300)  # colour transitions end before the shot
            answer.screenshot(path=str(IMG / f"review-table-{scheme}-{width}.png"))
            scroller = answer.locator(".table-scroll")
            assert scroller.get_attribute("tabindex") == "0"
            wider = scroller.evaluate("(e) => e.scrollWidth > e.clientWidth")
            assert wider == (width == 375), "the table scrolls in its box on a phone only"
    assert not problems, "\n".join(problems)
    session.no_xss()
