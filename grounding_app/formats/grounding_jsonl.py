"""Labelled grounding examples in the `shared/data/grounding` JSONL schema.

A file format like the others here: annotation imports read it on a request, and the
offline tools (`grounding_lab/`) read the training and dev files with it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from grounding_app.engine import Fact
from grounding_app.formats.check_grounding import json_int


@dataclass(frozen=True)
class Example:
    id: str
    facts: tuple[Fact, ...]
    claim: str
    label: int | None  # 1 supported, 0 not supported, None unlabelled
    source: str


class DatasetError(ValueError):
    pass


def parse_example(line: str, where: str) -> Example:
    try:
        data = json.loads(line, parse_int=json_int)
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: not JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise DatasetError(f"{where}: not JSON (nested too deeply)") from exc
    except ValueError as exc:  # json_int's long number
        raise DatasetError(f"{where}: not JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise DatasetError(f"{where}: expected an object")
    facts_raw = data.get("facts")
    if not isinstance(facts_raw, list):
        raise DatasetError(f"{where}: 'facts' must be a list")
    facts = []
    for n, fact in enumerate(facts_raw):
        if not isinstance(fact, dict) or not isinstance(fact.get("text"), str):
            raise DatasetError(f"{where}: facts[{n}].text must be a string")
        attributes = fact.get("attributes")
        attributes = {} if attributes is None else attributes
        if not isinstance(attributes, dict):
            raise DatasetError(f"{where}: facts[{n}].attributes must be an object")
        facts.append(Fact(fact["text"], {str(k): str(v) for k, v in attributes.items()}))
    claim = data.get("claim")
    if not isinstance(claim, str):
        raise DatasetError(f"{where}: 'claim' must be a string")
    label = data.get("label")
    if label is not None and label not in (0, 1):
        raise DatasetError(f"{where}: 'label' must be 0, 1 or absent")
    return Example(
        id=str(data.get("id", where)),
        facts=tuple(facts),
        claim=claim,
        label=label,
        source=str(data.get("source") or "all"),
    )


def read_examples(path: Path) -> Iterator[Example]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield parse_example(line, f"{path}:{number}")
