"""Each block of a rendered Markdown answer states its own direction, by most of its
words: a Hebrew list item that opens with a Latin name stays right to left (issue 44,
item 12), on the review page and the labeling page alike."""

from __future__ import annotations

import re

from grounding_app.rendering.answer import labeling_html, markdown_part_html, render_candidate
from tests.rendering.test_answer import candidate, spans_of

HEBREW_LIST = (
    "## שפות תכנות\n\n"
    "- Python היא שפת תכנות פופולרית מאוד.\n"
    "- JavaScript רצה בכל דפדפן.\n"
    "- Rust is a systems language.\n\n"
    "הקוד:\n\n"
    "```\nprint('hello world from a long line of code')\n```"
)
SENTENCES = [
    "Python היא שפת תכנות פופולרית מאוד.",
    "JavaScript רצה בכל דפדפן.",
    "Rust is a systems language.",
]


def _directions(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<(li|h2|p) dir="(\w+)"', html)


EXPECTED = [("h2", "rtl"), ("li", "rtl"), ("li", "rtl"), ("li", "ltr"), ("p", "rtl")]


def test_the_review_page_states_each_blocks_direction() -> None:
    rendered = render_candidate(
        candidate(HEBREW_LIST, spans_of(HEBREW_LIST, SENTENCES)), 0, markdown=True
    )
    assert _directions(rendered.parts_html[0]) == EXPECTED
    assert rendered.parts_dir == ("rtl",)


def test_the_labeling_page_states_each_blocks_direction() -> None:
    spans = []
    for n, sentence in enumerate(SENTENCES, start=1):
        start = HEBREW_LIST.index(sentence)
        spans.append((start, start + len(sentence), n))
    html, markdown = labeling_html(HEBREW_LIST, spans)
    assert markdown
    assert _directions(html) == EXPECTED
    # The claim's own isolate goes the same way as its item.
    assert re.findall(r'class="ann-claim" dir="(\w+)"', html) == ["rtl", "rtl", "ltr"]


def test_markers_and_code_do_not_sway_a_block() -> None:
    # An English score and spoken verdict follow each claim, and the code is English:
    # neither decides the Hebrew paragraph's direction.
    text = "הפקודה `print hello world now` מדפיסה."
    html = markdown_part_html(text, [])
    assert html.startswith('<p dir="rtl">')
    assert markdown_part_html("`only code here`", []).startswith('<p dir="auto">')
