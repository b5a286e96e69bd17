"""Forms of the review pages: a new check, an import, and the list's filters.

A new check is validated by the API's own request parser (`parse_check_request`), so
the page and the API accept exactly the same answers, facts and thresholds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.files.uploadedfile import UploadedFile

from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.formats.check_grounding import (
    NUMERIC_STRING,
    FormatError,
    decode_json_body,
    parse_check_request,
)
from grounding_app.formats.imports import MAX_IMPORT_BYTES
from grounding_app.reviews.folding import fold
from grounding_app.reviews.models import Review, ReviewerVerdict
from grounding_app.reviews.services import ReviewFilter

FACT_ROWS = 3  # blank fact rows on a fresh form: the no-JavaScript way to enter facts
ATTRIBUTE_PAIRS = 2  # blank attribute pairs per fact row

# Row fields: fact-<i>-text, fact-<i>-key-<j>, fact-<i>-value-<j>. The numbers only order
# and group the rows (JavaScript leaves gaps when rows are removed).
_ROW_FIELD = re.compile(r"fact-(\d{1,4})-(text|key-(\d{1,3})|value-(\d{1,3}))")
_FACT_PATH = re.compile(r"facts\[(\d+)\]")
# A null character, as itself or as the JSON escape \u0000 (one not itself escaped, so
# after an even run of backslashes). PostgreSQL stores it in neither text nor jsonb, so
# the forms refuse it, on SQLite too, rather than let the save fail.
_NUL = re.compile(r"\x00|(?<!\\)(?:\\\\)*\\u0000")
NUL_REFUSED = "Null characters (U+0000) cannot be stored."

# A search is one LIKE per word, and SQLite refuses a pattern over 50,000 bytes or a
# deep expression: folding makes one character up to 18 ("\ufdfa" gives four words),
# so 500 characters stay under 40,000 bytes.
MAX_SEARCH_CHARS = 500
MAX_SEARCH_WORDS = 50


@dataclass
class AttributeRow:
    key: str = ""
    value: str = ""


@dataclass
class FactRow:
    text: str = ""
    attributes: list[AttributeRow] = field(default_factory=list)

    def is_blank(self) -> bool:
        return not self.text.strip() and not any(
            a.key.strip() or a.value.strip() for a in self.attributes
        )


def rows_from_post(data: Any) -> list[FactRow]:
    """The fact rows a form post holds (`fact-<i>-text`, `fact-<i>-key-<j>`, ...), in order."""
    texts: dict[int, str] = {}
    pairs: dict[int, dict[int, AttributeRow]] = {}
    for name in data:
        match = _ROW_FIELD.fullmatch(name)
        if match is None:
            continue
        row = int(match[1])
        if match[2] == "text":
            texts[row] = data.get(name, "")
            continue
        pair = int(match[3] or match[4])
        attribute = pairs.setdefault(row, {}).setdefault(pair, AttributeRow())
        if match[3] is not None:
            attribute.key = data.get(name, "")
        else:
            attribute.value = data.get(name, "")
    return [
        FactRow(texts.get(row, ""), [pairs.get(row, {})[j] for j in sorted(pairs.get(row, {}))])
        for row in sorted(set(texts) | set(pairs))
    ]


def padded(rows: list[FactRow]) -> list[FactRow]:
    """Rows to show again: the filled ones, then blank ones to reach the fresh-form count."""
    shown = [
        FactRow(row.text, [a for a in row.attributes if a.key.strip() or a.value.strip()])
        for row in rows
        if not row.is_blank()
    ]
    shown += [FactRow() for _ in range(max(FACT_ROWS - len(shown), 1))]
    for row in shown:
        row.attributes += [AttributeRow() for _ in range(ATTRIBUTE_PAIRS - len(row.attributes))]
    return shown


def _row_facts(rows: list[FactRow]) -> tuple[list[dict[str, Any]], list[str]]:
    facts: list[dict[str, Any]] = []
    errors: list[str] = []
    for row in rows:
        if row.is_blank():
            continue
        number = len(facts) + 1
        attributes: dict[str, str] = {}
        for pair in row.attributes:
            key = pair.key.strip()
            if not key and pair.value.strip():
                errors.append(f"Fact {number}: the attribute value {pair.value!r} has no name.")
            elif key in attributes:
                errors.append(f"Fact {number}: the attribute {key!r} is given twice.")
            elif key:
                attributes[key] = pair.value
        if not row.text.strip():
            errors.append(f"Fact {number}: the fact text is empty.")
        if "\x00" in row.text + "".join(a.key + a.value for a in row.attributes):
            errors.append(f"Fact {number}: {NUL_REFUSED}")
        facts.append({"factText": row.text.replace("\r\n", "\n"), "attributes": attributes})
    return facts, errors


class DecimalNumberField(forms.FloatField):
    """A float written with ASCII digits only, as the API's JSON numbers are.

    Django's FloatField uses float(), which also reads Arabic-Indic and full-width
    digits and "1_0".
    """

    # django-stubs derive FloatField from IntegerField, whose to_python returns int.
    def to_python(self, value: Any) -> float | None:  # type: ignore[override]
        text = str(value).strip() if value is not None else ""
        if text and not NUMERIC_STRING.fullmatch(text):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class NewReviewForm(forms.Form):
    answer = forms.CharField(
        strip=False,
        widget=forms.Textarea(attrs={"rows": 8, "dir": "auto", "spellcheck": "false"}),
        help_text="The model's answer, exactly as it was given.",
    )
    citation_threshold = DecimalNumberField(
        min_value=0.0,
        max_value=1.0,
        initial=DEFAULT_CITATION_THRESHOLD,
        widget=forms.NumberInput(attrs={"step": "0.05"}),
        help_text="Higher gives fewer but stronger citations.",
    )
    facts_json = forms.CharField(
        required=False,
        label="Or paste a JSON array of facts",
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "spellcheck": "false",
                "placeholder": '[{"factText": "…", "attributes": {"author": "…"}}]',
            }
        ),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rows = rows_from_post(self.data) if self.is_bound else []

    def display_rows(self) -> list[FactRow]:
        return padded(self.rows)

    def blank_row(self) -> FactRow:
        """The row that JavaScript's "Add fact" copies."""
        return padded([])[0]

    def clean_answer(self) -> str:
        return self.cleaned_data["answer"].replace("\r\n", "\n")

    def clean_facts_json(self) -> str:
        facts_json: str = self.cleaned_data["facts_json"]
        refuse_nul(facts_json)
        return facts_json

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        facts, errors = _row_facts(self.rows)
        wire_facts: object = facts
        for error in errors:
            self.add_error(None, error)
        facts_from_json = bool(data.get("facts_json", "").strip())
        if facts_from_json:
            try:
                json_facts = decode_json_body(data["facts_json"].encode("utf-8"))
            except FormatError as exc:
                self.add_error("facts_json", exc.message)
                return data
            if facts:
                self.add_error("facts_json", "Give the facts as rows or as JSON, not both at once.")
                return data
            wire_facts = json_facts  # parse_check_request checks its shape
        if self.errors:
            return data
        wire = {
            "answerCandidate": data["answer"],
            "facts": wire_facts,
            "groundingSpec": {
                "citationThreshold": data["citation_threshold"],
                "enableClaimLevelScore": True,
            },
        }
        try:
            data["request"] = parse_check_request(wire)
        except FormatError as exc:
            self._format_error(exc, facts_from_json)
        return data

    def _format_error(self, exc: FormatError, facts_from_json: bool) -> None:
        if exc.field.startswith("answerCandidate"):
            self.add_error("answer", exc.message)
        elif exc.field.startswith("groundingSpec"):
            self.add_error("citation_threshold", exc.message)
        elif facts_from_json:
            where = exc.field.removeprefix("facts")
            self.add_error("facts_json", f"{where}: {exc.message}" if where else exc.message)
        else:
            where = _FACT_PATH.sub(lambda m: f"Fact {int(m[1]) + 1}", exc.field)
            self.add_error(None, f"{where}: {exc.message}")


def refuse_nul(raw: str | bytes) -> None:
    """Raise ValidationError if JSON text holds a null character (see `_NUL`)."""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if _NUL.search(text):
        raise forms.ValidationError(NUL_REFUSED)


def upload_or_paste(data: dict[str, Any], required: bool, what: str = "JSON") -> str | bytes | None:
    """The pasted `payload` or the uploaded `file` of an import form, never both."""
    upload: UploadedFile | None = data.get("file")
    pasted = data.get("payload", "")
    if upload is not None and pasted.strip():
        raise forms.ValidationError(f"Paste {what} or upload a file, not both.")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
            raise forms.ValidationError(
                f"The file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MiB."
            )
        raw = upload.read()
        refuse_nul(raw)
        return raw
    if pasted.strip():
        refuse_nul(pasted)
        return pasted
    if required:
        raise forms.ValidationError(f"Paste {what} or choose a file to upload.")
    return None


class ImportForm(forms.Form):
    payload = forms.CharField(
        required=False,
        strip=False,
        label="Paste JSON",
        widget=forms.Textarea(attrs={"rows": 12, "spellcheck": "false"}),
    )
    file = forms.FileField(required=False, label="Or upload a JSON file")

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        data["raw"] = upload_or_paste(data, required=True)
        return data


class ReviewFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=MAX_SEARCH_CHARS, label="Search")
    summary = forms.ChoiceField(
        required=False, label="Verdict", choices=[("", "Any verdict"), *Review.Summary.choices]
    )
    source_format = forms.ChoiceField(
        required=False, label="Source", choices=[("", "Any source"), *Review.Format.choices]
    )
    min_score = DecimalNumberField(required=False, min_value=0.0, max_value=1.0, label="Score ≥")
    max_score = DecimalNumberField(required=False, min_value=0.0, max_value=1.0, label="Score ≤")
    date_from = forms.DateField(
        required=False, label="From", widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        required=False, label="To", widget=forms.DateInput(attrs={"type": "date"})
    )
    disagrees = forms.BooleanField(required=False, label="Reviewer disagrees with model")

    def clean_q(self) -> str:
        q: str = self.cleaned_data["q"]
        if len(fold(q).split()) > MAX_SEARCH_WORDS:
            raise forms.ValidationError(f"Search for at most {MAX_SEARCH_WORDS} words.")
        return q

    def to_filter(self) -> ReviewFilter:
        """The valid filters only: a mistyped score must not hide every review."""
        self.is_valid()
        data = {k: v for k, v in self.cleaned_data.items() if v not in (None, "")}
        return ReviewFilter(
            text=data.get("q", ""),
            summary=data.get("summary", ""),
            source_format=data.get("source_format", ""),
            min_score=data.get("min_score"),
            max_score=data.get("max_score"),
            date_from=data.get("date_from"),
            date_to=data.get("date_to"),
            disagrees=bool(data.get("disagrees")),
        )


MAX_NOTE_CHARS = 2_000


class ReviewerVerdictForm(forms.Form):
    """A reviewer's own verdict and note on one claim (blank verdict: none of my own)."""

    candidate = forms.IntegerField(min_value=0, max_value=1_000, widget=forms.HiddenInput)
    claim = forms.IntegerField(min_value=1, max_value=100_000, widget=forms.HiddenInput)
    verdict = forms.ChoiceField(
        required=False,
        label="Your verdict",
        choices=[("", "No verdict of mine"), *ReviewerVerdict.Verdict.choices],
    )
    note = forms.CharField(
        required=False, max_length=MAX_NOTE_CHARS, label="Note", widget=forms.Textarea
    )
