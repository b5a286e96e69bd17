"""The labels an adaptation learns from: read, split by document, and refused when they
cannot train, calibrate and measure a verifier."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grounding_app.formats.grounding_jsonl import DatasetError, Example, parse_example
from grounding_app.verifiers.adapt.measure import has_a_source_with_both_classes
from grounding_app.verifiers.adapt.options import AdaptError

MIN_LABELS = 50
MIN_PER_CLASS = 10


@dataclass(frozen=True)
class Labels:
    examples: list[Example]
    unlabelled: int  # lines without a label: teach nothing
    model_verdicts: int  # review-export lines labelled by the model, not a reviewer


def read_labels(path: Path) -> Labels:
    """The labelled lines of a shared-schema file (the labeling export, the review export,
    the training files). A review-export line whose `meta.label_from` is "model" carries
    the model's own verdict, not a person's: training on it would teach the model itself."""
    examples: list[Example] = []
    unlabelled = model_verdicts = 0
    try:
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                example = parse_example(line, f"{path}:{number}")
                if example.label is None:
                    unlabelled += 1
                    continue
                meta = json.loads(line).get("meta")
                if isinstance(meta, dict) and meta.get("label_from") == "model":
                    model_verdicts += 1
                    continue
                examples.append(example)
    except (OSError, UnicodeDecodeError, DatasetError) as exc:
        raise AdaptError(str(exc)) from exc
    return Labels(examples, unlabelled, model_verdicts)


def document_key(example: Example) -> str:
    """The document an example is about: a hash of its facts' text."""
    text = "\n".join(fact.text for fact in example.facts)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def split_by_document(
    examples: Sequence[Example], share: float
) -> tuple[list[Example], list[Example]]:
    """(trained on, held back): a document is held back when its hash, read as a number
    in [0, 1), is below `share`, so every label of a document falls on one side and the
    same file splits the same way every run."""
    trained: list[Example] = []
    held: list[Example] = []
    for example in examples:
        position = int(document_key(example)[:16], 16) / 16**16
        (held if position < share else trained).append(example)
    return trained, held


def documents(examples: Sequence[Example]) -> int:
    return len({document_key(e) for e in examples})


def check_labels(labels: Labels, trained: Sequence[Example], held: Sequence[Example]) -> None:
    """Refuse labels that cannot train, calibrate and measure a verifier."""
    examples = labels.examples
    supported = sum(e.label == 1 for e in examples)
    counts = f"{len(examples)} labels ({supported} supported, {len(examples) - supported} not)"
    if supported in (0, len(examples)):
        raise AdaptError(f"{counts}: one class only; adapting needs supported and unsupported")
    if len(examples) < MIN_LABELS or min(supported, len(examples) - supported) < MIN_PER_CLASS:
        raise AdaptError(
            f"{counts}: too few; adapting needs at least {MIN_LABELS}, with at least"
            f" {MIN_PER_CLASS} of each class"
        )
    for part, name in ((held, "held-back"), (trained, "trained-on")):
        if not has_a_source_with_both_classes(part):
            raise AdaptError(
                f"the {name} part ({len(part)} labels on {documents(part)} documents) has no"
                " source with both classes: label more documents, or change --hold-out"
            )


def counts(examples: Sequence[Example]) -> dict[str, int]:
    supported = sum(e.label == 1 for e in examples)
    return {
        "labels": len(examples),
        "supported": supported,
        "unsupported": len(examples) - supported,
        "documents": documents(examples),
    }
