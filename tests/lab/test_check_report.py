"""The checks' figures in docs/checks.md are the shipped file's, the checks on are the ones
the precision floor keeps on fit_unseen's fit half, and the registry runs exactly those."""

from __future__ import annotations

import json

import pytest

from grounding_app.engine.checks import CHECKS_FILE, all_checks, registry
from grounding_lab.check_report import (
    BEGIN,
    DOC,
    END,
    HELD_ON,
    MIN_FIRINGS,
    PRECISION_FLOOR,
    check_figures,
    held,
    render,
    replace_block,
    select,
)

SHIPPED = json.loads(CHECKS_FILE.read_text())
KINDS = {c.name: c.kind for c in all_checks()}
PENALTIES = {"contradiction": 5.0, "role": 5.0, "hedge": 5.0}


def test_the_doc_holds_the_generated_figures():
    doc = DOC.read_text(encoding="utf-8")
    assert doc.count(BEGIN) == 1 and doc.count(END) == 1
    assert replace_block(doc, render(SHIPPED)) == doc, (
        "run python -m grounding_lab.check_report --write"
    )


def test_a_doc_without_markers_is_refused():
    with pytest.raises(ValueError, match="no generated block"):
        replace_block("# Checks\n", render(SHIPPED))


def test_the_checks_on_are_those_the_floor_keeps_on_the_fit_half():
    assert SHIPPED["precision_floor"] == PRECISION_FLOOR
    assert SHIPPED["min_firings"] == MIN_FIRINGS
    fit_half = SHIPPED["figures"]["fit_unseen.jsonl"]["fit half (fittable)"]
    # Checks added after the runs are not in the file (the registry runs them everywhere).
    measured = {n: ls for n, ls in select(fit_half).items() if n in SHIPPED["floor"]}
    assert measured == SHIPPED["floor"]
    assert held(SHIPPED["floor"]) == SHIPPED["on"]
    assert SHIPPED["held_on"] == {n: list(ls) for n, ls in HELD_ON.items()}
    for name, languages in SHIPPED["floor"].items():
        for language, f in fit_half.get(name, {}).items():
            below = f["firings"] >= MIN_FIRINGS and f["precision"] < PRECISION_FLOOR
            assert (language in languages) is not below, (name, language, f)


def test_the_registry_runs_the_shipped_selection():
    running = {c.name: sorted(c.languages) for c in registry()}
    # A check added after the file was written runs everywhere until it is measured.
    expected = {c.name: sorted(SHIPPED["on"].get(c.name, c.languages)) for c in all_checks()}
    assert running == {n: ls for n, ls in expected.items() if ls}


def _figures(firings: int, precision: float) -> dict:
    return {"en": {"firings": firings, "precision": precision}}


@pytest.mark.parametrize(
    ("figures", "on"),
    [
        (_figures(MIN_FIRINGS, PRECISION_FLOOR - 0.01), []),  # measured and below: off
        (_figures(MIN_FIRINGS, PRECISION_FLOOR), ["en"]),  # at the floor: on
        (_figures(MIN_FIRINGS - 1, 0.0), ["en"]),  # too few firings to judge: on
        ({}, ["en"]),  # never fired there: on
        ({"he": {"firings": 50, "precision": 0.1}}, ["en"]),  # another language's data
    ],
)
def test_select_turns_off_a_check_below_the_floor(figures, on):
    assert select({"substitution": figures})["substitution"] == on


def test_a_held_check_stays_on_for_its_held_languages_only():
    floor = {"substitution": [], "hedge": ["he"]}
    on = held(floor)
    assert on["substitution"] == sorted(HELD_ON.get("substitution", ()))
    assert on["hedge"] == sorted({"he", *HELD_ON.get("hedge", ())})


def test_a_check_keeps_every_language_no_data_speaks_against():
    assert select({})["hedge"] == ["en", "he"]


def test_registry_reads_the_file_and_runs_unnamed_checks_everywhere(tmp_path):
    path = tmp_path / "checks.json"
    path.write_text(json.dumps({"on": {"substitution": [], "hedge": ["he"]}}))
    running = {c.name: c.languages for c in registry(path)}
    assert "substitution" not in running
    assert running["hedge"] == {"he"}
    assert running["swap"] == {"he"} and running["role"] == {"en"}
    assert {c.name for c in registry(tmp_path / "absent.json")} == set(KINDS)


def _run(label: int, checks: list[str], p: float = 0.9) -> dict:
    return {
        "label": label,
        "claims": [{"language": "en", "options": [{"p": p, "x": None, "checks": checks}]}],
    }


def test_check_figures_count_precision_recall_and_the_verdicts_a_check_alone_changes():
    runs = [
        _run(0, ["substitution"]),  # right, and it alone turns the verdict
        _run(0, ["substitution", "misplaced_number"]),  # right, but not alone (same kind)
        _run(1, ["substitution"]),  # a false alarm that turns a supported verdict
        _run(1, ["substitution"], p=0.3),  # a false alarm the judge had already rejected
        _run(0, []),  # missed
        _run(1, []),
    ]
    f = check_figures(runs, KINDS, PENALTIES)["substitution"]["en"]
    assert f["examples"] == 6 and f["firings"] == 4
    assert f["precision"] == 0.5 and f["recall"] == round(2 / 3, 4)
    assert f["flips_right"] == 1 and f["flips_wrong"] == 1
    assert check_figures(runs, KINDS, PENALTIES)["role"]["en"]["firings"] == 0
