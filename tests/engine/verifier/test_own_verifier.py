"""A verifier brought as a Hugging Face directory: its own config and tokenizer, a one-,
two- or three-logit head, through the same ONNX path as the bundled one."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from grounding_app.engine import CHECKED_BY, CheckRequest, Fact, GroundingEngine
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.verifier.model import (
    VERIFIER_DIR,
    CrossEncoderJudge,
    encode_pairs,
    entailment_index,
    load_tokenizer,
)
from grounding_app.engine.verifying import VerifierJudge
from tests.engine.verifier.tiny_models import (
    NLI,
    NLI_OTHER_ORDER,
    bert_classifier,
    distilbert_classifier,
    onnx_cache,
    write_verifier_json,
)

CLAIM = "the film was directed by the mayor ."
EVIDENCE = ("the film was released in the year the bridge was opened .",)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Iterator[Path]:
    with onnx_cache(tmp_path_factory.mktemp("cache")) as graphs:
        yield graphs


@pytest.fixture(scope="module")
def models(tmp_path_factory, cache) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("models")
    made = {
        "one": bert_classifier(root / "one"),
        "two": bert_classifier(root / "two", {0: "LABEL_0", 1: "LABEL_1"}),
        "nli": bert_classifier(root / "nli", NLI),
        "nli-other-order": bert_classifier(root / "nli-other-order", NLI_OTHER_ORDER),
        "distilbert": distilbert_classifier(root / "distilbert"),
    }
    for directory in made.values():
        write_verifier_json(directory)
    return made


def supported_probability(directory: Path, claim: str, evidence: str) -> float:
    """P(supported) from the torch model itself: softmax of the entailment class, or the
    sigmoid of a single logit."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(str(directory)).eval()
    tokenizer = load_tokenizer(directory)
    ids, types, mask = encode_pairs(tokenizer, [claim], [evidence], 128)
    inputs = {"input_ids": torch.from_numpy(ids), "attention_mask": torch.from_numpy(mask)}
    if "token_type_ids" in tokenizer.model_input_names:
        inputs["token_type_ids"] = torch.from_numpy(types)
    with torch.inference_mode():
        logits = model(**inputs).logits[0]
    if logits.shape[0] == 1:
        return float(torch.sigmoid(logits[0]))
    entails = [i for i, n in model.config.id2label.items() if n.lower() == "entailment"]
    return float(torch.softmax(logits, dim=0)[entails[0] if entails else 1])


@pytest.mark.parametrize("kind", ["one", "two", "nli", "nli-other-order", "distilbert"])
def test_the_logit_is_the_log_odds_of_entailment(models, kind):
    judge = CrossEncoderJudge(models[kind], int8=False)
    [logit] = judge.logits([CLAIM], [EVIDENCE[0]])
    expected = supported_probability(models[kind], CLAIM, EVIDENCE[0])
    assert 1.0 / (1.0 + np.exp(-logit)) == pytest.approx(expected, abs=1e-5)


@pytest.mark.parametrize("kind", ["one", "two", "nli", "nli-other-order", "distilbert"])
def test_int8_scores_are_probabilities_and_the_graphs_are_cached(models, cache, kind):
    judge = CrossEncoderJudge(models[kind])
    scores = VerifierJudge(judge).score(
        [
            (ClaimInContext(CLAIM), Evidence(EVIDENCE)),
            (ClaimInContext("the tower stands north of the river ."), Evidence(EVIDENCE)),
        ]
    )
    assert all(0.0 < s < 1.0 for s in scores)
    weights = hashlib.sha256((models[kind] / "model.safetensors").read_bytes()).hexdigest()
    assert judge.verifier_id == f"{kind}@sha256:{weights[:12]}"
    made = [p.name for p in cache.iterdir() if not p.is_symlink()]
    assert [name for name in made if "-int8-" in name]


def test_a_new_id2label_is_a_new_graph_not_a_stale_one(models, tmp_path):
    swapped = tmp_path / "swapped"
    shutil.copytree(models["nli"], swapped)
    config = json.loads((swapped / "config.json").read_text())
    config["id2label"] = {"0": "neutral", "1": "entailment", "2": "contradiction"}
    config["label2id"] = {v: int(k) for k, v in config["id2label"].items()}
    (swapped / "config.json").write_text(json.dumps(config))
    [before] = CrossEncoderJudge(models["nli"], int8=False).logits([CLAIM], [EVIDENCE[0]])
    [after] = CrossEncoderJudge(swapped, int8=False).logits([CLAIM], [EVIDENCE[0]])
    assert before != after
    expected = supported_probability(swapped, CLAIM, EVIDENCE[0])
    assert 1.0 / (1.0 + np.exp(-after)) == pytest.approx(expected, abs=1e-5)


def test_a_three_way_head_that_names_no_entailment_is_refused(tmp_path, cache):
    directory = bert_classifier(tmp_path / "m", {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    write_verifier_json(directory)
    with pytest.raises(RuntimeError, match="names no entailment class"):
        CrossEncoderJudge(directory)


@pytest.mark.parametrize(
    ("id2label", "index"),
    [
        ({0: "LABEL_0"}, None),
        ({0: "LABEL_0", 1: "LABEL_1"}, 1),
        ({0: "entailment", 1: "not_entailment"}, 0),
        ({0: "Not entailed", 1: "Entailed"}, 1),
        ({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}, 0),
        ({0: "contradiction", 1: "neutral", 2: "entailment"}, 2),
        ({0: "unsupported", 1: "supported"}, 1),
    ],
)
def test_the_entailment_class_is_read_from_id2label(id2label, index):
    assert entailment_index(id2label, Path("m")) == index


@pytest.mark.parametrize(
    ("id2label", "message"),
    [
        ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, "names no entailment class"),
        ({0: "yes", 1: "no"}, "names no entailment class"),
        ({0: "entailment", 1: "supported", 2: "neutral"}, "more than one entailment class"),
        ({i: f"LABEL_{i}" for i in range(4)}, "a 4-logit head"),
    ],
)
def test_a_head_whose_classes_are_unclear_is_refused(id2label, message):
    with pytest.raises(RuntimeError, match=message):
        entailment_index(id2label, Path("m"))


def test_the_pair_is_laid_out_as_the_tokenizer_lays_it_out(models):
    tokenizer = load_tokenizer(models["nli"])
    ids, types, mask = encode_pairs(tokenizer, ["film"], ["the river"], 128)
    assert tokenizer.convert_ids_to_tokens(list(ids[0])) == [
        "[CLS]",
        "film",
        "[SEP]",
        "the",
        "river",
        "[SEP]",
    ]
    assert list(types[0]) == [0, 0, 0, 1, 1, 1] and mask.sum() == 6


def test_a_directory_without_verifier_json_names_the_command(tmp_path, cache):
    directory = bert_classifier(tmp_path / "m", NLI)
    with pytest.raises(RuntimeError, match="package_verifier"):
        CrossEncoderJudge(directory)


def test_weights_without_a_classification_head_are_refused(tmp_path, cache):
    from transformers import BertConfig, BertModel

    directory = bert_classifier(tmp_path / "m", NLI)
    config = BertConfig.from_pretrained(str(directory))
    (directory / "model.safetensors").unlink()
    BertModel(config).save_pretrained(directory)
    write_verifier_json(directory)
    with pytest.raises(RuntimeError, match="not a trained sequence-classification model"):
        CrossEncoderJudge(directory)


def test_the_verifier_reads_the_languages_its_verifier_json_names(models, cache):
    hebrew = "הסרט זכה בפרס."
    request = CheckRequest(
        answer=hebrew, facts=(Fact("הסרט זכה בפרס העיר."),), enable_claim_level_score=True
    )
    checked_by = {}
    for languages in (["en"], ["en", "he"]):
        write_verifier_json(models["nli"], languages=languages)
        engine = GroundingEngine.default(f"verifier:{models['nli']}")
        [claim] = engine.check(request).claims
        assert claim.score is not None and 0.0 <= claim.score <= 1.0
        checked_by[len(languages)] = claim.checked_by
    write_verifier_json(models["nli"])
    assert checked_by == {1: "word_matching", 2: "verifier"}
    assert set(checked_by.values()) <= set(CHECKED_BY)


def test_the_bundled_verifier_loads_through_the_same_path(cache):
    judge = CrossEncoderJudge(VERIFIER_DIR)
    weights = hashlib.sha256((VERIFIER_DIR / "model.safetensors").read_bytes()).hexdigest()
    assert judge.verifier_id == f"minilm-l6-v4@sha256:{weights[:12]}"
    [score] = VerifierJudge(judge).score(
        [(ClaimInContext("The bridge opened in 1932."), Evidence(EVIDENCE))]
    )
    assert 0.0 <= score <= 1.0


def test_a_roberta_pair_is_laid_out_as_roberta_lays_it_out():
    from transformers import RobertaTokenizer

    vocab = {"<s>": 0, "<pad>": 1, "</s>": 2, "<unk>": 3, "<mask>": 4, "a": 5, "Ġb": 6, "b": 7}
    tokenizer = RobertaTokenizer(vocab=vocab, merges=[])
    ids, _, _ = encode_pairs(tokenizer, ["a"], ["b"], 128)
    assert tokenizer.convert_ids_to_tokens(list(ids[0])) == [
        "<s>",
        "a",
        "</s>",
        "</s>",
        "b",
        "</s>",
    ]
    assert "token_type_ids" not in tokenizer.model_input_names  # exported without them
