"""Language profiles: which language a text is in, and how its words are read.

A profile holds a language's word tables (stop words, negations, number words, month
names, the sentences that assert nothing, the words each check reads) and its word
forms: English words are stemmed; Hebrew words shed the one-letter prefixes written onto
them ("ובבית" is "בבית", "בית"). The engine reaches a language's words only through its
profile: no module outside `lang/` imports a language's module or compiles a pattern of
its words (`tests/engine/test_words_in_one_place.py`). The language of a
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
# What a language without a pattern of its own matches: nothing.
_NOTHING = re.compile(r"(?!)")


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
    # A stemmed language's checks read words as written (case tells "May" from "may")
    # and compare them by stem (`read(text).content_stems`); others read them
    # case-folded and compare them by their forms.
    stemmed: bool = False
    stem: Callable[[str], str] = str.lower
    # Letters written onto the next word (Hebrew's conjunction, article, prepositions).
    prefixes: frozenset[str] = frozenset()
    # Names, references and pronouns (`lexical.py`, `roles.py`).
    not_names: frozenset[str] = frozenset()
    capitals_only: frozenset[str] = frozenset()
    demonyms: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    name_links: frozenset[str] = frozenset()
    definite: frozenset[str] = frozenset()
    referring: frozenset[str] = frozenset()
    personal_pronouns: frozenset[str] = frozenset()
    pronoun_endings: Mapping[str, str] = field(default_factory=dict)
    third_person_pronouns: frozenset[str] = frozenset()
    not_agents: frozenset[str] = frozenset()
    action_particles: frozenset[str] = frozenset()
    # The words that mark the doer of a passive ("directed by James Cameron").
    agent_markers: frozenset[str] = frozenset()
    clause_break: re.Pattern[str] = _NOTHING
    # Dates in words, for the judge's alignments (`normalise.py`): month names and
    # abbreviations -> 1..12, the full names a date is written with, the patterns.
    written_months: Mapping[str, int] = field(default_factory=dict)
    month_names: tuple[str, ...] = ()
    dates_in_words: tuple[re.Pattern[str], ...] = ()
    decade: re.Pattern[str] = _NOTHING
    # What the checks read: a record's yes/no statement and the words that only say a
    # thing is offered (`checks/record_flag.py`), a vote called unanimous and a tally
    # (`checks/vote.py`), the words never shown as unsupported (`unsupported.py`), the
    # attribute keys that only locate a fact (`evidence.py`).
    record_flag: re.Pattern[str] = _NOTHING
    offering: frozenset[str] = frozenset()
    unanimity: frozenset[str] = frozenset()
    unanimity_phrases: frozenset[str] = frozenset()
    vote_words: frozenset[str] = frozenset()
    dissent_words: frozenset[str] = frozenset()
    tally: re.Pattern[str] = _NOTHING
    unmarked: frozenset[str] = frozenset()
    bookkeeping: re.Pattern[str] = _NOTHING

    def words(self, text: str) -> list[str]:
        """Lower-case words, in order; CJK runs as character pairs."""
        out: list[str] = []
        # Split on a captured group: CJK runs sit at the odd positions.
        for i, part in enumerate(CJK_RUN.split(text)):
            out.extend(bigrams(part) if i % 2 else (w.casefold() for w in read(part).words))
        return out

    def word_forms(self, word: str) -> frozenset[str]:
        return self.forms(word.casefold())

    def shed_one(self, word: str) -> str | None:
        """The word less a prefix letter, where four letters or more are written."""
        return word[1:] if len(word) > 3 and word[0] in self.prefixes else None

    def written_words(self, text: str) -> list[str]:
        """The words in order as a check reads them: as written in a stemmed language,
        else as `words` reads them."""
        return list(read(text).words) if self.stemmed else self.words(text)

    def content_forms(self, text: str) -> list[frozenset[str]]:
        """Each content word as the forms it matches by: its stem in a stemmed language,
        else the word with and without its prefixes."""
        if self.stemmed:
            return [frozenset((s,)) for s in read(text).content_stems]
        return [self.word_forms(w) for w in self.content_words(text)]

    def is_hedge(self, word: str) -> bool:
        """Whether a word of `written_words` marks a statement as uncertain (in a stemmed
        language only in lower case: "May" is a month)."""
        if self.stemmed:
            return word in self.hedges
        return bool(self.word_forms(word) & self.hedges)

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
        tokens = read(text).words
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
        # The spans only where a date was read: most texts have none.
        matches = read(text).word_tokens if spent else ()
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


def _dates_in_words(months: Mapping[str, int]) -> tuple[re.Pattern[str], ...]:
    """English's patterns of dates in words, its month names filled in (longest first)."""
    month = r"(?P<month>" + "|".join(sorted(months, key=len, reverse=True)) + r")\.?"
    year = r"(?P<year>\d{4})"
    return tuple(
        re.compile(form.format(day=en.DATE_DAY, month=month, year=year), re.I)
        for form in en.DATES_IN_WORDS
    )


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
    stemmed=True,
    stem=en.stem,
    not_names=en.NOT_NAMES,
    capitals_only=en.CAPITALS_ONLY,
    demonyms=en.DEMONYMS,
    name_links=en.NAME_LINKS,
    definite=en.DEFINITE,
    referring=en.REFERRING,
    personal_pronouns=en.PERSONAL_PRONOUNS,
    pronoun_endings=en.PRONOUN_ENDINGS,
    third_person_pronouns=en.THIRD_PERSON_PRONOUNS,
    not_agents=en.NOT_AGENTS,
    action_particles=en.ACTION_PARTICLES,
    agent_markers=en.AGENT_MARKERS,
    clause_break=re.compile(en.CLAUSE_BREAK, re.IGNORECASE),
    written_months=en.MONTHS,
    month_names=tuple(en.MONTH_NAMES),
    dates_in_words=_dates_in_words(en.MONTHS),
    decade=re.compile(en.DECADE, re.I),
    record_flag=re.compile(en.RECORD_FLAG),
    offering=en.OFFERING_WORDS,
    unanimity=en.UNANIMITY,
    unanimity_phrases=en.UNANIMITY_PHRASES,
    vote_words=en.VOTE_WORDS,
    dissent_words=en.DISSENT_WORDS,
    tally=re.compile(en.TALLY),
    unmarked=en.UNMARKED_WORDS,
    bookkeeping=re.compile(en.BOOKKEEPING_KEY, re.I),
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
    prefixes=he.PREFIXES,
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
