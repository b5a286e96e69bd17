"""Which verifier judges, kept in the database so every web and Celery worker follows it.

One row (`ActiveVerifier`, pk 1) names the chosen directory; none, or an empty one, means
the configured default (GROUNDING_VERIFIER_DIR, else the bundled verifier). Each switch
also writes a `VerifierSwitch`, never edited: who, when, from which verifier and
directory to which.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ActiveVerifier(models.Model):
    SINGLETON = 1

    directory = models.CharField(
        max_length=1000, blank=True, help_text="Empty: the configured GROUNDING_VERIFIER_DIR."
    )
    verifier = models.CharField(max_length=200, blank=True, help_text="name@sha256:<12 hex>")
    changed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return self.verifier or self.directory or "the configured verifier"


class VerifierSwitch(models.Model):
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    username = models.CharField(max_length=150, blank=True, help_text="Kept if the user goes.")
    changed_at = models.DateTimeField(default=timezone.now, db_index=True)
    from_verifier = models.CharField(max_length=200, blank=True)
    to_verifier = models.CharField(max_length=200)
    from_directory = models.CharField(max_length=1000, blank=True)
    to_directory = models.CharField(max_length=1000)

    class Meta:
        ordering = ("-changed_at", "-id")

    def __str__(self) -> str:
        return f"{self.from_verifier or '?'} → {self.to_verifier} by {self.username or '?'}"
