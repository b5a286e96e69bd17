"""GFM tables in answers: rendered as tables, with claims' markers inside the cells."""

from __future__ import annotations

import re

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, Claim, Fact, split_claims
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.rendering.answer import render_candidate
from grounding_app.rendering.markdown import render_markdown, sentinel
from tests.rendering.test_markdown import at, shown

TABLE = "| Film | Year |\n|:---|:---:|\n| Titanic | 1997 |\n| Avatar | 2009 |"


def _table_html(html: str) -> str:
    match = re.search(r"<table>.*</table>", html, re.S)
    assert match is not None, html
    return match[0]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # Points before a leading pipe or after a trailing one go into the cells.
        ("^| Titanic | 1997 |^", "<td>[0]Titanic</td>\n<td>1997[1]</td>"),
        ("^  Titanic  |  1997  ^", "<td>[0]Titanic</td>\n<td>1997[1]</td>"),
        # A point in the rule row goes to the end of the header's last cell.
        ("| Film | Year |\n^|---|---|^", "<th>Year[0][1]</th>"),
        # Inside a cell a point stays where it is; an escaped pipe stays text.
        ("^| Tit^anic | a \\| b^ |", "<td>[0]Tit[1]anic</td>\n<td>a | b[2]</td>"),
    ],
)
def test_points_on_table_rows_stay_in_the_cells(source: str, expected: str) -> None:
    header = "" if source.startswith("| Film") else "| Film | Year |\n|---|---|\n"
    text, points = at(header + source, "^")
    html = shown(render_markdown(text, points))
    assert "<table>" in html and expected in _table_html(html)
    assert "|---" not in html


def test_a_table_in_a_list_and_crlf_rows_keep_their_points() -> None:
    text, points = at("- ^| a | b |^\r\n  ^|---|---|^\r\n  ^| 1 | 2 |^\r\n", "^")
    html = shown(render_markdown(text, points))
    assert "<li>\n<div" in html
    assert "<th>[0]a</th>\n<th>b[1][2][3]</th>" in html
    assert "<td>[4]1</td>\n<td>2[5]</td>" in html


def test_alignment_is_a_class_and_nothing_else_gets_through() -> None:
    html = render_markdown(
        '| a | b | c |\n|:--|:-:|--:|\n| <script>x</script> | <td style="x">y | [z](javascript:1) |'
    )
    assert '<th class="align-left">a</th>' in html
    assert '<td class="align-center">' in html and '<td class="align-right">' in html
    tags = re.findall(r"<[^>]*>", html)
    assert not any("style" in tag or "script" in tag or "javascript" in tag for tag in tags)
    assert "&lt;script&gt;" in html
    assert html.count('<div class="table-scroll" tabindex="0"') == 1
    assert html.count("</table></div>") == 1


def test_engine_claims_render_as_a_table_with_markers_in_the_cells() -> None:
    answer = f"Cameron's films:\n\n{TABLE}\n\n```\ncode | here\n```"
    claims = tuple(
        Claim(
            s.start,
            s.end,
            s.text,
            s.no_check_reason is None,
            citation_indices=(0,) if s.reading else (),
            no_check_reason=s.no_check_reason,
        )
        for s in split_claims(answer)
    )
    grounded = grounded_from_check(
        CheckRequest(answer, (Fact("Titanic 1997, Avatar 2009."),)),
        CheckResponse(claims, (), 1.0),
    )
    rendered = render_candidate(grounded.candidates[0], 0, markdown=None)
    html = rendered.parts_html[0]
    table = _table_html(html)
    assert [c.text for c in rendered.claims] == [
        "Cameron's films:",
        "| Titanic | 1997 |",
        "| Avatar | 2009 |",
    ]
    # Each row's markers end its last cell, and a claim's text runs through its cells.
    assert len(re.findall(r'1997</span><span class="ann".*?</td>', table, re.S)) == 1
    assert len(re.findall(r'2009</span><span class="ann".*?</td>', table, re.S)) == 1
    assert table.count('class="ann sr-only"') == 2
    assert '<th class="align-left" dir="ltr">Film</th>' in table
    assert '<pre tabindex="0" role="group" aria-label="Code"><code>code | here' in html
    assert not re.search("[\ue000-\uf8ff]", html) and sentinel(0) not in html
