"""Whole answers: a summary's labelled sentences kept together as the answer people paste.

    python -m grounding_lab.whole_answers build --out var/whole [--data DIR]

The labelled files hold one sentence per example, but a reader pastes the whole answer,
and a sentence may read differently beside its neighbours (a pronoun the sentence before
resolves). Two sets are built, one JSONL file each, a line per answer: `{"id", "source",
"half", "answer_from", "facts", "answer", "sentences": [{"start", "end", "text",
"label"}]}`, spans in UTF-8 bytes of `answer`, `half` by document
(`evaluation.document_half`).

* `diasumfact_qmsum.jsonl`, from `fit_unseen.jsonl`: no verifier trained on it, so
  choices may be fitted on its select half and reported on the other. A summary row
  (`diasumfact_qmsum:{doc}-{model}`) is its sentences (`...-s{n}`) joined by a space;
  where the leak filter or de-duplication dropped a sentence row, the summary keeps that
  sentence as unlabelled context.
* `frank.jsonl`, from `train.jsonl`: FRANK is training data, so it shows what context
  does (whole against alone), not how well the reader reads. Its sentence labels are
  the summary's (only all-correct or all-wrong multi-sentence summaries have sentence
  rows).

`answer_from` is `summary` when the summary row holds every labelled sentence in order,
else `sentences`: the labelled sentences joined by a space (a summary row cut short, or
dropped as a copy of a one-sentence summary's only sentence).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grounding_app.engine import Fact
from grounding_app.formats.grounding_jsonl import Example
from grounding_lab.evaluation import document_half

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "grounding"
# Output file -> (input file, source).
SETS = {
    "diasumfact_qmsum.jsonl": ("fit_unseen.jsonl", "diasumfact_qmsum"),
    "frank.jsonl": ("train.jsonl", "frank"),
}


@dataclass(frozen=True)
class Sentence:
    start: int  # UTF-8 bytes in the answer
    end: int
    text: str
    label: int  # 1 supported, 0 not


@dataclass(frozen=True)
class WholeAnswer:
    id: str
    source: str
    half: str  # select or report (by document)
    answer_from: str  # summary or sentences
    facts: tuple[Fact, ...]
    answer: str
    sentences: tuple[Sentence, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "source": self.source,
            "half": self.half,
            "answer_from": self.answer_from,
            "facts": [{"text": f.text, "attributes": f.attributes} for f in self.facts],
            "answer": self.answer,
            "sentences": [
                {"start": s.start, "end": s.end, "text": s.text, "label": s.label}
                for s in self.sentences
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WholeAnswer:
        return cls(
            id=data["id"],
            source=data["source"],
            half=data["half"],
            answer_from=data.get("answer_from", "summary"),
            facts=tuple(Fact(f["text"], dict(f.get("attributes") or {})) for f in data["facts"]),
            answer=data["answer"],
            sentences=tuple(
                Sentence(int(s["start"]), int(s["end"]), s["text"], int(s["label"]))
                for s in data["sentences"]
            ),
        )


def read_whole_answers(path: Path) -> list[WholeAnswer]:
    with path.open(encoding="utf-8") as handle:
        return [WholeAnswer.from_dict(json.loads(line)) for line in handle if line.strip()]


def _byte(text: str, index: int) -> int:
    return len(text[:index].encode("utf-8"))


def _spans(answer: str, sentences: Sequence[str]) -> list[tuple[int, int]] | None:
    """Each sentence's (start, end) in `answer`, found in order; None if one is missing."""
    spans, position = [], 0
    for text in sentences:
        found = answer.find(text, position)
        if found < 0:
            return None
        position = found + len(text)
        spans.append((_byte(answer, found), _byte(answer, position)))
    return spans


def group_rows(rows: Iterable[dict[str, Any]], source: str) -> dict[str, list[dict[str, Any]]]:
    """`{doc}-{model}` -> the summary row (if any) and its sentence rows, of one source."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        if row.get("source") != source:
            continue
        key = row["id"].split(":", 1)[1]
        meta = row.get("meta") or {}
        if meta.get("granularity") == "sentence":
            suffix = f"-s{meta['sentence_index']}"
            if not key.endswith(suffix):
                raise ValueError(f"{row['id']}: sentence_index {meta['sentence_index']}")
            key = key[: -len(suffix)]
        elif meta.get("granularity") != "summary":
            continue
        groups[key].append(row)
    return groups


def whole_answer(source: str, key: str, rows: Sequence[dict[str, Any]]) -> WholeAnswer | None:
    """The answer of one summary's rows, or None when no sentence is labelled."""
    summaries = [r for r in rows if r["meta"]["granularity"] == "summary"]
    labelled = sorted(
        (r for r in rows if r["meta"]["granularity"] == "sentence"),
        key=lambda r: int(r["meta"]["sentence_index"]),
    )
    if not labelled:
        return None
    texts = [r["claim"] for r in labelled]
    answer, answer_from = "", "sentences"
    spans = None
    if summaries:
        answer, answer_from = summaries[0]["claim"], "summary"
        spans = _spans(answer, texts)
    if spans is None:
        answer, answer_from = " ".join(texts), "sentences"
        spans = _spans(answer, texts)
    assert spans is not None  # each sentence is in their join
    facts = tuple(
        Fact(f["text"], {str(k): str(v) for k, v in (f.get("attributes") or {}).items()})
        for f in (summaries or labelled)[0]["facts"]
    )
    return WholeAnswer(
        id=f"{source}:{key}",
        source=source,
        half=document_half(Example(key, facts, answer, None, source)),
        answer_from=answer_from,
        facts=facts,
        answer=answer,
        sentences=tuple(
            Sentence(start, end, r["claim"], int(r["label"]))
            for (start, end), r in zip(spans, labelled, strict=True)
        ),
    )


def build_set(rows: Iterable[dict[str, Any]], source: str) -> list[WholeAnswer]:
    """Every answer of `source` with a labelled sentence, sorted by id."""
    groups = group_rows(rows, source)
    answers = (whole_answer(source, key, groups[key]) for key in sorted(groups))
    return [a for a in answers if a is not None]


def _rows(path: Path, source: str) -> Iterator[dict[str, Any]]:
    needle = f'"source": "{source}"'
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if needle in line:
                yield json.loads(line)


def build(data: Path, out: Path) -> dict[str, dict[str, int]]:
    """Write every set into `out`; per file, the counts of answers and sentences."""
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, dict[str, int]] = {}
    for name, (file, source) in SETS.items():
        answers = build_set(_rows(data / file, source), source)
        with (out / name).open("w", encoding="utf-8") as handle:
            for answer in answers:
                handle.write(json.dumps(answer.as_dict(), ensure_ascii=False) + "\n")
        sentences = [s for a in answers for s in a.sentences]
        counts[name] = {
            "answers": len(answers),
            "from_summary": sum(a.answer_from == "summary" for a in answers),
            "sentences": len(sentences),
            "supported": sum(s.label for s in sentences),
            "unsupported": sum(1 - s.label for s in sentences),
        }
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build_parser = commands.add_parser("build", help="write the whole-answer sets")
    build_parser.add_argument("--out", type=Path, required=True)
    build_parser.add_argument("--data", type=Path, default=DATA, help="the grounding data")
    args = parser.parse_args(argv)
    for name, count in build(args.data, args.out).items():
        print(f"{args.out / name}: " + ", ".join(f"{k} {v}" for k, v in count.items()))


if __name__ == "__main__":
    main()
