"""Evaluation helpers: seeded samples, and the evidence behind each verdict."""

from __future__ import annotations

from grounding_app.engine import Fact, GroundingEngine
from grounding_app.formats.grounding_jsonl import Example
from grounding_lab.evaluation import Prediction, mistakes, predict, recording, sample_per_source

FACTS = (
    Fact(
        "Titanic was directed by James Cameron. The film was released in 1997."
        " It won eleven Academy Awards.",
        {"author": "Wiki"},
    ),
)


def test_sample_per_source_is_seeded_and_capped():
    examples = [Example(f"{s}{i}", (), "c", 1, s) for s in "ab" for i in range(10)]
    examples += [Example("c0", (), "c", 0, "c")]
    picked = sample_per_source(examples, 3)
    assert [e.source for e in picked].count("a") == 3 and [e.source for e in picked].count("c") == 1
    assert picked == sample_per_source(examples, 3)
    assert picked == sorted(picked, key=examples.index)


def test_supported_claim_shows_its_citations(fake_engine: GroundingEngine) -> None:
    engine, recorder = recording(fake_engine)
    example = Example("x", FACTS, "Hello. Titanic was directed by James Cameron.", 0, "s")
    prediction = predict(engine.check, example, 0.6, recorder)
    assert prediction.supported and prediction.score > 0.9
    assert prediction.claim == "Titanic was directed by James Cameron."
    assert prediction.evidence == "Titanic was directed by James Cameron."


def test_unsupported_claim_shows_what_the_judge_read(fake_engine: GroundingEngine) -> None:
    engine, recorder = recording(fake_engine)
    answer = "Titanic was directed by James Cameron. The film won eleven Academy Awards for music."
    prediction = predict(engine.check, Example("x", FACTS, answer, 1, "s"), 0.6, recorder)
    # The weakest claim has no citation; its evidence comes from the recorded judge.
    assert not prediction.supported
    assert prediction.claim == "The film won eleven Academy Awards for music."
    assert prediction.evidence.startswith("[author: Wiki] ")
    assert "It won eleven Academy Awards." in prediction.evidence
    # The recorder only observes: same verdicts as the engine alone.
    plain = predict(fake_engine.check, Example("x", FACTS, answer, 1, "s"), 0.6)
    assert (plain.score, plain.claim, plain.evidence) == (prediction.score, "", "")


def test_mistakes_are_the_most_confident_per_source_and_kind() -> None:
    def p(id: str, source: str, label: int | None, score: float) -> Prediction:
        return Prediction(id, source, label, score >= 0.6, score, 0.0)

    predictions = [
        p("a-fs-mild", "a", 0, 0.7),
        p("a-fs-sure", "a", 0, 0.95),
        p("a-right", "a", 1, 0.99),
        p("a-fu-mild", "a", 1, 0.5),
        p("a-fu-sure", "a", 1, 0.01),
        p("b-right", "b", 0, 0.1),
        p("c-unlabelled", "c", None, 0.99),
    ]
    found = mistakes(predictions, 1)
    assert list(found) == ["a"]
    assert [[m.id for m in kind] for kind in found["a"]] == [["a-fs-sure"], ["a-fu-sure"]]
    both = mistakes(predictions, 5)["a"]
    assert [[m.id for m in kind] for kind in both] == [
        ["a-fs-sure", "a-fs-mild"],
        ["a-fu-sure", "a-fu-mild"],
    ]


def test_a_score_lowered_after_the_judge_still_shows_its_evidence(
    fake_engine: GroundingEngine,
) -> None:
    engine, recorder = recording(fake_engine)
    # The evidence has "Cameron" where the claim has "Spielberg": the engine lowers
    # the judge's score, so no recorded score equals the claim's.
    answer = "Titanic was directed by Steven Spielberg."
    prediction = predict(engine.check, Example("x", FACTS, answer, 0, "s"), 0.6, recorder)
    assert prediction.score not in {j.score for j in recorder.judged}
    assert prediction.evidence.startswith("(score lowered after the judge: ")
    assert "Titanic was directed by James Cameron." in prediction.evidence


def test_an_answer_without_checks_says_so(fake_engine: GroundingEngine) -> None:
    engine, recorder = recording(fake_engine)
    example = Example("x", FACTS, "What was your favourite scene?", 0, "s")
    prediction = predict(engine.check, example, 0.6, recorder)
    assert prediction.supported and prediction.score == 1.0
    assert prediction.claim == "What was your favourite scene?"
    assert prediction.evidence == "(no sentence needs a check)"
