"""The real engine on whole answers: a sentence is judged on its own evidence.

Earlier sentences only resolve what a sentence refers to ("It ...", "The tower ...", a
list item after its lead-in); they never lower a sentence that reads alone. Reported: a
sentence copied from a fact scored 0.96 alone and 0.17-0.22 after an unrelated sentence.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    ClaimInContext,
    Encoder,
    Evidence,
    Fact,
    GroundingEngine,
    HashingEncoder,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

FACTS = (
    Fact("The Arc de Triomphe was inaugurated in 1836. It honours those who fought for France."),
    Fact(
        "The Eiffel Tower was completed in 1889 as the centrepiece of the Exposition"
        " Universelle. It is 330 metres tall."
    ),
    Fact("Paris is the capital of France. It holds roughly 2.1 million people."),
    Fact("The Frauenkirche in Dresden was begun in 1726. It was completed in 1743."),
    Fact("Titanic is a 1997 film. The cast includes Kate Winslet and Leonardo DiCaprio."),
)
ARC = "The Arc de Triomphe was inaugurated in 1836."
EIFFEL = "The Eiffel Tower was completed in 1889 as the centrepiece of the Exposition Universelle."


@pytest.fixture(scope="module")
def engine():
    return GroundingEngine.default()


def run(engine: GroundingEngine, answer: str) -> CheckResponse:
    return engine.check(CheckRequest(answer, FACTS, enable_claim_level_score=True))


def score(response: CheckResponse, index: int) -> float:
    value = response.claims[index].score
    assert value is not None
    return value


@pytest.mark.parametrize("sentence", [ARC, EIFFEL])
@pytest.mark.parametrize(
    "before",
    [
        "Paris is the capital of France.",
        "The Louvre is the world's most-visited museum.",
        "Dresden lies on the Elbe. Its old town was rebuilt after 1990.",
    ],
)
def test_a_copied_sentence_scores_as_it_does_alone(engine, sentence, before):
    alone = score(run(engine, sentence), 0)
    whole = run(engine, f"{before} {sentence}")
    assert alone > 0.9
    assert abs(score(whole, len(whole.claims) - 1) - alone) <= 0.02
    assert whole.claims[-1].context_claims == ()


def test_a_list_item_is_not_lowered_by_its_lead_in(engine):
    answer = f"Highlights for a first visit:\n\n- {ARC}\n- {EIFFEL}"
    whole = run(engine, answer)
    assert abs(score(whole, 1) - score(run(engine, ARC), 0)) <= 0.02
    assert abs(score(whole, 2) - score(run(engine, EIFFEL), 0)) <= 0.02


def test_a_wrong_year_in_a_list_item_stays_unsupported(engine):
    answer = (
        "## Paris at a glance\n\nParis is the capital of France.\n\n"
        "Highlights for a first visit:\n\n"
        "- The Arc de Triomphe was inaugurated in 1846.\n"
        f"- {EIFFEL}\n"
    )
    whole = run(engine, answer)
    (item,) = [c for c in whole.claims if "1846" in c.text]
    assert item.score is not None and item.score < 0.3
    assert item.citation_indices == ()


@pytest.mark.parametrize(("year", "supported"), [("1743", True), ("1843", False)])
def test_a_pronoun_is_resolved_by_the_sentence_before(engine, year, supported):
    whole = run(
        engine, f"The Frauenkirche in Dresden was begun in 1726. It was completed in {year}."
    )
    assert (score(whole, 1) >= 0.6) is supported
    assert whole.claims[1].context_claims == (0,)


def test_a_pronoun_is_read_only_with_its_context(engine):
    # Alone, "It was completed in 1743." matches the Frauenkirche's fact; after a sentence
    # about the Eiffel Tower it says the tower was completed in 1743.
    whole = run(engine, "The Eiffel Tower is 330 metres tall. It was completed in 1743.")
    assert score(whole, 1) < 0.6
    assert whole.claims[1].context_claims == (0,)


@pytest.mark.parametrize(("name", "supported"), [("Kate Winslet", True), ("Brad Pitt", False)])
def test_a_fragment_is_read_with_its_lead_in(engine, name, supported):
    whole = run(engine, f"The cast of Titanic includes:\n\n- Leonardo DiCaprio\n- {name}")
    assert (score(whole, 2) >= 0.6) is supported


class _ContextShy:
    """A judge that, like the verifier on transcripts, reads a pronoun's claim lower with
    the sentence before it (0.5) than alone (0.95), and supports a claim only from the
    passage that states it."""

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        out = []
        for claim, evidence in pairs:
            stated = any(claim.claim.split()[-1] in passage for passage in evidence.passages)
            out.append((0.5 if claim.context else 0.95) if stated else 0.01)
        return out


def _fake(answer: str, facts: tuple[Fact, ...]) -> CheckResponse:
    engine = GroundingEngine(HashingEncoder(), _ContextShy())
    return engine.check(CheckRequest(answer, facts, enable_claim_level_score=True))


# In lower case (as summaries and transcripts are written) the context cannot name what
# "she" stands for, so the judge reads "context >> claim", a form it reads lower.


def test_a_pronoun_read_alone_counts_on_the_fact_its_antecedent_rests_on() -> None:
    facts = (Fact("sara glen led the review. she wrote the guidance."),)
    whole = _fake("sara glen led the review. she wrote the guidance.", facts)
    assert score(whole, 1) == pytest.approx(0.95)
    assert whole.claims[1].context_claims == ()


def test_a_pronoun_read_alone_on_another_fact_keeps_its_reading_in_context() -> None:
    facts = (
        Fact("sara glen led the review of the guidance."),
        Fact("tom hale wrote the rules."),
    )
    whole = _fake("sara glen led the review. she wrote the rules.", facts)
    assert score(whole, 1) == pytest.approx(0.5)
    assert whole.claims[1].context_claims == (0,)


def test_a_pronoun_the_context_names_is_read_with_its_name_only() -> None:
    # "She wrote the guidance." after "Sara Glen led the review." is read as "Sara Glen
    # wrote the guidance." (the verifier's reading, `claim_text`): no second reading.
    facts = (Fact("Sara Glen led the review. She wrote the guidance."),)
    whole = _fake("Sara Glen led the review. She wrote the guidance.", facts)
    assert score(whole, 1) == pytest.approx(0.5)
    assert whole.claims[1].context_claims == (0,)
