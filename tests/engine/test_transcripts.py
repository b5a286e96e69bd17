"""A meeting transcript as a fact ("speaker: what was said" lines), read by the real default
engine: as prose, turn by turn, and with whose words a summary gives to whom checked."""

from __future__ import annotations

import pytest

from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.retrieval import linearise, turns
from grounding_app.engine.types import CheckRequest, Fact

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

MEETING = """project manager: Okay, let's start. Today we decide on the remote control's look and its price.
industrial designer: I looked at the materials for the remote control. Rubber is cheap and it feels soft in the hand.
marketing: Our survey says young people want bright colours on a remote control. Most of them find the current remote controls ugly.
user interface: And the buttons? I think we need fewer buttons on the remote control.
project manager: We will come to the buttons later. So we go for a rubber case?
industrial designer: Yes, a rubber case in yellow, which is the company colour.
marketing: I would add red as a second colour, because red sells better.
user interface: Red and yellow together might look too loud on a remote control.
project manager: Good, let's keep both for now. And the price of the remote control?
marketing: It should sell for about 25 euros, no more, or people will not buy it.
industrial designer: With rubber we can make it for less than 12 euros.
user interface: Then we could spend a little more on a speech recognition chip.
project manager: Fine. We meet again after lunch to look at the prototype of the remote control."""  # noqa: E501
# Every speaker mentions the remote control, so the project manager's own turns hold
# most of the claim's words: the check holds back rather than guess.
TOPIC_WORDS = "the named speaker's own turns hold the claim's topic words"


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def test_a_transcript_is_read_as_turns_not_as_a_record():
    assert linearise(MEETING) is None
    spoken = turns(MEETING)
    assert len(spoken) == 13
    assert spoken[5] == (
        "industrial designer",
        "Yes, a rubber case in yellow, which is the company colour.",
    )


@pytest.mark.parametrize(
    ("answer", "supported"),
    [
        ("The industrial designer suggested a rubber case in yellow, the company colour.", True),
        ("The project manager suggested a rubber case in yellow, the company colour.", False),
        ("Marketing said it should sell for about 25 euros.", True),
        ("Marketing said it should sell for about 45 euros.", False),
        pytest.param(
            "The project manager said the remote control should sell for about 25 euros.",
            False,
            marks=pytest.mark.xfail(strict=True, reason=TOPIC_WORDS),
        ),
    ],
)
def test_whose_words_a_summary_gives_to_whom(engine, answer, supported):
    response = engine.check(CheckRequest(answer, [Fact(MEETING)], enable_claim_level_score=True))
    assert (response.claims[0].score >= 0.6) is supported
