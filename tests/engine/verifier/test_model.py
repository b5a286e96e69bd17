"""The shipped verifier: loads from the repository, fails clearly without its weights."""

from __future__ import annotations

import json

import numpy as np
import pytest

from grounding_app.engine.encoders import HashingEncoder, MemoEncoder
from grounding_app.engine.evidence import windows
from grounding_app.engine.judges import ClaimInContext, Evidence
from grounding_app.engine.pipeline import GroundingEngine, Settings
from grounding_app.engine.types import Penalties
from grounding_app.engine.verifier.model import (
    MAX_CLAIM_TOKENS,
    VERIFIER_DIR,
    CrossEncoderJudge,
    VerifierConfig,
    claim_text,
    encode_pairs,
    load_tokenizer,
)
from grounding_app.engine.verifying import VerifierJudge, name_penalty, probabilities


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
    return VerifierJudge(CrossEncoderJudge())


REACTOR = "The reactor was shut down after a coolant leak."


def _log_lines(n: int) -> tuple[str, ...]:
    return tuple(f"Line {i} of the log lists routine maintenance work." for i in range(n))


def test_long_evidence_is_windowed_not_cut(judge):
    evidence = Evidence((*_log_lines(60), REACTOR))
    model = judge.model
    read = windows(evidence, model.token_count, model.window_room)
    assert len(read) > 1
    assert "coolant leak" in read[-1]
    assert all(len(model._tokenizer.tokenize(w)) <= judge.config.max_length for w in read)


def test_the_judge_runs_the_model_and_the_engine_takes_every_other_step(judge):
    """`CrossEncoderJudge` only turns texts into logits, as `CrossEncoder.predict` does;
    windows, the request's memo, calibration and the missing-name penalty are the
    engine's steps (`verifying.py`), which give the score when composed by hand."""
    assert not hasattr(CrossEncoderJudge, "score")
    claim = ClaimInContext("Okafor shut the reactor down after a coolant leak.")
    evidence = Evidence((*_log_lines(60), REACTOR))
    model = judge.model
    texts = windows(evidence, model.token_count, model.window_room)
    assert len(texts) > 1
    logits = model.logits([claim_text(claim)] * len(texts), texts)
    best = max(judge.config.calibrate(float(x)) for x in logits)
    [penalty] = name_penalty([(claim, evidence)], judge.config.penalties)
    assert penalty == judge.config.penalties.missing_name  # "Okafor" is not in the log
    memo = MemoEncoder(HashingEncoder())
    expected = probabilities(np.array([best - penalty]))
    assert judge.score([(claim, evidence)], memo) == expected
    assert len(memo.pair_logits) == len(texts)


def test_a_true_sentence_among_the_neighbours_the_engine_shows_supports(judge):
    # The engine shows a chosen passage with `neighbours` sentences on each side, of two
    # passages per fact at most: this many unrelated lines around the claim's sentence.
    n = judge.config.neighbours or 1
    for before, after in [(n, n), (2 * n, 0), (0, 2 * n), (3 * n, 0)]:
        evidence = Evidence((*_log_lines(before), REACTOR, *_log_lines(after)))
        [score] = judge.score([(ClaimInContext(REACTOR), evidence)])
        assert score > 0.8, (before, after, score)


@pytest.mark.xfail(
    strict=True,
    reason="the 384-token verifier (version 4) reads a true sentence at the end of a window"
    " full of near-identical log lines as unsupported (0.24; behind 12 lines: 0.81); the"
    " engine shows at most a few neighbours around a chosen passage, so a request does not"
    " meet it",
)
def test_a_true_sentence_behind_a_full_window_of_log_lines_supports(judge):
    [score] = judge.score([(ClaimInContext(REACTOR), Evidence((*_log_lines(60), REACTOR)))])
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
    assert (config.neighbours, config.penalties) == (3, Penalties(contradiction=5.0))
    (tmp_path / "verifier.json").write_text(json.dumps(base))
    assert VerifierConfig.load(tmp_path).penalties == Penalties()


def test_the_shipped_penalties_are_read_once_and_reach_the_pipeline() -> None:
    # verifier.json is their one source: the config reads it, the engine's settings take
    # the contradiction and number prices from the config, and packaging writes them back.
    shipped = json.loads((VERIFIER_DIR / "verifier.json").read_text())
    penalties = VerifierConfig.load(VERIFIER_DIR).penalties
    assert penalties.as_json() == {
        key: shipped[key]
        for key in ("missing_number_penalty", "missing_name_penalty", "contradiction_penalty")
    }
    settings = GroundingEngine.default().settings
    assert settings.contradiction_penalty == penalties.contradiction
    assert settings.number_penalty == penalties.missing_number
    # The feature judge's settings keep the defaults, which are the Penalties' own.
    assert (Settings().contradiction_penalty, Settings().number_penalty) == (
        Penalties().contradiction,
        Penalties().missing_number,
    )


def test_counting_a_long_passage_reports_nothing(capfd):
    tokenizer = load_tokenizer()
    tokenizer(["word " * 700], add_special_tokens=False)
    assert "longer than the specified maximum" not in capfd.readouterr().err
