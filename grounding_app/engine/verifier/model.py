"""The cross-encoder judge: a sequence classifier reading "claim in context" against evidence.

The bundled verifier's weights live in the repository (`engine/data/verifier/`, fp16
safetensors); its tokenizer and architecture come from the bundled all-MiniLM-L6-v2, so
nothing is downloaded. Any other local Hugging Face sequence-classification directory
(one with a `config.json`) brings its own config and tokenizer: a one-logit head, or a
two- or three-way head whose entailment class `config.json`'s `id2label` names. Either
runs through ONNX Runtime, int8 (`onnx_models.quantized`), from a graph exported on first
use and cached under `var/onnx/`. Like sentence-transformers' `CrossEncoder.predict`,
the judge only tokenises, runs and activates (`logits`): for a multi-logit head the
logit is the entailment class's log-odds. What the engine makes of the logits (windows
of whole passages that fit, each read once per request, the calibration
sigmoid((logit + bias) / temperature) fitted on labelled data, the missing-name penalty)
are steps of its own, in `verifying.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from grounding_app.engine.encoders import bundled_minilm_path
from grounding_app.engine.judges import ClaimInContext
from grounding_app.engine.lexical import resolve_reference
from grounding_app.engine.onnx_models import OnnxBert, exported, quantized, side_by_side
from grounding_app.engine.types import Penalties

VERIFIER_DIR = Path(__file__).resolve().parent.parent / "data" / "verifier"
MAX_LENGTH = 128
MAX_CLAIM_TOKENS = 56
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# Names of the class that says "the evidence supports the claim", as id2label writes
# them (compared lower-cased, spaces and hyphens as underscores).
ENTAILMENT_LABELS = frozenset({"entailment", "entailed", "supported", "consistent", "faithful"})


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
    penalties: Penalties = field(default_factory=Penalties)  # what verifier.json sets
    # Sentences shown on each side of every chosen passage: a verifier that reads long
    # windows (trained on them, `grounding_app/verifiers/adapt/windows.py`) sees the
    # paragraph a summary sentence rests on; one that reads 128 tokens is best given the
    # passages alone (0).
    neighbours: int = 0
    # The languages the model reads (ISO 639-1); claims in others are judged by word
    # matching (`word_match.py`) and say so.
    languages: tuple[str, ...] = ("en",)
    # What responses call the verifier (with its weights' hash): `name` in verifier.json,
    # else the directory's name.
    name: str = "verifier"

    def calibrate(self, logit: float) -> float:
        """The logit on the scale fitted on labelled data (its sigmoid a probability)."""
        return (logit + self.bias) / self.temperature

    @classmethod
    def load(cls, directory: Path) -> VerifierConfig:
        path = directory / "verifier.json"
        if not path.is_file():
            raise RuntimeError(
                f"{path} is missing: write it with `python manage.py package_verifier"
                f" {directory} --languages en` (the languages the model reads)"
            )
        data = json.loads(path.read_text())
        return cls(
            max_length=int(data["max_length"]),
            temperature=float(data["temperature"]),
            bias=float(data["bias"]),
            penalties=Penalties.from_json(data),
            neighbours=int(data.get("evidence_neighbours", 0)),
            languages=tuple(str(code) for code in data.get("languages", ["en"])),
            name=str(data.get("name") or directory.resolve().name),
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


def has_own_config(directory: Path) -> bool:
    """A Hugging Face directory (config.json beside the weights) brings its architecture
    and tokenizer; one without (the bundled verifier, `lab` runs) is a MiniLM head."""
    return (directory / "config.json").is_file()


def weights_file(directory: Path) -> Path:
    for name in WEIGHT_FILES:
        if (directory / name).is_file():
            return directory / name
    raise RuntimeError(
        f"verifier weights missing: {directory / WEIGHT_FILES[0]} (train them with"
        " `python manage.py train_verifier`, bring a Hugging Face sequence-classification"
        " directory, or use the feature judge)"
    )


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _generic(label: str) -> bool:
    """A class named by its number ("label_1", "0"), not by what it means."""
    return label.removeprefix("label_").isdecimal()


def entailment_index(id2label: Mapping[int, str], where: Path) -> int | None:
    """Which logit says "supported": None for a one-logit head (the logit itself).

    A two- or three-way head must name its entailment class in `id2label`; a two-way
    head with generic names (LABEL_0, LABEL_1) follows the binary convention, 1 is the
    positive class. Anything else is refused: a guessed class would score nonsense.
    """
    if len(id2label) == 1:
        return None
    names = {
        int(i): re.sub(r"[\s-]+", "_", str(label).strip().lower()) for i, label in id2label.items()
    }
    shown = ", ".join(f"{i}: {id2label[i]!r}" for i in sorted(id2label))
    if len(names) > 3:
        raise RuntimeError(
            f"{where}: a {len(names)}-logit head ({shown}); a verifier needs one logit,"
            " or two or three classes one of which is entailment"
        )
    found = [i for i, name in names.items() if name in ENTAILMENT_LABELS]
    if len(found) == 1:
        return found[0]
    if not found and len(names) == 2 and all(_generic(n) for n in names.values()):
        return 1
    raise RuntimeError(
        f"{where}: config.json's id2label ({shown}) names "
        + ("more than one" if found else "no")
        + " entailment class ("
        + ", ".join(sorted(ENTAILMENT_LABELS))
        + "); set id2label so that exactly one class is the one meaning 'supported'"
    )


def load_own_model(directory: Path):
    """A Hugging Face sequence classifier in float32, every weight from `directory`."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model, info = AutoModelForSequenceClassification.from_pretrained(
        str(directory), local_files_only=True, dtype=torch.float32, output_loading_info=True
    )
    if info["missing_keys"]:
        missing = ", ".join(sorted(info["missing_keys"])[:4])
        raise RuntimeError(
            f"{directory}: the weights lack {missing}: not a trained sequence-classification"
            " model (its head would be random)"
        )
    return model.eval()


def load_tokenizer(directory: Path | None = None):
    """The bundled MiniLM tokenizer, or `directory`'s own (tokenizer.json, vocab.txt ...)."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(
        str(directory or bundled_minilm_path()), local_files_only=True
    )
    if not tokenizer.is_fast:
        raise RuntimeError(f"{directory}: the verifier needs a fast (tokenizers) tokenizer")
    # Inputs are cut to the model's length here (`encode_pairs`, windows of whole
    # passages), never by the tokenizer; without this it reports every long passage it
    # is asked to count ("Token indices sequence length is longer than ...").
    tokenizer.model_max_length = 1_000_000
    return tokenizer


def pair_template(tokenizer) -> tuple[tuple[int | str, int], ...]:
    """How the tokenizer lays out a pair: (token id, type) for each special token and
    ("a" or "b", type) where the claim's or the evidence's tokens go; for BERT
    [CLS] a [SEP] b [SEP], for RoBERTa <s> a </s></s> b </s>."""
    probe = tokenizer("a", "b")
    ids = probe["input_ids"]
    types = probe.get("token_type_ids") or [0] * len(ids)
    sequences = probe.sequence_ids(0)
    parts: list[tuple[int | str, int]] = []
    for position, sequence in enumerate(sequences):
        if sequence is None:
            parts.append((ids[position], types[position]))
        elif position == 0 or sequences[position - 1] != sequence:
            parts.append(("ab"[sequence], types[position]))
    return tuple(parts)


def special_tokens(template: Sequence[tuple[int | str, int]]) -> int:
    return sum(1 for token, _ in template if isinstance(token, int))


def encode_pairs(tokenizer, claims: Sequence[str], evidence: Sequence[str], max_length: int):
    """The tokenizer's pair layout (e.g. [CLS] claim [SEP] evidence [SEP]); the claim
    capped (context cut from the left), the evidence cut to fit."""
    claim_ids = [
        ids[-MAX_CLAIM_TOKENS:]
        for ids in tokenizer(list(claims), add_special_tokens=False)["input_ids"]
    ]
    evidence_ids = tokenizer(list(evidence), add_special_tokens=False)["input_ids"]
    template = pair_template(tokenizer)
    specials = special_tokens(template)
    rows: list[tuple[list[int], list[int]]] = []
    for a, b in zip(claim_ids, evidence_ids, strict=True):
        texts = {"a": a, "b": b[: max(0, max_length - len(a) - specials)]}
        ids: list[int] = []
        types: list[int] = []
        for token, kind in template:
            piece = texts[token] if isinstance(token, str) else [token]
            ids.extend(piece)
            types.extend([kind] * len(piece))
        rows.append((ids, types))
    width = max(len(ids) for ids, _ in rows)
    input_ids = np.full((len(rows), width), tokenizer.pad_token_id, dtype=np.int64)
    token_types = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for row, (ids, types) in enumerate(rows):
        input_ids[row, : len(ids)] = ids
        token_types[row, : len(ids)] = types
        mask[row, : len(ids)] = 1
    return input_ids, token_types, mask


def supported_log_odds(logits: Any, index: int | None) -> Any:
    """The head's output as one logit: the entailment class against all the others
    (log-sum-exp), so sigmoid of it is the softmax probability of entailment."""
    if index is None:
        return logits
    import torch

    others = torch.cat([logits[:, :index], logits[:, index + 1 :]], dim=-1)
    return logits[:, index : index + 1] - torch.logsumexp(others, dim=-1, keepdim=True)


class CrossEncoderJudge:
    """The trained verifier, or one brought as a directory: (claim, evidence) texts to
    logits. `verifying.VerifierJudge` makes it a `Judge`.

    `int8=False` runs the float32 graph: the exact model, about 1.7 times slower.
    `verifier_id` ("name@sha256:<12 hex>") says which verifier judged: its name and
    its weights' hash.
    """

    def __init__(self, directory: Path = VERIFIER_DIR, int8: bool = True) -> None:
        weights = weights_file(directory)
        self.config = VerifierConfig.load(directory)
        self.verifier_id = f"{self.config.name}@sha256:{file_sha256(weights)[:12]}"
        if has_own_config(directory):
            from transformers import AutoConfig

            config_file = directory / "config.json"
            model_config = AutoConfig.from_pretrained(str(directory), local_files_only=True)
            index = entailment_index(model_config.id2label, directory)
            self._tokenizer = load_tokenizer(directory)
            # The head reading is part of the graph: a changed config.json is a new graph.
            name = f"verifier-{file_sha256(config_file)[:12]}"
            build = partial(load_own_model, directory)
            token_types = "token_type_ids" in self._tokenizer.model_input_names
        else:
            index, name, token_types = None, "verifier", True
            self._tokenizer = load_tokenizer()
            build = partial(load_model, weights)
        graph = exported(
            name,
            weights,
            build,
            lambda outputs: supported_log_odds(outputs.logits, index),
            token_types=token_types,
        )
        # One thread per run, runs side by side (`logits`).
        self._model = OnnxBert(quantized(graph) if int8 else graph, threads=1)
        self._specials = special_tokens(pair_template(self._tokenizer))
        # A passage's length in tokens, counted once: the largest request shows the same
        # passages in the windows of many claims (`evidence.windows`).
        self.token_count = lru_cache(maxsize=50_000)(self._count_tokens)
        # One forward pass at a time per process keeps memory flat under concurrency.
        self._lock = threading.Lock()

    def _count_tokens(self, text: str) -> int:
        return len(self._tokenizer.tokenize(text)) if text else 0

    @property
    def window_room(self) -> int:
        """How many evidence tokens fit beside a claim in one input."""
        return self.config.max_length - MAX_CLAIM_TOKENS - self._specials

    def logits(self, claims: Sequence[str], evidence: Sequence[str]) -> np.ndarray:
        """One logit per (claim, evidence) pair, each pair run as a batch of its own.

        int8 activations share one scale per batch, so in a batch a pair's score would
        depend on its batch-mates (by up to 0.09 on dev pairs); alone it is the pair's
        own. No padding is computed then, so it costs little: 2-7 % more time than sorted
        batches of 8 on 97 dev inputs (two runs).

        Pairs run side by side, one core each (`onnx_models.side_by_side`).
        """
        out = np.zeros(len(claims), dtype=np.float64)
        if not claims:
            return out
        ids, types, mask = encode_pairs(self._tokenizer, claims, evidence, self.config.max_length)
        lengths = [int(n) for n in mask.sum(axis=1)]

        def run(row: int) -> float:
            one = slice(row, row + 1), slice(0, lengths[row])
            return float(self._model.run(ids[one], mask[one], types[one])[0, 0])

        with self._lock:
            out[:] = side_by_side(len(claims), run)
        return out
