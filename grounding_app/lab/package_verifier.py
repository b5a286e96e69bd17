"""Turn a trained cross-encoder (a checkpoint or a finished model) into a verifier
directory the engine loads: fp16 weights, and `verifier.json` with the reading length,
the neighbours to show, and a calibration fitted on dev_realistic.

    python -m grounding_app.lab.package_verifier CHECKPOINT OUT [--neighbours 3]

Calibration (temperature and bias, class-balanced) is fitted on one pair per
dev_realistic example (its best evidence window), so a score of 0.6 means the same on
the data people bring; the lexical penalties are copied from the shipped verifier.
Compare the result with the shipped one through the engine before replacing it:
`manage.py grounding_eval .../dev_realistic.jsonl --judge verifier --judge verifier:OUT`.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "grounding"


def _given(value: float | None, shipped: dict, key: str, default: float = 0.0) -> float:
    return float(shipped.get(key, default)) if value is None else value


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

    from grounding_app.engine import VERIFIER_DIR, CrossEncoderJudge
    from grounding_app.formats.grounding_jsonl import read_examples
    from grounding_app.lab import windows
    from grounding_app.lab.train_verifier import calibrate

    args.out.mkdir(parents=True, exist_ok=True)
    state = load_file(str(args.model / "model.safetensors"))
    save_file(
        {k: v.half().contiguous() for k, v in state.items()}, str(args.out / "model.safetensors")
    )
    shipped = json.loads((VERIFIER_DIR / "verifier.json").read_text())
    config = {
        "max_length": args.max_length,
        "temperature": 1.0,
        "bias": 0.0,
        "missing_number_penalty": _given(args.number_penalty, shipped, "missing_number_penalty"),
        "missing_name_penalty": _given(args.name_penalty, shipped, "missing_name_penalty"),
        "contradiction_penalty": _given(
            args.contradiction_penalty, shipped, "contradiction_penalty", 3.0
        ),
        "evidence_neighbours": args.neighbours,
        "packaged_from": str(args.model),
    }
    (args.out / "verifier.json").write_text(json.dumps(config, indent=2) + "\n")

    judge = CrossEncoderJudge(args.out)
    examples = list(read_examples(args.dev))
    random.Random(args.seed).shuffle(examples)

    def count_tokens(text: str) -> int:
        return len(judge._tokenizer.tokenize(text))

    budget = args.max_length - 67
    pairs = windows.build_pairs(
        examples[: args.dev_limit], count_tokens, budget, args.seed, per_source={}
    )
    pairs = [p for p in pairs if p.kind == "original"]
    logits = judge.logits([p.claim for p in pairs], [p.evidence for p in pairs])
    labels = np.array([p.label for p in pairs], dtype=np.float64)
    temperature, bias = calibrate(logits, labels)
    config.update(
        temperature=temperature, bias=bias, calibrated_on=f"{args.dev.name}: {len(pairs)} pairs"
    )
    (args.out / "verifier.json").write_text(json.dumps(config, indent=2) + "\n")
    print(f"{args.out}: temperature {temperature:.3f}, bias {bias:.3f} on {len(pairs)} pairs")


if __name__ == "__main__":
    main()
