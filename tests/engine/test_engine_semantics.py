"""The real engine (bundled encoder, fitted judge) on hand-written cases from SPEC §1."""

from __future__ import annotations

import pytest

from grounding_app.engine import CheckRequest, CheckResponse, Fact, GroundingEngine
from grounding_lab.bench_requests import FILM_FACTS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def engine():
    return GroundingEngine.default()


def run(engine, answer: str, facts=FILM_FACTS, **kwargs) -> CheckResponse:
    return engine.check(
        CheckRequest(answer=answer, facts=tuple(facts), enable_claim_level_score=True, **kwargs)
    )


def supported(response: CheckResponse, index: int) -> bool:
    return bool(response.claims[index].citation_indices)


def cited_sources(response: CheckResponse, index: int) -> set[int]:
    return {response.cited_chunks[i].source for i in response.claims[index].citation_indices}


def test_filler_then_supported_claim(engine):
    r = run(engine, "Here is what I found. Titanic was directed by James Cameron.")
    assert [(c.start, c.end) for c in r.claims] == [(0, 21), (22, 60)]
    assert r.claims[0].grounding_check_required is False
    assert r.claims[0].citation_indices == () and r.claims[0].score is None
    assert supported(r, 1) and 0 in cited_sources(r, 1)
    assert r.support_score is not None and r.support_score > 0.8


def test_half_right_is_wrong(engine):
    r = run(engine, "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet")
    assert supported(r, 0)
    assert not supported(r, 1)
    assert 0.3 < r.support_score < 0.75


def test_half_right_is_wrong_against_one_fact(engine):
    r = run(
        engine,
        "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet",
        facts=FILM_FACTS[:1],
    )
    assert supported(r, 0)
    assert not supported(r, 1)


def test_second_fact_supports_the_death_toll(engine):
    # "1500" against "over 1,500": the judge read them as two numbers (0.18) until both
    # were written without separators.
    r = run(
        engine,
        "Titanic was directed by James Cameron. It was based on the sinking of the RMS"
        " Titanic that led to the death of 1500 people.",
    )
    assert supported(r, 0) and supported(r, 1)
    assert 1 in cited_sources(r, 1)
    assert r.support_score > 0.7


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("It was released in 1997.", True),
        ("It was released in 1975.", False),
        ("It won 11 Academy Awards.", True),
        ("It won 12 Academy Awards.", False),
        ("It stars Kate Winslet and Leonardo DiCaprio.", True),
        ("It stars Kate Winslet and Tom Hanks.", False),
    ],
)
def test_claim_read_in_context_and_partly_true(engine, claim, expected):
    r = run(engine, f"Titanic is a movie directed by James Cameron. {claim}")
    assert supported(r, 1) is expected, r.claims[1]


def test_negation_is_not_support(engine):
    r = run(engine, "Titanic was not directed by James Cameron.")
    assert not supported(r, 0), r.claims[0]


def test_attributes_are_visible_to_the_judge(engine):
    facts = [Fact("Tallinn is the capital of Estonia.", {"author": "Encyclopedia"})]
    plain = run(engine, "Tallinn is the capital of Estonia.", facts)
    by_author = run(engine, "Encyclopedia says Tallinn is the capital of Estonia.", facts)
    by_other = run(
        engine, "The government of Finland says Tallinn is the capital of Estonia.", facts
    )
    assert supported(plain, 0) and supported(by_author, 0)
    assert by_other.claims[0].score < by_author.claims[0].score
    assert plain.cited_chunks[0].source_metadata == {"author": "Encyclopedia"}


def test_support_spread_over_two_facts(engine):
    facts = [
        Fact("The Eiffel Tower was designed by the engineering firm of Gustave Eiffel."),
        Fact("Construction of the Eiffel Tower was completed in March 1889."),
    ]
    r = run(
        engine,
        "The Eiffel Tower was designed by Gustave Eiffel's firm and completed in 1889.",
        facts,
    )
    assert supported(r, 0), r.claims[0]
    assert cited_sources(r, 0) == {0, 1}


def test_cited_chunk_is_a_window_not_the_whole_fact(engine):
    filler = " ".join(f"Paragraph {i} talks about weather in the valley." for i in range(100))
    fact = Fact(filler + " The bridge over the river was opened in 1932 by the mayor. " + filler)
    assert len(fact.text) <= 10_000
    r = run(engine, "The bridge over the river was opened in 1932.", [fact])
    assert supported(r, 0)
    chunk = r.cited_chunks[r.claims[0].citation_indices[0]].chunk_text
    assert "opened in 1932" in chunk and len(chunk) < 200 and chunk in fact.text


def test_support_far_past_the_encoder_limit_is_found(engine):
    filler = " ".join(f"Line {i} of the log lists routine maintenance." for i in range(180))
    fact = Fact(filler + " The reactor was shut down on 4 May 2021 after a coolant leak.")
    r = run(engine, "The reactor was shut down after a coolant leak.", [fact])
    assert supported(r, 0), r.claims[0]


def test_score_only_when_asked(engine):
    r = engine.check(CheckRequest("Titanic was directed by James Cameron.", FILM_FACTS))
    assert r.claims[0].score is None and r.claims[0].citation_indices


def test_threshold_controls_citations(engine):
    strict = run(engine, "Titanic was directed by James Cameron.", citation_threshold=1.0)
    lenient = run(engine, "Titanic is about a ship.", citation_threshold=0.0)
    assert strict.claims[0].citation_indices == ()
    assert lenient.claims[0].citation_indices


def test_no_facts_means_nothing_is_supported(engine):
    r = run(engine, "Titanic was directed by James Cameron.", [])
    assert r.claims[0].citation_indices == () and r.claims[0].score == 0.0
    assert r.support_score == 0.0


def test_empty_answer(engine):
    r = run(engine, "   ")
    assert r.claims == () and r.cited_chunks == () and r.support_score is None


def test_unicode_answers_keep_byte_offsets(engine):
    answer = "טיטאניק הוא סרט. 🎬 Titanic was directed by James Cameron."
    r = run(engine, answer)
    raw = answer.encode()
    for claim in r.claims:
        assert raw[claim.start : claim.end].decode() == claim.text
    assert supported(r, len(r.claims) - 1)
