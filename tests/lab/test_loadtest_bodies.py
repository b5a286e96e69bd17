"""The load test's request bodies: the same one again, or new facts in every request."""

from __future__ import annotations

import json

from grounding_app.engine import CheckRequest, Fact
from grounding_lab.loadtest import Bodies


def _build(seed: int = 1) -> CheckRequest:
    return CheckRequest(f"Claim {seed}.", (Fact(f"Fact number {seed}."),))


def _facts(body: bytes) -> list[str]:
    return [fact["factText"] for fact in json.loads(body)["facts"]]


def test_without_new_facts_every_request_is_the_same() -> None:
    bodies = Bodies(_build, new=False)
    assert {bodies.next() for _ in range(3)} == {bodies.next()}
    assert _facts(bodies.next()) == ["Fact number 1."]


def test_with_new_facts_no_request_repeats_another_s_facts() -> None:
    bodies = Bodies(_build, new=True, first_seed=7)
    seen = [_facts(bodies.next()) for _ in range(3)]
    assert seen == [["Fact number 7."], ["Fact number 8."], ["Fact number 9."]]
