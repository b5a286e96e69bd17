"""Reviews made at chosen times, and a clock that tests move (time-machine)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import time_machine

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.reviews import services
from grounding_app.reviews.models import Review

START = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)


@pytest.fixture
def clock(time_machine: time_machine.TimeMachineFixture) -> time_machine.TimeMachineFixture:
    """The clock stands still at START until a test moves it."""
    time_machine.move_to(START, tick=False)
    return time_machine


@pytest.fixture
def make_review(
    fake_engine: GroundingEngine, make_user: Callable[..., object]
) -> Callable[..., Review]:
    """Check an answer with the fake engine and save it, as the new-review page does."""
    owner = make_user("reviewer")

    def make(answer: str = "T is the capital of O.", user: object | None = None) -> Review:
        request = CheckRequest(answer=answer, facts=(Fact("T is the capital of O", {}),))
        return services.check_and_save(user or owner, request, raw_payload=answer)

    return make
