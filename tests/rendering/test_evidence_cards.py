"""A claim's evidence card (its passages, numbers and names marked) and the sentences of a
Gemini or agent answer that nothing cites, listed as claims without a citation."""

from __future__ import annotations

from grounding_app.formats.grounded import (
    Candidate,
    FactPassage,
    GroundedAnswer,
    Segment,
    Source,
)
from grounding_app.rendering.answer import passage_html, render_answer


def test_the_claims_numbers_and_names_are_marked_and_the_rest_escaped() -> None:
    out = passage_html("Lagos has 15 million people.", "<b>Lagos</b> has about 15,000,000 people.")
    assert out == (
        '&lt;b&gt;<mark class="ev-mark ev-name" title="A name of the claim">Lagos'
        '<span class="sr-only"> (a name of the claim)</span></mark>&lt;/b&gt; has about '
        '<mark class="ev-mark ev-number" title="A number of the claim">15,000,000'
        '<span class="sr-only"> (a number of the claim)</span></mark> people.'
    )


def test_a_claims_card_holds_its_cited_passages_then_the_fact_passage() -> None:
    answer = "| Lagos | 15 million |"
    segment = Segment(
        0,
        0,
        len(answer),
        answer,
        (0,),
        "supported",
        0.87,
        evidence=FactPassage("About 15 million live there.", 1, "numbers", "Lagos"),
    )
    source = Source(text="Lagos is a city.", fact_index=1, title="Lagos")
    grounded = GroundedAnswer("check_grounding", (Candidate((answer,), (segment,), (source,)),))
    (claim,) = render_answer(grounded)[0].claims
    cited, extra = claim.evidence
    assert (cited.label, cited.anchor, cited.title) == ("Source 1", "c0-src-1", "Lagos")
    assert "ev-name" in cited.html and "ev-number" not in cited.html
    assert (extra.label, extra.anchor) == ("Fact 2", "")
    assert '<mark class="ev-mark ev-number"' in extra.html and "cited passages do not" in extra.note


GEMINI = (
    "Lagos is in Nigeria. It is a port. Lagos holds 15 million people. "
    "Abuja is the capital. Hope this helps!"
)


def _gemini(fmt: str = "gemini") -> GroundedAnswer:
    raw = GEMINI.encode()
    cited = [("Lagos is in Nigeria.", 0), ("Lagos holds 15 million people.", 0)]
    segments = tuple(
        Segment(0, raw.index(t.encode()), raw.index(t.encode()) + len(t), t, (s,)) for t, s in cited
    )
    source = Source(text="Lagos, Nigeria: 15 million people.", title="atlas")
    return GroundedAnswer(fmt, (Candidate((GEMINI,), segments, (source,)),))  # type: ignore[arg-type]


def test_sentences_no_support_covers_are_listed_without_citation_in_text_order() -> None:
    rendered = render_answer(_gemini())[0]
    assert [(c.text, c.verdict_label) for c in rendered.claims] == [
        ("Lagos is in Nigeria.", "Cited"),
        ("It is a port.", "No citation"),
        ("Lagos holds 15 million people.", "Cited"),
        ("Abuja is the capital.", "No citation"),
    ]  # "Hope this helps!" asserts nothing: no claim, as the engine reads it
    assert rendered.verdict_counts["cited"] == 2 and rendered.verdict_counts["uncited"] == 2
    assert 'class="claim v-uncited"' in rendered.parts_html[0]
    assert "(No citation)" in rendered.parts_html[0]
    assert [c.number for c in rendered.claims if c.verdict == "cited"] == [1, 2]


def test_only_citing_formats_list_sentences_without_citation() -> None:
    assert "uncited" in {c.verdict for c in render_answer(_gemini("agent"))[0].claims}
    checked = render_answer(_gemini("check_grounding"))[0]
    assert [c.verdict for c in checked.claims] == ["cited", "cited"]
