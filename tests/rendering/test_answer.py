"""Byte spans -> answer HTML: markers land right after their span, in any script."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grounding_app.engine import utf8_len
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Problem, Segment, Source
from grounding_app.rendering.answer import render_answer, render_candidate


class _Reader(HTMLParser):
    """Text outside annotations (`<sup>`, `.ann`), and that text as it stood at each marker."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.depth = 0  # > 0 while inside an annotation
        self.stack: list[bool] = []
        self.markers: dict[str, str] = {}  # claim anchor -> text before its marker

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        is_ann = tag == "sup" or "ann" in (attributes.get("class") or "").split()
        if tag == "sup" and self.depth == 0:
            self.markers[attributes["data-claim"] or ""] = "".join(self.text)
        self.stack.append(is_ann)
        self.depth += is_ann

    def handle_endtag(self, tag: str) -> None:
        self.depth -= self.stack.pop()

    def handle_data(self, data: str) -> None:
        if self.depth == 0:
            self.text.append(data)


def read(part_html: str) -> _Reader:
    reader = _Reader()
    reader.feed(part_html)
    reader.close()
    assert not reader.stack, "unbalanced tags"
    return reader


def spans_of(text: str, sentences: list[str]) -> list[tuple[int, int]]:
    """UTF-8 byte spans of each sentence in `text`, found in order."""
    spans, at = [], 0
    for sentence in sentences:
        start = text.index(sentence, at)
        at = start + len(sentence)
        spans.append((utf8_len(text[:start]), utf8_len(text[:at])))
    return spans


def candidate(text: str, spans: list[tuple[int, int]], **kwargs: object) -> Candidate:
    sources = (Source(text="chunk", title="T", uri="https://example.com/"),)
    segments = tuple(
        Segment(part=0, start=s, end=e, text="", source_indices=(0,), verdict="supported")
        for s, e in spans
    )
    return Candidate(parts=(text,), segments=segments, sources=sources, **kwargs)


SCRIPTS = {
    "ascii": (
        "Paris is in France. It has 2 million people.",
        ["Paris is in France.", "It has 2 million people."],
    ),
    "hebrew": (
        "ירושלים היא בירת ישראל. היא עיר עתיקה.",
        ["ירושלים היא בירת ישראל.", "היא עיר עתיקה."],
    ),
    "cjk": ("东京是日本的首都。人口很多。", ["东京是日本的首都。", "人口很多。"]),
    "emoji": ("I love 🍕 and 🇮🇹! 👩‍👩‍👧 went too.", ["I love 🍕 and 🇮🇹!", "👩‍👩‍👧 went too."]),
    "combining": (
        "Cafe\u0301 au lait. Nai\u0308ve me.",
        ["Cafe\u0301 au lait.", "Nai\u0308ve me."],
    ),
    "mixed": ("Hello שלום 世界 🌍. End.", ["Hello שלום 世界 🌍.", "End."]),
}


@pytest.mark.parametrize("name", SCRIPTS)
def test_markers_follow_each_sentence(name: str) -> None:
    text, sentences = SCRIPTS[name]
    rendered = render_candidate(candidate(text, spans_of(text, sentences)), 0)
    reader = read(rendered.parts_html[0])
    assert "".join(reader.text) == text
    assert not rendered.problems
    ends = [text[: text.index(s) + len(s)] for s in sentences]
    assert [reader.markers[c.anchor] for c in rendered.claims] == ends
    assert [c.text for c in rendered.claims] == sentences


def test_marker_links_to_its_source_entry() -> None:
    text = "A. B."
    sources = tuple(Source(text=f"s{i}") for i in range(3))
    seg = Segment(part=0, start=0, end=2, text="A.", source_indices=(2, 0), verdict="supported")
    rendered = render_candidate(Candidate(parts=(text,), segments=(seg,), sources=sources), 1)
    part = rendered.parts_html[0]
    assert (
        '<a href="#c1-src-3" class="cite-link">3</a><a href="#c1-src-1" class="cite-link">1</a>'
        in part
    )
    assert [s.anchor for s in rendered.sources] == ["c1-src-1", "c1-src-2", "c1-src-3"]
    assert rendered.sources[2].cited_by == ((1, "c1-claim-1"),)
    assert rendered.sources[1].cited_by == ()


@pytest.mark.parametrize(
    ("text", "start", "end", "message"),
    [
        ("שלום.", 1, 9, "start byte offset 1 falls inside a multi-byte UTF-8 character"),
        ("שלום.", 0, 3, "end byte offset 3 falls inside a multi-byte UTF-8 character"),
        ("東京。", 0, 4, "end byte offset 4 falls inside a multi-byte UTF-8 character"),
        ("🍕 yum.", 2, 9, "start byte offset 2 falls inside a multi-byte UTF-8 character"),
        ("e\u0301x.", 0, 2, "end byte offset 2 falls inside a multi-byte UTF-8 character"),
        ("abc", 0, 4, "end byte offset 4 is out of range: the text has 3 UTF-8 bytes"),
        ("abc", 2, 1, "start offset 2 is after end offset 1"),
    ],
)
def test_bad_offsets_are_reported_not_shifted(
    text: str, start: int, end: int, message: str
) -> None:
    seg = Segment(part=0, start=start, end=end, text="claimed", verdict="unsupported")
    rendered = render_candidate(Candidate(parts=(text,), segments=(seg,)), 0)
    assert rendered.parts_html[0] == html.escape(text)  # nothing marked anywhere
    [problem] = rendered.problems
    assert problem.field == "segment 1"
    assert message in problem.message
    [claim] = rendered.claims
    assert not claim.placed and claim.text == "claimed"


def test_unknown_part_and_source_are_reported() -> None:
    seg = Segment(part=3, start=0, end=1, text="x", source_indices=(5,), verdict="supported")
    rendered = render_candidate(Candidate(parts=("x",), segments=(seg,)), 0)
    messages = [p.message for p in rendered.problems]
    assert any("part 3 does not exist" in m for m in messages)
    assert any("cites source 5, but there are only 0 sources" in m for m in messages)
    assert rendered.claims[0].citations == ()


def test_parser_problems_are_kept_first() -> None:
    given_problem = Problem("candidates[0].groundingSupports[1].segment.endIndex", "too far")
    rendered = render_candidate(Candidate(parts=("x",), problems=(given_problem,)), 0)
    assert rendered.problems == (given_problem,)


def test_overlapping_and_nested_spans_each_get_their_marker() -> None:
    text = "One two three four."
    spans = [(0, 13), (4, 19), (8, 13)]
    rendered = render_candidate(candidate(text, spans), 0)
    reader = read(rendered.parts_html[0])
    assert "".join(reader.text) == text
    assert [reader.markers[c.anchor] for c in rendered.claims] == [text[:13], text, text[:13]]
    assert 'data-claims="c0-claim-1 c0-claim-2 c0-claim-3"' in rendered.parts_html[0]


def test_empty_span_puts_a_marker_at_its_offset() -> None:
    rendered = render_candidate(candidate("ab", [(1, 1)]), 0)
    assert read(rendered.parts_html[0]).markers["c0-claim-1"] == "a"


def test_text_is_escaped_never_interpreted() -> None:
    text = '<script>window.__xss=1</script> & "quotes" <img src=x onerror=alert(1)>.'
    rendered = render_candidate(candidate(text, [(0, utf8_len(text))]), 0)
    part = rendered.parts_html[0]
    assert "<script" not in part and "<img" not in part
    assert "&lt;script&gt;" in part and "&amp;" in part and "&quot;quotes&quot;" in part


def test_verdicts_are_given_in_words() -> None:
    text = "A. B. C. D."
    verdicts = ["supported", "unsupported", "no_check", None]
    segments = tuple(
        Segment(part=0, start=3 * i, end=3 * i + 2, text="", verdict=v, score=0.25 * i)
        for i, v in enumerate(verdicts)
    )
    rendered = render_candidate(Candidate(parts=(text,), segments=segments), 0)
    assert [c.verdict_label for c in rendered.claims] == [
        "Supported",
        "Unsupported",
        "No check needed",
        "Not checkable: no source text",  # no verdict and no citation: not "Cited"
    ]
    assert [c.score_text for c in rendered.claims] == ["0.00", "0.25", "0.50", "0.75"]
    assert (
        '<sup class="ann flag" data-claim="c0-claim-2">unsupported</sup>' in rendered.parts_html[0]
    )
    assert "(No check needed, score 0.50)" in rendered.parts_html[0]
    assert rendered.verdict_counts == {
        "supported": 1,
        "unsupported": 1,
        "no_check": 1,
        "cited": 1,
        "uncited": 0,
    }


def test_sources_list_titles_domains_and_refused_links() -> None:
    sources = (
        Source(title="<Site>", uri="https://news.example.org/a", text="chunk <b>"),
        Source(uri="javascript:alert(1)", title="Bad"),
        Source(fact_index=4, metadata={"author": "Enc"}),
        Source(),
    )
    rendered = render_candidate(Candidate(parts=("x",), sources=sources), 0)
    first, bad, fact, bare = rendered.sources
    assert (first.title, first.domain, first.href) == ("<Site>", "news.example.org", sources[0].uri)
    assert first.text == "chunk <b>"  # escaped by the template, not here
    assert (bad.href, bad.uri) == (None, "javascript:alert(1)")
    assert (fact.title, fact.metadata) == ("Fact 5", (("author", "Enc"),))
    assert bare.title == "Source 4"


def test_attribution_sits_next_to_the_claim() -> None:
    sources = (
        Source(title="Needs credit", uri="https://credit.example/", requires_attribution=True),
        Source(title="Bad link", uri="data:text/html,x", requires_attribution=True),
        Source(title="No credit", uri="https://free.example/"),
    )
    seg = Segment(part=0, start=0, end=2, text="", source_indices=(0, 1, 2))
    rendered = render_candidate(Candidate(parts=("A. B.",), segments=(seg,), sources=sources), 0)
    part = rendered.parts_html[0]
    assert (
        '<span class="ann attribution"><bdi><a href="https://credit.example/" '
        'rel="noopener noreferrer nofollow" target="_blank">Needs credit</a></bdi></span>'
    ) in part
    assert '<span class="link-refused">Bad link (data:text/html,x)</span>' in part
    assert "No credit" not in part
    assert [a.title for a in rendered.claims[0].attributions] == ["Needs credit", "Bad link"]
    assert read(part).markers["c0-claim-1"] == "A."


def test_queries_link_only_to_safe_uris() -> None:
    c = Candidate(
        parts=("x",),
        web_search_queries=("good", "bad", "none"),
        search_suggestion_uris=("https://www.google.com/search?q=good", "javascript:x"),
        search_entry_html=("<div>w</div>", "<div>v</div>"),
    )
    rendered = render_candidate(c, 0)
    assert [(q.text, q.href) for q in rendered.queries] == [
        ("good", "https://www.google.com/search?q=good"),
        ("bad", None),
        ("none", None),
    ]
    assert list(rendered.widget_numbers) == [0, 1]


def test_every_candidate_and_part_is_rendered() -> None:
    grounded = GroundedAnswer(
        format="gemini",
        candidates=(
            Candidate(
                parts=("One.", "Two."),
                segments=(Segment(1, 0, 4, "Two.", (0,), "supported"),),
                sources=(Source(),),
            ),
            Candidate(parts=("Three.",)),
        ),
    )
    first, second = render_answer(grounded)
    assert read(first.parts_html[1]).markers == {"c0-claim-1": "Two."}
    # Sentences nothing cites are listed as such (Gemini lists only what it cites).
    assert [c.text for c in first.claims if c.verdict == "uncited"] == ["One."]
    assert second.index == 1 and [c.text for c in second.claims] == ["Three."]


_texts = st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=40)


@st.composite
def parts_and_spans(draw: st.DrawFn) -> tuple[tuple[str, ...], list[Segment]]:
    parts = tuple(draw(st.lists(_texts, min_size=1, max_size=3)))
    segments = []
    for _ in range(draw(st.integers(0, 6))):
        part = draw(st.integers(0, len(parts) - 1))
        text = parts[part]
        a, b = sorted(draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=2)))
        start, end = utf8_len(text[:a]), utf8_len(text[:b])
        verdict = draw(st.sampled_from(["supported", "unsupported", "no_check", None]))
        segments.append(Segment(part, start, end, "", (0,), verdict))
    return parts, segments


@given(parts_and_spans())
def test_any_text_with_any_valid_spans_keeps_its_text(
    case: tuple[tuple[str, ...], list[Segment]],
) -> None:
    parts, segments = case
    c = Candidate(parts=parts, segments=tuple(segments), sources=(Source(title="<t>"),))
    rendered = render_candidate(c, 0)
    assert not rendered.problems
    for text, part in zip(parts, rendered.parts_html, strict=True):
        reader = read(part)
        assert "".join(reader.text) == text
    for claim, segment in zip(rendered.claims, segments, strict=True):
        text = parts[segment.part]
        end_char = len(text.encode()[: segment.end].decode())
        assert read(rendered.parts_html[segment.part]).markers[claim.anchor] == text[:end_char]


class _Isolates(HTMLParser):
    """Counts claim isolates and the markers found inside and outside them."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[bool] = []  # per open element: is it a claim isolate?
        self.units = 0
        self.markers_inside = 0
        self.markers_outside = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        unit = ("class", "claim-unit") in attrs
        self.units += unit
        if tag == "sup":
            if any(self.stack):
                self.markers_inside += 1
            else:
                self.markers_outside += 1
        self.stack.append(unit)

    def handle_endtag(self, tag: str) -> None:
        self.stack.pop()


@pytest.mark.parametrize(
    ("spans", "units"),
    [
        ([(0, 2), (3, 5)], 2),  # two claims: two isolates
        ([(0, 2), (2, 5)], 2),  # adjacent, no space between: still two
        ([(0, 5), (3, 5)], 1),  # overlapping: one isolate holds both
        ([(0, 5), (0, 2)], 1),
    ],
)
def test_each_claim_and_its_markers_form_one_bidi_isolate(
    spans: list[tuple[int, int]], units: int
) -> None:
    part = render_candidate(candidate("A. B.", spans), 0).parts_html[0]
    isolates = _Isolates()
    isolates.feed(part)
    assert isolates.units == units
    assert (isolates.markers_inside, isolates.markers_outside) == (len(spans), 0)
    assert not isolates.stack


def test_an_override_in_the_answer_stays_inside_its_claim() -> None:
    text = "Paris is big.\u202e Rome is old."
    part = render_candidate(
        candidate(text, spans_of(text, ["Paris is big.\u202e", "Rome is old."])), 0
    )
    html_part = part.parts_html[0]
    # The override's claim text is isolated apart from the markers that follow it.
    assert '<span class="claim-unit" dir="ltr"><span class="claim v-supported"' in html_part
    assert html_part.index("\u202e") < html_part.index("</span>", html_part.index("\u202e"))
    assert (
        html_part.index('\u202e</span><span class="ann" aria-hidden="true">\u2060</span><sup') > 0
    )


def test_parts_and_claims_state_their_own_direction() -> None:
    text = "Jerusalem is in Israel. ירושלים היא בירת ישראל. 42."
    spans = spans_of(text, ["Jerusalem is in Israel.", "ירושלים היא בירת ישראל.", "42."])
    rendered = render_candidate(candidate(text, spans), 0)
    part = rendered.parts_html[0]
    assert [m for m in re.findall(r'class="claim-unit"( dir="\w+")?', part)] == [
        ' dir="ltr"',
        ' dir="rtl"',
        ' dir="auto"',
    ]
    assert rendered.parts == [(part, "ltr")]
    hebrew_first = render_candidate(
        candidate("שלום. Hello.", spans_of("שלום. Hello.", ["שלום.", "Hello."])), 0
    )
    assert hebrew_first.parts_dir == ("rtl",)
