"""Language profiles: which language a text is in, and how its words are read.

A profile holds a language's word tables (stop words, negations, number words, month
names, the sentences that assert nothing) and its word forms: English words are
stemmed; Hebrew words shed the one-letter prefixes written onto them ("ובבית" is
"בבית", "בית"). The language of a
claim is identified by py3langid (an offline port of langid.py that ships its model in
the wheel: no download, ~0.1 ms a sentence, 97 languages), trusted only when confident,
since a few short English claims ("monsters university!") look like other languages.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType

from grounding_app.engine.lang import en, he
from grounding_app.engine.lang.text import read
from grounding_app.engine.types import (
    GREETING,
    INSTRUCTION,
    LEAD_IN,
    NO_CLAIM,
    POINTER,
    SIGN_OFF,
)

# Below this probability a claim's identified language is not trusted on its own: the
# answer's language, then the profiles' languages, decide.
CONFIDENT = 0.9

# Han (with its iteration marks), Hiragana, Katakana (not its middle dot) and Hangul.
CJK_RUN = re.compile(
    "(["
    "\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
    "\u3041-\u3096\u309d-\u309f"
    "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f"
    "\u1100-\u11ff\u3131-\u318e\ua960-\ua97c\uac00-\ud7a3\ud7b0-\ud7fb"
    "]+)"
)


def bigrams(run: str) -> list[str]:
    """A run of CJK characters as overlapping pairs: the words of a script without spaces."""
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


@dataclass(frozen=True)
class Profile:
    """How one language's words are read by the checks that are not a model."""

    code: str
    name: str
    stopwords: frozenset[str] = frozenset()
    negations: frozenset[str] = frozenset()
    number_words: dict[str, str] = field(default_factory=dict)
    absolutes: frozenset[str] = frozenset()
    # Words that mark a statement as uncertain ("probably", "כנראה").
    hedges: frozenset[str] = frozenset()
    # Month names -> 1..12, for dates the word-matching judge compares as dates.
    months: dict[str, int] = field(default_factory=dict)
    # Sentences that assert nothing, by why they are not checked (`types.NO_CHECK_REASONS`:
    # greeting, sign_off, no_claim, lead_in, instruction, pointer): whole-sentence patterns
    # that `lang/sentences.py:unchecked_reason` reads, every profile's in every answer.
    unchecked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    forms: Callable[[str], frozenset[str]] = lambda word: frozenset((word,))

    def words(self, text: str) -> list[str]:
        """Lower-case words, in order; CJK runs as character pairs."""
        out: list[str] = []
        # Split on a captured group: CJK runs sit at the odd positions.
        for i, part in enumerate(CJK_RUN.split(text)):
            out.extend(bigrams(part) if i % 2 else (w.casefold() for w in read(part).words))
        return out

    def word_forms(self, word: str) -> frozenset[str]:
        return self.forms(word.casefold())

    def is_negation(self, word: str) -> bool:
        return any(form in self.negations for form in self.word_forms(word))

    def content_words(self, text: str) -> list[str]:
        """Words that carry meaning: no stop words, negations or bare numbers."""
        out = []
        for word in self.words(text):
            forms = self.word_forms(word)
            if forms & self.stopwords or forms & self.negations or word.isdigit():
                continue
            if word in self.number_words:
                continue
            out.append(word)
        return out

    def numbers(self, text: str) -> set[str]:
        """Numbers written in digits or in this language's number words; with `months`,
        dates as dates in every form ("4 ביולי 1950", "04/07/1950", "1950-07-04" are
        1950-07-04, which also holds 1950-07 and 1950), so that a date matches a less
        precise one and not a more precise one."""
        found: set[str] = set()
        if self.months:
            text = self._dates(text, found)
        found |= {d.replace(",", "").lstrip("0") or "0" for d in _DIGITS.findall(text)}
        for word in self.words(text):
            for form in self.word_forms(word):
                if form in self.number_words:
                    found.add(self.number_words[form])
        return found

    def _dates(self, text: str, found: set[str]) -> str:
        """Adds the text's dates to ``found``; returns the text without them."""

        def numeric(m: re.Match[str]) -> str:
            if m.group("iso"):
                year, month, day = m.group("iy"), m.group("im"), m.group("id")
            else:
                day, month, year = m.group("d"), m.group("m"), m.group("y")
            if 1 <= int(month) <= 12 and 1 <= int(day) <= 31:
                found.update(_date_forms(int(year), int(month), int(day)))
                return " "
            return m.group(0)

        text = _NUMERIC_DATE.sub(numeric, text)
        matches = read(text).word_tokens
        tokens = [m.text for m in matches]
        spent: set[int] = set()
        for i, token in enumerate(tokens):
            month = next((self.months[f] for f in self.word_forms(token) if f in self.months), 0)
            if not month:
                continue
            day = tokens[i - 1] if i and tokens[i - 1].isdigit() else ""
            year = tokens[i + 1] if i + 1 < len(tokens) and _YEAR.fullmatch(tokens[i + 1]) else ""
            if not year:
                continue
            valid_day = day and 1 <= int(day) <= 31
            found.update(_date_forms(int(year), month, int(day) if valid_day else 0))
            spent.update({i - 1, i + 1} if valid_day else {i + 1})
        for i in sorted(spent, reverse=True):
            text = text[: matches[i].start] + " " + text[matches[i].end :]
        return text


_NUMERIC_DATE = re.compile(
    r"(?<![\d.,/])(?<!\d-)(?:(?P<iso>(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2}))"
    r"|(?P<d>\d{1,2})(?P<sep>[./-])(?P<m>\d{1,2})(?P=sep)(?P<y>\d{4}))(?![\d.,/-]?\d)"
)
_YEAR = re.compile(r"\d{4}")


def _date_forms(year: int, month: int, day: int) -> set[str]:
    """A date and the less precise dates it holds (its month, its year)."""
    forms = {str(year), f"{year}-{month:02d}"}
    if day:
        forms.add(f"{year}-{month:02d}-{day:02d}")
    return forms


def _stem_forms(word: str) -> frozenset[str]:
    return frozenset((word, en.stem(word)))


def _unchecked(tables: ModuleType) -> dict[str, tuple[str, ...]]:
    """A language module's tables of sentences that assert nothing, by reason."""
    return {
        GREETING: tables.GREETING_PATTERNS,
        SIGN_OFF: tables.SIGN_OFF_PATTERNS,
        NO_CLAIM: tables.NO_CLAIM_PATTERNS,
        LEAD_IN: tables.INTRODUCTION_PATTERNS,
        INSTRUCTION: tables.INSTRUCTION_PATTERNS,
        POINTER: tables.POINTER_PATTERNS,
    }


ENGLISH = Profile(
    "en",
    "English",
    stopwords=en.STOPWORDS,
    negations=en.NEGATIONS,
    absolutes=en.ABSOLUTES,
    hedges=en.HEDGES,
    number_words=en.NUMBER_WORDS,
    forms=_stem_forms,
    unchecked=_unchecked(en),
)
HEBREW = Profile(
    "he",
    "Hebrew",
    stopwords=he.STOPWORDS,
    negations=he.NEGATIONS,
    absolutes=he.ABSOLUTES,
    hedges=he.HEDGES,
    months=he.MONTHS,
    number_words=he.NUMBER_WORDS,
    forms=he.forms,
    unchecked=_unchecked(he),
)
PROFILES = {p.code: p for p in (ENGLISH, HEBREW)}


def profile(code: str) -> Profile:
    """The language's profile; a bare one (words and digits only) for other languages."""
    found = PROFILES.get(code)
    if found is not None:
        return found
    return Profile(code, language_name(code))


def language_name(code: str) -> str:
    """'he' -> 'Hebrew'; a code without a known name is shown as it is."""
    known = PROFILES.get(code)
    return known.name if known is not None else _NAMES.get(code, code)


_NAMES = {
    "ar": "Arabic", "cy": "Welsh", "de": "German", "es": "Spanish", "fa": "Persian",
    "fr": "French", "it": "Italian", "ja": "Japanese", "ko": "Korean", "nl": "Dutch",
    "pl": "Polish", "pt": "Portuguese", "ru": "Russian", "tr": "Turkish", "uk": "Ukrainian",
    "yi": "Yiddish", "zh": "Chinese", "wuu": "Chinese (Wu)", "yue": "Cantonese",
}  # fmt: skip

_HEBREW_LETTER = re.compile("[\u05d0-\u05ea]")


def extra_forms(text: str) -> list[str]:
    """Word forms beyond the words themselves, for an index that matches whole tokens:
    Hebrew words without their prefixes ("ובבית" also as "בבית", "בית")."""
    out: list[str] = []
    for word in HEBREW.words(text):
        if _HEBREW_LETTER.match(word):
            out.extend(sorted(HEBREW.word_forms(word) - {word}))
    return out


_identifier_lock = threading.Lock()
_identifier: object | None = None


def _classifier():
    global _identifier
    if _identifier is None:
        with _identifier_lock:
            if _identifier is None:
                from py3langid.langid import MODEL_FILE, LanguageIdentifier

                _identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    return _identifier


@lru_cache(maxsize=4096)
def _classify(text: str) -> tuple[str, float]:
    code, probability = _classifier().classify(text)
    return str(code), float(probability)


def _letters(text: str) -> bool:
    return any(unicodedata.category(char).startswith("L") for char in text)


def _latin_share(text: str) -> float:
    """The share of the text's letters that are Latin ones (a-z with their accents), read
    once per text (a fact is identified again for each claim it is shown with)."""
    return read(text).view("latin share", _count_latin)


def _count_latin(text: str) -> float:
    letters = [char for char in text if char.isalpha()]
    return sum(1 for char in letters if ord(char) < 0x250) / len(letters) if letters else 0.0


def _latin(text: str) -> bool:
    return _latin_share(text) > 0.5


def _one_script(context: str, text: str) -> bool:
    """Whether the context is written in the text's script throughout (nine letters in
    ten): a mixed answer says nothing about the language of one of its sentences."""
    share = _latin_share(context)
    return share >= 0.9 if _latin(text) else share <= 0.1


def identify(text: str, context: str = "", fallback: Iterable[str] = ("en",)) -> str:
    """The language ``text`` is written in (an ISO 639-1 code).

    A confident reading of the text wins; else a confident reading of ``context`` (the
    whole answer) in the same script. Else, in another script than Latin, the likeliest
    language (the script narrows it down); in Latin script the likeliest of ``fallback``
    (the languages the judges read) and the profiles' languages: short English replies
    are often read as another Latin-script language with middling confidence ("monsters
    university!" as Occitan), and a short French sentence read as English is the smaller
    harm. Text
    without letters ("5", "1997.") takes the context's language.
    """
    if _letters(text):
        code, probability = _classify(text)
        if probability >= CONFIDENT or not _latin(text):
            return code
    # The answer's language, where it is written in the same script as the text (a
    # Hebrew answer's English sentence is not Hebrew).
    if context and context != text and _letters(context) and _one_script(context, text):
        code, probability = _classify(context)
        if probability >= CONFIDENT or not _latin(context):
            return code
    candidates = list(dict.fromkeys([*fallback, *PROFILES]))
    if not _letters(text):
        return candidates[0]
    ranked = _classifier().rank(text)
    score = {str(code): float(value) for code, value in ranked}
    return max(candidates, key=lambda code: score.get(code, float("-inf")))
