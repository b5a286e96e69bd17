"""Second opinion on imported citations: our verifier against the cited sources' text."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from django.test import Client

from grounding_app.engine import CheckRequest, CheckResponse, Claim
from grounding_app.formats.agent import parse_agent
from grounding_app.formats.gemini import parse_gemini
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from grounding_app.reviews.models import Review
from grounding_app.reviews.second_opinion import NO_TEXT, second_opinion
from tests.conftest import check_with

IMPORTS = Path(__file__).resolve().parent.parent / "fixtures" / "imports"


def load(name: str) -> object:
    return json.loads((IMPORTS / name).read_text(encoding="utf-8"))


class FakeCheck:
    """Sentences ending in '.' as claims, each scored from a table; records every request."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores
        self.requests: list[CheckRequest] = []

    def __call__(self, request: CheckRequest) -> CheckResponse:
        self.requests.append(request)
        claims = []
        for match in re.finditer(r"[^\s][^.]*\.", request.answer):
            start = len(request.answer[: match.start()].encode())
            text = match.group()
            claims.append(
                Claim(start, start + len(text.encode()), text, True, (), self.scores.get(text, 0.0))
            )
        return CheckResponse(tuple(claims), (), None)


def test_web_chunks_are_not_checkable_and_the_engine_is_never_asked() -> None:
    check = FakeCheck({})
    (opinion,) = second_opinion(parse_gemini(load("gemini_web_search.json")), check)
    assert opinion.who == "Gemini"
    assert [(s.status, s.note, s.ours, s.theirs_text) for s in opinion.segments] == [
        ("not_checkable", NO_TEXT, None, "0.96"),
        ("not_checkable", NO_TEXT, None, "0.98"),
    ]
    assert check.requests == []


def test_retrieved_context_is_checked_against_its_text_and_disagreement_is_flagged() -> None:
    check = FakeCheck({"Employees may work remotely up to three days per week.": 0.12})
    check.scores["Requests for full-time remote work need approval from a director."] = 0.91
    (opinion,) = second_opinion(parse_gemini(load("gemini_retrieved_context.json")), check)
    first, second = opinion.segments
    assert (first.theirs_text, first.ours_text, first.status) == ("0.97", "0.12", "disagree")
    assert first.note == "ours finds no support"
    assert (second.theirs_text, second.ours_text, second.status) == ("0.94", "0.91", "agree")
    assert (opinion.agree, opinion.disagree, opinion.not_checkable) == (1, 1, 0)
    # Each segment is read against exactly the text of the chunks it cites.
    assert [[f.text for f in r.facts] for r in check.requests] == [
        [
            "Section 2.1: Eligible employees may work remotely for up to three (3) days in each "
            "calendar week."
        ],
        [
            "Section 2.4: Full-time remote arrangements require written approval by a director "
            "or above."
        ],
    ]
    assert check.requests[0].enable_claim_level_score


def test_agent_citations_read_each_segment_after_the_one_before() -> None:
    check = FakeCheck(
        {
            "The Hubble Space Telescope was launched in 1990.": 0.95,
            "It orbits about 540 km above Earth.": 0.3,
        }
    )
    (opinion,) = second_opinion(parse_agent(load("agent_session_output.json")), check)
    assert opinion.who == "Agent"
    first, second = opinion.segments
    assert (first.theirs_text, first.status) == ("cited", "agree")
    # The second segment is checked with the first as context; only its own claim counts.
    assert check.requests[1].answer == (
        "The Hubble Space Telescope was launched in 1990. It orbits about 540 km above Earth."
    )
    assert (second.ours_text, second.status, second.checked_sources) == ("0.30", "disagree", (2, 3))


def _one_segment(sources: tuple[Source, ...], confidence: tuple[float, ...] = ()) -> GroundedAnswer:
    text = "Spain won Euro 2024."
    segment = Segment(0, 0, len(text), text, tuple(range(len(sources))), confidence=confidence)
    return GroundedAnswer("gemini", (Candidate((text,), (segment,), sources),))


@pytest.mark.parametrize(
    ("score", "status"),
    [(0.2, "not_checkable"), (0.8, "agree")],
)
def test_some_sources_without_text_make_a_low_score_not_checkable(
    score: float, status: str
) -> None:
    sources = (
        Source(title="uefa.com", uri="https://uefa.com"),
        Source(text="Spain won Euro 2024."),
    )
    (opinion,) = second_opinion(
        _one_segment(sources, (0.9, 0.8)), FakeCheck({"Spain won Euro 2024.": score})
    )
    (segment,) = opinion.segments
    assert segment.status == status
    if status == "not_checkable":
        assert segment.note.startswith("1 of 2 cited sources have no text")
        assert segment.ours == score  # the number is shown, never replaced by 0.00


def test_low_gemini_confidence_against_our_support_is_flagged_too() -> None:
    (opinion,) = second_opinion(
        _one_segment((Source(text="Spain won Euro 2024."),), (0.3,)),
        FakeCheck({"Spain won Euro 2024.": 0.9}),
    )
    assert opinion.segments[0].status == "disagree"
    assert opinion.segments[0].note == "ours finds support they do not"


def test_check_grounding_answers_get_no_second_opinion() -> None:
    grounded = GroundedAnswer("check_grounding", ())
    assert second_opinion(grounded, FakeCheck({})) == ()


# --- On the review page ----------------------------------------------------------------


def test_review_page_loads_the_second_opinion_after_the_page(
    import_payload: Callable[[str], Review], reviewer_client: Client, fake_engine: object
) -> None:
    review = import_payload((IMPORTS / "gemini_retrieved_context.json").read_text())
    endpoint = f"/reviews/{review.public_id}/second-opinion/"
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert f'hx-get="{endpoint}"' in page and "Gemini 0.97" not in page
    partial = reviewer_client.get(endpoint, headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in partial
    assert re.search(r"Gemini 0\.97 / ours \d\.\d\d", partial)
    # From the cache now: the page shows it at once.
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "hx-get" not in page.split('id="second-opinion-0"')[1][:200]
    assert re.search(r"Gemini 0\.97 / ours \d\.\d\d", page)


def test_without_javascript_the_link_runs_it_and_returns_to_the_review(
    import_payload: Callable[[str], Review], reviewer_client: Client, fake_engine: object
) -> None:
    review = import_payload((IMPORTS / "agent_session_output.json").read_text())
    response = reviewer_client.get(f"/reviews/{review.public_id}/second-opinion/")
    assert response.status_code == 302
    assert response["Location"] == review.get_absolute_url() + "#second-opinion-0"
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert "Agent cited / ours" in page


def test_only_leads_may_run_it(
    import_payload: Callable[[str], Review], make_user: Callable[..., object], fake_engine: object
) -> None:
    review = import_payload((IMPORTS / "agent_session_output.json").read_text())
    client = Client()
    client.force_login(make_user("annotator"))
    assert client.get(f"/reviews/{review.public_id}/second-opinion/").status_code == 403


def test_web_search_review_says_not_checkable_never_unsupported_zero(
    import_payload: Callable[[str], Review], reviewer_client: Client, fake_engine: object
) -> None:
    review = import_payload((IMPORTS / "gemini_web_search.json").read_text())
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert page.count(NO_TEXT) == 2  # nothing to run: shown at once
    assert "ours 0.00" not in page and "Unsupported 0.00" not in page


def test_scores_are_cached_per_review(
    import_payload: Callable[[str], Review],
    reviewer_client: Client,
    fake_engine: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    review = import_payload((IMPORTS / "agent_session_output.json").read_text())
    endpoint = f"/reviews/{review.public_id}/second-opinion/"
    reviewer_client.get(endpoint, headers={"HX-Request": "true"})  # computes and caches

    def refuse(request: CheckRequest) -> CheckResponse:
        raise AssertionError("the engine ran again")

    check_with(monkeypatch, refuse)
    assert "Agent cited / ours" in reviewer_client.get(review.get_absolute_url()).content.decode()
    partial = reviewer_client.get(endpoint, headers={"HX-Request": "true"}).content.decode()
    assert "Agent cited / ours" in partial
