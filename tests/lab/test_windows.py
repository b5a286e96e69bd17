"""Evidence windows and the long verifier's training pairs: table tests, no model."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from grounding_app.verifiers.adapt import windows
from grounding_app.verifiers.adapt.windows import TrainPair, Window


def words(text: str) -> int:
    """A stand-in tokenizer: one token per word."""
    return len(text.split())


FACT = "Alpha one two three. Beta four five six. Gamma seven eight nine. Delta ten eleven twelve."


A, B, C, D = (
    "Alpha one two three.",
    "Beta four five six.",
    "Gamma seven eight nine.",
    "Delta ten eleven twelve.",
)


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        (100, [f"{A} {B} {C} {D}"]),
        (8, [f"{A} {B}", f"{C} {D}"]),
        (5, [A, B, C, D]),
        (2, [A, B, C, D]),  # a sentence over the budget is a window alone
    ],
)
def test_windows_are_runs_of_whole_adjacent_sentences(budget: int, expected: list[str]) -> None:
    cut = windows.windows([(FACT, {})], words, budget)
    assert [w.text for w in cut] == expected
    assert {w.fact for w in cut} == {0}


def test_windows_carry_readable_attributes_and_keep_facts_apart() -> None:
    cut = windows.windows(
        [
            ("First fact.", {"title": "Guide", "doc_id": "x-1", "sentences": "47-51"}),
            ("Second fact.", {}),
        ],
        words,
        50,
    )
    assert cut == [Window(0, "title: Guide\nFirst fact."), Window(1, "Second fact.")]
    assert windows.windows([("", {})], words, 50) == []


def test_best_window_shares_most_stems_with_the_claim() -> None:
    cut = [Window(0, "The bridge opened in 1932."), Window(0, "Rivers flooded the valley.")]
    assert windows.best_window("The valley was flooded by rivers.", cut) == cut[1]
    assert windows.best_window("Nothing in common here.", cut) == cut[0]


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Argentina beat France in the final.", "France beat Argentina in the final."),
        ("Marie Curie worked with Pierre Curie in Paris.", None),  # names overlap
        ("The team won in 2022.", None),  # one entity only
    ],
)
def test_swap_entities(claim: str, expected: str | None) -> None:
    swapped = windows.swap_entities(claim, random.Random(0))
    if expected is None:
        assert swapped is None or swapped != claim
    else:
        assert swapped == expected


ARTICLE = (
    "Pakistani schoolgirl Malala Yousafzai was shot by the Taliban in 2012. "
    "President Muhammadu Buhari met her in Abuja. Police said the attack was planned."
)


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        # capitalised names, as before
        ("Rome is the capital of Italy.", "", ["Rome", "Italy"]),
        # a lower-case summary: the evidence's proper names, found in any case
        (
            "malala yousafzai was shot by the taliban.",
            ARTICLE,
            ["malala yousafzai", "taliban"],
        ),
        # "Police" opens a sentence: not a name, so "police" is not one either
        ("police met muhammadu buhari.", ARTICLE, ["muhammadu buhari"]),
        # a name inside a longer one found is left out ("buhari" in "muhammadu buhari")
        (
            "muhammadu buhari was in abuja.",
            ARTICLE + " Buhari spoke.",
            ["muhammadu buhari", "abuja"],
        ),
        # whole words only: "abujaland" is not "abuja"
        ("he visited abujaland.", ARTICLE, []),
        ("no names here at all.", ARTICLE, []),
    ],
)
def test_claim_names_find_lower_case_names_through_the_evidence(
    claim: str, evidence: str, expected: list[str]
) -> None:
    assert sorted(windows.claim_names(claim, evidence)) == sorted(expected)


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        # roles exchanged in a lower-case summary, the case kept
        (
            "the taliban shot malala yousafzai.",
            ARTICLE,
            "the malala yousafzai shot taliban.",
        ),
        # two names listed side by side: exchanging them says the same
        ("harry kane and eden hazard were picked.", "Harry Kane and Eden Hazard won.", None),
        ("Harry Kane, Eden Hazard were picked.", "", None),
        ("Argentina or France won.", "", None),
    ],
)
def test_swap_entities_reads_lower_case_claims_and_skips_lists(
    claim: str, evidence: str, expected: str | None
) -> None:
    assert windows.swap_entities(claim, random.Random(0), evidence) == expected


def test_lower_case_claims_get_replacements_from_the_evidence_in_their_case() -> None:
    rng = random.Random(2)
    seen = {
        windows.replace_from_evidence("malala yousafzai was shot in 2012.", ARTICLE, rng)
        for _ in range(30)
    }
    # The role taken by another name of the same article, written in lower case (the
    # year stays: the article has no other number).
    assert seen == {
        "president muhammadu buhari was shot in 2012.",
        "abuja was shot in 2012.",
        "taliban was shot in 2012.",
    }


def test_replacements_come_from_the_same_evidence() -> None:
    evidence = "Vienna is the capital of Austria. Rome is the capital of Italy. It has 2,800 km."
    rng = random.Random(3)
    seen = set()
    for _ in range(20):
        changed = windows.replace_from_evidence("Rome is the capital of Italy.", evidence, rng)
        assert changed is not None and changed != "Rome is the capital of Italy."
        seen.add(changed)
    # Every replacement is a name the evidence mentions: word overlap cannot tell.
    assert seen <= {
        "Vienna is the capital of Italy.",
        "Austria is the capital of Italy.",
        "Rome is the capital of Vienna.",
        "Rome is the capital of Austria.",
        "Rome is the capital of Rome.",
    }
    number = windows.replace_from_evidence("It has 1,200 km.", "It has 2,800 km of track.", rng)
    assert number == "It has 2,800 km."
    assert windows.replace_from_evidence("no names or numbers", evidence, rng) is None


def test_surface_paraphrases_keep_the_statement() -> None:
    rng = random.Random(1)
    outputs = {windows.paraphrase_surface("It won 11 awards in 1998.", rng) for _ in range(40)}
    assert "It won eleven awards in 1998." in outputs
    assert any(o and o.startswith("It won 11 awards in 1998") and "[" in o for o in outputs)
    assert windows.paraphrase_surface("It has 25000 seats", rng) == "It has 25,000 seats"
    assert windows.paraphrase_surface("no number, no stop", rng) is None


class _Fact:
    def __init__(self, text: str) -> None:
        self.text = text
        self.attributes: dict[str, str] = {}


class _Example:
    def __init__(self, source: str, claim: str, label: int) -> None:
        self.source = source
        self.claim = claim
        self.label = label
        self.facts = (_Fact("Rome is the capital of Italy. Vienna is the capital of Austria."),)


def test_pairs_are_capped_per_source_and_hard_negatives_are_added() -> None:
    examples = [_Example("frank", "Rome is the capital of Italy.", 1) for _ in range(50)]
    examples += [_Example("snli", "A man sleeps.", 0) for _ in range(50)]
    pairs = windows.build_pairs(
        examples,
        words,
        100,
        seed=5,
        per_source={"frank": 30, "snli": 10},  # type: ignore[arg-type]
    )
    originals = [p for p in pairs if p.kind == "original"]
    assert sum(p.source == "frank" for p in originals) == 30
    assert sum(p.source == "snli" for p in originals) == 10
    generated = [p for p in pairs if p.kind != "original"]
    assert generated and all(isinstance(p, TrainPair) for p in generated)
    assert all(
        p.label == 0 for p in generated if p.kind in {"swap", "replace", "pronoun", "negate"}
    )
    assert windows.kinds(pairs)["original:1"] == 30
    again = windows.build_pairs(
        examples,
        words,
        100,
        seed=5,
        per_source={"frank": 30, "snli": 10},  # type: ignore[arg-type]
    )
    assert again == pairs  # seeded: the same pairs every run


def test_padding_puts_unrelated_sentences_around_the_window_within_the_budget() -> None:
    rng = random.Random(3)
    others = ["Xa xb xc.", "Ya yb yc yd.", "Za zb.", "Wa wb wc wd we wf wg wh wi wj wk wl."]
    for _ in range(30):
        padded = windows.pad_with_distractors("Rome is in Italy.", others, words, 15, rng)
        assert padded is not None and "Rome is in Italy." in padded
        assert padded != "Rome is in Italy."
        assert words(padded) <= 16
        assert "Wa" not in padded  # longer than the room left
    assert windows.pad_with_distractors("Rome is in Italy.", others, words, 6, rng) is None
    assert windows.pad_with_distractors("Rome is in Italy.", [], words, 60, rng) is None


def test_padded_pairs_keep_their_label_and_take_sentences_of_other_sources_only() -> None:
    examples = [_Example("frank", "Rome is the capital of Italy.", 1) for _ in range(20)]
    examples += [_Example("snli", "A man sleeps.", 0) for _ in range(20)]
    for example in examples[20:]:
        example.facts = (_Fact("A man is awake. The dog barks loudly."),)
    pairs = windows.build_pairs(
        examples,
        words,
        40,
        seed=2,
        per_source={"frank": 20, "snli": 20},  # type: ignore[arg-type]
        padded=1.0,
    )
    padded = [p for p in pairs if p.kind == "padded"]
    assert {p.source for p in padded} == {"frank", "snli"}
    for pair in padded:
        original = "Rome" if pair.source == "frank" else "dog"
        assert original in pair.evidence and words(pair.evidence) <= 40
        if pair.source == "frank":
            assert pair.label == 1 and "dog barks" in pair.evidence
        else:
            assert pair.label == 0 and "Vienna" in pair.evidence


H, P, N = windows.drop_hedge, windows.swap_pronoun, windows.negate


@pytest.mark.parametrize(
    ("transform", "claim", "evidence", "expected"),
    [
        # a hedge the evidence keeps, taken out of the claim
        (
            H,
            "The drug potentially causes liver damage.",
            "Studies say the drug potentially causes liver damage.",
            "The drug causes liver damage.",
        ),
        (H, "He reportedly left in 1990.", "He REPORTEDLY left in 1990.", "He left in 1990."),
        # the evidence asserts it outright: a hedge-free claim is still supported
        (H, "The drug possibly causes harm.", "The drug causes harm.", None),
        (H, "The drug causes harm.", "The drug possibly causes harm.", None),
        (H, "Likely, it rains.", "It likely rains.", None),  # a hedge must follow a word
        # FactCC's pronoun swap: the evidence speaks of one man only
        (
            P,
            "he was shot in his car.",
            "Police said he was shot in his car.",
            "she was shot in her car.",
        ),
        (P, "She won. Her team lost.", "She won the final.", "He won. His team lost."),
        # the evidence speaks of both (or neither): another gender may be right
        (P, "he thanked her.", "He met his wife and thanked her.", None),
        (P, "he won.", "The team won the final.", None),
        (P, "The team won.", "He won.", None),  # no pronoun in the claim
        (P, "the hero is here.", "He is the hero.", None),  # "the", "here": no pronouns
        # FactCC's negation: the first auxiliary not already negated
        (
            N,
            "the girl was shot in the face.",
            "The girl was shot.",
            "the girl was not shot in the face.",
        ),
        (N, "Rome is the capital.", "Rome is the capital of Italy.", "Rome is not the capital."),
        (N, "They have won and will win.", "They have won.", "They have not won and will win."),
        # a negation in either text: the opposite may be what it says
        (N, "He was not shot.", "He was shot.", None),
        (N, "He was shot.", "He wasn't shot.", None),
        (N, "He was shot.", "He was never shot.", None),
        (N, "The team won the final.", "The team won the final.", None),  # no auxiliary
        (N, "this happened.", "this happened.", None),  # whole words: "this" holds no "is"
    ],
)
def test_evidence_aware_transformations(
    transform: Callable[[str, str], str | None], claim: str, evidence: str, expected: str | None
) -> None:
    assert transform(claim, evidence) == expected
