"""Items to label from JSONL lines, with the model's verdict on every claim (no Django).

Each non-blank line is one item, in one of four shapes:

- the shared grounding schema, `{id, source?, facts: [{text, attributes}], claim,
  label?}` (recognised by its `claim` key): the claim is the answer to label and the
  dataset's label is kept in the item's `meta` as `reference_label`;
- any payload `formats.imports.detect_and_parse` reads: a check-grounding request
  (with or without its response), a Gemini `GenerateContentResponse` or an agent
  session output. Gemini and agent answers bring no facts, so their sources (chunk
  text, else title or URI, with title/uri/domain as attributes) stand in for them.

Every item goes through the API's own request validation (fact count and length,
answer length), then our engine: its sentences are the claims (UTF-8 byte spans into
the answer), and its verdict, score and cited facts per claim are stored once, at
import, so agreement pages never wait for the model. Claims that need no check are
kept; people label them too.

Gemini web chunks carry a URI and a title but no text. Such a fact is shown (its title
and link) but never given to the engine: judging a claim against a title would print a
made-up "Unsupported 0.00". A claim the engine does not find supported by the facts
that do have text is then `not_checkable` (no score) while any fact lacks text, since
its support may be in the page we could not read. Which facts have no text, and the
Search Suggestions that must accompany a Gemini grounded answer, go into the item's
`meta` (`facts_without_text`, `search_entry_html`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grounding_app.engine import CheckRequest, CheckResponse, Fact
from grounding_app.formats.check_grounding import (
    FormatError,
    parse_check_request,
    request_to_json,
)
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounded import GroundedAnswer
from grounding_app.formats.grounding_jsonl import DatasetError, parse_example
from grounding_app.formats.imports import MAX_IMPORT_BYTES, decode_import, detect_and_parse

# A model verdict beyond the three of `ItemClaim.Verdict`: nothing to judge the claim on.
NOT_CHECKABLE = "not_checkable"
MAX_IMPORT_ITEMS = 2000  # the engine runs on each during the request
MAX_PROBLEMS_SHOWN = 20

Check = Callable[[CheckRequest], CheckResponse]


@dataclass(frozen=True)
class ItemSource:
    """What an item is made of, before the engine has seen it."""

    answer: str
    facts: tuple[Fact, ...]
    external_id: str = ""
    source: str = ""  # the dataset's source, or the wire format it came in
    meta: dict[str, Any] = field(default_factory=dict)
    # What was wrong with the input but did not stop it ("field: message"), e.g. Gemini
    # offsets outside the text: the engine reads the answer itself, so it is checked.
    problems: tuple[str, ...] = ()


@dataclass(frozen=True)
class ModelClaim:
    index: int
    start: int  # UTF-8 byte offsets into the answer, end exclusive
    end: int
    text: str
    check_required: bool
    verdict: str  # supported / unsupported / no_check
    score: float | None
    cited_facts: tuple[int, ...]  # indices into the item's facts
    # Of a checked claim: its language (ISO 639-1) and what judged it (engine.CHECKED_BY),
    # so the labeling page can say which verdicts came from word matching.
    language: str | None = None
    checked_by: str | None = None
    # Where the LLM judge was asked and did not decide: the engine's note ("fell back:
    # timeout"), so the labeling pages can say so as the review page does.
    llm_judge: str | None = None


@dataclass(frozen=True)
class CheckedItem:
    source: ItemSource
    claims: tuple[ModelClaim, ...]


class ImportProblems(ValueError):
    """Every line that could not be read; nothing is imported when there is one."""

    def __init__(self, problems: list[str]) -> None:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        if len(problems) > len(shown):
            shown.append(f"… and {len(problems) - len(shown)} more.")
        super().__init__("; ".join(shown))
        self.problems = shown


def validated(source: ItemSource) -> ItemSource:
    """The item when the check-grounding API would accept it; raises FormatError if not."""
    if not source.answer.strip():
        raise FormatError("answerCandidate", "the answer is empty; there is nothing to label.")
    parse_check_request(request_to_json(CheckRequest(source.answer, source.facts)))
    return source


def from_grounded(grounded: GroundedAnswer) -> tuple[str, tuple[Fact, ...]]:
    """The first candidate's text and its sources as facts (Gemini and agent answers)."""
    if not grounded.candidates:
        raise FormatError("candidates", "the answer has no candidate to label.")
    candidate = grounded.candidates[0]
    facts = []
    for source in candidate.sources:
        attributes = {
            key: value
            for key, value in (
                ("title", source.title),
                ("uri", source.uri),
                ("domain", source.domain),
            )
            if value
        }
        attributes.update(source.metadata)
        facts.append(Fact(source.text or source.title or source.uri, attributes))
    return "\n".join(candidate.parts), tuple(facts)


def grounded_meta(grounded: GroundedAnswer) -> dict[str, Any]:
    """What the labeling page needs beyond answer and facts: sources without text (fact
    indices) and the Search Suggestions HTML (untrusted; served sandboxed)."""
    if not grounded.candidates:
        return {}
    candidate = grounded.candidates[0]
    meta: dict[str, Any] = {}
    missing = [i for i, source in enumerate(candidate.sources) if not source.text.strip()]
    if missing:
        meta["facts_without_text"] = missing
    if candidate.search_entry_html:
        meta["search_entry_html"] = list(candidate.search_entry_html)
    return meta


# Keys only a line of the grounding schema has, and those that make a line something else.
_DATASET_KEYS = frozenset({"id", "source", "label", "meta", "answer"})
_OTHER_KEYS = frozenset(
    {"answerCandidate", "answer_candidate", "request", "candidates", "promptFeedback"}
)


def _lacks_claim(data: object) -> bool:
    """A grounding-schema line without its claim (its keys or its facts' `text` say what
    it is), which would otherwise fail as a check-grounding request, on its first key."""
    if not isinstance(data, dict) or "claim" in data or _OTHER_KEYS & data.keys():
        return False
    facts = data.get("facts")
    first = facts[0] if isinstance(facts, list) and facts else None
    return bool(_DATASET_KEYS & data.keys()) or (isinstance(first, dict) and "text" in first)


def parse_line(line: str, number: int) -> ItemSource:
    """One JSONL line as an item; raises FormatError or DatasetError saying what is wrong."""
    data = decode_import(line)  # strict JSON, bounded depth, no lone surrogates
    if _lacks_claim(data):
        raise DatasetError(
            f'line {number}: no "claim": a line of the grounding schema holds "claim" (the '
            'answer to check) beside "facts"; a check-grounding request, "answerCandidate".'
        )
    if isinstance(data, dict) and "claim" in data:
        example = parse_example(line, f"line {number}")
        labels = {} if example.label is None else {"reference_label": example.label}
        return validated(
            ItemSource(example.claim, example.facts, example.id, example.source, labels)
        )
    result = detect_and_parse(line)
    meta: dict[str, Any] = {}
    problems: tuple[str, ...] = ()
    if result.request is not None:
        answer, facts = result.request.answer, result.request.facts
    else:
        assert result.grounded is not None  # the parser promises one or the other
        answer, facts = from_grounded(result.grounded)
        meta = grounded_meta(result.grounded)
        if result.grounded.candidates:  # the one from_grounded reads
            found = result.grounded.candidates[0].problems
            problems = tuple(f"{p.field}: {p.message}" if p.field else p.message for p in found)
    return validated(ItemSource(answer, facts, source=result.kind, meta=meta, problems=problems))


def parse_jsonl(raw: str | bytes) -> list[ItemSource]:
    """Every item in a JSONL upload; raises ImportProblems listing each bad line."""
    if isinstance(raw, bytes):
        if len(raw) > MAX_IMPORT_BYTES:
            raise ImportProblems([f"the file is larger than {MAX_IMPORT_BYTES:,} bytes."])
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportProblems([f"the file is not UTF-8: byte {exc.start} is not."]) from exc
    items: list[ItemSource] = []
    problems: list[str] = []
    for number, line in enumerate(raw.removeprefix("\ufeff").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(parse_line(line, number))
        except FormatError as exc:
            where = f"line {number}: {exc.field}" if exc.field else f"line {number}"
            problems.append(f"{where}: {exc.message}")
        except DatasetError as exc:
            message = str(exc)
            problems.append(message if message.startswith("line ") else f"line {number}: {message}")
    if len(items) > MAX_IMPORT_ITEMS:
        problems.append(f"{len(items):,} items: at most {MAX_IMPORT_ITEMS:,} per import.")
    if problems:
        raise ImportProblems(problems)
    if not items:
        raise ImportProblems(["the file holds no items: one JSON object per line."])
    return items


def check_item(source: ItemSource, check: Check) -> CheckedItem:
    """Run the engine on one item and keep its verdict, score and cited facts per claim.

    Facts without text (`meta["facts_without_text"]`) are left out of the engine's
    request; see the module docstring for the verdict that follows.
    """
    without_text = set(source.meta.get("facts_without_text", ()))
    readable = [i for i in range(len(source.facts)) if i not in without_text]
    request = CheckRequest(
        source.answer,
        tuple(source.facts[i] for i in readable),
        enable_claim_level_score=True,
    )
    response = check(request)
    candidate = grounded_from_check(request, response).candidates[0]
    claims = []
    for i, segment in enumerate(candidate.segments):
        verdict: str = segment.verdict or "no_check"
        score = segment.score
        if without_text and verdict == "unsupported":
            verdict, score = NOT_CHECKABLE, None
        claims.append(
            ModelClaim(
                index=i,
                start=segment.start,
                end=segment.end,
                text=segment.text,
                check_required=segment.verdict != "no_check",
                verdict=verdict,
                score=score,
                cited_facts=tuple(
                    sorted(
                        {
                            readable[fact]
                            for n in segment.source_indices
                            if (fact := candidate.sources[n].fact_index) is not None
                        }
                    )
                ),
                language=segment.language,
                checked_by=segment.checked_by,
                llm_judge=segment.llm_judge,
            )
        )
    return CheckedItem(source, tuple(claims))
