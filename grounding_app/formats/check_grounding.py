"""Wire format of the check-grounding API (SPEC §1): proto3 JSON in, proto3 JSON out.

Parsing follows what `google.protobuf.json_format` accepts for
`google.cloud.discoveryengine.v1.CheckGroundingRequest`, so a request the official
clients build is accepted and anything they could not have built is refused with a
message naming the field, as Google's front end does:

- a field may be spelled camelCase (its JSON name) or snake_case (its proto name), but
  not both at once; unknown fields are errors; `null` means "unset";
- a double may be a JSON number or a string in JSON number syntax (ASCII digits only),
  or "NaN", "Infinity" and "-Infinity" (which then fail the range check); a JSON `true`
  is not a number;
- a bool must be a JSON `true`/`false`: json_format refuses the strings "true"/"false"
  outside map keys, and so do we;
- strings with lone surrogates (possible through `\\ud800` escapes) are refused;
- the body itself must be UTF-8 JSON without duplicate keys or bare NaN
  (`decode_json_body`), as json_format requires.

`answerCandidate` is bounded in UTF-8 bytes (`MAX_ANSWER_BYTES`) as well as in tokens.
An empty or missing `answerCandidate` is accepted and yields zero claims. Google does
not document this case and proto3 cannot tell a missing string from an empty one, so
refusing it would refuse a request the client sends for `answer_candidate=""`.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable
from typing import Any, NoReturn

from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    MAX_FACTS,
    CheckRequest,
    CheckResponse,
    Fact,
    count_tokens,
    find_lone_surrogate,
)

MAX_LABELS = 64
MAX_LABEL_CHARS = 63
# The token limit does not bound size: 2,048 "words" of 7,000 letters are 2,048 tokens
# but 14 MB, and emoji or punctuation count no token at all. 64 KiB is 16 bytes a token:
# real text at the token limit is about 22 KB in English and 45 KB in Russian; only long
# or unspaced words of three-byte letters (Georgian, Thai) reach it first, and then
# beyond what Google's own limit, 4,096 subword tokens, lets through.
MAX_ANSWER_BYTES = 64 * 1024

# proto3 JSON numbers as strings: plain JSON number syntax, no Python extras such as
# "1_000", "inf", blanks or other scripts' digits ("\u0661") that float() would take.
NUMERIC_STRING = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}

# Python's int() refuses more digits (sys.get_int_max_str_digits): a JSON number of
# 5,000 digits would raise out of json.loads with advice about the interpreter.
MAX_INT_DIGITS = 4300


def json_int(text: str) -> int:
    """json.loads' `parse_int`: a whole number, or a ValueError that says why in words a
    user reads (every JSON import path catches ValueError as the document's error)."""
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise ValueError(f"a number of {digits:,} digits; at most {MAX_INT_DIGITS:,} are read")
    return int(text)


_REQUEST_FIELDS = {
    "groundingConfig": "grounding_config",
    "answerCandidate": "answer_candidate",
    "facts": "facts",
    "groundingSpec": "grounding_spec",
    "userLabels": "user_labels",
}
_FACT_FIELDS = {"factText": "fact_text", "attributes": "attributes"}
_SPEC_FIELDS = {
    "citationThreshold": "citation_threshold",
    "enableClaimLevelScore": "enable_claim_level_score",
}


class FormatError(ValueError):
    """A request that does not fit the wire format; `field` is a dotted path into it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


def join_path(parent: str, name: str) -> str:
    """The dotted path of a field inside its parent, as error messages name it."""
    return f"{parent}.{name}" if parent else name


def decode_json_body(raw: bytes) -> object:
    """Decode a request body as strict JSON: UTF-8 only, no duplicate keys, no NaN.

    Python's `json` would guess UTF-16/32, keep the last of duplicate keys and accept
    bare `NaN`; json_format refuses all three, so a client never relies on them.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        _fail("", f"Request body is not valid UTF-8 (byte {exc.start}).")

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key, value in pairs:
            if key in result:
                _fail("", f'Invalid JSON payload received. Duplicate key "{key}".')
            result[key] = value
        return result

    def no_constant(name: str) -> NoReturn:
        _fail("", f"Invalid JSON payload received. Unexpected token {name}.")

    try:
        return json.loads(
            text, object_pairs_hook=no_duplicates, parse_constant=no_constant, parse_int=json_int
        )
    except RecursionError:
        _fail("", "Invalid JSON payload received. Nested too deeply.")
    except json.JSONDecodeError as exc:
        _fail(
            "",
            f"Invalid JSON payload received. {exc.msg} at line {exc.lineno} column {exc.colno}.",
        )
    except ValueError as exc:  # json_int's long number
        _fail("", f"Invalid JSON payload received. {exc}.")


def _fields(path: str, obj: object, known: dict[str, str]) -> dict[str, tuple[str, object]]:
    """Map each set field's camelCase name to (path as sent, value); drop nulls."""
    if not isinstance(obj, dict):
        _fail(path, f"expected an object, got {json_type(obj)}.")
    snake_to_camel = {snake: camel for camel, snake in known.items()}
    seen: dict[str, str] = {}
    found: dict[str, tuple[str, object]] = {}
    for name, value in obj.items():
        camel = name if name in known else snake_to_camel.get(name)
        if camel is None:
            _fail(join_path(path, name), f'Unknown name "{name}": Cannot find field.')
        if camel in seen:
            _fail(
                join_path(path, name),
                f'"{seen[camel]}" and "{name}" are the same field; send only one.',
            )
        seen[camel] = name
        if value is not None:
            found[camel] = (join_path(path, name), value)
    return found


def json_type(value: object) -> str:
    """How a JSON value reads in an error message ("a string", "an array", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


class JsonReader:
    """The one reader of JSON values, for the API's requests and for imports alike:
    strings without lone surrogates, numbers as proto3 JSON writes them (a JSON number or
    a string in JSON number syntax, never `true`), booleans without quotes, maps of
    strings. Each refusal is an `error` naming the value's path; `show` writes a refused
    string into the message (imports cut long ones short).
    """

    def __init__(self, error: type[FormatError], show: Callable[[str], str] = repr) -> None:
        self.error = error
        self.show = show

    def fail(self, path: str, message: str) -> NoReturn:
        raise self.error(path, message)

    def string(self, path: str, value: object) -> str:
        if not isinstance(value, str):
            self.fail(path, f"expected a string, got {json_type(value)}.")
        where = find_lone_surrogate(value)
        if where is not None:
            self.fail(path, f"the string holds a lone surrogate at character {where}.")
        return value

    def double(self, path: str, value: object, specials: bool = True) -> float:
        """A proto3 double: "NaN", "Infinity" and "-Infinity" too (unless `specials` is
        off), and an integer beyond any double as an infinity; callers check the range."""
        if isinstance(value, str):
            if specials and value in _SPECIAL_FLOATS:
                return _SPECIAL_FLOATS[value]
            if NUMERIC_STRING.fullmatch(value):
                return float(value)
            self.fail(path, f"expected a number, got the string {self.show(value)}.")
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(path, f"expected a number, got {json_type(value)}.")
        try:
            return float(value)
        except OverflowError:  # an integer beyond any double
            return math.inf if value > 0 else -math.inf

    def number(self, path: str, value: object) -> float:
        """A finite double: a score or an offset can be neither NaN nor infinite."""
        result = self.double(path, value, specials=False)
        if not math.isfinite(result):
            self.fail(path, f"expected a finite number, got {value!r}.")
        return result

    def boolean(self, path: str, value: object) -> bool:
        if not isinstance(value, bool):
            self.fail(path, f"expected true or false without quotes, got {json_type(value)}.")
        return value

    def string_map(self, path: str, value: object, expected: str = "an object") -> dict[str, str]:
        if not isinstance(value, dict):
            self.fail(path, f"expected {expected}, got {json_type(value)}.")
        result: dict[str, str] = {}
        for key, item in value.items():
            item_path = f"{path}[{json.dumps(key, ensure_ascii=False)}]"
            result[self.string(item_path, key)] = self.string(item_path, item)
        return result


_REQUEST = JsonReader(FormatError)
_fail = _REQUEST.fail


def _label_char(char: str, first: bool) -> bool:
    category = unicodedata.category(char)
    if category in ("Ll", "Lo"):  # lowercase or caseless ("international") letters
        return True
    return not first and (category[0] == "N" or char in "_-")


def _labels(path: str, value: object) -> dict[str, str]:
    """Google's label rules, as in the `user_labels` docstring of CheckGroundingRequest."""
    if isinstance(value, dict) and len(value) > MAX_LABELS:
        _fail(path, f"at most {MAX_LABELS} labels are allowed, got {len(value)}.")
    labels = _REQUEST.string_map(path, value, "an object of strings")
    for key, label in labels.items():
        label_path = f"{path}[{json.dumps(key, ensure_ascii=False)}]"
        if not 1 <= len(key) <= MAX_LABEL_CHARS:
            _fail(label_path, f"label keys must be 1 to {MAX_LABEL_CHARS} characters long.")
        if not _label_char(key[0], first=True):
            _fail(label_path, "label keys must start with a lowercase or international letter.")
        if len(label) > MAX_LABEL_CHARS:
            _fail(label_path, f"label values must be at most {MAX_LABEL_CHARS} characters long.")
        if not all(_label_char(char, first=False) for char in key[1:] + label):
            _fail(
                label_path,
                "labels may hold only lowercase letters, digits, underscores and dashes.",
            )
    return labels


def _fact(path: str, value: object) -> Fact:
    fields = _fields(path, value, _FACT_FIELDS)
    text = _REQUEST.string(*fields["factText"]) if "factText" in fields else ""
    if len(text) > MAX_FACT_CHARS:
        _fail(
            fields["factText"][0],
            f"a fact may be at most {MAX_FACT_CHARS} characters long, got {len(text)}.",
        )
    attributes = (
        _REQUEST.string_map(*fields["attributes"], "an object of strings")
        if "attributes" in fields
        else {}
    )
    return Fact(text=text, attributes=attributes)


def _facts(path: str, value: object) -> tuple[Fact, ...]:
    if not isinstance(value, list):
        _fail(path, f"expected an array, got {json_type(value)}.")
    if len(value) > MAX_FACTS:
        _fail(path, f"at most {MAX_FACTS} facts are allowed, got {len(value)}.")
    facts = []
    for index, item in enumerate(value):
        item_path = f"{path}[{index}]"
        if item is None:
            _fail(item_path, "null is not allowed as an element of a repeated field.")
        facts.append(_fact(item_path, item))
    return tuple(facts)


def _answer(path: str, value: object) -> str:
    """The answer, measured in bytes before its tokens are counted, which costs more."""
    if isinstance(value, str):
        size = len(value.encode("utf-8", "surrogatepass"))
        if size > MAX_ANSWER_BYTES:
            _fail(
                path,
                f"the answer may be at most {MAX_ANSWER_BYTES} bytes long in UTF-8, got {size}.",
            )
    answer = _REQUEST.string(path, value)
    tokens = count_tokens(answer)
    if tokens > MAX_ANSWER_TOKENS:
        _fail(path, f"the answer may be at most {MAX_ANSWER_TOKENS} tokens long, got {tokens}.")
    return answer


def _threshold(path: str, value: object) -> float:
    threshold = _REQUEST.double(path, value)
    if not 0.0 <= threshold <= 1.0:  # also false for NaN
        _fail(path, f"must be within [0, 1], got {value!r}.")
    return threshold


def check_limits(request: CheckRequest) -> None:
    """The API's limits on a request built elsewhere (an imported answer our engine is
    asked to check): FormatError for the first one it is past, as the API would say, so
    no page checks what the API would refuse (a 216 KB answer held a worker past its
    timeout)."""
    _answer("answerCandidate", request.answer)
    if len(request.facts) > MAX_FACTS:
        _fail("facts", f"at most {MAX_FACTS} facts are allowed, got {len(request.facts)}.")
    for index, fact in enumerate(request.facts):
        if len(fact.text) > MAX_FACT_CHARS:
            _fail(
                f"facts[{index}].factText",
                f"a fact may be at most {MAX_FACT_CHARS} characters long, got {len(fact.text)}.",
            )


def parse_check_request(data: object) -> CheckRequest:
    """Turn a decoded CheckGroundingRequest JSON body into the engine's request."""
    fields = _fields("", data, _REQUEST_FIELDS)
    if "groundingConfig" in fields:
        _REQUEST.string(*fields["groundingConfig"])  # validated only: the URL names the config
    if "userLabels" in fields:
        _labels(*fields["userLabels"])  # validated only: labels are echoed nowhere
    spec = _fields(*fields["groundingSpec"], _SPEC_FIELDS) if "groundingSpec" in fields else {}
    return CheckRequest(
        answer=_answer(*fields["answerCandidate"]) if "answerCandidate" in fields else "",
        facts=_facts(*fields["facts"]) if "facts" in fields else (),
        citation_threshold=(
            _threshold(*spec["citationThreshold"])
            if "citationThreshold" in spec
            else DEFAULT_CITATION_THRESHOLD
        ),
        enable_claim_level_score=(
            _REQUEST.boolean(*spec["enableClaimLevelScore"])
            if "enableClaimLevelScore" in spec
            else False
        ),
    )


def request_to_json(request: CheckRequest) -> dict[str, Any]:
    """Emit a CheckGroundingRequest body as a client would send it (for load tests).

    Both `groundingSpec` fields have presence, so they are always sent: the receiver
    then applies exactly this threshold, whatever its own default.
    """
    out: dict[str, Any] = {}
    if request.answer:
        out["answerCandidate"] = request.answer
    if request.facts:
        facts = []
        for fact in request.facts:
            item: dict[str, Any] = {"factText": fact.text} if fact.text else {}
            if fact.attributes:
                item["attributes"] = dict(fact.attributes)
            facts.append(item)
        out["facts"] = facts
    out["groundingSpec"] = {
        "citationThreshold": request.citation_threshold,
        "enableClaimLevelScore": request.enable_claim_level_score,
    }
    return out


def response_to_json(resp: CheckResponse) -> dict[str, Any]:
    """Emit a CheckGroundingResponse as proto3 JSON: unset and empty fields left out.

    `startPos`, `endPos`, `groundingCheckRequired` and `score` are optional fields with
    presence, so 0 and false are sent; `source` is a string field holding the fact index.
    Our extensions, which the official client ignores (tested): each checked claim's
    `language` (ISO 639-1) and `checkedBy` (`VERIFIER`, `FEATURE_JUDGE`, `LLM_JUDGE`, or
    `WORD_MATCHING` where no model of the engine reads the language), the `noCheckReason` of
    each piece not checked (`NO_CHECK_REASONS` in capitals: `HEADING`, `POINTER`, `CODE`,
    ...), a claim's `llmJudge` where the LLM judge was asked and its verdict does not stand
    ("fell back: timeout"; `checkedBy` is `LLM_JUDGE` where it decided), a claim's
    `contextClaimIndices` where its verdict came from reading it with earlier claims
    (indices into `claims`: the sentences that resolved "It ..." or "The film ...", or a
    list's lead-in), each unsupported claim's `unsupportedSpans` (`[{startPos,
    endPos}]`, UTF-8 byte offsets of the words its best evidence does not back, as the
    engine found them), and a claim's `calibration` where its score is on its scope's own
    scale ("groundingConfigs/NAME/calibrations/ID": the calibration fitted from that
    scope's labels, docs/calibration.md).
    """
    out: dict[str, Any] = {}
    if resp.support_score is not None:
        out["supportScore"] = resp.support_score
    if resp.cited_chunks:
        chunks = []
        for chunk in resp.cited_chunks:
            item: dict[str, Any] = {"chunkText": chunk.chunk_text, "source": str(chunk.source)}
            if chunk.source_metadata:
                item["sourceMetadata"] = dict(chunk.source_metadata)
            chunks.append(item)
        out["citedChunks"] = chunks
        out["citedFacts"] = [{"chunkText": chunk.chunk_text} for chunk in resp.cited_chunks]
    if resp.claims:
        claims = []
        for claim in resp.claims:
            item = {"startPos": claim.start, "endPos": claim.end, "claimText": claim.text}
            if claim.citation_indices:
                item["citationIndices"] = list(claim.citation_indices)
            item["groundingCheckRequired"] = claim.grounding_check_required
            if claim.score is not None:
                item["score"] = claim.score
            if claim.language is not None:
                item["language"] = claim.language
            if claim.checked_by is not None:
                item["checkedBy"] = claim.checked_by.upper()
            if claim.no_check_reason is not None:
                item["noCheckReason"] = claim.no_check_reason.upper()
            if claim.llm_judge is not None:
                item["llmJudge"] = claim.llm_judge
            if claim.context_claims:
                item["contextClaimIndices"] = list(claim.context_claims)
            if claim.scale is not None:
                item["calibration"] = claim.scale
            if claim.unsupported:
                item["unsupportedSpans"] = [
                    {"startPos": start, "endPos": end} for start, end in claim.unsupported
                ]
            claims.append(item)
        out["claims"] = claims
    return out
