"""/metrics: the cache of fact encodings, counted per process, in Prometheus' format."""

from __future__ import annotations

from grounding_app.engine import CheckRequest, Fact, GroundingEngine

FILM = CheckRequest(
    answer="Titanic was directed by James Cameron.",
    facts=(Fact("Titanic is a 1997 film. It was directed by James Cameron."),),
)


def _values(body: str) -> dict[str, float]:
    return {
        line.split()[0]: float(line.split()[1])
        for line in body.splitlines()
        if line and not line.startswith("#")
    }


def test_zeros_before_the_engine_has_loaded(client, fresh_checker: object) -> None:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert _values(response.content.decode()) == {
        "grounding_fact_encoding_cache_hits_total": 0,
        "grounding_fact_encoding_cache_misses_total": 0,
        "grounding_fact_encoding_cache_entries": 0,
    }


def test_a_repeated_request_s_facts_are_hits(client, fake_engine: GroundingEngine) -> None:
    fake_engine.check(FILM)
    after_one = _values(client.get("/metrics").content.decode())
    fake_engine.check(FILM)
    after_two = _values(client.get("/metrics").content.decode())
    misses = after_one["grounding_fact_encoding_cache_misses_total"]
    assert misses > 0 and after_one["grounding_fact_encoding_cache_hits_total"] == 0
    assert after_two["grounding_fact_encoding_cache_misses_total"] == misses
    assert after_two["grounding_fact_encoding_cache_hits_total"] == misses
    assert after_two["grounding_fact_encoding_cache_entries"] == misses
