"""The cross-encoder judge: MiniLM-L6 reading "claim in context" against evidence.

Weights live in the repository (`engine/data/verifier/`, fp16 safetensors); the tokenizer
and architecture come from the bundled all-MiniLM-L6-v2, so nothing is downloaded. The
model runs through ONNX Runtime, int8 (`onnx_models.quantized`), from a graph exported
on first use and cached under `var/onnx/`. Scores are calibrated probabilities:
sigmoid((logit + bias) / temperature), fitted on dev. Evidence longer than the model's
input is cut into windows of whole passages that fit, each window is scored, and the
best one counts: nothing is truncated silently.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from grounding_app.engine.encoders import Encoder, bundled_minilm_path
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.lexical import compare, resolve_reference
from grounding_app.engine.onnx_models import OnnxBert, exported, quantized

VERIFIER_DIR = Path(__file__).resolve().parent.parent / "data" / "verifier"
MAX_LENGTH = 128
MAX_CLAIM_TOKENS = 56


def claim_text(claim: ClaimInContext) -> str:
    """The first segment the model reads; context first so the claim is never cut.

    A leading pronoun that the context resolves is replaced by its name, which reads like
    the self-contained claims most training pairs have.
    """
    if not claim.context:
        return claim.claim
    resolved = resolve_reference(claim.claim, claim.context)
    if resolved is not None:
        return resolved
    return f"{claim.context} >> {claim.claim}"


@dataclass(frozen=True)
class VerifierConfig:
    max_length: int = MAX_LENGTH
    temperature: float = 1.0
    bias: float = 0.0
    # SPEC §1: a claim with a number or a name the evidence lacks is only partly true.
    # The model misses some of these (one swapped name in a list), so such claims pay a
    # fixed price in logits; chosen on dev, where it costs < 0.01 balanced accuracy.
    missing_number_penalty: float = 0.0
    missing_name_penalty: float = 0.0
    # Sentences shown on each side of every chosen passage: a verifier that reads long
    # windows (trained on them, `lab/windows.py`) sees the paragraph a summary sentence
    # rests on; one that reads 128 tokens is best given the passages alone (0).
    neighbours: int = 0
    # The engine's discount for evidence that contradicts the claim (another name or
    # number, a record's "no"), in logits: a verifier whose fitted bias is high needs a
    # larger one for the same contradiction to sink the score (pipeline.Settings).
    contradiction_penalty: float = 3.0
    # The languages the model reads (ISO 639-1); claims in others are judged by word
    # matching (`word_match.py`) and say so.
    languages: tuple[str, ...] = ("en",)

    @classmethod
    def load(cls, directory: Path) -> VerifierConfig:
        data = json.loads((directory / "verifier.json").read_text())
        return cls(
            max_length=int(data["max_length"]),
            temperature=float(data["temperature"]),
            bias=float(data["bias"]),
            missing_number_penalty=float(data.get("missing_number_penalty", 0.0)),
            missing_name_penalty=float(data.get("missing_name_penalty", 0.0)),
            neighbours=int(data.get("evidence_neighbours", 0)),
            contradiction_penalty=float(data.get("contradiction_penalty", 3.0)),
            languages=tuple(str(code) for code in data.get("languages", ["en"])),
        )


def build_model(num_labels: int = 1):
    """A BERT sequence classifier on top of the bundled MiniLM weights (new head)."""
    from transformers import AutoModelForSequenceClassification

    return AutoModelForSequenceClassification.from_pretrained(
        str(bundled_minilm_path()), num_labels=num_labels, local_files_only=True
    )


def load_model(weights: Path):
    """The trained verifier as a float32 torch model: what is exported, and the reference."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModelForSequenceClassification

    # Built from the config, not from pretrained weights: every weight comes from the
    # file, and no "newly initialized" report reaches the start log.
    config = AutoConfig.from_pretrained(
        str(bundled_minilm_path()), num_labels=1, local_files_only=True
    )
    model = AutoModelForSequenceClassification.from_config(config)
    model.load_state_dict({k: v.float() for k, v in load_file(str(weights)).items()})
    return model.eval()


def load_tokenizer():
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(bundled_minilm_path()), local_files_only=True)
    # Inputs are cut to the model's length here (`encode_pairs`, windows of whole
    # passages), never by the tokenizer; without this it reports every long passage it
    # is asked to count ("Token indices sequence length is longer than ...").
    tokenizer.model_max_length = 1_000_000
    return tokenizer


def encode_pairs(tokenizer, claims: Sequence[str], evidence: Sequence[str], max_length: int):
    """[CLS] claim [SEP] evidence [SEP]; claim capped (context cut from the left)."""
    claim_ids = [
        ids[-MAX_CLAIM_TOKENS:]
        for ids in tokenizer(list(claims), add_special_tokens=False)["input_ids"]
    ]
    evidence_ids = tokenizer(list(evidence), add_special_tokens=False)["input_ids"]
    cls, sep, pad = tokenizer.cls_token_id, tokenizer.sep_token_id, tokenizer.pad_token_id
    rows = []
    for a, b in zip(claim_ids, evidence_ids, strict=True):
        b = b[: max(0, max_length - len(a) - 3)]
        rows.append(([cls, *a, sep], [*b, sep]))
    width = max(len(first) + len(second) for first, second in rows)
    input_ids = np.full((len(rows), width), pad, dtype=np.int64)
    token_types = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for row, (first, second) in enumerate(rows):
        n = len(first) + len(second)
        input_ids[row, :n] = first + second
        token_types[row, len(first) : n] = 1
        mask[row, :n] = 1
    return input_ids, token_types, mask


class CrossEncoderJudge:
    """Implements `Judge` with the trained verifier.

    `int8=False` runs the float32 graph: the exact model, about 1.7 times slower.
    """

    def __init__(self, directory: Path = VERIFIER_DIR, int8: bool = True) -> None:
        weights = directory / "model.safetensors"
        if not weights.is_file():
            raise RuntimeError(
                f"verifier weights missing: {weights} (train them with"
                " `python manage.py train_verifier`, or use the feature judge)"
            )
        self.config = VerifierConfig.load(directory)
        self._tokenizer = load_tokenizer()
        graph = exported(
            "verifier", weights, lambda: load_model(weights), lambda outputs: outputs.logits
        )
        self._model = OnnxBert(quantized(graph) if int8 else graph)
        # One forward pass at a time per process keeps memory flat under concurrency.
        self._lock = threading.Lock()

    def _windows(self, claim: str, evidence: Evidence) -> list[str]:
        """Whole passages packed into inputs that fit beside the claim."""
        head = "".join(f"{k}: {v}\n" for k, v in evidence.attributes.items())
        room = self.config.max_length - MAX_CLAIM_TOKENS - 3
        lengths = [len(self._tokenizer.tokenize(p)) for p in evidence.passages]
        windows: list[str] = []
        current: list[str] = []
        used = len(self._tokenizer.tokenize(head)) if head else 0
        for passage, length in zip(evidence.passages, lengths, strict=True):
            if current and used + length > room:
                windows.append(head + " ".join(current))
                current, used = [], len(self._tokenizer.tokenize(head)) if head else 0
            current.append(passage)
            used += length
        if current or not windows:
            windows.append(head + " ".join(current))
        return windows

    def logits(self, claims: Sequence[str], evidence: Sequence[str]) -> np.ndarray:
        """One logit per (claim, evidence) pair, each pair run as a batch of its own.

        int8 activations share one scale per batch, so in a batch a pair's score would
        depend on its batch-mates (by up to 0.09 on dev pairs); alone it is the pair's
        own. No padding is computed then, so it costs little: 2-7 % more time than sorted
        batches of 8 on 97 dev inputs (two runs).
        """
        out = np.zeros(len(claims), dtype=np.float64)
        if not claims:
            return out
        ids, types, mask = encode_pairs(self._tokenizer, claims, evidence, self.config.max_length)
        with self._lock:
            for row, n in enumerate(mask.sum(axis=1)):
                one = slice(row, row + 1), slice(0, int(n))
                out[row] = self._model.run(ids[one], mask[one], types[one])[0, 0]
        return out

    def score(
        self, pairs: Sequence[tuple[ClaimInContext, Evidence]], encoder: Encoder | None = None
    ) -> list[float]:
        claims: list[str] = []
        texts: list[str] = []
        owner: list[int] = []
        for index, (claim, evidence) in enumerate(pairs):
            first = claim_text(claim)
            for window in self._windows(first, evidence):
                claims.append(first)
                texts.append(window)
                owner.append(index)
        best = np.full(len(pairs), -np.inf)
        if claims:
            logits = (self.logits(claims, texts) + self.config.bias) / self.config.temperature
            for index, logit in zip(owner, logits, strict=True):
                best[index] = max(best[index], logit)
        for index, (claim, evidence) in enumerate(pairs):
            lexical = compare(claim.claim, evidence.text)
            best[index] -= self.config.missing_number_penalty * (lexical.missing_numbers > 0)
            best[index] -= self.config.missing_name_penalty * min(lexical.missing_names, 3)
        return [float(1.0 / (1.0 + np.exp(-x))) if np.isfinite(x) else 0.0 for x in best]
