"""Fixtures shared across the test tree."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from grounding_app.engine import FeatureJudge, GroundingEngine, HashingEncoder

# Weights of the eight judge features for an instant, deterministic engine: claims that
# share most words with a fact are supported, others are not. For tests of the layers
# around the engine, where the exact verdicts do not matter.
FAKE_JUDGE_WEIGHTS = (6.0, 0.0, 4.0, 1.0, -6.0, -3.0, -3.0, 0.0)
FAKE_JUDGE_BIAS = -7.0


@pytest.fixture
def fake_engine() -> Iterator[GroundingEngine]:
    """Make the process's checker use a hashing encoder instead of loading the model,
    with no LLM judge (tests of the judge build a checker that follows one)."""
    from grounding_app.active_verifier.checker import Checker, serving

    encoder = HashingEncoder()
    engine = GroundingEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))
    with serving(Checker(engine, escalation=None)):
        yield engine


@pytest.fixture
def fresh_checker() -> Iterator[object]:
    """A new process checker: the real engine of the active verifier, loaded on first
    use, and the checker before it put back afterwards."""
    from grounding_app.active_verifier.checker import Checker, serving

    with serving(Checker()) as fresh:
        yield fresh


@pytest.fixture
def make_user(db: None) -> Callable[..., object]:
    """Create a user holding the given role group ("" for none; "superuser" for one)."""
    from django.contrib.auth.models import Group, User

    def make(role: str = "reviewer", username: str | None = None) -> User:
        name = username or f"{role or 'outsider'}-{User.objects.count()}"
        if role == "superuser":
            return User.objects.create_superuser(name, password="pw-for-tests-only")
        user = User.objects.create_user(name, password="pw-for-tests-only")
        if role:  # get_or_create: transactional tests flush the migration's groups
            user.groups.add(Group.objects.get_or_create(name=role)[0])
        return user

    return make


def check_with(monkeypatch: pytest.MonkeyPatch, respond: Callable[..., object]) -> None:
    """Make every checker answer with `respond(request)`, naming no verifier."""
    from grounding_app.active_verifier.checker import Checked, Checker

    def check(self: Checker, request: object, scope: object = None) -> Checked:
        return Checked(respond(request), None, ("en",), "verifier")

    monkeypatch.setattr(Checker, "check", check)
