"""The Verifier page's calibration section: per scope, each candidate's held-back figures,
why the guard refused one, Apply only where it passed, who applied and undid it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from grounding_app.active_verifier import services as active_verifier
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.calibration.services import propose_calibration
from tests.calibration.test_fit import scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(make_user: Any) -> Any:
    return make_user("admin", "ada-admin")


def candidate(name: str, shift: float, verifier: str, n: int = 200) -> Calibration:
    scores, labels = scope(n, shift)
    labelled = [(s, "verifier", y) for s, y in zip(scores, labels, strict=True)]
    return propose_calibration(Scope.CONFIG, name, verifier, labelled, "file labels.jsonl")


def section(client: Client) -> str:
    html = client.get("/verifiers/").content.decode()
    start = html.index('id="calibration"')
    return html[start : html.index("</section>", start)]


def test_a_candidate_shows_its_figures_and_applies_and_undoes(admin: Any, client: Client):
    verifier = active_verifier.active().verifier_id
    found = candidate("films", -1.5, verifier)
    client.force_login(admin)
    html = section(client)
    fit = found.fits["verifier"]
    assert f'data-calibration="{found.name}" data-state="candidate"' in html
    assert "candidate: the guard passes" in html
    assert f"{fit['ba_before']:.3f} → {fit['ba_after']:.3f}" in html
    assert "200 (" in html and "Apply to this grounding config" in html

    response = client.post(f"/verifiers/calibrations/{found.pk}/apply/")
    assert response.status_code == 302 and response.url.endswith("#calibration")
    found.refresh_from_db()
    assert found.state == Calibration.State.APPLIED and found.applied_by == "ada-admin"
    html = section(client)
    assert "in effect" in html and "by <bdi>ada-admin</bdi>" in html
    assert "Undo: back to the verifier" in html

    client.post(f"/verifiers/calibrations/{found.pk}/undo/")
    found.refresh_from_db()
    assert found.state == Calibration.State.UNDONE and found.undone_by == "ada-admin"


def test_a_refused_candidate_says_why_and_offers_no_apply(admin: Any, client: Client):
    verifier = active_verifier.active().verifier_id
    refused = candidate("faq", 0.0, verifier)
    few = candidate("tiny", -1.5, verifier, n=20)
    client.force_login(admin)
    html = section(client)
    assert "candidate: not offered" in html
    assert "does not lie above zero" in html
    assert "at least 30, 8 of each class, are needed" in html
    assert "Apply to this" not in html
    # Posting anyway changes nothing.
    client.post(f"/verifiers/calibrations/{refused.pk}/apply/")
    client.post(f"/verifiers/calibrations/{few.pk}/apply/")
    assert not Calibration.objects.filter(state=Calibration.State.APPLIED).exists()


def test_a_calibration_of_another_verifier_stands_idle(admin: Any, client: Client):
    found = candidate("films", -1.5, "other@sha256:000000000009")
    client.force_login(admin)
    client.post(f"/verifiers/calibrations/{found.pk}/apply/")
    assert "applied, idle: fitted for another verifier" in section(client)


def test_only_admins_apply(make_user: Any, client: Client):
    found = candidate("films", -1.5, "v@sha256:000000000001")
    client.force_login(make_user("reviewer", "rev"))
    response = client.post(f"/verifiers/calibrations/{found.pk}/apply/")
    assert response.status_code in (302, 403)
    found.refresh_from_db()
    assert found.state == Calibration.State.CANDIDATE


def test_the_page_says_which_of_adaptation_and_calibration_the_labels_support():
    from types import SimpleNamespace

    from grounding_app.verifiers.calibrations import by_scope, versus

    found = candidate("films", -1.5, "v@sha256:000000000001")
    gain = found.fits["verifier"]["ba_after"] - found.fits["verifier"]["ba_before"]
    scopes = by_scope("v@sha256:000000000001")
    small = SimpleNamespace(
        before={"balanced_accuracy": 0.70}, after={"balanced_accuracy": 0.71, "labels": 120}
    )
    said = versus(small, scopes)
    assert "Adapting the weights gained +0.010 in balanced accuracy on 120" in said
    assert f"calibrating the grounding config films gained {gain:+.3f} on 200" in said
    assert said.endswith("support calibrating the grounding config films better.")
    large = SimpleNamespace(
        before={"balanced_accuracy": 0.5}, after={"balanced_accuracy": 0.9, "labels": 80}
    )
    assert versus(large, scopes).endswith("support adapting the weights better.")
    assert versus(None, scopes) == "" and versus(large, []) == ""
