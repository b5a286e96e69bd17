"""Average the weights of two verifiers of one lineage (a "model soup", as WiSE-FT does).

    python -m grounding_lab.average_weights var/v3 var/v4-run var/soup [--weight 0.5]

A run that goes on from a shipped verifier learns the new pairs and forgets some of what
it knew: on dev_realistic the continued run of 2026-12-01 read more strictly (FRANK and
FIB up, support spread over two facts down). Both lie in one basin, so their mean keeps
much of each; `package_verifier` then calibrates the result like any checkpoint.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path

WEIGHTS = "model.safetensors"


def average(first: Mapping, second: Mapping, weight: float = 0.5) -> dict:
    """`weight` of `second` and the rest of `first`, tensor by tensor, in float32."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must lie in [0, 1], not {weight}")
    if first.keys() != second.keys():
        raise ValueError(f"the models differ in tensors: {sorted(first.keys() ^ second.keys())}")
    out = {}
    for name, a in first.items():
        b = second[name]
        if a.shape != b.shape:
            raise ValueError(f"{name}: shape {tuple(a.shape)} against {tuple(b.shape)}")
        out[name] = ((1.0 - weight) * a.float() + weight * b.float()).contiguous()
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help=f"directory with {WEIGHTS}")
    parser.add_argument("second", type=Path, help=f"directory with {WEIGHTS}")
    parser.add_argument("out", type=Path)
    parser.add_argument("--weight", type=float, default=0.5, help="share of the second")
    args = parser.parse_args(argv)

    from safetensors.torch import load_file, save_file

    state = average(
        load_file(str(args.first / WEIGHTS)), load_file(str(args.second / WEIGHTS)), args.weight
    )
    args.out.mkdir(parents=True, exist_ok=True)
    save_file(state, str(args.out / WEIGHTS))
    print(f"{args.out / WEIGHTS}: {len(state)} tensors, {args.weight:g} of {args.second}")


if __name__ == "__main__":
    main()
