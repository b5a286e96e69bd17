"""The adapted verifier's model card, written from its verifier.json alone."""

from __future__ import annotations

from typing import Any


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _phrases(config: dict[str, Any]) -> dict[str, str]:
    """The card's phrases that depend on what the run did (anchors or a blend, the
    languages, a stop by --max-minutes, a replay)."""
    on, training, calibration = config["adapted_on"], config["training"], config["calibration"]
    read_before = config["adapted_from"].get("languages", ["en"])
    anchored = (
        f"{calibration['anchors']} pairs of `{calibration['anchors_file']}` scored"
        " as the start scores them"
        if calibration["anchors"]
        else "the start's calibration"
    )
    languages_note = (
        " (as the start)"
        if config.get("languages", ["en"]) == read_before
        else f" (the start read {', '.join(read_before)})"
    )
    stopped = (
        f", stopped by --max-minutes after {training['steps']} of {training['planned_steps']} steps"
        if training["steps"] < training["planned_steps"]
        else ""
    )
    replay = (
        f"{on['replay_pairs']} pairs of `{on['replay_file']}` (the original training data,"
        " drawn as the start was trained), so that it keeps what it knew"
        if on["replay_pairs"]
        else "none"
    )
    return {
        "anchored": anchored,
        "languages_note": languages_note,
        "stopped": stopped,
        "replay": replay,
    }


def _table(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The held-back figures, before and after, as Markdown rows."""
    rows = [
        ("balanced accuracy at 0.6", "balanced_accuracy"),
        ("best balanced accuracy", "best_balanced_accuracy"),
        ("its threshold", "best_threshold"),
        ("ROC AUC", "roc_auc"),
    ]
    return "\n".join(
        f"| {title} | {_figure(before[key])} | {_figure(after[key])} |" for title, key in rows
    )


def model_card(config: dict[str, Any]) -> str:
    """The adapted verifier's card, every figure from its verifier.json."""
    source, on, training = config["adapted_from"], config["adapted_on"], config["training"]
    held, calibration = on["held_back"], config["calibration"]
    figures = config["figures"]["held_back"]
    table = _table(figures["before"], figures["after"])
    phrase = _phrases(config)
    anchored, languages_note = phrase["anchored"], phrase["languages_note"]
    stopped, replay = phrase["stopped"], phrase["replay"]
    return f"""# {config["name"]}: a verifier adapted to a team's labels

Written by the adaptation (`grounding_app/verifiers/adapt/`: the Verifier page or
`manage.py adapt_verifier`); every figure below is in `verifier.json`.

- **Started from** `{source["verifier"]}` (`{source["directory"]}`).
- **Labels**: `{on["file"]}`, {on["labels"]} labels ({on["supported"]} supported,
  {on["unsupported"]} not) on {on["documents"]} documents; skipped
  {on["skipped_unlabelled"]} unlabelled lines and {on["skipped_model_verdicts"]} model
  verdicts.
- **Trained on** {on["trained_on"]["labels"]} labels ({on["trained_on"]["documents"]}
  documents), one pair each (the claim and its best evidence window of
  {training["window_tokens"]} tokens), mixed with a replay of {replay}.
- **Held back** by document (share {held["share"]}): {held["labels"]} labels on
  {held["documents"]} documents, never trained on. The calibration is fitted there and
  moves 0.6, the default `citationThreshold`, toward the best threshold there; the
  labels count {calibration["weight"]:.2f} (held-back labels / (held-back labels +
  {calibration["prior_labels"]})) against {anchored}, so that a few labels of one domain
  do not move every other domain's scores: temperature {config["temperature"]:.3f}, bias
  {config["bias"]:.3f} (fitted on the labels alone: {calibration["fitted"]["temperature"]:.3f},
  {calibration["fitted"]["bias"]:.3f}, best threshold {calibration["fitted"]["optimum"]:.3f}).
- **Languages**: {", ".join(config.get("languages", ["en"]))}{languages_note}.
- **Settings**: {training["epochs"]} epoch(s), batch {training["batch_size"]},
  learning rate {training["lr"]}, {training["max_length"]} tokens,
  {training["precision"]}, seed {training["seed"]}; {training["pairs"]} pairs,
  {training["steps"]} steps{stopped}.
- **Time**: {training["seconds"] / 60:.1f} minutes training, {config["minutes"]} minutes
  in all.

## Figures on the held-back labels

Through the engine (retrieval, windows and penalties, as a request meets them), each
source weighing the same; before is the start with its own calibration.

| | before | after |
| --- | ---: | ---: |
{table}

The adapted model's calibration was fitted on these same labels (weighed as above), so
its figure at 0.6 flatters it; the best balanced accuracy and ROC AUC compare the two
models fairly. Measure it on labels neither has seen (`manage.py grounding_eval FILE --judge
verifier --judge verifier:DIR`) before making it the verifier.
"""
