"""What is kept to save time changes no score: responses with every reuse off (each
pair read, each passage encoded, each fact read anew: the engine before issue 31's
part 6) equal responses with it on, cold and warm, on requests built as the benchmark
builds them and on dev_realistic examples, all from `tests/data/grounding_sample.jsonl`
(a clone without the team's `../shared/` runs them)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    ClaimInContext,
    Evidence,
    GroundingEngine,
    clear_text_caches,
    onnx_models,
)
from grounding_app.engine.encoders import EncodingCache, MemoEncoder, MiniLMEncoder
from grounding_app.engine.onnx_models import OnnxBert
from grounding_app.formats.grounding_jsonl import read_examples
from grounding_lab.bench_requests import (
    benchmark_texts,
    everyday_request,
    film_request,
    largest_request,
)

# Eight dev_realistic examples (every 97th), then ten long FRANK articles of dev.jsonl.
SAMPLE = Path(__file__).resolve().parents[1] / "data" / "grounding_sample.jsonl"


class _Forgets(dict):
    """A request memo that keeps nothing: every pair is read by the model."""

    def __contains__(self, key: object) -> bool:
        return False

    def update(self, *args: object, **kwargs: object) -> None:
        pass

    def __getitem__(self, key: object) -> float:
        raise AssertionError("a forgetting memo is never read")


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def _dev_requests() -> list[CheckRequest]:
    """The sample's dev_realistic examples, of several sources and lengths."""
    examples = [e for e in read_examples(SAMPLE) if e.source != "frank"]
    return [CheckRequest(answer=e.claim, facts=e.facts) for e in examples]


def _without_reuse(
    engine: GroundingEngine, request: CheckRequest, monkeypatch: pytest.MonkeyPatch
) -> CheckResponse:
    kept = engine.fact_encodings
    with monkeypatch.context() as patch:
        engine.fact_encodings = EncodingCache(engine.encoder, capacity=0)
        original = MemoEncoder.__init__

        def forgetful(self: MemoEncoder, *args: object) -> None:
            original(self, *args)  # type: ignore[arg-type]
            self.pair_logits = _Forgets()

        patch.setattr(MemoEncoder, "__init__", forgetful)
        clear_text_caches()
        try:
            return engine.check(request)
        finally:
            engine.fact_encodings = kept


def _with_reuse(engine: GroundingEngine, request: CheckRequest) -> Iterator[CheckResponse]:
    engine.fact_encodings.clear()
    clear_text_caches()
    yield engine.check(request)  # cold
    yield engine.check(request)  # warm: passages, vocabularies and tokens kept


def test_bench_and_dev_responses_are_those_without_reuse(
    engine: GroundingEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = benchmark_texts(SAMPLE)
    requests = [film_request(), everyday_request(texts), *_dev_requests()]
    for request in (replace(r, enable_claim_level_score=True) for r in requests):
        plain = _without_reuse(engine, request, monkeypatch)
        assert any(c.score is not None for c in plain.claims)
        for response in _with_reuse(engine, request):
            assert response == plain


@pytest.mark.slow
def test_the_largest_response_is_the_one_without_reuse(
    engine: GroundingEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    request = replace(largest_request(benchmark_texts(SAMPLE)), enable_claim_level_score=True)
    plain = _without_reuse(engine, request, monkeypatch)
    for response in _with_reuse(engine, request):
        assert response == plain


def test_a_pair_read_again_in_a_request_is_not_run_again(engine: GroundingEngine) -> None:
    evidence = Evidence(("Titanic was directed by James Cameron in 1997.",))
    pairs = [(ClaimInContext("James Cameron directed Titanic."), evidence)] * 2
    runs: list[int] = []
    judge: Any = engine.judge
    original = judge.model.logits

    def counted(claims: list[str], texts: list[str]) -> np.ndarray:
        runs.append(len(claims))
        return original(claims, texts)

    memo = MemoEncoder(engine.encoder)
    judge.model.logits = counted
    try:
        first = judge.score(pairs, memo)
        again = judge.score(pairs[:1], memo)
    finally:
        del judge.model.logits
    assert runs == [1]
    assert first == again * 2 == judge.score(pairs[:1]) * 2


@pytest.mark.parametrize("int8", [True, False], ids=["int8", "fp32"])
def test_a_kept_encoding_is_exactly_the_fresh_one_with_the_int8_encoder(int8: bool) -> None:
    """The int8 encoder reads each text alone, so a kept vector is the fresh one bit for
    bit; the fp32 encoder (the feature judge's) batches texts of similar length, and a
    vector moves with its batch-mates' padding (at 1e-6), as it did before the cache."""
    encoder = MiniLMEncoder(int8=int8)
    texts = [
        "Titanic was directed by James Cameron.",
        "It starred Kate Winslet and Leonardo DiCaprio, and won eleven Academy Awards.",
        "The movie was released on December 19, 1997.",
    ]
    cache = EncodingCache(encoder)
    cache.encode(texts[:1])
    together = cache.encode(texts)
    alone = np.stack([encoder.encode([t])[0] for t in texts])
    if int8:
        assert np.array_equal(together, alone)
    else:
        assert np.allclose(together, alone, atol=1e-5)


def test_pairs_run_side_by_side_give_each_pair_its_own_logit(
    engine: GroundingEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The verifier runs a request's pairs on every core at once, one thread each; each
    pair is still its own batch, so each logit is the one it gets run alone, and the one
    a session of ONNX Runtime's default threads gives it, bit for bit."""
    judge: Any = engine.judge.model  # type: ignore[attr-defined]
    request = everyday_request(benchmark_texts(SAMPLE))
    claims = [s for s in request.answer.split(". ") if s][:6]
    evidence = [f.text[:900] for f in request.facts][: len(claims)]
    claims = claims[: len(evidence)]
    assert len(claims) >= 4
    threads: set[str] = set()
    run = judge._model.run

    def recorded(*arrays: np.ndarray) -> np.ndarray:
        threads.add(threading.current_thread().name)
        return run(*arrays)

    with monkeypatch.context() as patch:
        patch.setattr(onnx_models, "cores", lambda: 2)
        patch.setattr(judge._model, "run", recorded)
        together = judge.logits(claims, evidence).tolist()
    assert len(threads) == 2 and all(t.startswith("onnx") for t in threads)
    alone = [judge.logits([c], [e])[0] for c, e in zip(claims, evidence, strict=True)]
    assert together == alone
    monkeypatch.setattr(onnx_models, "cores", lambda: 1)
    monkeypatch.setattr(judge, "_model", OnnxBert(judge._model.path, threads=0))
    assert judge.logits(claims, evidence).tolist() == alone


def test_texts_encoded_side_by_side_are_those_encoded_one_by_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The int8 encoder, too, runs its texts (one a run) on every core at once."""
    encoder = MiniLMEncoder(int8=True)
    texts = [f.text[:400] for f in everyday_request(benchmark_texts(SAMPLE)).facts]
    with monkeypatch.context() as patch:
        patch.setattr(onnx_models, "cores", lambda: 2)
        together = encoder.encode(texts)
    monkeypatch.setattr(onnx_models, "cores", lambda: 1)
    monkeypatch.setattr(encoder, "_model", OnnxBert(encoder._model.path, threads=0))
    assert np.array_equal(together, encoder.encode(texts))
