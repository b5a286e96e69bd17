"""The Verifier page's calibration section: per scope, the calibration applied there and
the newest candidate, each judge's figures as its guard measured them, and whether it
is in effect (a calibration maps one verifier's scale: under another it stands idle)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from grounding_app.calibration.models import Calibration, Scope


@dataclass(frozen=True)
class Fit:
    judge: str
    figures: dict[str, Any]  # `calibration.services.as_json`

    @property
    def gain(self) -> float | None:
        before, after = self.figures.get("ba_before"), self.figures.get("ba_after")
        return None if before is None or after is None else after - before


@dataclass(frozen=True)
class Shown:
    calibration: Calibration
    fits: tuple[Fit, ...]
    in_effect: bool  # applied, for the verifier judging now
    can_apply: bool  # a candidate some judge's guard passed

    @property
    def scope_kind(self) -> str:
        return Scope(self.calibration.kind).label


def _shown(found: Calibration, verifier: str | None) -> Shown:
    fits = tuple(Fit(judge, figures) for judge, figures in sorted(found.fits.items()))
    applied = found.state == Calibration.State.APPLIED
    return Shown(
        found,
        fits,
        in_effect=applied and found.verifier == verifier,
        can_apply=found.state == Calibration.State.CANDIDATE and bool(found.usable_fits()),
    )


def by_scope(verifier: str | None, per_scope: int = 3) -> list[tuple[str, str, list[Shown]]]:
    """(scope kind, scope, its newest calibrations, the applied one first)."""
    grouped: dict[tuple[str, str], list[Calibration]] = {}
    for found in Calibration.objects.order_by("kind", "scope", "-created_at", "-id")[:500]:
        grouped.setdefault((found.kind, found.scope), []).append(found)
    out = []
    for (kind, scope), rows in grouped.items():
        applied = [r for r in rows if r.state == Calibration.State.APPLIED]
        rest = [r for r in rows if r.state != Calibration.State.APPLIED]
        shown = [_shown(r, verifier) for r in (applied + rest)[:per_scope]]
        out.append((Scope(kind).label, scope, shown))
    return out


def versus(held: Any, scopes: list[tuple[str, str, list[Shown]]]) -> str:
    """Which of the two the labels support better, in words: adapting the weights (the
    active verifier's own held-back figures, when it was adapted) or a scope's calibration
    (its best held-back gain). Each is measured on its own held-back labels, and the
    sentence says so."""
    best: tuple[float, str, int] | None = None
    for kind, scope, shown in scopes:
        for s in shown:
            for f in s.fits:
                if f.gain is not None and (best is None or f.gain > best[0]):
                    best = (f.gain, f"the {kind} {scope}", int(f.figures["labels"]))
    if held is None or best is None:
        return ""
    before = held.before.get("balanced_accuracy")
    after = held.after.get("balanced_accuracy")
    if before is None or after is None:
        return ""
    adapted = float(after) - float(before)
    calibrated, where, count = best
    better = "adapting the weights" if adapted > calibrated else f"calibrating {where}"
    return (
        f"Adapting the weights gained {adapted:+.3f} in balanced accuracy on "
        f"{held.after.get('labels', '?')} held-back labels; calibrating {where} gained "
        f"{calibrated:+.3f} on {count} (each on its own held-back labels): these labels "
        f"support {better} better."
    )
