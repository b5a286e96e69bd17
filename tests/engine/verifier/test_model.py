"""The shipped verifier: loads from the repository, fails clearly without its weights."""

from __future__ import annotations

import json

import pytest

from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.verifier.model import (
    MAX_CLAIM_TOKENS,
    VERIFIER_DIR,
    CrossEncoderJudge,
    VerifierConfig,
    encode_pairs,
    load_tokenizer,
)


def test_missing_weights_fail_at_start_up(tmp_path):
    with pytest.raises(RuntimeError, match="verifier weights missing"):
        CrossEncoderJudge(directory=tmp_path)


def test_encoded_pairs_fit_the_model_input():
    tokenizer = load_tokenizer()
    ids, types, mask = encode_pairs(
        tokenizer, ["context " * 100 + "claim"], ["evidence " * 500], max_length=128
    )
    assert ids.shape == (1, 128) and mask.sum() == 128
    first_segment = int((types[0] == 0).sum())
    assert first_segment == MAX_CLAIM_TOKENS + 2  # [CLS] claim [SEP]; context cut from the left


@pytest.fixture(scope="module")
def judge():
    if not (VERIFIER_DIR / "model.safetensors").is_file():
        pytest.fail(f"the verifier weights must be committed under {VERIFIER_DIR}")
    return CrossEncoderJudge()


def test_long_evidence_is_windowed_not_cut(judge):
    filler = tuple(f"Line {i} of the log lists routine maintenance work." for i in range(60))
    evidence = Evidence((*filler, "The reactor was shut down after a coolant leak."))
    windows = judge._windows("The reactor was shut down after a coolant leak.", evidence)
    assert len(windows) > 1
    assert "coolant leak" in windows[-1]
    [score] = judge.score(
        [(ClaimInContext("The reactor was shut down after a coolant leak."), evidence)]
    )
    assert score > 0.6


def test_scores_are_probabilities_that_separate(judge):
    evidence = Evidence(("The bridge over the river was opened in 1932 by the mayor.",))
    good, wrong_year, negated = judge.score(
        [
            (ClaimInContext("The bridge was opened in 1932."), evidence),
            (ClaimInContext("The bridge was opened in 1958."), evidence),
            (ClaimInContext("The bridge was never opened."), evidence),
        ]
    )
    assert 0.0 <= wrong_year < 0.6 <= good <= 1.0
    assert negated < 0.6


def test_config_carries_the_engine_penalties(tmp_path):
    base = {"max_length": 384, "temperature": 0.9, "bias": 1.0}
    (tmp_path / "verifier.json").write_text(
        json.dumps({**base, "evidence_neighbours": 3, "contradiction_penalty": 5.0})
    )
    config = VerifierConfig.load(tmp_path)
    assert (config.neighbours, config.contradiction_penalty) == (3, 5.0)
    (tmp_path / "verifier.json").write_text(json.dumps(base))
    assert VerifierConfig.load(tmp_path).contradiction_penalty == 3.0


def test_counting_a_long_passage_reports_nothing(capfd):
    tokenizer = load_tokenizer()
    tokenizer(["word " * 700], add_special_tokens=False)
    assert "longer than the specified maximum" not in capfd.readouterr().err
