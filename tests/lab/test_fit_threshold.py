"""Moving a verifier's bias puts the dev optimum at the default threshold."""

from __future__ import annotations

import json
import math

import pytest

from grounding_lab import fit_threshold
from grounding_lab.evaluation import document_half
from tests.lab.predictions import write_files


def sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


@pytest.mark.parametrize("best", [0.2, 0.45, 0.6, 0.83])
@pytest.mark.parametrize("temperature", [0.7, 1.0, 1.9])
def test_the_shift_maps_the_optimum_onto_the_target(best: float, temperature: float) -> None:
    bias, penalty = -0.3, 1.0
    # the logit whose engine score is `best`: sigmoid((logit + bias) / T - penalty)
    logit = (math.log(best / (1 - best)) + penalty) * temperature - bias
    shifted = bias + fit_threshold.bias_shift(best, temperature)
    assert sigmoid((logit + shifted) / temperature - penalty) == pytest.approx(0.6)


def test_main_moves_the_bias_of_the_named_verifier(tmp_path, capsys) -> None:
    scores = {"a": (0.1, 0.2, 0.3, 0.4), "b": (0.15, 0.25, 0.35, 0.45)}
    flat = {source: (0.5,) * 4 for source in scores}
    out, data = write_files(tmp_path, {"verifier:x": scores, "features": flat})
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    (verifier / "verifier.json").write_text(json.dumps({"temperature": 2.0, "bias": 0.5}))

    fit_threshold.main([str(out), str(data), "--verifier", str(verifier), "--judge", "verifier:x"])

    config = json.loads((verifier / "verifier.json").read_text())
    # both sources are right for 0.25 < t <= 0.3: the middle of that plateau moves to 0.6
    expected = 0.5 + fit_threshold.bias_shift(0.2775, 2.0)
    assert config["bias"] == pytest.approx(expected, abs=1e-6)
    printed = capsys.readouterr().out
    assert "verifier:x: macro optimum 0.277" in printed and "features" in printed


def test_main_refuses_to_guess_between_judges(tmp_path) -> None:
    data = tmp_path / "dev.jsonl"
    data.write_text(
        json.dumps({"id": "1", "source": "s", "facts": [{"text": "F."}], "claim": "C.", "label": 1})
        + "\n"
    )
    out = tmp_path / "pred.jsonl"
    out.write_text(
        json.dumps({"id": "1", "score": 0.5, "judge": "a"})
        + "\n"
        + json.dumps({"id": "1", "score": 0.5, "judge": "b"})
        + "\n"
    )
    (tmp_path / "verifier.json").write_text(json.dumps({"temperature": 1.0, "bias": 0.0}))
    with pytest.raises(SystemExit):
        fit_threshold.main([str(out), str(data), "--verifier", str(tmp_path)])


def test_one_half_of_some_sources_is_read(tmp_path) -> None:
    """The shipped threshold is fitted on fit_unseen's fit half, its fittable sources only:
    examples of the other half or of another source must not move it."""
    rows = [
        {
            "id": str(i),
            "source": "a" if i % 3 else "b",
            "facts": [{"text": f"Document number {i}."}],
            "claim": "A claim.",
            "label": i % 2,
        }
        for i in range(60)
    ]
    data = tmp_path / "fit.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "runs.jsonl"
    out.write_text("".join(json.dumps({"id": r["id"], "score": 0.5}) + "\n" for r in rows))
    examples = {e.id: e for e in fit_threshold.read_examples(data)}
    wanted = sorted(
        i for i, e in examples.items() if e.source == "a" and document_half(e) == "select"
    )
    assert 0 < len(wanted) < 40  # both halves and both sources are there to leave out

    scores = fit_threshold.read_scores(out, data, "select", ["a"])

    assert list(scores["engine"]) == ["a"]
    labels, _ = scores["engine"]["a"]
    assert labels == [examples[i].label for i in sorted(wanted, key=int)]
    (tmp_path / "verifier.json").write_text(json.dumps({"temperature": 1.0, "bias": 0.0}))
    fit_threshold.main(
        [str(out), str(data), "--half", "select", "--sources", "a", "--verifier", str(tmp_path)]
    )
    config = json.loads((tmp_path / "verifier.json").read_text())
    assert config["threshold_fitted_on"].startswith("fit.jsonl select half (a): macro optimum")


def test_whole_answer_sentences_of_the_half_are_a_group_of_their_own(tmp_path) -> None:
    """Sentences checked inside their answers weigh as one more source: a whole answer's
    scale moves the optimum, the other half's answers do not."""
    answers = tmp_path / "whole.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"id": f"w{k}", "source": "d", "half": half, "sentences": []}) + "\n"
            for k, half in enumerate(["select", "report"])
        )
    )
    predictions = tmp_path / "whole-pred.jsonl"
    rows = [("w0", 1, 0.3), ("w0", 1, 0.8), ("w0", 0, 0.25), ("w0", 1, None), ("w1", 0, 0.99)]
    predictions.write_text(
        "".join(
            json.dumps({"id": i, "sentence": k, "label": y, "score_whole": p}) + "\n"
            for k, (i, y, p) in enumerate(rows)
        )
    )
    groups = fit_threshold.read_whole_scores(predictions, answers, "select")
    assert groups == {"whole:d": ([1, 1, 0, 1], [0.3, 0.8, 0.25, 1.0])}

    scores = {"a": (0.1, 0.2, 0.3, 0.4)}
    out, data = write_files(tmp_path, {"engine": scores})
    verifier = tmp_path / "verifier"
    verifier.mkdir()
    (verifier / "verifier.json").write_text(json.dumps({"temperature": 1.0, "bias": 0.0}))
    whole = ["--whole", str(predictions), str(answers)]
    fit_threshold.main([str(out), str(data), *whole, "--verifier", str(verifier)])
    config = json.loads((verifier / "verifier.json").read_text())
    # Both halves' answers count without --half: the group holds every sentence.
    answers_group = ([1, 1, 0, 1, 0], [0.3, 0.8, 0.25, 1.0, 0.99])
    best, _ = fit_threshold.macro_best_threshold(
        [([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4]), answers_group]
    )
    alone, _ = fit_threshold.macro_best_threshold([([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4])])
    assert best != alone
    assert config["bias"] == pytest.approx(fit_threshold.bias_shift(best, 1.0), abs=1e-6)
    assert config["threshold_fitted_on"] == (
        f"dev.jsonl + whole answers whole.jsonl: macro optimum {best:.3f} -> 0.6"
    )
