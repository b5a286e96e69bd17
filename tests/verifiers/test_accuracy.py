"""The Verifier page's accuracy card on the team's own labels: its figures equal a hand
computation on a small labelled set, by week, with the bootstrap intervals redone here
by counting pairs on the same draws; adaptation is offered once enough labels have accrued."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.template.defaultfilters import floatformat
from django.test import Client

from grounding_app.active_verifier import services as active_verifier
from grounding_app.annotations.items import create_project
from grounding_app.annotations.models import Assignment, ClaimLabel, Item, ItemClaim
from grounding_app.verifiers import accuracy
from tests.verifiers.test_switching import switch

pytestmark = pytest.mark.django_db

WEEK_A = date(2026, 11, 23)
WEEK_B = date(2026, 11, 30)
# (labels given, adjudicated, verdict, score, day): the team's labels of eight claims.
CLAIMS: list[tuple[list[str], str, str, float, datetime]] = [
    (["supported"], "", "supported", 0.9, datetime(2026, 11, 24, tzinfo=UTC)),
    (["supported", "supported"], "", "unsupported", 0.5, datetime(2026, 11, 25, tzinfo=UTC)),
    (["unsupported"], "", "unsupported", 0.2, datetime(2026, 11, 26, tzinfo=UTC)),
    (["partial", "partial"], "", "supported", 0.7, datetime(2026, 11, 29, tzinfo=UTC)),
    (["supported"], "", "supported", 0.8, datetime(2026, 11, 30, tzinfo=UTC)),
    (["supported"], "", "supported", 0.65, datetime(2026, 12, 1, tzinfo=UTC)),
    (["unsupported"], "", "unsupported", 0.3, datetime(2026, 12, 2, tzinfo=UTC)),
    (["supported"], "unsupported", "supported", 0.62, datetime(2026, 12, 3, tzinfo=UTC)),
]
# Not counted: a tie, no check needed, another verifier's scores.
LEFT_OUT: list[tuple[list[str], str, str, float, datetime]] = [
    (["supported", "unsupported"], "", "supported", 0.6, datetime(2026, 12, 1, tzinfo=UTC)),
    (["no_check"], "", "supported", 0.6, datetime(2026, 12, 1, tzinfo=UTC)),
]


def _label(
    project: Any,
    people: list[Any],
    verifier: str,
    row: tuple[list[str], str, str, float, datetime],
) -> None:
    labels, adjudicated, verdict, score, when = row
    item = Item.objects.create(
        project=project, position=Item.objects.count(), answer="x", meta={"verifier": verifier}
    )
    claim = ItemClaim.objects.create(
        item=item,
        index=0,
        start=0,
        end=1,
        text="x",
        check_required=True,
        model_verdict=verdict,
        model_score=score,
        adjudicated_label=adjudicated,
        adjudicated_at=when if adjudicated else None,
    )
    for slot, (person, label) in enumerate(zip(people, labels, strict=False)):
        assignment = Assignment.objects.create(
            item=item,
            annotator=person,
            slot=slot,
            status=Assignment.Status.SUBMITTED,
            submitted_at=when,
        )
        ClaimLabel.objects.create(assignment=assignment, claim=claim, label=label)


def _pairs_auc(rows: list[tuple[int, bool, float]]) -> float | None:
    pos = [s for y, _, s in rows if y == 1]
    neg = [s for y, _, s in rows if y == 0]
    if not pos or not neg:
        return None
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def _count_ba(rows: list[tuple[int, bool, float]]) -> float | None:
    pos = [p for y, p, _ in rows if y == 1]
    neg = [p for y, p, _ in rows if y == 0]
    if not pos or not neg:
        return None
    return (sum(pos) / len(pos) + sum(not p for p in neg) / len(neg)) / 2


def _bootstrap(rows: list[tuple[int, bool, float]]) -> tuple[float, float, float, float]:
    picks = np.random.default_rng(0).integers(0, len(rows), size=(1000, len(rows)))
    bas, aucs = [], []
    for drawn in picks.tolist():
        sample = [rows[i] for i in drawn]
        if (ba := _count_ba(sample)) is not None:
            bas.append(ba)
        if (auc := _pairs_auc(sample)) is not None:
            aucs.append(auc)
    bas.sort()
    aucs.sort()
    return (
        bas[int(0.025 * (len(bas) - 1))],
        bas[int(0.975 * (len(bas) - 1))],
        aucs[int(0.025 * (len(aucs) - 1))],
        aucs[int(0.975 * (len(aucs) - 1))],
    )


@pytest.fixture
def labelled(make_user: Callable[..., Any]) -> str:
    verifier = active_verifier.active().verifier_id
    project = create_project(None, name="production labels")
    people = [make_user("annotator", "ann-1"), make_user("annotator", "ann-2")]
    for row in CLAIMS + LEFT_OUT:
        _label(project, people, verifier, row)
    _label(project, people, "other@sha256:000000000000", CLAIMS[0])
    return verifier


def test_figures_by_week_equal_a_hand_computation(labelled: str) -> None:
    weeks = accuracy.by_week(accuracy.team_labels(labelled))
    assert [f.week for f in weeks] == [WEEK_B, WEEK_A, None]
    assert [f.labels for f in weeks] == [4, 4, 8]
    # Week of 23 Nov: TPR 1/2, TNR 1/2; AUC: 3 of 4 pairs ordered.
    # Week of 30 Nov (the adjudicated claim counts as unsupported): TPR 1, TNR 1/2; 4 of 4.
    # All: TPR 3/4, TNR 2/4; AUC 13 of 16 pairs.
    assert [f.balanced_accuracy for f in weeks] == [0.75, 0.5, 0.625]
    assert [f.roc_auc for f in weeks] == [1.0, 0.75, 13 / 16]
    rows = [(_truth(r), r[2] == "supported", r[3]) for r in CLAIMS]
    total = weeks[-1]
    assert total.balanced_accuracy_ci is not None and total.roc_auc_ci is not None
    assert (
        total.balanced_accuracy_ci.low,
        total.balanced_accuracy_ci.high,
        total.roc_auc_ci.low,
        total.roc_auc_ci.high,
    ) == pytest.approx(_bootstrap(rows), abs=1e-12)


def _truth(row: tuple[list[str], str, str, float, datetime]) -> int:
    labels, adjudicated = row[0], row[1]
    chosen = adjudicated or max(set(labels), key=labels.count)
    return int(chosen == "supported")


def test_the_card_shows_them_and_offers_adaptation(
    labelled: str, admin: Any, client: Client, settings: Any
) -> None:
    client.force_login(admin)
    settings.VERIFIER_ADAPT_MIN_LABELS = 9
    html = client.get("/verifiers/").content.decode()
    assert 'data-week="2026-11-30"' in html and 'data-week="all"' in html
    for figure in ("0.750", "0.500", "0.625", floatformat(13 / 16, 3)):
        assert f'data-figure="ba">{figure}' in html or f'data-figure="auc">{figure}' in html
    assert "Adaptation is offered from 9 labels" in html
    settings.VERIFIER_ADAPT_MIN_LABELS = 8
    html = client.get("/verifiers/").content.decode()
    assert "8 labels have accrued" in html and 'href="#adaptations"' in html


def test_an_adapted_verifier_shows_before_and_after_on_held_back_labels(
    verifiers: dict[str, Path], admin: Any, client: Client, make_user: Callable[..., Any]
) -> None:
    adapted = verifiers["root"] / "tiny-nli-adapted-on-team-labels"
    if not adapted.exists():
        shutil.copytree(verifiers["nli"], adapted)
        config = json.loads((adapted / "verifier.json").read_text())
        config["figures"] = {
            "held_back": {
                "before": {"balanced_accuracy": 0.61, "roc_auc": 0.7, "labels": 40},
                "after": {"balanced_accuracy": 0.74, "roc_auc": 0.83, "labels": 40},
            }
        }
        (adapted / "verifier.json").write_text(json.dumps(config))
    client.force_login(admin)
    switch(client, adapted)
    project = create_project(None, name="production labels")
    people = [make_user("annotator", "ann-1")]
    _label(project, people, active_verifier.active().verifier_id, CLAIMS[0])
    html = client.get("/verifiers/").content.decode()
    card = html[html.index('id="team-accuracy"') : html.index('id="figures-title"')]
    assert 'data-held="40"' in card
    assert "balanced accuracy 0.610 before → 0.740 adapted, ROC AUC 0.700 → 0.830" in card


def test_the_intervals_count_tied_scores_as_half_pairs() -> None:
    """Forty claims with scores on a coarse grid (many ties), one week: the card's
    intervals equal the pairs counted on the same draws."""
    rows = [((n * 7) % 3 != 0, (n * 5) % 4 != 0, round((n * 13 % 10) / 10, 1)) for n in range(40)]
    week = date(2026, 11, 30)
    found = accuracy.figures([accuracy.Labelled(int(y), p, s, week) for y, p, s in rows], week)
    assert found.balanced_accuracy_ci is not None and found.roc_auc_ci is not None
    assert found.roc_auc == _pairs_auc([(int(y), p, s) for y, p, s in rows])
    assert (
        found.balanced_accuracy_ci.low,
        found.balanced_accuracy_ci.high,
        found.roc_auc_ci.low,
        found.roc_auc_ci.high,
    ) == pytest.approx(_bootstrap([(int(y), p, s) for y, p, s in rows]), abs=1e-12)


def test_the_card_shows_each_figure_with_its_95_percent_interval(
    labelled: str, admin: Any, client: Client
) -> None:
    client.force_login(admin)
    html = client.get("/verifiers/").content.decode()
    total = accuracy.by_week(accuracy.team_labels(labelled))[-1]
    assert total.balanced_accuracy_ci is not None and total.roc_auc_ci is not None
    row = html[html.index('data-week="all"') :]
    row = row[: row.index("</tr>")]
    low, high = total.balanced_accuracy_ci.low, total.balanced_accuracy_ci.high
    shown = f"[{floatformat(low, 3)}, {floatformat(high, 3)}]"
    assert f'0.625<span class="interval" data-interval> {shown}' in row
    low, high = total.roc_auc_ci.low, total.roc_auc_ci.high
    assert f" [{floatformat(low, 3)}, {floatformat(high, 3)}]</span>" in row
    assert 'Balanced accuracy <span class="muted">(95 % interval)</span>' in html
    assert "percentile bootstrap" in html


def test_labels_of_one_class_are_not_measurable_in_words(
    admin: Any, client: Client, make_user: Callable[..., Any]
) -> None:
    client.force_login(admin)
    verifier = active_verifier.active().verifier_id
    project = create_project(None, name="production labels")
    people = [make_user("annotator", "ann-1")]
    for row in (CLAIMS[0], CLAIMS[4]):  # two claims, both labelled supported
        _label(project, people, verifier, row)
    weeks = accuracy.by_week(accuracy.team_labels(verifier))
    assert [(f.balanced_accuracy, f.roc_auc, f.only) for f in weeks] == [
        (None, None, "supported"),
        (None, None, "supported"),
        (None, None, "supported"),
    ]
    html = client.get("/verifiers/").content.decode()
    assert "not measurable: all labels are supported" in html
    assert 'data-figure="ba">0.000' not in html
    only_no = accuracy.figures([accuracy.Labelled(0, False, 0.2, WEEK_A)], WEEK_A)
    assert only_no.not_measurable == "not measurable: all labels are unsupported or partial"
