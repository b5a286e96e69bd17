"""Engine mechanics with a fast fake encoder: retrieval, evidence, citations, chunks."""

from __future__ import annotations

import logging

import pytest

from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.judges import FEATURE_NAMES, ClaimInContext, Evidence, FeatureJudge
from grounding_app.engine.lexical import content_stems
from grounding_app.engine.pipeline import GroundingEngine, is_bookkeeping
from grounding_app.engine.retrieval import (
    DENSE_ONLY_LIMIT,
    MAX_PASSAGE_WORDS,
    PassageIndex,
    bm25_tokens,
    split_fact,
)
from grounding_app.engine.types import CheckRequest, Fact
from tests.engine.realistic import (
    CJK_CASES,
    OFF_TOPIC_ANSWER,
    OFF_TOPIC_FACTS,
    VOLCANO_SENTENCES,
    cjk_request,
    json_fact_request,
    off_topic_request,
)

# cos_claim, cos_in_context, coverage, full_coverage, missing number, names, negation, words
WEIGHTS = (6.0, 0.0, 4.0, 1.0, -6.0, -3.0, -3.0, 0.0)


@pytest.fixture
def engine() -> GroundingEngine:
    encoder = HashingEncoder()
    return GroundingEngine(encoder, FeatureJudge(encoder, WEIGHTS, bias=-7.0))


def test_split_fact_keeps_exact_offsets_and_cuts_long_sentences():
    long_sentence = "Long " + " ".join(f"w{i}" for i in range(149)) + "."
    text = f"Short one. {long_sentence} Last ünïcode sentence 🎉."
    passages = split_fact(3, text)
    assert all(p.fact == 3 and text[p.start : p.end] == p.text for p in passages)
    assert all(len(p.text.split()) <= MAX_PASSAGE_WORDS for p in passages)
    assert len(passages) == 1 + 3 + 1
    assert passages[-1].text == "Last ünïcode sentence 🎉."


def test_small_requests_skip_the_lexical_prefilter():
    index = PassageIndex([Fact("One. Two. Three.")])
    assert index.candidates(["anything"], k=1) == [[0, 1, 2]]


def test_prefilter_finds_the_matching_passage_among_many():
    sentences = [f"Filler sentence number {i} about gardens." for i in range(DENSE_ONLY_LIMIT * 2)]
    sentences.insert(40, "The submarine cable reached Lisbon in 1870.")
    index = PassageIndex([Fact(" ".join(sentences))])
    (hits,) = index.candidates(["When did the submarine cable reach Lisbon?"], k=3)
    assert index.passages[hits[0]].text.startswith("The submarine cable")
    # A query that shares no word with any passage gets every fact's opening, for the
    # encoder to rank and the judge to read (no claim is unsupported unread).
    assert index.candidates(["", "zzzz unknownword"], k=3) == [index.openings] * 2
    assert index.openings == [0]


@pytest.mark.parametrize("make", [off_topic_request, json_fact_request], ids=["off-topic", "json"])
def test_claim_the_prefilter_finds_nothing_for_is_read_and_unsupported(engine, make):
    response = engine.check(make())
    (claim,) = response.claims
    assert claim.grounding_check_required
    assert claim.citation_indices == () and claim.score is not None and 0.0 < claim.score < 0.1
    assert response.cited_chunks == ()


def test_claim_without_candidates_beside_one_with_them(engine):
    # The off-topic claim comes first: after the volcano it would be read in its context.
    answer = f"{OFF_TOPIC_ANSWER} {VOLCANO_SENTENCES[4]}"
    request = CheckRequest(answer, OFF_TOPIC_FACTS, enable_claim_level_score=True)
    missing, found = engine.check(request).claims
    assert found.citation_indices != ()
    assert missing.citation_indices == () and missing.score is not None and missing.score < 0.1


def test_bm25_tokens_cut_cjk_runs_into_bigrams():
    assert bm25_tokens("東京タワー・電波塔") == ["東京", "京タ", "タワ", "ワー", "電波", "波塔"]
    assert bm25_tokens("서울은 한국의 수도") == ["서울", "울은", "한국", "국의", "수도"]
    assert bm25_tokens("猫 and 犬") == ["猫", "犬"]
    assert bm25_tokens("iPhone発売") == ["iphon", "発売"]
    latin = "The submarine cable's three ends reached Lisbon, not Porto, in 1870."
    assert bm25_tokens(latin) == [*content_stems(latin), "#1870", "#3"]
    # Hebrew words are indexed with their prefixes shed too.
    assert bm25_tokens("ובבית הספר") == ["ובבית", "הספר", "בבית", "בית", "ספר"]


@pytest.mark.parametrize("language", sorted(CJK_CASES))
def test_prefilter_finds_cjk_paraphrases_by_shared_bigrams(language):
    request = cjk_request(language)
    index = PassageIndex(request.facts)
    assert len(index.passages) > DENSE_ONLY_LIMIT
    (hits,) = index.candidates([request.answer], k=4)
    assert hits and index.passages[hits[0]].text == CJK_CASES[language][1]


def test_same_supporting_passage_is_one_chunk(engine):
    facts = (Fact("The lighthouse stands on Pharos island. It was built in 280 BC."),)
    answer = "The lighthouse stands on Pharos island. The lighthouse stands on Pharos island!"
    r = engine.check(CheckRequest(answer, facts))
    assert r.claims[0].citation_indices == r.claims[1].citation_indices != ()
    assert len(r.cited_chunks) == 1
    assert r.cited_chunks[0].chunk_text == "The lighthouse stands on Pharos island."


def test_citations_point_into_cited_chunks(engine):
    facts = tuple(Fact(f"Fact {i}: the river {i} flows north to the sea.") for i in range(30))
    answer = " ".join(f"The river {i} flows north to the sea." for i in range(0, 30, 3))
    r = engine.check(CheckRequest(answer, facts, enable_claim_level_score=True))
    assert len(r.claims) == 10
    for claim in r.claims:
        assert all(0 <= i < len(r.cited_chunks) for i in claim.citation_indices)
        assert claim.score is not None
    assert all(c.source < len(facts) for c in r.cited_chunks)


def test_wrong_number_is_held_against_the_claim(engine):
    facts = (Fact("The bridge opened in 1932."),)
    good = engine.check(
        CheckRequest("The bridge opened in 1932.", facts, enable_claim_level_score=True)
    )
    bad = engine.check(
        CheckRequest("The bridge opened in 1933.", facts, enable_claim_level_score=True)
    )
    assert good.claims[0].score > 0.6 > bad.claims[0].score


def test_feature_judge_features_are_named_and_bounded():
    judge = FeatureJudge(HashingEncoder(), WEIGHTS, bias=0.0)
    pairs = [
        (ClaimInContext("It opened in 1932.", "The bridge is old."), Evidence(("Opened 1932.",))),
        (ClaimInContext("Nothing here."), Evidence(())),
    ]
    x = judge.features(pairs)
    assert x.shape == (2, len(FEATURE_NAMES))
    scores = judge.score(pairs)
    assert all(0.0 <= s <= 1.0 for s in scores)


def test_evidence_text_puts_attributes_first():
    evidence = Evidence(("A.", "B."), {"author": "Encyclopedia"})
    assert evidence.text == "author: Encyclopedia\nA. B."


def test_weights_must_match_features():
    with pytest.raises(ValueError):
        FeatureJudge(HashingEncoder(), (1.0,), bias=0.0)


class _RecordingJudge:
    """Supports a claim only when every claim word is in the evidence; logs each call."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, str]]] = []

    def score(self, pairs, encoder=None):
        self.calls.append([(claim.claim, evidence.text) for claim, evidence in pairs])
        return [
            1.0
            if set(claim.claim.lower().rstrip(".").split())
            <= set(evidence.text.lower().replace(".", " ").split())
            else 0.0
            for claim, evidence in pairs
        ]


TWO_FACTS = (
    Fact("Ada Lovelace wrote the first program. She was born in London."),
    Fact("Ada Lovelace worked with Babbage. Babbage designed the engine."),
)


def test_later_options_are_read_only_while_no_earlier_one_supports():
    judge = _RecordingJudge()
    engine = GroundingEngine(HashingEncoder(), judge)
    single = engine.check(CheckRequest("Ada Lovelace wrote the first program.", TWO_FACTS))
    assert single.claims[0].citation_indices != ()
    assert len(judge.calls) == 1 and len(judge.calls[0]) == 1  # the best fact only
    assert "program" in judge.calls[0][0][1]

    judge.calls.clear()
    spread = engine.check(
        CheckRequest("Ada Lovelace wrote the first program with Babbage.", TWO_FACTS)
    )
    assert [len(call) for call in judge.calls] == [1, 1, 1]  # best fact, next fact, both
    ((_, combined),) = judge.calls[2]
    assert "program" in combined and "Babbage" in combined
    assert spread.claims[0].citation_indices != ()


def test_each_claim_stops_at_its_own_first_support():
    judge = _RecordingJudge()
    engine = GroundingEngine(HashingEncoder(), judge)
    engine.check(
        CheckRequest(
            "Ada Lovelace wrote the first program. Ada Lovelace was born in Paris.", TWO_FACTS
        )
    )
    # The supported claim is read once; the unsupported one against every option: each
    # fact, not both together (the second fact adds no word of the claim to the first),
    # and no spread over the best fact's sentences, which do not hold "Paris".
    assert [[c for c, _ in call] for call in judge.calls] == [
        ["Ada Lovelace wrote the first program.", "Ada Lovelace was born in Paris."],
        ["Ada Lovelace was born in Paris."],
    ]


def test_facts_far_below_the_best_match_are_not_read():
    judge = _RecordingJudge()
    engine = GroundingEngine(HashingEncoder(), judge)
    facts = (
        Fact("Ada Lovelace wrote the first program in 1843."),
        Fact("Volcanic soil drains quickly and suits vineyards."),
    )
    r = engine.check(CheckRequest("Ada Lovelace wrote the first program in 1842.", facts))
    assert r.claims[0].citation_indices == ()
    assert [[text for _, text in call] for call in judge.calls] == [
        ["Ada Lovelace wrote the first program in 1843."]
    ]


@pytest.mark.parametrize(
    ("key", "bookkeeping"),
    [
        ("doc_id", True),
        ("chunk", True),
        ("n_chunks", True),
        ("sentences", True),  # WiCE's "sentences: 47-51" locator
        ("page", True),
        ("source-line", True),
        ("title", False),
        ("author", False),
        ("year", False),
        ("guideline", False),  # ends in "line" but is no locator
        ("outpage", False),
    ],
)
def test_locator_attributes_never_reach_the_judges(key: str, bookkeeping: bool) -> None:
    assert is_bookkeeping(key) is bookkeeping


def test_a_request_writes_no_library_debug_lines_to_the_log(engine, caplog):
    facts = tuple(Fact(f"Fact number {i} is about rivers and hills.") for i in range(40))
    with caplog.at_level(logging.DEBUG):
        engine.check(CheckRequest(answer="Rivers run past hills. Hills are tall.", facts=facts))
    assert not [r for r in caplog.records if r.name.startswith("bm25s")]
