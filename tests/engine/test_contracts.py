"""What every `Encoder` and `Judge` promises, checked on each implementation.

The engine relies on these promises on every path, the rare ones too (no candidate for a
claim, CJK text, JSON facts), so each implementation is held to all of them. The real
models come from one `GroundingEngine.default()`, built once for the module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from grounding_app.engine.encoders import Encoder, HashingEncoder, MemoEncoder, MiniLMEncoder
from grounding_app.engine.judges import ClaimInContext, Evidence, FeatureJudge, Judge
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.retrieval import DENSE_ONLY_LIMIT, PassageIndex, split_fact
from grounding_app.engine.types import VERIFIER, WORD_MATCHING, CheckRequest, CheckResponse
from grounding_app.engine.verifying import VerifierJudge
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS
from tests.engine.realistic import (
    CJK_CASES,
    JSON_FACTS,
    RESTAURANT,
    VOLCANO_SENTENCES,
    cjk_request,
    json_fact_request,
    off_topic_request,
)

TEXTS = [
    "Titanic was directed by James Cameron.",
    VOLCANO_SENTENCES[0],
    '"price_range": "$$",',
    JSON_FACTS[0].text,
    CJK_CASES["chinese"][1],
    CJK_CASES["japanese"][0],
    "서울은 한국의 수도입니다.",
    "שלום עולם",
]
# Texts with no word in them: an encoder may give them the zero vector, never NaN.
WORDLESS = ["", "{", "🎉"]


@pytest.fixture(scope="module")
def default_engine() -> GroundingEngine:
    return GroundingEngine.default()


@pytest.fixture(scope="module")
def minilm(default_engine: GroundingEngine) -> MiniLMEncoder:
    assert isinstance(default_engine.encoder, MiniLMEncoder)
    return default_engine.encoder


@pytest.fixture(scope="module")
def verifier(default_engine: GroundingEngine) -> VerifierJudge:
    assert isinstance(default_engine.judge, VerifierJudge)
    return default_engine.judge


ENCODERS: dict[str, Callable[[pytest.FixtureRequest], Encoder]] = {
    "minilm": lambda request: request.getfixturevalue("minilm"),
    "hashing": lambda request: HashingEncoder(),
    "memo-minilm": lambda request: MemoEncoder(request.getfixturevalue("minilm")),
    "memo-hashing": lambda request: MemoEncoder(HashingEncoder()),
}


@pytest.fixture(params=sorted(ENCODERS))
def encoder(request: pytest.FixtureRequest) -> Encoder:
    return ENCODERS[request.param](request)


def _fake_features(encoder: Encoder) -> FeatureJudge:
    return FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS)


# (encoder, judge) as engines are built: the tests' fake, the zero-shot default, the
# shipped verifier, and the verifier over the fake encoder.
ENGINES: dict[str, Callable[[pytest.FixtureRequest], tuple[Encoder, Judge]]] = {
    "hashing+fake-features": lambda request: (
        HashingEncoder(),
        _fake_features(HashingEncoder()),
    ),
    "minilm+features": lambda request: (
        request.getfixturevalue("minilm"),
        FeatureJudge.from_file(request.getfixturevalue("minilm")),
    ),
    "minilm+verifier": lambda request: (
        request.getfixturevalue("minilm"),
        request.getfixturevalue("verifier"),
    ),
    "memo-hashing+verifier": lambda request: (
        MemoEncoder(HashingEncoder()),
        request.getfixturevalue("verifier"),
    ),
}


@pytest.fixture(params=sorted(ENGINES))
def parts(request: pytest.FixtureRequest) -> tuple[Encoder, Judge]:
    return ENGINES[request.param](request)


def _dim(encoder: Encoder) -> int:
    return encoder.encode(["probe"]).shape[1]


def test_encoder_gives_no_rows_of_the_right_width_for_no_texts(encoder: Encoder) -> None:
    empty = encoder.encode([])
    assert empty.dtype == np.float32
    assert empty.shape == (0, _dim(encoder)) and empty.shape[1] > 0


def test_encoder_gives_one_unit_float32_row_per_text(encoder: Encoder) -> None:
    vectors = encoder.encode(TEXTS)
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(TEXTS), _dim(encoder))
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_encoder_rows_for_wordless_texts_are_unit_or_zero(encoder: Encoder) -> None:
    norms = np.linalg.norm(encoder.encode(WORDLESS), axis=1)
    assert np.all(np.isclose(norms, 1.0, atol=1e-5) | (norms == 0.0))


def test_encoder_is_deterministic_whatever_the_batch(encoder: Encoder) -> None:
    together = encoder.encode(TEXTS + WORDLESS)
    assert np.allclose(encoder.encode(TEXTS + WORDLESS), together, atol=1e-6)
    backwards = encoder.encode(list(reversed(TEXTS)))
    assert np.allclose(backwards[::-1], together[: len(TEXTS)], atol=1e-5)
    assert np.allclose(encoder.encode(TEXTS[:1] * 3), together[[0, 0, 0]], atol=1e-5)


PAIRS = [
    (ClaimInContext("Titanic was directed by James Cameron."), Evidence(("Titanic is a film.",))),
    (
        ClaimInContext("It was released in 1997.", "Titanic is a film by James Cameron."),
        Evidence(("The movie was released on December 19, 1997.",), {"author": "Wikipedia"}),
    ),
    (ClaimInContext(CJK_CASES["chinese"][0]), Evidence((CJK_CASES["chinese"][1],))),
    (
        ClaimInContext("Luigi's is an Italian restaurant."),
        Evidence(tuple(JSON_FACTS[0].text.split("\n"))),
    ),
    # More passages than one verifier input holds: scored in windows.
    (ClaimInContext("Geologists watch Etna."), Evidence(VOLCANO_SENTENCES[:12])),
    (ClaimInContext("Nothing backs this."), Evidence(())),
]


def test_judge_gives_nothing_for_no_pairs(parts: tuple[Encoder, Judge]) -> None:
    encoder, judge = parts
    assert judge.score([]) == []
    assert judge.score([], MemoEncoder(encoder)) == []


def test_judge_gives_one_probability_per_pair(parts: tuple[Encoder, Judge]) -> None:
    encoder, judge = parts
    scores = judge.score(PAIRS, MemoEncoder(encoder))
    assert len(scores) == len(PAIRS)
    assert all(isinstance(s, float) and 0.0 <= s <= 1.0 for s in scores)


def test_judge_is_deterministic_and_order_free(parts: tuple[Encoder, Judge]) -> None:
    encoder, judge = parts
    first = judge.score(PAIRS, MemoEncoder(encoder))
    backwards = judge.score(PAIRS[::-1], MemoEncoder(encoder))
    assert np.allclose(backwards[::-1], first, atol=1e-5)


def test_judge_scores_a_pair_alike_alone_and_among_others(parts: tuple[Encoder, Judge]) -> None:
    encoder, judge = parts
    together = judge.score(PAIRS, MemoEncoder(encoder))
    alone = [judge.score([pair], MemoEncoder(encoder))[0] for pair in PAIRS]
    assert np.allclose(alone, together, atol=1e-5)


def _assert_well_formed(request: CheckRequest, response: CheckResponse) -> None:
    """SPEC §1: claims tile the answer in byte offsets; citations are passages of facts."""
    answer = request.answer.encode()
    assert response.claims[0].start == 0 and response.claims[-1].end == len(answer)
    for before, after in zip(response.claims, response.claims[1:], strict=False):
        assert before.end <= after.start
    for claim in response.claims:
        assert answer[claim.start : claim.end].decode() == claim.text
        assert all(0 <= i < len(response.cited_chunks) for i in claim.citation_indices)
        if claim.grounding_check_required and request.enable_claim_level_score:
            assert claim.score is not None and 0.0 <= claim.score <= 1.0
    for chunk in response.cited_chunks:
        # A passage of the fact: its own text, or a statement read from a structured fact.
        passages = split_fact(chunk.source, request.facts[chunk.source].text)
        assert chunk.chunk_text in {p.text for p in passages}
    if response.support_score is not None:
        assert 0.0 <= response.support_score <= 1.0


REQUESTS: dict[str, Callable[[], CheckRequest]] = {
    "off-topic": off_topic_request,
    "json": json_fact_request,
    "json-on-topic": lambda: CheckRequest(
        f"{RESTAURANT['name']} serves {RESTAURANT['cuisine']} food. It takes reservations.",
        JSON_FACTS,
        enable_claim_level_score=True,
    ),
    "chinese": lambda: cjk_request("chinese"),
    "japanese": lambda: cjk_request("japanese"),
}


@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_engine_answers_requests_past_the_prefilter_limit(
    parts: tuple[Encoder, Judge], name: str
) -> None:
    request = REQUESTS[name]()
    assert len(PassageIndex(request.facts).passages) > DENSE_ONLY_LIMIT
    response = GroundingEngine(*parts).check(request)
    _assert_well_formed(request, response)
    assert response.claims[0].grounding_check_required


@pytest.mark.parametrize("make", [off_topic_request, json_fact_request], ids=["off-topic", "json"])
def test_default_engine_reads_claims_without_shared_words_and_finds_them_unsupported(
    default_engine: GroundingEngine, make: Callable[[], CheckRequest]
) -> None:
    # No claim word is in any passage: the judge still reads the facts' openings (issue
    # 23: no claim is declared unsupported unread), and finds no support there.
    request = make()
    response = default_engine.check(request)
    _assert_well_formed(request, response)
    (claim,) = response.claims
    assert claim.citation_indices == () and claim.score is not None and claim.score < 0.3
    assert claim.checked_by == VERIFIER and claim.language == "en"
    assert default_engine.check(request) == response


@pytest.mark.parametrize("language", sorted(CJK_CASES))
def test_default_engine_word_matches_a_cjk_claim_and_says_so(
    default_engine: GroundingEngine, language: str
) -> None:
    # The bundled verifier reads English only: a CJK claim is judged by word matching
    # (character pairs), and the paraphrased passage lifts its score over the fillers'.
    request = cjk_request(language)
    response = default_engine.check(request)
    _assert_well_formed(request, response)
    (claim,) = response.claims
    assert claim.checked_by == WORD_MATCHING
    assert claim.language == {"chinese": "zh", "japanese": "ja"}[language]
    fillers = tuple(f for f in request.facts if f.text != CJK_CASES[language][1])
    alone = default_engine.check(replace(request, facts=fillers)).claims[0]
    assert claim.score is not None and alone.score is not None
    assert claim.score > alone.score + 0.1
