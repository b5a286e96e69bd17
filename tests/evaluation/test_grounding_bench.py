"""grounding_bench times several judges in alternation, so their medians compare."""

from __future__ import annotations

import itertools

from grounding_app.evaluation.management.commands.grounding_bench import interleaved_medians


def test_each_round_takes_every_call_once_after_one_warm_up_each():
    order: list[str] = []
    calls = {name: (lambda name=name: order.append(name)) for name in ("old", "new", "http")}
    interleaved_medians(calls, repeat=3)
    assert order[:3] == ["old", "new", "http"]  # the warm-ups
    rounds = [order[i : i + 3] for i in range(3, len(order), 3)]
    assert rounds == [["old", "new", "http"]] * 3


def test_the_median_of_each_call_is_its_own():
    clock = itertools.count()
    slow_ticks = {"slow": 0}

    def slow() -> None:
        slow_ticks["slow"] += 1
        for _ in range(200_000):
            next(clock)

    medians = interleaved_medians({"fast": lambda: None, "slow": slow}, repeat=5)
    assert slow_ticks["slow"] == 6
    assert medians["fast"] < medians["slow"]
    assert set(medians) == {"fast", "slow"}
