"""Turn a trained cross-encoder (a checkpoint or a finished model) into a verifier
directory the engine loads: fp16 weights, and `verifier.json` with the reading length,
the neighbours to show, and a calibration fitted on dev_realistic.

    python -m grounding_lab.package_verifier CHECKPOINT OUT [--neighbours 3]

Calibration (temperature and bias, class-balanced) is fitted on one pair per
dev_realistic example (its best evidence window), so a score of 0.6 means the same on
the data people bring; the lexical penalties are copied from the shipped verifier.
Compare the result with the shipped one through the engine before replacing it:
`manage.py grounding_eval .../dev_realistic.jsonl --judge verifier --judge verifier:OUT`.
`manage.py package_verifier` (a Hugging Face directory a team brings, calibrated on its
labels) shares the calibration, the threshold fit and the penalties defined here.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grounding_app.verifiers.adapt.calibrate import calibrate
from grounding_app.verifiers.adapt.measure import (
    engine_optimum,
    engine_scores,
    has_a_source_with_both_classes,
    pair_logits,
)

if TYPE_CHECKING:
    from grounding_app.engine import CrossEncoderJudge
    from grounding_app.formats.grounding_jsonl import Example

# Re-exported for the lab's commands and experiments, which measure verifiers too.
__all__ = [
    "engine_optimum",
    "engine_scores",
    "has_a_source_with_both_classes",
    "language_codes",
    "pair_calibration",
    "pair_logits",
    "penalties",
]

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "grounding"


def language_codes(value: str) -> list[str]:
    """`--languages en,he` for the commands that write a verifier.json."""
    codes = [code.strip().lower() for code in value.split(",") if code.strip()]
    if not codes or not all(re.fullmatch(r"[a-z]{2}", code) for code in codes):
        raise argparse.ArgumentTypeError(
            f"{value!r}: expected ISO 639-1 codes separated by commas, e.g. en,he"
        )
    return codes


def pair_calibration(
    judge: CrossEncoderJudge,
    examples: Sequence[Example],
    seed: int,
    per_source: dict[str, int] | None = None,
) -> tuple[float, float, int]:
    """Temperature and bias (class-balanced) fitted on `pair_logits`; with the number of
    pairs."""
    logits, labels = pair_logits(judge, examples, seed, per_source)
    temperature, bias = calibrate(logits, labels)
    return temperature, bias, len(labels)


def penalties(
    number: float | None = None, name: float | None = None, contradiction: float | None = None
) -> dict[str, float]:
    """The engine's lexical penalties, in logits; those not given are the shipped verifier's."""
    from grounding_app.engine import VERIFIER_DIR, Penalties

    shipped = Penalties.from_json(json.loads((VERIFIER_DIR / "verifier.json").read_text()))
    chosen = {"missing_number": number, "missing_name": name, "contradiction": contradiction}
    return replace(shipped, **{k: v for k, v in chosen.items() if v is not None}).as_json()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", type=Path, help="directory with model.safetensors")
    parser.add_argument("out", type=Path)
    parser.add_argument("--dev", type=Path, default=DATA / "dev_realistic.jsonl")
    parser.add_argument("--max-length", type=int, default=384)
    parser.add_argument("--neighbours", type=int, default=3)
    parser.add_argument("--dev-limit", type=int, default=800)
    parser.add_argument("--seed", type=int, default=13)
    # The engine's lexical penalties, in logits; by default the shipped verifier's. A
    # verifier whose fitted bias is higher needs larger ones for the same name or number
    # the evidence lacks to sink a claim (the SPEC examples and trap tests tell).
    parser.add_argument("--number-penalty", type=float, default=None)
    parser.add_argument("--name-penalty", type=float, default=None)
    parser.add_argument("--contradiction-penalty", type=float, default=None)
    args = parser.parse_args(argv)

    from safetensors.torch import load_file, save_file

    from grounding_app.engine import CrossEncoderJudge
    from grounding_app.formats.grounding_jsonl import read_examples

    args.out.mkdir(parents=True, exist_ok=True)
    state = load_file(str(args.model / "model.safetensors"))
    save_file(
        {k: v.half().contiguous() for k, v in state.items()}, str(args.out / "model.safetensors")
    )
    config = {
        "max_length": args.max_length,
        "temperature": 1.0,
        "bias": 0.0,
        **penalties(args.number_penalty, args.name_penalty, args.contradiction_penalty),
        "evidence_neighbours": args.neighbours,
        "packaged_from": str(args.model),
    }
    (args.out / "verifier.json").write_text(json.dumps(config, indent=2) + "\n")

    judge = CrossEncoderJudge(args.out)
    examples = list(read_examples(args.dev))
    random.Random(args.seed).shuffle(examples)
    temperature, bias, pairs = pair_calibration(judge, examples[: args.dev_limit], args.seed, {})
    config.update(
        temperature=temperature, bias=bias, calibrated_on=f"{args.dev.name}: {pairs} pairs"
    )
    (args.out / "verifier.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"{args.out}: temperature {temperature:.3f}, bias {bias:.3f} on {pairs} pairs")


if __name__ == "__main__":
    main()
