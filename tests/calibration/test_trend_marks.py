"""Trends mark the days a calibration of their scope was applied or undone: the step in
the rate that day is the scale, not the answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from grounding_app.calibration.models import Scope
from grounding_app.calibration.services import apply, propose_calibration, undo
from tests.calibration.test_fit import scope

pytestmark = pytest.mark.django_db


def applied(kind: Scope, name: str):
    scores, labels = scope(200, -1.5)
    found = propose_calibration(
        kind,
        name,
        "v@sha256:000000000001",
        [(s, "verifier", y) for s, y in zip(scores, labels, strict=True)],
        "file",
    )
    apply(found, None)
    return found


def test_the_label_trend_marks_the_day_its_scale_changed(make_user: Any, client: Client):
    found = applied(Scope.LABEL, "team=billing")
    other = applied(Scope.LABEL, "team=search")
    undo(other, None)
    client.force_login(make_user("reviewer", "rev"))
    html = client.get("/monitoring/?key=team&value=billing").content.decode()
    assert "data-scale-changes" in html and "The scale changed on 1 day of this range" in html
    assert f"{found.name} applied by manage.py" in html
    assert other.name not in html  # another label's scale
    assert html.count("data-scale-changed") == 1 and "scale changed</span>" in html
    everything = client.get("/monitoring/").content.decode()
    assert found.name in everything and f"{other.name} undone by manage.py" in everything


def test_no_change_no_mark(make_user: Any, client: Client):
    client.force_login(make_user("reviewer", "rev"))
    html = client.get("/monitoring/?key=team&value=billing").content.decode()
    assert "data-scale-changes" not in html and "data-scale-changed" not in html
