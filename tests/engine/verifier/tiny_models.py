"""Tiny random Hugging Face classifiers, built offline and saved as a user would download
them (config.json, a tokenizer of their own vocabulary, model.safetensors), for tests of
the "bring your own verifier" path. Seeded, so each one has the same weights every run.
The tokenizers are fast ones (`BertTokenizer` is the tokenizers-backed class in
transformers 5; `BertTokenizerFast` is its alias).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.engine.onnx_models import cache_dir

# A vocabulary of its own, unlike the bundled MiniLM's 30,522 WordPiece tokens.
WORDS = (
    "the a was is by in of and it film directed released capital city bridge opened river"
    " mayor year built who when tower stands north south won award prize river"
    " הסרט זכה בפרס העיר"
).split()
VOCAB = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", *dict.fromkeys(WORDS))
POSITIONS = 128
NLI = {0: "entailment", 1: "neutral", 2: "contradiction"}
NLI_OTHER_ORDER = {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}


def _vocab(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return path


def bert_classifier(
    directory: Path, id2label: Mapping[int, str] | None = None, seed: int = 0
) -> Path:
    """A one-layer BERT with one logit (no id2label) or the given classes."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    labels = dict(id2label or {0: "LABEL_0"})
    config = BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=POSITIONS,
        # Weights this large give scores that differ between inputs, so a calibration
        # has something to fit (BERT's 0.02 gives every input nearly the same score).
        initializer_range=1.0,
        num_labels=len(labels),
        id2label=labels,
        label2id={name: index for index, name in labels.items()},
    )
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(directory)
    BertTokenizer(vocab=str(_vocab(directory))).save_pretrained(directory)
    return directory


def distilbert_classifier(directory: Path, seed: int = 0) -> Path:
    """A two-logit DistilBERT: a model that takes no token types."""
    import torch
    from transformers import (
        DistilBertConfig,
        DistilBertForSequenceClassification,
        DistilBertTokenizer,
    )

    config = DistilBertConfig(
        vocab_size=len(VOCAB),
        dim=16,
        n_layers=1,
        n_heads=2,
        hidden_dim=32,
        max_position_embeddings=POSITIONS,
        num_labels=2,
    )
    torch.manual_seed(seed)
    DistilBertForSequenceClassification(config).save_pretrained(directory)
    DistilBertTokenizer(vocab=str(_vocab(directory))).save_pretrained(directory)
    return directory


def write_verifier_json(directory: Path, **fields: object) -> None:
    config = {"max_length": POSITIONS, "temperature": 1.0, "bias": 0.0, **fields}
    (directory / "verifier.json").write_text(json.dumps(config))


CLAIMS = (
    ("the film was directed by the mayor .", 1),
    ("the film won the prize .", 0),
    ("the bridge was opened in the year the tower was built .", 1),
    ("the tower stands north of the river .", 0),
    ("the city was built by the river .", 1),
    ("the mayor was directed by the film .", 0),
)


def write_labels(path: Path) -> Path:
    """Labelled examples in the shared JSONL schema, both classes, two sources."""
    fact = (
        "the film was directed by the mayor . the bridge was opened in the year the tower"
        " was built . the city was built by the river ."
    )
    lines = []
    for n in range(3):
        for index, (claim, label) in enumerate(CLAIMS):
            lines.append(
                {
                    "id": f"{n}-{index}",
                    "facts": [{"text": fact}],
                    "claim": claim,
                    "label": label,
                    "source": f"source-{n % 2}",
                }
            )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


@contextmanager
def onnx_cache(directory: Path) -> Iterator[Path]:
    """GROUNDING_CACHE_DIR set to `directory`, so the graphs of tiny models stay out of
    var/; the graphs already in the usual cache (the bundled encoder's and verifier's,
    which take seconds to export) are linked in, not made again."""
    usual = cache_dir()
    target = directory / "onnx"
    target.mkdir(parents=True, exist_ok=True)
    if usual.is_dir():
        for graph in usual.glob("*.onnx"):
            (target / graph.name).symlink_to(graph)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GROUNDING_CACHE_DIR", str(directory))
        yield target


def judged_by(directory: Path) -> tuple[GroundingEngine, list[float | None]]:
    """The engine with `directory` as its verifier, loaded as a user loads it, and the
    claim scores it gives a two-sentence answer (one sentence in the fact, one not)."""
    engine = GroundingEngine.default(f"verifier:{directory}")
    response = engine.check(
        CheckRequest(
            answer="the film was directed by the mayor. the tower stands north of the river.",
            facts=(Fact("the film was directed by the mayor ."),),
            enable_claim_level_score=True,
        )
    )
    return engine, [c.score for c in response.claims]
