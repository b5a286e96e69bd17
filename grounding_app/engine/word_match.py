"""The word-matching judge: for claims in a language no verifier reads.

The bundled verifier reads English; it reads Hebrew letter by letter, and its scores on
Hebrew are noise (balanced accuracy 0.52 on dev_hebrew). What carries across languages
is plainer: how many of the claim's words the evidence has (in the language profile's
word forms), whether its character 4-grams recur, whether it has a number or a negation
the evidence lacks. A logistic model over those features is fitted on English training
pairs (`grounding_lab/fit_word_match.py`) and applied through each language's profile; a
language's own offset (`biases`) is chosen on that language's dev half, so that the
default threshold is its best. Responses say which claims it judged.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from grounding_app.engine.lang import Profile
from grounding_app.engine.lang.numbers import unsupported

WORD_MATCH_WEIGHTS = Path(__file__).with_name("data") / "word_match.json"

FEATURE_NAMES = (
    "coverage",
    "full_coverage",
    "uncovered_words",
    "char_coverage",
    "missing_number",
    "negation_mismatch",
    "log_content_words",
    "pair_coverage",
    "new_absolute",
    "negated_claim_only",
    "log_length_ratio",
)

_SPACE = re.compile(r"\s+")
_NGRAM = 4


def _ngrams(text: str) -> set[str]:
    flat = _SPACE.sub(" ", text.casefold()).strip()
    return {flat[i : i + _NGRAM] for i in range(len(flat) - _NGRAM + 1)}


def _pairs(forms: Sequence[frozenset[str]]) -> set[tuple[str, str]]:
    return {(x, y) for a, b in itertools.pairwise(forms) for x in a for y in b}


def features(claim: str, evidence: str, profile: Profile) -> list[float]:
    """The claim read against one evidence text, in the order of `FEATURE_NAMES`.

    Beside word and character coverage: adjacent content-word pairs the evidence also
    has side by side (word order: who did what to whom), an absolute ("all", "only") the
    evidence lacks, a negation only the claim has, and how much longer the claim is.
    """
    content = profile.content_words(claim)
    claim_forms = [profile.word_forms(w) for w in content]
    evidence_words = profile.words(evidence)
    held = {form for word in evidence_words for form in profile.word_forms(word)}
    found = sum(1 for forms in claim_forms if forms & held)
    coverage = found / len(content) if content else 1.0
    grams = _ngrams(claim)
    char_coverage = len(grams & _ngrams(evidence)) / len(grams) if grams else 1.0
    # A number counts as missing only where the value comparison (rounding, hedges,
    # shares, sums: `lang.numbers.unsupported`) finds no support either.
    missing_number = bool(profile.numbers(claim) - profile.numbers(evidence)) and bool(
        unsupported(claim, (evidence,), profile.code)
    )
    claim_words = profile.words(claim)
    negated = any(profile.is_negation(w) for w in claim_words)
    evidence_negated = any(profile.is_negation(w) for w in evidence_words)
    evidence_content = profile.content_words(evidence)
    evidence_pairs = _pairs([profile.word_forms(w) for w in evidence_content])
    claim_pairs = list(itertools.pairwise(claim_forms))
    paired = sum(1 for a, b in claim_pairs if any((x, y) in evidence_pairs for x in a for y in b))
    new_absolute = any(
        profile.word_forms(w) & profile.absolutes and not profile.word_forms(w) & held
        for w in claim_words
    )
    return [
        coverage,
        float(coverage >= 0.999),
        float(len(content) - found),
        char_coverage,
        float(missing_number),
        float(negated != evidence_negated),
        math.log1p(len(content)),
        paired / len(claim_pairs) if claim_pairs else 1.0,
        float(new_absolute),
        float(negated and not evidence_negated),
        math.log((len(content) + 1) / (len(evidence_content) + 1)),
    ]


@dataclass(frozen=True)
class WordMatchJudge:
    weights: tuple[float, ...]
    bias: float
    biases: dict[str, float] = field(default_factory=dict)  # per language, replaces `bias`
    # Checks that sink a claim beyond what the English fit weighs them: a number the
    # evidence lacks (SPEC: only partly true), a negation only the claim has. Chosen on a
    # dev half (`grounding_lab/fit_word_match.py`), in logits, by feature name.
    penalties: dict[str, float] = field(default_factory=dict)

    @classmethod
    def from_file(cls, path: Path = WORD_MATCH_WEIGHTS) -> WordMatchJudge:
        if not path.is_file():
            raise RuntimeError(f"word-matching judge weights missing: {path}")
        data = json.loads(path.read_text())
        if tuple(data["features"]) != FEATURE_NAMES:
            raise RuntimeError(f"{path} was fitted for other features: {data['features']}")
        return cls(
            tuple(float(w) for w in data["weights"]),
            float(data["bias"]),
            {str(k): float(v) for k, v in data.get("biases", {}).items()},
            {str(k): float(v) for k, v in data.get("penalties", {}).items()},
        )

    @cached_property
    def _effective_weights(self) -> np.ndarray:
        """The fitted weights with the checks' penalties folded in (computed once)."""
        weights = np.asarray(self.weights, dtype=np.float64).copy()
        for name, penalty in self.penalties.items():
            weights[FEATURE_NAMES.index(name)] -= penalty
        return weights

    def logits(self, claim: str, evidence: Sequence[str], profile: Profile) -> list[float]:
        """One logit per evidence text."""
        if not evidence:
            return []
        x = np.array([features(claim, text, profile) for text in evidence], dtype=np.float64)
        bias = self.biases.get(profile.code, self.bias)
        return [float(v) for v in x @ self._effective_weights + bias]

    def score(self, claim: str, evidence: Sequence[str], profile: Profile) -> list[float]:
        """Probabilities that the claim is supported by each evidence text."""
        return [
            1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))
            for z in self.logits(claim, evidence, profile)
        ]
