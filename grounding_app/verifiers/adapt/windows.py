"""Evidence windows for the long-reading verifier, and the pairs it trains on.

A window is a run of adjacent passages of one fact, up to a token budget, so that an
abstractive sentence sees the paragraph it summarises (AlignScore/MiniCheck read
documents in chunks the same way: score per chunk, the best chunk counts). Training
picks, per example, the window that shares most word stems with the claim: the one the
engine's retrieval would show first, so positives are readable and negatives are hard.

Pairs are weighted towards the document-level sources people meet in real use
(summaries, RAG answers, dialogue, web claims) and away from sentence NLI; generated
negatives defeat word matching (entities exchanged, an entity or number replaced by
another from the same evidence, a hedge the evidence keeps taken out, pronouns of the
other gender, a negation the evidence lacks: FactCC's transformations), generated
positives paraphrase the surface (citation markers, numbers in other formats).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from grounding_app.engine import content_stems, is_bookkeeping, split_sentences
from grounding_app.formats.grounding_jsonl import Example

# Training pairs per source (all of a source when it has fewer): the document-level
# sources of real use count most; SNLI and the DocNLI parts least.
SOURCE_PAIRS = {
    "frank": 4000,
    "fib": 3600,
    "factcheck_gpt": 2800,
    "faithdial_audit": 1800,
    "cg2c_doc": 1760,
    "halueval_qa": 1190,
    "begin_dev": 600,
    "q2": 440,
    "wice_nst": 340,
    "wice_dev": 250,
    "summac_xsumfaith": 250,
    "summac_factcc": 200,
    "summac_summeval": 73,
    "fever_symmetric": 800,
    "docnli_fever": 1200,
    "docnli_mnli": 1200,
    "snli": 800,
}

_NUMBER = re.compile(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\d,])|(?<![\w.,])\d+(?![\w,])")
_ENTITY = re.compile(r"\b[A-Z][\w'\u2019-]+(?:\s+(?:of|de|the|van|von)?\s*[A-Z][\w'\u2019-]+)*")
_STOP_CAPS = frozenset(
    "The A An In On At It He She They We I This That These Those His Her Their Its But And"
    " Or If When While After Before As For From By With Without To Of However".split()
)
_SPELLED = {
    1: "one",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "eleven",
    12: "twelve",
}


@dataclass(frozen=True)
class Window:
    fact: int
    text: str


@dataclass(frozen=True)
class TrainPair:
    claim: str
    evidence: str
    label: int
    source: str
    kind: str


def windows(
    facts: Sequence[tuple[str, dict[str, str]]],
    count_tokens: Callable[[str], int],
    budget: int,
) -> list[Window]:
    """Each fact cut into runs of whole adjacent sentences of at most `budget` tokens,
    its readable attributes first (a sentence longer than the budget is a window alone,
    and the model cuts it)."""
    out: list[Window] = []
    for index, (text, attributes) in enumerate(facts):
        head = "".join(f"{k}: {v}\n" for k, v in attributes.items() if not is_bookkeeping(k))
        room = budget - (count_tokens(head) if head else 0)
        current: list[str] = []
        used = 0
        for sentence in split_sentences(text):
            length = count_tokens(sentence.text)
            if current and used + length > room:
                out.append(Window(index, head + " ".join(current)))
                current, used = [], 0
            current.append(sentence.text)
            used += length
        if current:
            out.append(Window(index, head + " ".join(current)))
    return out


def best_window(claim: str, candidates: Sequence[Window]) -> Window:
    """The window sharing most distinct stems with the claim (the first on a tie)."""
    wanted = set(content_stems(claim))
    return max(candidates, key=lambda w: len(wanted & set(content_stems(w.text))))


def _entities(text: str, proper: bool = False) -> list[str]:
    """Capitalised runs of words, leading stopwords ("The", "In") dropped. `proper`
    keeps only those capitalised where no sentence starts (so "Police" opening a
    sentence is not one) or that run over several words."""
    found = []
    for match in _ENTITY.finditer(text):
        words = match.group().split()
        while words and words[0] in _STOP_CAPS:
            words = words[1:]
        if not words:
            continue
        if proper and len(words) == 1:
            before = text[: match.start()].rstrip()
            if not before or before[-1] in ".!?:\"\u201c\u201d'\n":
                continue
        found.append(" ".join(words))
    return list(dict.fromkeys(found))


def claim_names(claim: str, evidence: str = "") -> list[str]:
    """The names of a claim as it writes them: its capitalised ones and, since many
    summarisers write in lower case ("harry kane scored"), the evidence's proper names
    (or their last words) found in it in any case. A name inside a longer one found is
    left out."""
    names = _entities(claim)
    lowered = claim.lower()
    for name in _entities(evidence, proper=True):
        words = name.lower().split()
        # "President Muhammadu Buhari" is met as "muhammadu buhari" or "buhari" too
        for start in range(len(words)):
            tail = re.escape(" ".join(words[start:]))
            match = re.search(rf"(?<!\w){tail}(?!\w)", lowered)
            if match:
                names.append(claim[match.start() : match.end()])
                break
    names = list(dict.fromkeys(names))
    return [n for n in names if not any(n != m and n.lower() in m.lower() for m in names)]


def _as_written(name: str, like: str) -> str:
    """`name` in the case of the claim's name it takes the place of (a lower-case
    summary stays so)."""
    return name.lower() if like == like.lower() else name


_CONJOINED = re.compile(r"\s*(?:,|and|or|&|,\s*and)\s*", re.I)


def swap_entities(claim: str, rng: random.Random, evidence: str = "") -> str | None:
    """Two different entities of the claim exchanged ("A beat B" -> "B beat A"); not two
    listed side by side ("A and B won"), which would mean the same."""
    names = [n for n in claim_names(claim, evidence) if claim.count(n) == 1]
    if len(names) < 2:
        return None
    a, b = rng.sample(names, 2)
    if a.lower() in b.lower() or b.lower() in a.lower():
        return None
    first, second = sorted((a, b), key=claim.index)
    between = claim[claim.index(first) + len(first) : claim.index(second)]
    if _CONJOINED.fullmatch(between):
        return None
    marker = "\x00"
    swapped = (
        claim.replace(a, marker).replace(b, _as_written(a, b)).replace(marker, _as_written(b, a))
    )
    return swapped if swapped.lower() != claim.lower() else None


def replace_from_evidence(claim: str, evidence: str, rng: random.Random) -> str | None:
    """An entity or number of the claim replaced by another one the evidence mentions:
    every word is still in the evidence, the statement is not."""
    kinds = []
    claim_numbers = [m for m in _NUMBER.finditer(claim)]
    evidence_numbers = {m.group() for m in _NUMBER.finditer(evidence)}
    if claim_numbers:
        kinds.append("number")
    lowered_evidence = evidence.lower()
    names = [n for n in claim_names(claim, evidence) if n.lower() in lowered_evidence]
    if names:
        kinds.append("entity")
    rng.shuffle(kinds)
    lowered = claim.lower()
    for kind in kinds:
        if kind == "number":
            m = rng.choice(claim_numbers)
            others = sorted(evidence_numbers - {m.group()})
            if others:
                return claim[: m.start()] + rng.choice(others) + claim[m.end() :]
        else:
            name = rng.choice(names)
            lower = name == name.lower()
            others = [
                n
                for n in _entities(evidence, proper=lower)
                if n.lower() not in lowered and name.lower() not in n.lower()
            ]
            if others:
                return claim.replace(name, _as_written(rng.choice(others), name), 1)
    return None


_MALE = {"he": "she", "him": "her", "his": "her", "himself": "herself"}
_FEMALE = {"she": "he", "her": "his", "hers": "his", "herself": "himself"}


def _gendered(text: str, table: dict[str, str]) -> list[re.Match[str]]:
    return [m for m in re.finditer(r"\b[A-Za-z]+\b", text) if m.group().lower() in table]


def swap_pronoun(claim: str, evidence: str) -> str | None:
    """The claim's pronouns turned to the other gender, where the evidence speaks of one
    gender only ("he was shot" of a woman): the error FactCC's negatives are made of."""
    male, female = _gendered(evidence, _MALE), _gendered(evidence, _FEMALE)
    if bool(male) == bool(female):
        return None
    table = _MALE if male else _FEMALE
    found = _gendered(claim, table)
    if not found:
        return None
    out = claim
    for m in reversed(found):
        word = table[m.group().lower()]
        if m.group()[0].isupper():
            word = word.capitalize()
        out = out[: m.start()] + word + out[m.end() :]
    return out


_AUXILIARY = re.compile(
    r"\b(is|was|are|were|has|have|had|will|can|could|would|should)\b(?!\s+(?:not|never)\b)",
    re.I,
)
_NEGATION = re.compile(r"\b(not|never|no longer)\b|n't\b", re.I)


def negate(claim: str, evidence: str) -> str | None:
    """The claim's first auxiliary negated ("was shot" -> "was not shot"), where neither
    the claim nor the evidence negates anything: the evidence then says the opposite."""
    if _NEGATION.search(claim) or _NEGATION.search(evidence):
        return None
    match = _AUXILIARY.search(claim)
    if not match:
        return None
    return claim[: match.end()] + " not" + claim[match.end() :]


_HEDGE = re.compile(
    r"\s+\b(possibly|potentially|probably|likely|reportedly|allegedly|perhaps|apparently"
    r"|presumably|supposedly)\b",
    re.I,
)


def drop_hedge(claim: str, evidence: str) -> str | None:
    """The claim with the hedge it shares with the evidence taken out: "X potentially
    causes Y" against evidence that only says "potentially" asserts more than it says."""
    for match in _HEDGE.finditer(claim):
        if re.search(rf"\b{match.group(1)}\b", evidence, re.I):
            return claim[: match.start()] + claim[match.end() :]
    return None


def paraphrase_surface(claim: str, rng: random.Random) -> str | None:
    """The same statement written otherwise: a citation marker before the full stop, a
    small number spelled out, thousands separated."""
    options = []
    if claim.rstrip().endswith("."):
        options.append("marker")
    small = [m for m in re.finditer(r"\b([1-9]|1[0-2])\b", claim)]
    if small:
        options.append("spell")
    big = [m for m in re.finditer(r"\b\d{4,}\b", claim) if not 1000 <= int(m.group()) <= 2100]
    if big:
        options.append("thousands")
    if not options:
        return None
    choice = rng.choice(options)
    if choice == "marker":
        stripped = claim.rstrip()
        marker = rng.choice(["[1]", " [2]", "[^3]", "\u30101\u3011", " [4][5]"])
        return stripped[:-1] + marker + "."
    if choice == "spell":
        m = rng.choice(small)
        return claim[: m.start()] + _SPELLED[int(m.group())] + claim[m.end() :]
    m = rng.choice(big)
    return claim[: m.start()] + f"{int(m.group()):,}" + claim[m.end() :]


def pad_with_distractors(
    evidence: str,
    distractors: Sequence[str],
    count_tokens: Callable[[str], int],
    budget: int,
    rng: random.Random,
) -> str | None:
    """The window with unrelated sentences put before and after it, up to the budget.

    At run time a short fact is read with whatever surrounds it (neighbours, other
    passages), so a supporting sentence among unrelated ones must still support and an
    unsupported claim must stay unsupported; None when nothing fits."""
    room = budget - count_tokens(evidence)
    before: list[str] = []
    after: list[str] = []
    for _ in range(4 * len(distractors) if distractors else 0):
        if room < 8:
            break
        sentence = rng.choice(distractors)
        length = count_tokens(sentence)
        if length > room or sentence in before or sentence in after:
            continue
        room -= length
        (before if rng.random() < 0.5 else after).append(sentence)
    if not before and not after:
        return None
    return " ".join([*before, evidence, *after])


def _distractor_pool(
    by_source: dict[str, list[Example]], rng: random.Random
) -> list[tuple[str, str]]:
    """(source, sentence) from a few examples of each source: a claim is padded only
    with sentences of other sources, so they cannot bear on it."""
    pool: list[tuple[str, str]] = []
    for source in sorted(by_source):
        for example in rng.sample(by_source[source], min(40, len(by_source[source]))):
            for fact in example.facts:
                pool.extend((source, s.text) for s in split_sentences(fact.text)[:6])
    return pool


def build_pairs(
    examples: Iterable[Example],
    count_tokens: Callable[[str], int],
    budget: int,
    seed: int,
    per_source: dict[str, int] | None = None,
    padded: float = 0.0,
) -> list[TrainPair]:
    """One pair per example (its best window), capped per source, plus generated
    negatives and paraphrased positives from the supported pairs, and (a share
    `padded` of the originals) the same pair with unrelated sentences around it."""
    rng = random.Random(seed)
    caps = SOURCE_PAIRS if per_source is None else per_source
    by_source: dict[str, list[Example]] = {}
    for example in examples:
        by_source.setdefault(example.source, []).append(example)
    pool = _distractor_pool(by_source, rng) if padded else []
    pairs: list[TrainPair] = []
    for source in sorted(by_source):
        chosen = by_source[source]
        rng.shuffle(chosen)
        others = [text for origin, text in pool if origin != source]
        for example in chosen[: caps.get(source, 300)]:
            if example.label is None:  # unlabelled lines teach nothing
                continue
            facts = [(f.text, dict(f.attributes)) for f in example.facts]
            cut = windows(facts, count_tokens, budget)
            if not cut:
                continue
            evidence = best_window(example.claim, cut).text
            pairs.append(TrainPair(example.claim, evidence, example.label, source, "original"))
            if others and rng.random() < padded:
                longer = pad_with_distractors(evidence, others, count_tokens, budget, rng)
                if longer:
                    pairs.append(TrainPair(example.claim, longer, example.label, source, "padded"))
            if example.label != 1:
                continue
            roll = rng.random()
            hedged = drop_hedge(example.claim, evidence)
            changed: str | None
            if hedged:
                changed = hedged
                kind = "hedge"
            elif roll < 0.2:
                changed = swap_entities(example.claim, rng, evidence)
                kind = "swap"
            elif roll < 0.5:
                changed = replace_from_evidence(example.claim, evidence, rng)
                kind = "replace"
            elif roll < 0.6:
                changed = swap_pronoun(example.claim, evidence)
                kind = "pronoun"
            elif roll < 0.67:
                changed = negate(example.claim, evidence)
                kind = "negate"
            else:
                changed = None
                kind = ""
            if changed:
                pairs.append(TrainPair(changed, evidence, 0, source, kind))
            if rng.random() < 0.2:
                same = paraphrase_surface(example.claim, rng)
                if same:
                    pairs.append(TrainPair(same, evidence, 1, source, "surface"))
    rng.shuffle(pairs)
    return pairs


def kinds(pairs: Sequence[TrainPair]) -> dict[str, int]:
    return dict(sorted(Counter(f"{p.kind}:{p.label}" for p in pairs).items()))
