# ruff: noqa: RUF001, RUF002, RUF003
"""Summary traps (issue 31): a faithful one-sentence summary of a council article, whose
support is spread over sentences far apart, and two wrong ones that every word of the
article seems to support: "unanimously" against a 7–2 vote, and the mayor, who praised
and signed the plan, said to have voted against it.

The real default engine reads them; a fake word judge shows the spread option itself.
"""

from __future__ import annotations

import pytest

from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.evidence import _in_phrases, _keys
from grounding_app.engine.pipeline import GroundingEngine, Settings
from grounding_app.engine.types import CheckRequest, CheckResponse, Fact
from tests.engine.word_judge import WordJudge

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

ARTICLE = (
    "The Riverside City Council on Tuesday approved a $48 million affordable housing plan"
    " by a 7–2 vote after more than three hours of public comment. Mayor Sandra Whitfield,"
    " who proposed the plan in March, praised the vote as the most important step the city"
    " has taken on housing in a generation. The plan will pay for 1,200 affordable"
    " apartments over the next five years. The first buildings are expected to break ground"
    " next spring on city-owned land near the old rail yard. The plan also sets aside $5"
    " million for rent assistance to low-income families. Supporters packed the chamber,"
    ' many holding signs that read "Homes for All." Council members Daniel Reyes and'
    " Patricia Holt voted against the measure, arguing that the city could not afford it."
    " Reyes said the plan relied too heavily on a new bond issue. Holt said she supported"
    " more housing but wanted the state to share the cost. Whitfield signed the measure on"
    " Wednesday morning at a ceremony outside City Hall. Opponents of the bond say they will"
    " collect signatures to put it before voters in November. City staff will report to the"
    " council on the plan's progress every six months."
)


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def run(engine: GroundingEngine, answer: str) -> CheckResponse:
    return engine.check(CheckRequest(answer, (Fact(ARTICLE),), enable_claim_level_score=True))


PARAPHRASED_WORD = (
    "'over the objections of' is the summary's own word for 'voted against': the spread"
    " option is offered only when the article's sentences hold every word of the claim"
    " (evidence._spread), and the window the judge reads without it lacks the signing"
)


# Scores of the engine before this work (4d01997) in the comments.
@pytest.mark.parametrize(
    "summary",
    [
        # 0.075
        "The Riverside City Council approved a $48 million housing plan 7–2, and Mayor"
        " Sandra Whitfield signed it on Wednesday.",
        # 0.078
        "The Riverside City Council approved a $48 million affordable housing plan that"
        " Mayor Sandra Whitfield had proposed, and she signed it on Wednesday.",
        # 0.000
        pytest.param(
            "The Riverside City Council approved a $48 million housing plan 7–2 over the"
            " objections of Daniel Reyes and Patricia Holt, and Mayor Sandra Whitfield, who"
            " praised it, signed it on Wednesday.",
            marks=pytest.mark.xfail(strict=True, reason=PARAPHRASED_WORD),
        ),
    ],
)
def test_a_faithful_summary_is_supported(engine, summary):
    claim = run(engine, summary).claims[0]
    assert claim.score is not None and claim.score >= 0.6, claim


@pytest.mark.parametrize(
    "wrong",
    [
        # 0.841, 0.854, 0.776: "unanimously" against the 7–2 vote
        "The Riverside City Council unanimously approved a $48 million affordable housing plan.",
        "The Riverside City Council unanimously approved a $48 million affordable housing plan"
        " on Tuesday.",
        "The council voted unanimously to approve the $48 million affordable housing plan.",
        # 0.729, 0.849: the mayor praised and signed the plan; two others voted against it
        "Mayor Sandra Whitfield voted against the plan.",
        "Whitfield voted against the plan.",
    ],
)
def test_a_wrong_summary_is_unsupported(engine, wrong):
    claim = run(engine, wrong).claims[0]
    assert claim.score is not None and claim.score < 0.6, claim


# Kept misses. The spread option shows the judge the vote and the signing side by side;
# before it, the engine rejected these only because it never showed the signing sentence
# (it read the faithful summaries at 0.075 and 0.078 too).
OPPOSITE_ACTION = (
    "the verifier reads an action's opposite ('rejected' for 'approved', 'vetoed' or"
    " 'criticised' for 'signed' or 'praised') as support, 0.64-0.80 (vetoed and criticised"
    " 0.69 and 0.64 before this work too), and no check reads verbs' meanings"
)
ONE_WORD_SIGNER = (
    "the verifier reads it at 0.95, and the role check wants a rival doer of two words:"
    " 'Whitfield signed the measure' names her by one; a one-word rival named in full"
    " elsewhere fired on 5 more dev_realistic examples, 2 of them supported"
)


@pytest.mark.parametrize(
    "wrong",
    [
        # No spread option here ("rejected" is no word of the article): the judge's window
        # lacks the signing, as before this work.
        "The Riverside City Council rejected a $48 million housing plan 7–2, and Mayor Sandra"
        " Whitfield signed it on Wednesday.",
        pytest.param(
            "The Riverside City Council approved a $48 million affordable housing plan by a"
            " 7–2 vote, and Mayor Sandra Whitfield vetoed it.",
            marks=pytest.mark.xfail(strict=True, reason=OPPOSITE_ACTION),
        ),
        pytest.param(
            "The Riverside City Council approved a $48 million housing plan 7–2, and Mayor"
            " Sandra Whitfield criticised it.",
            marks=pytest.mark.xfail(strict=True, reason=OPPOSITE_ACTION),
        ),
    ],
)
def test_a_summary_with_the_opposite_action_is_unsupported(engine, wrong):
    claim = run(engine, wrong).claims[0]
    assert claim.score is not None and claim.score < 0.6, claim


@pytest.mark.xfail(strict=True, reason=ONE_WORD_SIGNER)
def test_a_summary_giving_the_signing_to_a_dissenter_is_unsupported(engine):
    wrong = (
        "The Riverside City Council approved a $48 million housing plan 7–2, and Daniel Reyes"
        " signed it on Wednesday."
    )
    claim = run(engine, wrong).claims[0]
    assert claim.score is not None and claim.score < 0.6, claim


SPREAD = "The council approved the plan and the mayor signed it."


def test_support_spread_over_one_article_is_read_together():
    judge = WordJudge()
    # The fact's option shows its one best passage: either half of the claim.
    engine = GroundingEngine(HashingEncoder(), judge, Settings(passages_per_fact=1))
    fact = (
        "The council approved the plan on Tuesday. Critics called it costly."
        " The mayor signed it and smiled."
    )
    response = engine.check(CheckRequest(SPREAD, (Fact(fact),)))
    claim = response.claims[0]
    assert claim.citation_indices, judge.evidence
    assert {response.cited_chunks[i].chunk_text for i in claim.citation_indices} == {
        "The council approved the plan on Tuesday.",
        "The mayor signed it and smiled.",
    }
    # The fact's option, then the spread option, read alone: the sentence between is no
    # part of it.
    assert len(judge.evidence) == 2
    assert (
        judge.evidence[1]
        == "The council approved the plan on Tuesday. The mayor signed it and smiled."
    )


def test_words_picked_one_by_one_from_far_sentences_get_no_spread_option():
    judge = WordJudge()
    engine = GroundingEngine(HashingEncoder(), judge, Settings(passages_per_fact=1))
    fact = (
        "The artist made a gold toilet for the museum. The toilet was installed in a"
        " public bathroom. The museum calls it a luxury. Critics recalled a porcelain urinal"
        " shown in New York in 1917."
    )
    made_up = "A luxury porcelain urinal was installed in a public bathroom in New York."
    engine.check(CheckRequest(made_up, (Fact(fact),)))
    # Only the fact's own option: every word is somewhere in the fact, but "luxury" and
    # "porcelain urinal" come from two sentences into one phrase no sentence says.
    assert len(judge.evidence) == 1, judge.evidence


@pytest.mark.parametrize(
    ("claim", "passages", "expected"),
    [
        # clauses, each from one sentence
        (SPREAD, ["The council approved the plan.", "The mayor signed it."], True),
        (
            "The council approved a $48 million plan and Mayor Whitfield signed it.",
            [
                "The council approved a $48 million plan.",
                "Mayor Sandra Whitfield praised it.",
                "Whitfield signed the measure.",
            ],
            True,
        ),
        # a single word from elsewhere, at either end or inside
        (
            "The council approved the plan on Wednesday.",
            ["The council approved the plan.", "It rained on Wednesday."],
            False,
        ),
        (
            "Luxury porcelain urinals were installed.",
            ["A luxury product.", "A porcelain urinal.", "Toilets were installed."],
            False,
        ),
        # a claim one passage holds whole is one run
        ("The mayor signed it.", ["The mayor signed it."], True),
    ],
)
def test_a_spread_claim_falls_into_phrases_each_passage_holds(claim, passages, expected):
    assert _in_phrases(claim, [_keys(p) for p in passages]) is expected


def test_a_sentence_opening_with_it_holds_the_subject_of_the_one_before():
    judge = WordJudge()
    engine = GroundingEngine(HashingEncoder(), judge, Settings(passages_per_fact=1))
    fact = (
        "Titanic was directed by James Cameron. The film was released in 1997. It won"
        " eleven Academy Awards. Its budget was large. Critics praised the ship scenes."
    )
    engine.check(CheckRequest("The film won eleven Academy Awards.", (Fact(fact),)))
    # "The film" | "(it) won eleven Academy Awards": the spread option joins the two.
    assert any("The film was released" in e and "It won" in e for e in judge.evidence), (
        judge.evidence
    )
