"""Calibrating an adapted verifier: Platt scaling on the held-back labels, weighed against
what the start said (anchors, or a blend), and the bias move that makes 0.6 the best
threshold."""

from __future__ import annotations

import math

import numpy as np

from grounding_app.verifiers.adapt.options import AdaptError

DEFAULT_THRESHOLD = 0.6


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def bias_shift(best: float, temperature: float, target: float = DEFAULT_THRESHOLD) -> float:
    """What to add to the bias so a score of `best` becomes `target`: the engine computes
    sigmoid((logit + bias) / temperature - penalties)."""
    return temperature * (_logit(target) - _logit(best))


def balanced_weights(labels: np.ndarray) -> np.ndarray:
    """Per-example weights under which each class weighs one half."""
    return np.where(labels == 1, 0.5 / max(labels.sum(), 1), 0.5 / max((1 - labels).sum(), 1))


def calibrate(
    logits: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None
) -> tuple[float, float]:
    """Platt scaling p = sigmoid((z + b) / T), class-balanced, by a grid search.

    `weights` replaces the class balance (labels may then be soft targets in [0, 1])."""
    w = balanced_weights(labels) if weights is None else weights

    def nll(t: float, b: float) -> float:
        p = 1 / (1 + np.exp(-np.clip((logits + b) / t, -40, 40)))
        p = np.clip(p, 1e-7, 1 - 1e-7)
        return float(-(w * (labels * np.log(p) + (1 - labels) * np.log(1 - p))).sum())

    best = (1.0, 0.0, nll(1.0, 0.0))
    for t in np.exp(np.linspace(math.log(0.2), math.log(10), 60)):
        for b in np.linspace(-6, 6, 61):
            value = nll(float(t), float(b))
            if value < best[2]:
                best = (float(t), float(b), value)
    return best[0], best[1]


def anchored_calibration(
    logits: np.ndarray,
    labels: np.ndarray,
    anchor_logits: np.ndarray,
    anchor_targets: np.ndarray,
    weight: float,
) -> tuple[float, float]:
    """(temperature, bias) fitted on the held-back labels (class-balanced, counting
    `weight` in all) and on the anchors' scores as the start gave them (soft targets,
    counting the rest)."""
    held = balanced_weights(labels) * weight
    anchored = np.full(len(anchor_logits), (1 - weight) / max(len(anchor_logits), 1))
    return calibrate(
        np.concatenate([logits, anchor_logits]),
        np.concatenate([labels, anchor_targets]),
        np.concatenate([held, anchored]),
    )


def trust(held_back: int, prior: int) -> float:
    """The weight of a calibration fitted on `held_back` labels against the start's."""
    if prior < 0:
        raise AdaptError(f"--calibration-prior {prior}: a count of labels, 0 or more")
    return 1.0 if prior == 0 else held_back / (held_back + prior)


def blend(
    fitted: tuple[float, float], start: tuple[float, float], weight: float
) -> tuple[float, float]:
    """(temperature, bias) between the start's and the fitted: the temperature on a log
    scale (it divides), the bias linearly."""
    (t_fit, b_fit), (t_start, b_start) = fitted, start
    temperature = math.exp(weight * math.log(t_fit) + (1 - weight) * math.log(t_start))
    return temperature, weight * b_fit + (1 - weight) * b_start
