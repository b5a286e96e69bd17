"""Claims checked by word matching, said in words for every page that shows a verdict.

The engine reads a claim with its model only in the languages that model reads (the
bundled verifier: English); a claim in any other language (Hebrew, Chinese, ...) is
judged by word matching, a lexical judge whose verdicts are weaker. A page must say so
wherever such a verdict is shown, in text (never colour alone).

The sentence names the languages read by the verifier that judged, as the stored
review, batch job or labeling item names it (`active_verifier.services.judge_info`
finds its languages on disk), never the engine loaded now. When that verifier is
unknown the sentence says only what is true of every word-matched claim by definition
("the verifier does not read Hebrew").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from grounding_app import engine

SHORT = "word matching"  # the visible mark's words, after the language's name


@dataclass(frozen=True)
class JudgeInfo:
    """What the judging model reads: `languages` is None when that model is unknown."""

    languages: tuple[str, ...] | None = None
    name: str = "verifier"

    def note(self, language: str | None) -> str:
        """The full sentence for one word-matched claim, e.g. "Hebrew: checked by word
        matching; this verifier reads English"."""
        named = engine.language_name(language) if language else ""
        head = f"{named}: checked by {SHORT}" if named else f"Checked by {SHORT}"
        return head + self.reason([language] if language else [])

    def reason(self, languages: Sequence[str]) -> str:
        """Why word matching judged claims in `languages`, after a semicolon."""
        if self.languages is None:
            return f"; the verifier does not read {names(languages, 'or') or 'it'}"
        reads = names(self.languages) or "no language"
        if any(code in self.languages for code in languages):
            # Checked by an older engine; the model loaded now reads that language.
            return f"; this {self.name} now reads {reads}: re-check to use it"
        return f"; this {self.name} reads {reads}"


def names(codes: Iterable[str], conjunction: str = "and") -> str:
    """('en', 'he') -> "English and Hebrew"; three or more with commas; "" for none."""
    found = list(dict.fromkeys(engine.language_name(code) for code in codes))
    if len(found) <= 1:
        return "".join(found)
    return ", ".join(found[:-1]) + f" {conjunction} " + found[-1]


def mark_text(language: str | None) -> str:
    """The short visible mark: "Hebrew: word matching"."""
    return f"{engine.language_name(language)}: {SHORT}" if language else SHORT.capitalize()


def language_counts(languages: Iterable[str | None]) -> list[tuple[str, int]]:
    """(language name, claims) pairs, most claims first; an unknown language as "unknown"."""
    return language_totals(Counter(code or "" for code in languages))


def language_totals(counts: Mapping[str, int]) -> list[tuple[str, int]]:
    """{"he": 118, "zh": 2} -> [("Hebrew", 118), ("Chinese", 2)]: most claims first; the
    code "" (a claim of unknown language) as "unknown"."""
    named: Counter[str] = Counter()
    for code, n in counts.items():
        named[engine.language_name(code) if code else "unknown"] += n
    return sorted(named.items(), key=lambda item: (-item[1], item[0]))


def summary(matched: Sequence[str | None], checked: int, judge: JudgeInfo) -> str:
    """One line for a page: "3 of 5 checked claims are in Hebrew: checked by word
    matching; this verifier reads English"; "" when no claim was word-matched."""
    if not matched:
        return ""
    counts = language_counts(matched)
    n = len(matched)
    if n == checked:
        lead = "The one checked claim is" if n == 1 else f"All {n} checked claims are"
    else:
        lead = f"{n} of {checked} checked claims {'is' if n == 1 else 'are'}"
    where = counts[0][0] if len(counts) == 1 else names_with_counts(counts)
    known = [code for code in dict.fromkeys(matched) if code]
    return f"{lead} in {where}: checked by {SHORT}{judge.reason(known)}"


def word_matching_reason(languages: Sequence[str], judge: JudgeInfo) -> str:
    """For counts over many answers: "Claims in Hebrew and Chinese were checked by word
    matching; this verifier reads English"."""
    return f"Claims in {names(languages) or 'other languages'} were checked by {SHORT}" + (
        judge.reason(languages)
    )


def names_with_counts(counts: Sequence[tuple[str, int]]) -> str:
    """[("Hebrew", 118), ("Chinese", 2)] -> "Hebrew (118) and Chinese (2)"."""
    parts = [f"{name} ({n})" for name, n in counts]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
