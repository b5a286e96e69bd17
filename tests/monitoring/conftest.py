"""A real local webhook receiver for the alert tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.monitoring.receiver import Receiver


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    server.start()
    yield server
    server.stop()
