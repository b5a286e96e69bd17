"""Agreement figures on a small project labeled by hand, adjudication, and the page."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from grounding_app.annotations import agreement
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.metrics import ReliabilityBin, binary_report
from grounding_app.rendering.charts import reliability_svg
from tests.annotations.conftest import client_for

pytestmark = pytest.mark.django_db

S, U, N = "supported", "unsupported", "no_check"


def test_agreement_figures(labeled: tuple[LabelingProject, list[ItemClaim]]) -> None:
    project, claims = labeled
    report = agreement.agreement(project)
    assert report.annotators == ("ann", "bob", "cat")
    assert report.labeled_claims == 5 and report.alpha_units == 5
    # By hand: coincidences S-S 5, N-N 3, U-U 3, S-U 2, U-S 2; n = 15;
    # alpha = 1 - 14 * 4 / (2 * (7*5 + 7*3 + 5*3)) = 1 - 56/142.
    assert report.alpha == pytest.approx(1 - 56 / 142)
    kappas = {row[0]: [cell.kappa for cell in row[1]] for row in report.kappa_rows}
    # ann/bob: p_o = 4/5, p_e = (3*2 + 1*1 + 1*2)/25 = 9/25.
    assert kappas["ann"][1] == pytest.approx((0.8 - 0.36) / 0.64)
    assert kappas["ann"][0] is None
    assert report.kappa_rows[0][1][0].band == "heat-self"

    rows = dict(report.confusion_rows)
    assert [sum(n for n, _ in rows[key]) for key in (S, U, N)] == [3, 1, 1]
    verdict_of = {c.pk: c.model_verdict for c in claims}
    assert rows[N][2][0] == sum(1 for c in claims[1:2] if verdict_of[c.pk] == N)

    finals = [S, N, S, U, S]
    compared = [
        (1 if final == S else 0, c.model_verdict == S, c.model_score)
        for c, final in zip(claims, finals, strict=True)
        if final != N and c.model_score is not None
    ]
    assert report.compared == len(compared) == 4
    expected = binary_report(
        [y for y, _, _ in compared], [p for _, p, _ in compared], [s for *_, s in compared]
    )
    assert report.balanced_accuracy == pytest.approx(expected.balanced_accuracy)
    assert sum(b.count for b in report.bins) == 4

    assert [d.claim.pk for d in report.disagreements] == [claims[2].pk, claims[4].pk]
    assert report.disagreements[1].majority == S
    assert report.disagreements[1].labels == (("ann", S), ("bob", U), ("cat", S))
    assert report.unresolved == 2


def test_adjudication_changes_the_final_label(
    labeled: tuple[LabelingProject, list[ItemClaim]], lead: Any
) -> None:
    project, claims = labeled
    client = client_for(lead)
    url = f"/annotations/{project.pk}/claims/{claims[4].pk}/adjudicate/"
    response = client.post(url, {"label": U}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    fragment = response.content.decode()
    assert (
        fragment.lstrip().startswith("<li")
        and "final: <strong><bdi>Unsupported</bdi></strong>" in fragment
    )
    assert "lena-lead" in fragment
    claims[4].refresh_from_db()
    assert claims[4].adjudicated_label == U and claims[4].adjudicated_by == lead
    report = agreement.agreement(project)
    assert [sum(n for n, _ in cells) for _, cells in report.confusion_rows[:2]] == [2, 2]
    assert report.unresolved == 1 and report.disagreements[-1].claim.pk == claims[4].pk
    # Without htmx: back to the page, at the claim. An empty label clears it.
    response = client.post(url, {"label": ""})
    assert response.status_code == 302 and response["Location"].endswith(f"#claim-{claims[4].pk}")
    claims[4].refresh_from_db()
    assert claims[4].adjudicated_label == "" and claims[4].adjudicated_by is None
    assert client.post(url, {"label": "maybe"}).status_code == 400


def test_adjudicating_a_claim_of_another_project_is_404(
    labeled: tuple[LabelingProject, list[ItemClaim]], make_project: Any, lead: Any
) -> None:
    _, claims = labeled
    other = make_project(count=1)
    response = client_for(lead).post(
        f"/annotations/{other.pk}/claims/{claims[0].pk}/adjudicate/", {"label": S}
    )
    assert response.status_code == 404


def test_agreement_page(labeled: tuple[LabelingProject, list[ItemClaim]], lead: Any) -> None:
    project, claims = labeled
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    assert "Krippendorff" in page and f"{1 - 56 / 142:.3f}" in page
    assert "Cohen" in page and "0.69" in page
    # drawn for wide screens and for phones (issue 44, item 19), each with its own ids
    assert (
        '<svg xmlns="http://www.w3.org/2000/svg" class="chart chart-reliability chart-wide"' in page
    )
    assert 'class="chart chart-reliability chart-narrow" viewBox="0 0 340 ' in page
    assert 'aria-labelledby="reliability-title-narrow reliability-desc-narrow"' in page
    assert page.count('id="reliability-title') == 2
    assert page.count('<li class="disagreement') == 2
    assert claims[4].text in page
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == []  # no inline script


def test_empty_project_agreement(make_project: Callable[..., LabelingProject], lead: Any) -> None:
    project = make_project(count=1)
    report = agreement.agreement(project)
    assert report.alpha is None and report.balanced_accuracy is None and report.ece is None
    page = client_for(lead).get(f"/annotations/{project.pk}/agreement/").content.decode()
    assert "No labeled claims with a score yet" in page
    assert "Needs two annotators" in page


def test_chart_escapes_its_text_and_draws_each_filled_bin() -> None:
    bins = [
        ReliabilityBin(0.0, 0.5, 3, 0.2, 1 / 3),
        ReliabilityBin(0.5, 1.0, 0, 0.0, 0.0),
    ]
    svg = reliability_svg({"model": bins}, title="<script>alert(1)</script>", legend=False)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert svg.count('class="chart-bar"') == 1 and svg.count('class="chart-dot"') == 1
    assert "3 claims, mean score 0.20, 33% supported by people" in svg
    assert "style=" not in svg  # the CSP allows no inline style


@pytest.mark.parametrize(
    ("kappa", "band"),
    [
        (None, "heat-none"),
        (-0.2, "heat-neg"),
        (0.0, "heat-0"),
        (0.1, "heat-1"),
        (0.5, "heat-3"),
        (0.81, "heat-5"),
        (1.0, "heat-5"),
    ],
)
def test_kappa_bands(kappa: float | None, band: str) -> None:
    assert agreement.kappa_band(kappa) == band
