"""A scope's calibration: a candidate fitted from its labels, applied by someone or not.

A scope is a grounding config (the `{config}` of `groundingConfigs/{config}:check`), a
trace source or a batch label. Each `Calibration` holds, per judge that scored the
labelled claims (the verifier, word matching), its fitted map and the guard's figures
(`fit.Proposal`), for the verifier that gave the scores: a calibration of one verifier's
scale means nothing for another's. At most one calibration per scope is applied; undoing
it, or applying a newer one, keeps the old row, with who did what and when.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone


class Scope(models.TextChoices):
    CONFIG = "config", "grounding config"
    SOURCE = "source", "trace source"
    LABEL = "label", "batch label"


# How a scope kind is named on the wire: "groundingConfigs/NAME/calibrations/ID".
COLLECTIONS = {
    Scope.CONFIG: "groundingConfigs",
    Scope.SOURCE: "traceSources",
    Scope.LABEL: "batchLabels",
}


class Calibration(models.Model):
    class State(models.TextChoices):
        CANDIDATE = "candidate"
        APPLIED = "applied"
        UNDONE = "undone"  # applied once, then undone or replaced

    kind = models.CharField(max_length=10, choices=Scope.choices)
    scope = models.CharField(max_length=200, help_text="The config, source or label name.")
    verifier = models.CharField(max_length=200, help_text="The verifier whose scores it maps.")
    labels_from = models.CharField(
        max_length=300, help_text="Where its labels came from: a file, a project, the sampler."
    )
    # judge ("verifier", "word_matching") -> `Proposal` as JSON (`fits.as_json`).
    fits = models.JSONField(default=dict)
    state = models.CharField(max_length=10, choices=State.choices, default=State.CANDIDATE)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)
    applied_by = models.CharField(max_length=150, blank=True, help_text="Kept if the user goes.")
    applied_at = models.DateTimeField(null=True, blank=True)
    undone_by = models.CharField(max_length=150, blank=True)
    undone_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("kind", "scope", "-created_at", "-id")
        indexes = [models.Index(fields=("kind", "scope", "state"))]
        constraints = [
            models.UniqueConstraint(
                fields=("kind", "scope"),
                condition=models.Q(state="applied"),
                name="one_applied_calibration_per_scope",
            )
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        """What a response names for each claim this calibration scored."""
        return f"{COLLECTIONS[Scope(self.kind)]}/{self.scope}/calibrations/{self.pk}"

    def usable_fits(self) -> dict[str, dict[str, Any]]:
        """The judges whose map passed the guard."""
        return {judge: fit for judge, fit in self.fits.items() if not fit.get("refused")}
