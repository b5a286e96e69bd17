"""Training pairs for the verifier, built from `shared/data/grounding` files.

Evidence for a long fact is what the engine would show the judge: a few passages of
that fact. Training picks them lexically (stem overlap with the claim), which is fast on
29k examples and close to what the engine's retrieval returns. Sources are capped so
SNLI (61 % of train, short NLI pairs unlike RAG answers) does not dominate, and every
supported pair also yields hard variants (see `augment`).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

from grounding_app.engine import (
    content_stems,
    needs_grounding_check,
    refers_back,
    split_fact,
    split_sentences,
)
from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_lab import augment
from grounding_lab.augment import Pair

PASSAGES_PER_EVIDENCE = 2
SOURCE_CAP = {"snli": 3000}
# Chance that a supported pair spawns a negation / an added detail / attribution pairs.
# Number and name changes and pronoun-context pairs are made wherever they apply: the
# data has few of them, and they are what RAG answers get wrong most.
NEGATION_SHARE = 0.35
DETAIL_SHARE = 0.35
ATTRIBUTION_SHARE = 0.15

_DETAILS = [
    "in 1843",
    "after a two-year delay",
    "with the support of the United Nations",
    "for the third time",
    "in front of 40,000 people",
    "according to a 2019 survey",
    "before moving to Canada",
    "despite strong opposition from the board",
]
_AUTHORS = [
    "Encyclopedia Britannica",
    "Reuters",
    "Simple Wikipedia",
    "BBC News",
    "the WHO",
    "Rotten Tomatoes",
    "NASA",
    "The Guardian",
]


def select_evidence(claim: str, example: Example) -> str:
    """The fact's attributes and its passages that share most stems with the claim."""
    wanted = set(content_stems(claim))
    best: list[tuple[float, int, int, str]] = []
    for f, fact in enumerate(example.facts):
        for passage in split_fact(f, fact.text):
            stems = set(content_stems(passage.text))
            overlap = len(wanted & stems) / (1 + len(stems)) ** 0.5
            best.append((overlap, f, passage.start, passage.text))
    best.sort(key=lambda item: -item[0])
    chosen = sorted(best[:PASSAGES_PER_EVIDENCE], key=lambda item: (item[1], item[2]))
    facts = sorted({item[1] for item in chosen})
    header = "".join(
        f"{key}: {value}\n"
        for f in facts
        for key, value in example.facts[f].attributes.items()
        if key in {"author", "title", "source", "url"}
    )
    return header + " ".join(item[3] for item in chosen)


def example_pairs(example: Example) -> list[Pair]:
    """One pair per checked sentence; an unsupported multi-sentence claim stays whole."""
    if example.label is None:
        return []
    sentences = [s.text for s in split_sentences(example.claim) if needs_grounding_check(s.text)]
    if not sentences:
        return []
    if example.label == 0 and len(sentences) > 1:
        sentences = [" ".join(sentences)]
    pairs = []
    for i, sentence in enumerate(sentences):
        context = " ".join(sentences[max(0, i - 2) : i]) if refers_back(sentence) else ""
        evidence = select_evidence(sentence, example)
        pairs.append(Pair(sentence, context, evidence, int(example.label), example.source))
    return pairs


def build_pairs(examples: Iterable[Example], seed: int) -> list[Pair]:
    rng = random.Random(seed)
    by_source: dict[str, list[Example]] = defaultdict(list)
    for example in examples:
        by_source[example.source].append(example)
    pairs: list[Pair] = []
    for source in sorted(by_source):
        items = by_source[source]
        rng.shuffle(items)
        for example in items[: SOURCE_CAP.get(source, len(items))]:
            pairs.extend(example_pairs(example))
    names = sorted({n for p in pairs for n in augment._NAME.findall(p.evidence)})
    supported = [p for p in pairs if p.label == 1 and len(p.evidence) < 4000]
    extra: list[Pair] = []
    for pair in supported:
        others = rng.sample(names, min(20, len(names)))
        variants = [pair, *augment.needs_context(pair, others, rng)]
        extra.extend(variants[1:])
        for base in (v for v in variants if v.label == 1):
            extra.extend(
                p
                for p in (augment.change_number(base, rng), augment.swap_name(base, others, rng))
                if p is not None
            )
        if rng.random() < NEGATION_SHARE and (made := augment.negate(pair, rng)):
            extra.append(made)
        if rng.random() < DETAIL_SHARE and (made := augment.add_detail(pair, _DETAILS, rng)):
            extra.append(made)
        if rng.random() < ATTRIBUTION_SHARE:
            extra.extend(augment.attribution(pair, _AUTHORS, rng))
    pairs.extend(extra)
    rng.shuffle(pairs)
    return pairs


def load_pairs(paths: Sequence[Path], seed: int) -> list[Pair]:
    return build_pairs((e for path in paths for e in read_examples(path)), seed)
