"""Hard training pairs the public data lacks, made from supported pairs.

Each function takes a supported (claim, evidence) pair and returns a changed claim with
its new label, or None when the change does not apply. The changes mirror what RAG
answers get wrong: a number or date off, a name swapped, a negation, an unsupported
detail added, a pronoun that needs the sentence before it, an attribution.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from grounding_app.engine import numbers

_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\d])")
_AUX = re.compile(r"\b(is|was|are|were|has|have|had|can|will|did|does|do)\b")
_LEADING_NAME = re.compile(
    r"^((?:[A-Z][\w'\u2019-]+\s){1,3})(is|was|has|had|won|became|played|plays|made|wrote|said)\b"
)
_NAME = re.compile(r"\b[A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?\b")


@dataclass(frozen=True)
class Pair:
    claim: str
    context: str
    evidence: str
    label: int
    source: str
    kind: str = "original"


def change_number(pair: Pair, rng: random.Random) -> Pair | None:
    matches = list(_NUMBER.finditer(pair.claim))
    if not matches:
        return None
    m = rng.choice(matches)
    raw = m.group().replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    if 1000 <= value <= 2100 and value.is_integer():
        new = str(int(value) + rng.choice([-12, -7, -3, -1, 1, 2, 5, 11]))
    elif value.is_integer():
        new = str(int(value) + rng.choice([1, 2, 3, 10]) * rng.choice([-1, 1]) or 1)
    else:
        new = f"{value * rng.choice([0.5, 1.5, 2.0]):.1f}"
    if new.lstrip("-") in numbers(pair.evidence) or new.startswith("-"):
        return None
    claim = pair.claim[: m.start()] + new + pair.claim[m.end() :]
    return Pair(claim, pair.context, pair.evidence, 0, pair.source, "number")


def swap_name(pair: Pair, other_names: list[str], rng: random.Random) -> Pair | None:
    names = list(_NAME.finditer(pair.claim))
    candidates = [n for n in other_names if n.lower() not in pair.evidence.lower()]
    if not names or not candidates:
        return None
    m = rng.choice(names)
    claim = pair.claim[: m.start()] + rng.choice(candidates) + pair.claim[m.end() :]
    return Pair(claim, pair.context, pair.evidence, 0, pair.source, "name")


def negate(pair: Pair, rng: random.Random) -> Pair | None:
    m = _AUX.search(pair.claim)
    if not m or re.search(r"\b(not|never|no)\b|n't", pair.claim):
        return None
    claim = pair.claim[: m.end()] + " not" + pair.claim[m.end() :]
    return Pair(claim, pair.context, pair.evidence, 0, pair.source, "negation")


def add_detail(pair: Pair, details: list[str], rng: random.Random) -> Pair | None:
    detail = rng.choice(details)
    if detail.lower() in pair.evidence.lower():
        return None
    claim = pair.claim.rstrip(" .!") + f" {detail}."
    return Pair(claim, pair.context, pair.evidence, 0, pair.source, "detail")


def needs_context(pair: Pair, other_names: list[str], rng: random.Random) -> list[Pair]:
    """'X was ...' -> context 'X ...' + 'It was ...' (1), and a context about Y (0)."""
    m = _LEADING_NAME.match(pair.claim)
    if not m:
        return []
    subject = m.group(1).strip()
    pronoun = rng.choice(["It", "They", "He", "She"]) if " " in subject else "It"
    claim = pronoun + " " + pair.claim[len(m.group(1)) :]
    out = [Pair(claim, f"{subject} is the topic here.", pair.evidence, 1, pair.source, "context")]
    others = [n for n in other_names if n.lower() not in pair.evidence.lower()]
    if others:
        wrong = rng.choice(others)
        out.append(
            Pair(claim, f"{wrong} is the topic here.", pair.evidence, 0, pair.source, "context")
        )
    return out


def attribution(pair: Pair, authors: list[str], rng: random.Random) -> list[Pair]:
    """Evidence carries an author: 'According to <author>, ...' is supported, another is not."""
    author, other = rng.sample(authors, 2)
    evidence = f"author: {author}\n{pair.evidence}"
    body = (
        pair.claim[0].lower() + pair.claim[1:]
        if pair.claim[:2] != pair.claim[:2].upper()
        else pair.claim
    )
    return [
        Pair(
            f"According to {author}, {body}", pair.context, evidence, 1, pair.source, "attribution"
        ),
        Pair(
            f"According to {other}, {body}", pair.context, evidence, 0, pair.source, "attribution"
        ),
    ]
