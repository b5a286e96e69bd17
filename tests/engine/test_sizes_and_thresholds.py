"""Issue 23: scores that hold at the sizes users send and at any citation threshold.

The real default engine (bundled encoder, trained verifier).
"""

from __future__ import annotations

import pytest

from grounding_app.engine.pipeline import ENOUGH_SUPPORT, GroundingEngine
from grounding_app.engine.types import (
    VERIFIER,
    WORD_MATCHING,
    CheckRequest,
    CheckResponse,
    Fact,
)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def stations(n: int) -> tuple[Fact, ...]:
    return tuple(
        Fact(
            f"Station {i} on the northern line opened in {1900 + i} and serves the district"
            f" of Area {i}."
        )
        for i in range(1, n + 1)
    )


def run(engine: GroundingEngine, answer: str, facts, threshold: float = 0.6) -> CheckResponse:
    facts = tuple(Fact(f) if isinstance(f, str) else f for f in facts)
    return engine.check(
        CheckRequest(answer, facts, citation_threshold=threshold, enable_claim_level_score=True)
    )


SIZES = (1, 2, 5, 12, 24, 25, 26, 40, 100, 200)


def test_near_identical_facts_score_the_same_at_every_size(engine):
    # Above 24 passages a lexical prefilter picks what the judge reads. Every claim word
    # is in every passage; only the numbers tell them apart, and they are indexed.
    answer = "Station 1 on the northern line opened in 1901."
    scores = {}
    for n in SIZES:
        (claim,) = run(engine, answer, stations(n)).claims
        assert claim.citation_indices == (0,), (n, claim)
        scores[n] = claim.score
    assert max(scores.values()) - min(scores.values()) < 0.05, scores


@pytest.mark.parametrize("n", [12, 24, 25, 40, 200])
def test_each_claim_finds_its_own_station(engine, n):
    answer = (
        "Station 3 on the northern line opened in 1903. Station 7 on the northern line"
        " opened in 1907. Station 12 on the northern line opened in 1912."
    )
    response = run(engine, answer, stations(n))
    for claim, station in zip(response.claims, (3, 7, 12), strict=True):
        assert claim.score is not None and claim.score > 0.9, (n, claim)
        (chunk,) = (response.cited_chunks[i] for i in claim.citation_indices)
        assert chunk.source == station - 1


def test_a_wrong_year_among_many_stations_stays_unsupported(engine):
    for n in (12, 40, 200):
        (claim,) = run(engine, "Station 7 on the northern line opened in 1917.", stations(n)).claims
        assert claim.citation_indices == () and claim.score is not None and claim.score < 0.3


def test_a_claim_sharing_no_word_with_many_facts_is_still_read(engine):
    # No word in common: the judge reads the facts' openings (and finds no support),
    # instead of the claim being declared unsupported unread with a score of exactly 0.
    (claim,) = run(engine, "The quarterback threw a touchdown.", stations(40)).claims
    assert claim.score is not None and 0.0 < claim.score < 0.3


# --- the threshold decides citations, never scores -----------------------------------

FILM = (
    "Titanic is a 1997 American epic romantic disaster movie directed by James Cameron."
    " The movie won 11 Academy Awards, and was nominated for fourteen total Academy Awards.",
    "James Cameron's Titanic stars Kate Winslet and Leonardo DiCaprio. It was released on"
    " December 19, 1997, and it was the highest-grossing film of its time.",
)
MIXED_ANSWER = (
    "Titanic was directed by James Cameron and released in 1997. It starred Kate Winslet"
    " and Brad Pitt. The movie was nominated for 14 Academy Awards and became the"
    " highest-grossing film of its time. Critics called it a masterpiece."
)


def test_scores_do_not_depend_on_the_citation_threshold(engine):
    responses = [run(engine, MIXED_ANSWER, FILM, t) for t in (0.1, 0.6, 0.9)]
    scores = [[c.score for c in r.claims] for r in responses]
    assert scores[0] == scores[1] == scores[2]
    assert responses[0].support_score == responses[1].support_score
    assert responses[1].support_score == responses[2].support_score
    # ... while what is cited does.
    cited = [sum(bool(c.citation_indices) for c in r.claims) for r in responses]
    assert cited[0] >= cited[1] >= cited[2]


class _ScriptedJudge:
    """Scores the best fact 0.65 and the next 0.95: the early exit must not stop at 0.65."""

    def score(self, pairs, encoder=None):
        return [0.95 if "second" in evidence.text else 0.65 for _, evidence in pairs]


def test_the_early_exit_is_a_constant_not_the_threshold():
    from grounding_app.engine.encoders import HashingEncoder

    engine = GroundingEngine(HashingEncoder(), _ScriptedJudge())
    facts = (
        Fact("Ada Lovelace wrote the first program in the first notes."),
        Fact("Ada Lovelace wrote the first program, the second fact says."),
    )
    scores = {
        t: engine.check(
            CheckRequest(
                "Ada Lovelace wrote the first program.",
                facts,
                citation_threshold=t,
                enable_claim_level_score=True,
            )
        )
        .claims[0]
        .score
        for t in (0.1, 0.6, 0.9)
    }
    assert scores == {0.1: 0.95, 0.6: 0.95, 0.9: 0.95}
    assert ENOUGH_SUPPORT <= 0.95


# --- numbers in another role ----------------------------------------------------------

AWARDS = "The movie won 11 Academy Awards, and was nominated for fourteen total Academy Awards."


@pytest.mark.parametrize(
    ("answer", "supported"),
    [
        ("The movie won 14 Academy Awards.", False),
        ("The movie won fourteen Academy Awards.", False),
        ("The movie was nominated for 14 Academy Awards.", True),
        ("The movie won 11 Academy Awards.", True),
        ("The movie was nominated for 11 Academy Awards.", False),
    ],
)
def test_a_number_given_to_another_role_is_unsupported(engine, answer, supported):
    (claim,) = run(engine, answer, [AWARDS]).claims
    assert bool(claim.citation_indices) is supported, claim


# --- languages ----------------------------------------------------------------------

JORDAN = "נהר הירדן זורם מצפון לדרום ונשפך לים המלח."


def test_hebrew_claims_are_word_matched_and_say_so(engine):
    response = run(engine, "זה מדהים! הירדן נשפך לים המלח.", [JORDAN])
    reaction, claim = response.claims
    assert not reaction.grounding_check_required and reaction.checked_by is None
    assert claim.checked_by == WORD_MATCHING and claim.language == "he"
    assert claim.citation_indices == (0,)


def test_a_mixed_answer_is_judged_claim_by_claim(engine):
    facts = [JORDAN, "The Jordan River flows from north to south into the Dead Sea."]
    response = run(engine, "The Jordan flows into the Dead Sea. הירדן נשפך לים המלח.", facts)
    english, hebrew = response.claims
    assert (english.language, english.checked_by) == ("en", VERIFIER)
    assert (hebrew.language, hebrew.checked_by) == ("he", WORD_MATCHING)
    assert {response.cited_chunks[i].source for i in english.citation_indices} == {1}
    assert {response.cited_chunks[i].source for i in hebrew.citation_indices} == {0}


def test_a_hebrew_claim_with_the_wrong_number_is_unsupported(engine):
    fact = "הסרט יצא לאקרנים בשנת 1997 וזכה ב-11 פרסי אוסקר."
    assert run(engine, "הסרט זכה ב-11 פרסי אוסקר.", [fact]).claims[0].citation_indices
    assert not run(engine, "הסרט זכה ב-14 פרסי אוסקר.", [fact]).claims[0].citation_indices


def test_a_negated_hebrew_claim_is_unsupported(engine):
    fact = "הסרט יצא לאקרנים בשנת 1997 וזכה ב-11 פרסי אוסקר."
    assert not run(engine, "הסרט לא זכה בפרסי אוסקר.", [fact]).claims[0].citation_indices


FILM = (
    "ג'יימס קמרון ביים את הסרט טיטניק, שיצא לאקרנים בשנת 1997. "
    "קייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו."
)


@pytest.mark.parametrize(
    ("answer", "supported"),
    [
        ("ג'יימס קמרון ביים את הסרט טיטניק.", True),
        ("קייט וינסלט כיכבה בסרט לצד ליאונרדו דיקפריו.", True),
        # A name of the fact's other sentence in the copied sentence's place: every word
        # is in the fact, so counting words alone said "supported" (0.89).
        ("קייט וינסלט ביים את הסרט טיטניק.", False),
        ("קייט וינסלט כיכבה בסרט לצד ג'יימס קמרון.", False),
    ],
)
def test_a_hebrew_sentence_copied_with_a_name_swapped_in_is_unsupported(engine, answer, supported):
    (claim,) = run(engine, answer, [FILM]).claims
    assert claim.checked_by == WORD_MATCHING
    assert bool(claim.citation_indices) is supported, claim


TREATY = "הסכם השלום נחתם ב-4 ביולי 1950 בירושלים, אחרי שנה של שיחות."
FIRE = "לפי הדוח, השריפה במפעל נגרמה כנראה מתנור פגום במטבח."


@pytest.mark.parametrize(
    ("answer", "fact", "supported"),
    [
        ("הסכם השלום נחתם ב-04/07/1950.", TREATY, True),
        ("הסכם השלום נחתם ביולי 1950.", TREATY, True),
        ("הסכם השלום נחתם ב-5 ביולי 1950.", TREATY, False),
        ("השריפה במפעל נגרמה כנראה מתנור פגום במטבח.", FIRE, True),
        # The fact hedges what the claim states flatly.
        ("השריפה במפעל נגרמה מתנור פגום במטבח.", FIRE, False),
    ],
)
def test_hebrew_dates_in_other_forms_and_dropped_hedges(engine, answer, fact, supported):
    (claim,) = run(engine, answer, [fact]).claims
    assert claim.checked_by == WORD_MATCHING
    assert bool(claim.citation_indices) is supported, claim
