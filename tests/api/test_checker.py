"""The process's checker: loads in the background once, follows the database at most
once per FOLLOW_SECONDS, and names the verifier of the engine that checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from grounding_app.active_verifier import checker as module
from grounding_app.active_verifier.checker import Checker, checker, serving
from grounding_app.active_verifier.models import ActiveVerifier
from grounding_app.engine import CheckRequest, Fact, GroundingEngine

pytestmark = pytest.mark.django_db


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """GroundingEngine.default records the judge it was asked for and builds nothing."""
    names: list[str] = []

    def build(cls: type, name: str) -> object:
        names.append(name)
        return object()

    monkeypatch.setattr(GroundingEngine, "default", classmethod(build))
    return names


def test_the_warm_up_loads_the_active_verifier_once(fresh_checker: Checker, built) -> None:
    assert not fresh_checker.is_ready()
    fresh_checker.warm_up_in_background()
    fresh_checker.warm_up_in_background()  # a second call starts nothing
    assert fresh_checker._loader is not None
    fresh_checker._loader.join(30)
    assert fresh_checker.is_ready() and built == ["verifier"]


def test_the_database_is_read_at_most_once_per_follow_seconds(
    fresh_checker: Checker, settings, tmp_path: Path
) -> None:
    first = fresh_checker.directory(now=100.0)
    assert first == Path(settings.GROUNDING_VERIFIER_DIR)
    ActiveVerifier.objects.create(pk=ActiveVerifier.SINGLETON, directory=str(tmp_path))
    assert fresh_checker.directory(now=100.0 + module.FOLLOW_SECONDS / 2) == first
    assert fresh_checker.directory(now=100.0 + module.FOLLOW_SECONDS) == tmp_path
    ActiveVerifier.objects.all().delete()
    fresh_checker.forget_followed()
    assert fresh_checker.directory(now=100.0 + module.FOLLOW_SECONDS) == first


def test_a_checker_built_with_an_engine_serves_it_and_names_none(
    fake_engine: GroundingEngine,
) -> None:
    checked = checker().check(CheckRequest("Rivers run past hills.", (Fact("Rivers run."),)))
    assert checked.verifier is None and checked.judge == "feature judge"
    assert checked.languages == ("en",) and checker().loaded() is fake_engine
    other = Checker(fake_engine)
    with serving(other):
        assert checker() is other
    assert checker() is not other
