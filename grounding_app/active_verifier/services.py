"""Which verifier judges now, and switching it, for every process without a restart.

The choice is one database row (`models.ActiveVerifier`). Every process checks through
its `checker.Checker`, which reads the row at most once per FOLLOW_SECONDS and loads the
named directory's engine when it changes. So a switch reaches every web and Celery
worker within FOLLOW_SECONDS, and costs a request one indexed read at most every
FOLLOW_SECONDS.

The verifiers an admin may choose are found on disk (`on_disk`): the bundled one, the
configured GROUNDING_VERIFIER_DIR and every directory holding a verifier.json under
GROUNDING_VERIFIERS_ROOT (where adaptations are written). A switch first loads the
directory as the engine will (`engine.CrossEncoderJudge`); one that fails to load is
refused and nothing changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from grounding_app.active_verifier.checker import (
    active_directory,
    checker,
    configured_directory,
)
from grounding_app.active_verifier.models import ActiveVerifier, VerifierSwitch
from grounding_app.engine import (
    FEATURE_JUDGE,
    FEATURE_JUDGE_LANGUAGES,
    VERIFIER_DIR,
    CrossEncoderJudge,
)
from grounding_app.rendering.languages import JudgeInfo

# The engine's order (engine/verifier/model.py): the first of these a directory holds.
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


class SwitchError(ValueError):
    """The directory cannot be made the verifier; nothing was changed."""


# --- what is on disk ---------------------------------------------------------------


@dataclass(frozen=True)
class OnDisk:
    """A verifier directory as the page lists it; `problem` says why it cannot judge."""

    directory: Path
    where: str  # "bundled", "GROUNDING_VERIFIER_DIR" or "GROUNDING_VERIFIERS_ROOT"
    name: str
    verifier_id: str  # "name@sha256:<12 hex>", as responses name it; "" with a problem
    languages: tuple[str, ...]
    config: dict[str, Any] = field(default_factory=dict, repr=False)
    problem: str = ""

    @property
    def key(self) -> str:
        return str(self.directory)

    @property
    def card(self) -> str:
        """The directory's MODEL_CARD.md, or "" without one."""
        path = self.directory / "MODEL_CARD.md"
        try:
            return path.read_text(encoding="utf-8") if path.is_file() else ""
        except (OSError, UnicodeDecodeError):
            return ""


_hashes: dict[tuple[str, int, int], str] = {}


def _weights_hash(path: Path) -> str:
    """The weights' sha256 (first 12 hex), as `CrossEncoderJudge.verifier_id` has it;
    remembered per file, size and modification time, so the page hashes each once."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _hashes:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _hashes[key] = digest.hexdigest()[:12]
    return _hashes[key]


def describe(directory: Path, where: str = "GROUNDING_VERIFIERS_ROOT") -> OnDisk:
    """Name, id and languages from verifier.json and the weights, without loading the
    model (the page lists every verifier on disk)."""
    try:
        config = json.loads((directory / "verifier.json").read_text(encoding="utf-8"))
        if not isinstance(config, dict):
            raise ValueError("verifier.json is not a JSON object")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return OnDisk(directory, where, directory.name, "", (), problem=f"verifier.json: {exc}")
    name = str(config.get("name") or directory.resolve().name)
    languages = tuple(str(code) for code in config.get("languages", ["en"]))
    weights = next((directory / n for n in WEIGHT_FILES if (directory / n).is_file()), None)
    if weights is None:
        problem = f"no weights ({' or '.join(WEIGHT_FILES)})"
        return OnDisk(directory, where, name, "", languages, config, problem)
    verifier_id = f"{name}@sha256:{_weights_hash(weights)}"
    return OnDisk(directory, where, name, verifier_id, languages, config)


def verifiers_root() -> Path:
    return Path(settings.GROUNDING_VERIFIERS_ROOT)


def on_disk() -> list[OnDisk]:
    """The bundled verifier, the configured one and those under GROUNDING_VERIFIERS_ROOT
    (one level down, by name), each directory once."""
    found = [describe(VERIFIER_DIR, "bundled")]
    configured = configured_directory()
    if configured.resolve() != VERIFIER_DIR.resolve():
        found.append(describe(configured, "GROUNDING_VERIFIER_DIR"))
    root = verifiers_root()
    if root.is_dir():
        seen = {entry.directory.resolve() for entry in found}
        for directory in sorted(root.iterdir()):
            # Names starting with "." are adaptations still being written.
            if directory.name.startswith(".") or not (directory / "verifier.json").is_file():
                continue
            if directory.resolve() not in seen:
                found.append(describe(directory))
    return found


def find(key: str) -> OnDisk | None:
    """The listed verifier whose directory is `key` (what the page posts), else None: a
    switch may only name a directory the page offers."""
    return next((entry for entry in on_disk() if entry.key == key), None)


def judge_info(verifier_id: str, checked_by: Iterable[str | None] = ()) -> JudgeInfo:
    """How a page labels the claims a stored check left to word matching, from what the
    check stored (never the engine loaded now): the languages of the verifier it names
    (found on disk by its id), or the feature judge's where its claims say it judged;
    unknown otherwise."""
    if verifier_id:
        for entry in on_disk():
            if entry.verifier_id == verifier_id:
                return JudgeInfo(entry.languages)
    elif FEATURE_JUDGE in set(checked_by):
        return JudgeInfo(FEATURE_JUDGE_LANGUAGES, "feature judge")
    return JudgeInfo()


def active() -> OnDisk:
    """The verifier the database names (or the configured one), described."""
    directory = active_directory()
    listed = next((e for e in on_disk() if e.directory.resolve() == directory.resolve()), None)
    return listed or describe(directory)


# --- switching -----------------------------------------------------------------------


def switch(user: Any, entry: OnDisk) -> VerifierSwitch:
    """Make `entry` the verifier of every process, with an audit row; this process
    follows at once, the others within FOLLOW_SECONDS. Raises SwitchError, changing
    nothing, when the directory does not load as a verifier."""
    if entry.problem:
        raise SwitchError(f"{entry.directory} cannot judge: {entry.problem}.")
    try:
        loaded = CrossEncoderJudge(entry.directory)
    except Exception as exc:  # any failure to load: the message says what is missing
        raise SwitchError(f"{entry.directory} cannot judge: {exc}") from exc
    with transaction.atomic():
        row, _ = ActiveVerifier.objects.select_for_update().get_or_create(
            pk=ActiveVerifier.SINGLETON
        )
        before = Path(row.directory) if row.directory else configured_directory()
        previous = row.verifier or describe(before).verifier_id
        row.directory = str(entry.directory)
        row.verifier = loaded.verifier_id
        row.changed_at = timezone.now()
        row.save()
        record = VerifierSwitch.objects.create(
            changed_by=user if getattr(user, "is_authenticated", False) else None,
            username=getattr(user, "get_username", lambda: "")()[:150],
            changed_at=row.changed_at,
            from_verifier=previous,
            to_verifier=loaded.verifier_id,
            from_directory=str(before),
            to_directory=str(entry.directory),
        )
    checker().forget_followed()
    return record
