"""The benchmark's three requests, built deterministically from real text.

(a) the two-fact film example of SPEC §1; (b) an everyday request: 10 facts of about
1,000 characters and an 8-sentence answer; (c) the largest allowed request: 200 facts of
10,000 characters and an answer of about 200 sentences (under 4,096 tokens). Answers
mix sentences copied from the facts with copies whose numbers were changed, so both
verdicts occur.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path

from grounding_app.engine import (
    MAX_ANSWER_TOKENS,
    MAX_FACT_CHARS,
    CheckRequest,
    Fact,
    count_tokens,
    split_sentences,
)
from grounding_app.formats.grounding_jsonl import read_examples

# The texts the requests are built from by default (the repository's dev split).
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "grounding" / "dev.jsonl"

FILM_FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster movie. It was directed, written,"
        " and co-produced by James Cameron. The movie is about the 1912 sinking of the RMS"
        " Titanic. It stars Kate Winslet and Leonardo DiCaprio. The movie was released on"
        " December 19, 1997. It received positive critical reviews. The movie won 11 Academy"
        " Awards, and was nominated for fourteen total Academy Awards.",
        {"author": "Simple Wikipedia"},
    ),
    Fact(
        'James Cameron\'s "Titanic" is an epic, action-packed romance set against the'
        " ill-fated maiden voyage of the R.M.S. Titanic; the pride and joy of the White Star"
        " Line and, at the time, the largest moving object ever built. She was the most"
        ' luxurious liner of her era -- the "ship of dreams" -- which ultimately carried'
        " over 1,500 people to their death in the ice cold waters of the North Atlantic in"
        " the early hours of April 15, 1912.",
        {"author": "Rotten Tomatoes"},
    ),
)

FILM_ANSWER = "Titanic was directed by James Cameron. It starred Brad Pitt and Kate Winslet"


def benchmark_texts(data: Path) -> list[str]:
    """The distinct fact texts of a grounding JSONL file, shortest first: what the
    everyday and largest requests are built from, the same on every run."""
    return sorted(
        {fact.text for example in read_examples(data) for fact in example.facts},
        key=lambda t: (len(t), t),
    )


def film_request() -> CheckRequest:
    return CheckRequest(answer=FILM_ANSWER, facts=FILM_FACTS)


def _fit(sentences: Sequence[str], limit: int) -> str:
    text = ""
    for sentence in sentences:
        candidate = f"{text} {sentence}".strip()
        if len(candidate) > limit:
            break
        text = candidate
    return text


def _alter(sentence: str, rng: random.Random) -> str:
    """Change a number (or add a false detail) so the copy is no longer supported."""
    digits = re.search(r"\d+", sentence)
    if digits:
        value = int(digits.group()) + rng.randint(2, 9)
        return sentence[: digits.start()] + str(value) + sentence[digits.end() :]
    return sentence.rstrip(".") + " in 1843."


def _answer(facts: Sequence[Fact], count: int, rng: random.Random, max_words: int) -> str:
    pool = [
        s.text
        for fact in facts
        for s in split_sentences(fact.text)
        if 5 <= len(s.text.split()) <= max_words and s.text.endswith(".")
    ]
    rng.shuffle(pool)
    chosen = [s if i % 3 else _alter(s, rng) for i, s in enumerate(pool[:count])]
    answer = " ".join(chosen)
    while count_tokens(answer) > MAX_ANSWER_TOKENS:
        chosen.pop()
        answer = " ".join(chosen)
    return answer


def corpus_sentences(texts: Sequence[str]) -> list[str]:
    return [s.text for text in texts for s in split_sentences(text)]


def everyday_request(texts: Sequence[str], seed: int = 1) -> CheckRequest:
    rng = random.Random(seed)
    pool = list(texts)
    rng.shuffle(pool)
    facts = tuple(
        Fact(_fit(corpus_sentences([text]), 1_000), {"title": f"Document {i + 1}"})
        for i, text in enumerate(t for t in pool if len(t) >= 1_000)
        if i < 10
    )
    return CheckRequest(answer=_answer(facts, 8, rng, 30), facts=facts[:10])


def largest_request(texts: Sequence[str], seed: int = 2) -> CheckRequest:
    rng = random.Random(seed)
    sentences = corpus_sentences(texts)
    facts = []
    for i in range(200):
        start = rng.randrange(len(sentences))
        window = sentences[start:] + sentences[:start]
        facts.append(Fact(_fit(window, MAX_FACT_CHARS), {"title": f"Document {i + 1}"}))
    return CheckRequest(answer=_answer(facts, 200, rng, 18), facts=tuple(facts))


def request_builders(data: Path = DEFAULT_DATA) -> dict[str, Callable[[], CheckRequest]]:
    """The three benchmark requests by name, each built when called (the largest is big)."""
    texts = benchmark_texts(data)
    return {
        "film": film_request,
        "everyday": partial(everyday_request, texts),
        "largest": partial(largest_request, texts),
    }
