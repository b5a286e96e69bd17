"""The process's checker: loads in the background once, follows the database at most
once per FOLLOW_SECONDS, and names the verifier of the engine that checked."""

from __future__ import annotations

import threading
import time
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


def test_a_verifier_loading_blocks_no_check_on_the_engine_before(
    fresh_checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A newly chosen verifier loads (seconds) in the thread that first needs it, outside
    the lock every check takes: the other threads check with the engine before, and the
    new one is loaded once."""
    loads: list[str] = []
    loading, release = threading.Event(), threading.Event()

    def build(cls: type, name: str) -> object:
        loads.append(name)
        if name == "verifier:new":
            loading.set()
            release.wait(10)
        return f"engine of {name}"

    active = ["verifier"]
    monkeypatch.setattr(GroundingEngine, "default", classmethod(build))
    monkeypatch.setattr(module, "judge_name", lambda directory: active[0])
    monkeypatch.setattr(fresh_checker, "directory", lambda now=None: Path("."))
    monkeypatch.setattr(module, "_judge_setup", lambda: None)
    assert fresh_checker.engine() == "engine of verifier"
    active[0] = "verifier:new"
    got: list[object] = []
    loader = threading.Thread(target=lambda: got.append(fresh_checker.engine()))
    loader.start()
    assert loading.wait(10)
    letting_go = threading.Timer(3.0, release.set)  # the old code waits this long
    letting_go.start()
    try:
        started = time.monotonic()
        during = [fresh_checker.engine() for _ in range(3)]
        fresh_checker.escalation()  # takes the checker's lock
        waited = time.monotonic() - started
    finally:
        release.set()
        letting_go.cancel()
        loader.join(10)
    assert waited < 1.0 and during == ["engine of verifier"] * 3
    assert got == ["engine of verifier:new"] == [fresh_checker.engine()]
    assert loads == ["verifier", "verifier:new"]


def test_threads_with_no_engine_yet_wait_for_one_load(
    fresh_checker: Checker, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads: list[str] = []

    def build(cls: type, name: str) -> object:
        loads.append(name)
        time.sleep(0.2)
        return f"engine of {name}"

    monkeypatch.setattr(GroundingEngine, "default", classmethod(build))
    monkeypatch.setattr(module, "judge_name", lambda directory: "verifier")
    monkeypatch.setattr(fresh_checker, "directory", lambda now=None: Path("."))
    got: list[object] = []
    threads = [
        threading.Thread(target=lambda: got.append(fresh_checker.engine())) for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert got == ["engine of verifier"] * 4 and loads == ["verifier"]
