"""Candidates proposed from labels, applied and undone; the scale a check in a scope
gets. Applying is refused for a candidate no judge's guard passed (`fit.propose`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from grounding_app.calibration.fit import Proposal, propose
from grounding_app.calibration.models import Calibration, Scope
from grounding_app.engine import Platt, Scale

# One labelled claim: its score as the engine gave it (no scale), what scored it, its label.
Labelled = tuple[float, str, int]


# Labels every line has, or that name a trace source already: no scope of their own.
UNSCOPED = frozenset({"format", "service"})


class CalibrationError(ValueError):
    """Why a calibration cannot be applied or undone: shown to the person who asked."""


def as_json(proposal: Proposal) -> dict[str, Any]:
    data = asdict(proposal)
    platt = data.pop("platt")
    data["slope"] = platt["slope"] if platt else None
    data["offset"] = platt["offset"] if platt else None
    data["labels_to_settle"] = proposal.labels_to_settle()
    return data


def propose_calibration(
    kind: Scope,
    scope: str,
    verifier: str,
    labelled: Iterable[Labelled],
    labels_from: str,
    user: User | AnonymousUser | None = None,
) -> Calibration:
    """A candidate for the scope, one fit per judge that scored its labelled claims."""
    by_judge: dict[str, tuple[list[float], list[int]]] = defaultdict(lambda: ([], []))
    for score, judge, label in labelled:
        scores, labels = by_judge[judge]
        scores.append(score)
        labels.append(label)
    fits = {judge: as_json(propose(s, y)) for judge, (s, y) in sorted(by_judge.items())}
    return Calibration.objects.create(
        kind=kind,
        scope=scope,
        verifier=verifier,
        labels_from=labels_from[:300],
        fits=fits,
        created_by=user if isinstance(user, User) else None,
    )


def _name(user: User | AnonymousUser | None) -> str:
    return user.get_username() if user is not None and user.is_authenticated else "manage.py"


def apply(calibration: Calibration, user: User | AnonymousUser | None) -> None:
    """Applies a candidate to its scope, in place of the one applied there (undone)."""
    if calibration.state != Calibration.State.CANDIDATE:
        raise CalibrationError(f"{calibration.name} is {calibration.state}, not a candidate.")
    if not calibration.usable_fits():
        reasons = "; ".join(f"{j}: {f['refused']}" for j, f in calibration.fits.items())
        raise CalibrationError(f"No judge's guard passed, so it is not applied ({reasons}).")
    now = timezone.now()
    with transaction.atomic():
        Calibration.objects.select_for_update().filter(
            kind=calibration.kind, scope=calibration.scope, state=Calibration.State.APPLIED
        ).update(state=Calibration.State.UNDONE, undone_by=_name(user), undone_at=now)
        calibration.state = Calibration.State.APPLIED
        calibration.applied_by, calibration.applied_at = _name(user), now
        calibration.save(update_fields=["state", "applied_by", "applied_at"])


def undo(calibration: Calibration, user: User | AnonymousUser | None) -> None:
    """The scope goes back to the engine's own scale."""
    if calibration.state != Calibration.State.APPLIED:
        raise CalibrationError(f"{calibration.name} is not applied.")
    calibration.state = Calibration.State.UNDONE
    calibration.undone_by, calibration.undone_at = _name(user), timezone.now()
    calibration.save(update_fields=["state", "undone_by", "undone_at"])


def line_scopes(labels: Mapping[str, str]) -> list[tuple[Scope, str]]:
    """The scopes a batch line is in, the narrowest first: the trace source its trace
    came from (an assembled trace's line carries `service`), then each of its labels as
    "key=value"."""
    scopes = [(Scope.SOURCE, labels["service"])] if labels.get("service") else []
    return scopes + [
        (Scope.LABEL, f"{k}={v}") for k, v in sorted(labels.items()) if k not in UNSCOPED
    ]


def applied_scope(scopes: Sequence[tuple[Scope, str]]) -> tuple[Scope, str] | None:
    """The first of `scopes` with a calibration applied (one query); None for none."""
    if not scopes:
        return None
    wanted = Q()
    for kind, name in scopes:
        wanted |= Q(kind=kind, scope=name)
    found = set(
        Calibration.objects.filter(wanted, state=Calibration.State.APPLIED).values_list(
            "kind", "scope"
        )
    )
    return next((s for s in scopes if (s[0].value, s[1]) in found), None)


def engine_score(score: float, calibration: str | None, judge: str | None) -> float:
    """A stored score as the engine gave it, before the calibration named (if any)
    mapped it: what a new calibration of the scope is fitted on."""
    pk = (calibration or "").rpartition("/calibrations/")[2]
    found = Calibration.objects.filter(pk=int(pk)).first() if pk.isdigit() else None
    fit = found.fits.get(judge or "") if found is not None else None
    if not fit or fit.get("slope") is None:
        return score
    return Platt(fit["slope"], fit["offset"]).inverse(score)


def scale_for(kind: Scope, scope: str, verifier: str | None) -> Scale | None:
    """The scale checks in this scope are read on: the calibration applied there, for the
    verifier judging now (None: the engine's own)."""
    if not scope or verifier is None:
        return None
    found = Calibration.objects.filter(
        kind=kind, scope=scope, state=Calibration.State.APPLIED, verifier=verifier
    ).first()
    if found is None:
        return None
    maps = {j: Platt(f["slope"], f["offset"]) for j, f in found.usable_fits().items()}
    return Scale(found.name, maps)
