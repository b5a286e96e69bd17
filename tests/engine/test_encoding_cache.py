"""Fact encodings are kept across requests: bounded, counted, and exactly the fresh ones."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from grounding_app.engine import CheckRequest, Fact, GroundingEngine, HashingEncoder
from grounding_app.engine.encoders import EncodingCache, MemoEncoder
from grounding_app.engine.judges import FeatureJudge


class CountingEncoder:
    """HashingEncoder that records every text it is asked to encode."""

    def __init__(self) -> None:
        self.inner = HashingEncoder()
        self.seen: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.seen.extend(texts)
        return self.inner.encode(texts)


def test_a_text_is_encoded_once_and_counted_as_a_hit_after() -> None:
    counting = CountingEncoder()
    cache = EncodingCache(counting)
    first = cache.encode(["Paris is in France.", "Rome is in Italy.", "Paris is in France."])
    second = cache.encode(["Rome is in Italy.", "Bern is in Switzerland."])
    assert counting.seen == ["Paris is in France.", "Rome is in Italy.", "Bern is in Switzerland."]
    assert np.array_equal(first[1], second[0])
    assert np.array_equal(first[0], first[2])
    assert np.array_equal(
        second, HashingEncoder().encode(["Rome is in Italy.", "Bern is in Switzerland."])
    )
    counts = cache.counts()
    assert (counts.hits, counts.misses, counts.size) == (1, 4, 3)


def test_the_least_recently_used_text_goes_first() -> None:
    counting = CountingEncoder()
    cache = EncodingCache(counting, capacity=2)
    cache.encode(["a b", "c d"])
    cache.encode(["a b"])  # now "c d" is the oldest
    cache.encode(["e f"])
    counting.seen.clear()
    cache.encode(["a b", "c d"])
    assert counting.seen == ["c d"]
    assert cache.counts().size == 2


def test_no_texts_keep_the_width() -> None:
    assert EncodingCache(HashingEncoder(dim=32)).encode([]).shape == (0, 32)


def test_the_request_memo_sends_facts_through_the_lasting_cache_only() -> None:
    counting = CountingEncoder()
    facts = EncodingCache(counting)
    memo = MemoEncoder(counting, facts)
    memo.encode_facts(["A fact."])
    memo.encode(["A claim.", "A fact."])  # the fact's vector is the request's already
    assert counting.seen == ["A fact.", "A claim."]
    assert facts.counts().size == 1


def test_the_engine_encodes_a_request_s_facts_once_across_requests() -> None:
    counting = CountingEncoder()
    engine = GroundingEngine(counting, FeatureJudge.from_file(counting))
    request = CheckRequest(
        answer="The Eiffel Tower is in Paris. It opened in 1889.",
        facts=(
            Fact("The Eiffel Tower stands in Paris. It was opened in 1889."),
            Fact("The Colosseum is in Rome."),
        ),
    )
    first = engine.check(request)
    misses = engine.fact_encodings.counts().misses
    assert misses > 0
    counting.seen.clear()
    assert engine.check(request) == first
    counts = engine.fact_encodings.counts()
    assert (counts.hits, counts.misses) == (misses, misses)
    fact_sentences = {"The Eiffel Tower stands in Paris.", "It was opened in 1889."}
    assert not fact_sentences & set(counting.seen)
