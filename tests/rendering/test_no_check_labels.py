"""A sentence the engine did not check says why on the page, in plain words."""

from __future__ import annotations

from grounding_app.engine import (
    NO_CHECK_REASONS,
    CheckRequest,
    Fact,
    FeatureJudge,
    GroundingEngine,
    HashingEncoder,
)
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.rendering.answer import NO_CHECK_LABELS, render_answer
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS

ANSWER = (
    "## Paris at a glance\n\nParis is the capital of France.\n\nHighlights:\n\n"
    "- The Louvre is a museum.\n\nSee the official city site for opening hours.\n\n"
    "```\nls\n```\n\nHope this helps!"
)


def test_every_reason_has_words() -> None:
    assert set(NO_CHECK_LABELS) == set(NO_CHECK_REASONS)
    assert all(label.endswith(" — not checked") for label in NO_CHECK_LABELS.values())


def test_the_page_says_why_a_sentence_is_not_checked() -> None:
    encoder = HashingEncoder()
    engine = GroundingEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))
    request = CheckRequest(ANSWER, (Fact("Paris is the capital of France."),))
    (candidate,) = render_answer(grounded_from_check(request, engine.check(request)), True)
    labels = {claim.text: claim.verdict_label for claim in candidate.claims}
    assert labels["## Paris at a glance"] == "Heading — not checked"
    assert labels["Highlights:"] == "Introduces what follows — not checked"
    assert labels["See the official city site for opening hours."] == (
        "Pointer to another source — not checked"
    )
    assert labels["Hope this helps!"] == "Sign-off — not checked"
    assert "```\nls\n```" not in labels  # code is drawn as rendered, not as a claim
    html = "".join(candidate.parts_html)
    assert "(Heading — not checked)" in html and "(Sign-off — not checked)" in html
