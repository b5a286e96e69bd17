"""Who did what, and how sure: the two checks the verifier cannot make (issue 11).

Pure functions, table tests; the real engine on the same kinds of case is in
`test_traps`. Each "flagged" row has a twin that is not: the same evidence with the
claim as the evidence gives it.
"""

from __future__ import annotations

import pytest

from grounding_app.engine.hedges import drops_hedge
from grounding_app.engine.lang.sentences import sentences
from grounding_app.engine.roles import misattributes, proper_names

TITANIC = "Titanic was directed by James Cameron. Leonardo DiCaprio starred in it."
JAWS = "Jaws is a 1975 thriller directed by Steven Spielberg. It stars Roy Scheider."
MALALA = (
    "Malala Yousafzai was shot in the face by the Taliban in 2012 for speaking out in favour"
    " of girls' education. She later met President Muhammadu Buhari in Abuja to talk about"
    " the schoolgirls kidnapped in Chibok."
)
COUNCIL = (
    "Mayor Ana Lopez, who proposed the levy, said the vote was a win for commuters."
    " Opposition councillor Mark Reed criticised the levy as a tax on drivers."
)
TRIAL = (
    "A team at the University of Leeds tested the drug on 400 patients over the age of 65."
    " The drug's maker, Norvia, funded the study but had no role in the analysis."
)
APOLLO = (
    "Neil Armstrong was the first person to walk on the Moon. Buzz Aldrin followed him"
    " about twenty minutes later, while Michael Collins stayed in lunar orbit."
)
ACQUISITION = (
    "Harbor Foods was bought by Greenline Capital in March. The new owner said it would"
    " keep all 40 stores open."
)
GOAL = "Harry Kane scored the winner in the 88th minute. Son Heung-min set it up with a cross."


@pytest.mark.parametrize(
    ("claim", "evidence", "flagged"),
    [
        # the name of the evidence's other role in the claim's subject
        ("Leonardo DiCaprio directed Titanic.", TITANIC, True),
        ("James Cameron directed Titanic.", TITANIC, False),
        ("James Cameron starred in Titanic.", TITANIC, True),
        ("Leonardo DiCaprio starred in Titanic.", TITANIC, False),
        ("Roy Scheider directed Jaws.", JAWS, True),
        ("Steven Spielberg directed Jaws.", JAWS, False),
        # roles exchanged between two clauses of one claim
        ("Mark Reed proposed the levy, which Mayor Ana Lopez criticised.", COUNCIL, True),
        ("Ana Lopez proposed the levy, which Mark Reed criticised.", COUNCIL, False),
        ("Norvia tested the drug, and the University of Leeds funded the study.", TRIAL, True),
        ("The University of Leeds tested the drug, and Norvia funded the study.", TRIAL, False),
        # new ones: who walked first, who bought whom, who scored
        ("Buzz Aldrin was the first person to walk on the Moon.", APOLLO, True),
        ("Neil Armstrong was the first person to walk on the Moon.", APOLLO, False),
        ("Michael Collins walked on the Moon twenty minutes later.", APOLLO, True),
        ("Michael Collins stayed in lunar orbit.", APOLLO, False),
        ("Son Heung-min scored the winner in the 88th minute.", GOAL, True),
        ("Harry Kane scored the winner in the 88th minute.", GOAL, False),
        # a summariser's lower case: the names are known from the evidence
        ("muhammadu buhari was shot by the taliban in 2012.", MALALA, True),
        ("malala yousafzai was shot by the taliban in 2012.", MALALA, False),
        ("malala yousafzai met muhammadu buhari in abuja.", MALALA, False),
        # no name as the subject, or a pronoun that may stand for it: nothing to check
        ("she was shot in the face by the taliban in 2012.", MALALA, False),
        ("The first person to walk on the Moon was Buzz Aldrin.", APOLLO, False),
        ("Greenline Capital said it would keep all 40 stores open.", ACQUISITION, False),
        # a name of the claim that is not a doer is no rival ("in Abuja")
        ("Malala Yousafzai met the president in Abuja.", MALALA, False),
        # the evidence holds nothing of the claim's action
        ("Leonardo DiCaprio painted the Mona Lisa.", TITANIC, False),
        ("", TITANIC, False),
        ("Leonardo DiCaprio directed Titanic.", "", False),
    ],
)
def test_misattributes(claim, evidence, flagged):
    assert misattributes(claim, [evidence] if evidence else []) is flagged


def test_the_facts_name_a_lower_case_subject_the_passages_lack():
    passage = (
        "On Tuesday, Malala Yousafzai, the 17-year-old Pakistani girl who was shot in the"
        " face, sent a message to the kidnapped girls."
    )
    article = f"President Muhammadu Buhari spoke in Abuja. {passage}"
    claim = "muhammadu buhari, 17-year-old, was shot in the face."
    assert not misattributes(claim, [passage])
    assert misattributes(claim, [passage], proper_names([article]))


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["The film was directed by James Cameron."], {"jame", "cameron"}),
        # a capital that only opens a sentence is no name, unless a name runs on from it
        (["Police said the fire spread."], set()),
        (["Malala Yousafzai spoke."], {"malala", "yousafzai"}),
        # written in lower case elsewhere: a word, not a name
        (["The Council met. The council voted."], set()),
        ([], set()),
    ],
)
def test_proper_names(texts, expected):
    assert proper_names(texts) == expected


MEMORY = (
    "Early studies suggest that the drug may slow memory loss in older adults, but the"
    " evidence is still limited."
)
FIRE = "Officials said the warehouse fire was probably caused by a faulty heater."
SHIP = "The wreck found off Cornwall is possibly the merchant ship Mary Rose II, divers said."
TRIAL_HEDGE = "The new vaccine could reduce hospital admissions by a third, the trial found."
QUOTE = 'Ken Clarke said cutting the tax "might appeal to voters but is wrong".'
TIRED = (
    "Hazard said the long season may have left him tired after he was substituted just 62"
    " minutes into the win over Israel."
)


@pytest.mark.parametrize(
    ("claim", "evidence", "flagged"),
    [
        ("The drug slows memory loss in older adults.", MEMORY, True),
        ("The drug may slow memory loss in older adults.", MEMORY, False),
        ("The warehouse fire was caused by a faulty heater.", FIRE, True),
        ("The warehouse fire was probably caused by a faulty heater.", FIRE, False),
        ("The wreck found off Cornwall is the merchant ship Mary Rose II.", SHIP, True),
        ("The wreck off Cornwall is possibly the Mary Rose II.", SHIP, False),
        ("The new vaccine reduces hospital admissions by a third.", TRIAL_HEDGE, True),
        ("The new vaccine might reduce hospital admissions by a third.", TRIAL_HEDGE, False),
        # the hedge is in a quotation the claim reports, or in another clause
        ("Ken Clarke criticised cutting the tax.", QUOTE, False),
        ("Hazard was substituted 62 minutes into the win over Israel.", TIRED, False),
        # the evidence does not state the claim at all: the verifier's call, not this one
        ("The drug cures heart disease.", MEMORY, False),
        ("", MEMORY, False),
    ],
)
def test_drops_hedge(claim, evidence, flagged):
    assert drops_hedge(claim, [evidence]) is flagged


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two.", ["One.", "Two."]),
        ('He said "yes." Then he left.', ['He said "yes."', "Then he left."]),
        ("It won in 1997. 12 people came.", ["It won in 1997.", "12 people came."]),
        # The answer's splitter reads passages too: a title is no sentence end, and a
        # summary written in lower case is cut where its sentences end.
        ("Mr. Smith came. the end.", ["Mr. Smith came.", "the end."]),
        ("", []),
    ],
)
def test_sentences(text, expected):
    assert sentences(text) == expected
