"""What an adaptation may be asked, and how it refuses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The original training data, beside the repository (replayed and used as anchors).
DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "grounding"


class AdaptError(ValueError):
    """The labels or the options cannot make an adapted verifier; nothing was written."""


@dataclass(frozen=True)
class Options:
    hold_out: float = 0.2
    replay: int | None = None  # None: as many pairs as the labels trained on
    epochs: float = 1.0
    max_minutes: float | None = None
    batch_size: int = 16
    lr: float = 3e-5
    seed: int = 13
    name: str | None = None
    # The languages the adapted model reads; None: the start's. Adapting on labels in a
    # language the start does not read is how a team teaches it one (its claims are
    # judged by word matching until the verifier declares the language).
    languages: tuple[str, ...] | None = None
    # How many held-back labels weigh as much as what the start said before: with n held
    # back, the labels count n / (n + prior) in the calibration and in the move of the
    # best threshold to 0.6, and the anchors (below) the rest. Fine-tuning on one domain
    # and calibrating on a few dozen of its labels move every other domain's scores
    # too; 0 trusts the labels alone.
    calibration_prior: int = 200
    # Pairs of the training file (not trained on here) that the start scores and the
    # adapted model's calibration is asked to score alike: they hold its scores on
    # everything else where they were. Without the file, the calibration fitted on the
    # labels is blended with the start's instead.
    anchors: int = 400
    train_file: Path = DATA / "train.jsonl"
    bf16: bool | None = None  # None: when the CPU has bfloat16 instructions
