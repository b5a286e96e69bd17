"""Under a threaded server, verifiers switched while several threads post checks: every
response names the verifier that produced it (its scores are that verifier's)."""

from __future__ import annotations

import json
import threading
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from grounding_app.active_verifier import services as active_verifier
from grounding_app.api.models import ApiKey
from tests.verifiers.conftest import API, BODY
from tests.verifiers.test_switching import scores, vid

THREADS = 4
CHECKS = 12  # per thread
SWITCHES = 6


def _post(url: str, key: str) -> dict[str, Any]:
    request = urllib.request.Request(
        url + API,
        data=json.dumps(BODY).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "x-goog-api-key": key},
    )
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def _switch(directory: Path) -> None:
    entry = active_verifier.find(str(directory))
    assert entry is not None, directory
    active_verifier.switch(None, entry)


@pytest.mark.django_db(transaction=True)
def test_each_response_names_the_verifier_that_produced_it(
    live_server: Any, verifiers: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every check reads the active verifier, so switches land between any two checks.
    monkeypatch.setattr("grounding_app.active_verifier.checker.FOLLOW_SECONDS", 0.0)
    key = ApiKey.issue("threads")[1]
    expected = {}
    for name in ("binary", "nli"):
        _switch(verifiers[name])
        alone = _post(live_server.url, key)
        assert alone["verifier"] == vid(verifiers[name])
        expected[alone["verifier"]] = scores(alone)
    assert len(set(map(tuple, expected.values()))) == 2  # the two verifiers tell apart

    answers: list[dict[str, Any]] = []
    failures: list[BaseException] = []

    def client() -> None:
        try:
            for _ in range(CHECKS):
                answers.append(_post(live_server.url, key))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=client) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for i in range(SWITCHES):
        _switch(verifiers["nli" if i % 2 else "binary"])
        threading.Event().wait(0.3)
    for thread in threads:
        thread.join(300)
    assert failures == [] and len(answers) == THREADS * CHECKS
    named = [answer["verifier"] for answer in answers]
    assert set(named) == set(expected)  # both judged while the threads ran
    assert all(scores(answer) == expected[answer["verifier"]] for answer in answers)
