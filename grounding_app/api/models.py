"""API keys for the check-grounding API.

Only a SHA-256 of each key is stored. Keys carry 32 random bytes, so a slow password
hash would buy nothing but a slower request; a leaked table still reveals no key.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import OperationalError, models, transaction
from django.utils import timezone

KEY_PREFIX = "gwk_"
PREFIX_CHARS = 12  # "gwk_" and 8 random characters: enough to tell keys apart in the admin
MAX_KEY_CHARS = 256  # anything longer is not one of ours; do not hash it
LAST_USED_RESOLUTION = timedelta(minutes=1)

logger = logging.getLogger(__name__)


def hash_key(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


class ApiKey(models.Model):
    name = models.CharField(max_length=100, help_text="Who or what uses this key.")
    prefix = models.CharField(max_length=PREFIX_CHARS, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
        help_text="Its owner: only they or an admin change or revoke it.",
    )

    class Meta:
        verbose_name = "API key"
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    def set_new_key(self) -> str:
        """Give this (unsaved) key fresh secret material; return the plaintext key."""
        raw = KEY_PREFIX + secrets.token_urlsafe(32)
        self.prefix = raw[:PREFIX_CHARS]
        self.key_hash = hash_key(raw)
        return raw

    @classmethod
    def issue(cls, name: str, created_by: Any = None) -> tuple[ApiKey, str]:
        """Create a key; the plaintext is returned here once and never stored."""
        key = cls(name=name, created_by=created_by)
        raw = key.set_new_key()
        key.save()
        return key, raw

    @classmethod
    def authenticate(cls, raw: str) -> ApiKey | None:
        """The live key whose plaintext is `raw`, or None; notes its use once a minute."""
        if not raw or len(raw) > MAX_KEY_CHARS:
            return None
        key = cls.objects.filter(key_hash=hash_key(raw), revoked_at__isnull=True).first()
        if key is None:
            return None
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
            key._note_use(now)
        return key

    def _note_use(self, now: datetime) -> None:
        """Best effort: a locked database must not refuse a request for bookkeeping.

        An UPDATE of one column, so concurrent requests never overwrite other edits, in
        a savepoint, so a failure leaves a caller's transaction usable.
        """
        try:
            with transaction.atomic():
                type(self).objects.filter(pk=self.pk).update(last_used_at=now)
        except OperationalError:
            logger.warning(
                "Could not note the use of API key %s in last_used_at", self.pk, exc_info=True
            )
            return
        self.last_used_at = now
