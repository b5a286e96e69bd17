# ruff: noqa: RUF001
"""Traps: answers that look supported to a reader who only matches words (issue 11).

The real default engine (bundled encoder, trained verifier) on each. A trap the current
verifier cannot pass however the evidence is prepared is marked xfail(strict) with the
reason; its assertion stays as strict as the others.
"""

from __future__ import annotations

import json

import pytest

from grounding_app.engine.encoders import HashingEncoder
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.types import CheckRequest, CheckResponse, Fact
from grounding_lab.bench_requests import FILM_FACTS
from tests.engine.word_judge import WordJudge

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# Version 4 (the mean of two runs' weights) reads "born in Warsaw" and "won the Nobel
# Prize in Physics in 1903", each from its own fact, together at 0.58: just below the
# threshold (version 3: 0.81). The run it averages read them at 0.42.
SPREAD_BELOW = (
    "version 4 reads this claim against both facts together at 0.58, below the threshold"
    " (version 3 passed it at 0.81; the continued run alone, 0.42)"
)
# A run trained with these very errors as negatives (grounding_app/verifiers/adapt/windows.py:
# names of lower-case claims replaced from the article, pronouns turned) still read two of
# them at 0.91, 0.93.
# A name the claim itself mentions outside a subject ("after Neil Armstrong") is no rival
# for the role check: without it, "Israeli forces raided militants in the West Bank"
# against "Israel ... in the West Bank ... its forces carry out raids" would be flagged.
RIVAL_IN_CLAIM = (
    "the verifier reads it at 0.74, and the role check does not count a name the claim"
    " mentions (Neil Armstrong) as the evidence's other doer"
)
WRONG_PERSON = (
    "version 4 reads another name or pronoun of the same article in the claim's role as"
    " support (0.83-0.98), and the role check (engine/roles.py) only compares the subject"
    " of a clause with the doer of the sentence stating it: a wrong place or object, or a"
    " pronoun of the other gender, is not a rival name"
)

# A name in lower case is known as a name only when the facts write it capitalised; one
# the facts never mention ("barcelona" for "Valencia") is an ordinary word to the
# lexical checks, and the verifier reads the claim at 0.89.
UNKNOWN_LOWER_CASE_NAME = (
    "a lower-case name the facts never mention is no name to the lexical checks, and the"
    " verifier reads the claim at 0.89"
)


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def run(engine: GroundingEngine, answer: str, facts) -> CheckResponse:
    facts = tuple(Fact(f) if isinstance(f, str) else f for f in facts)
    return engine.check(CheckRequest(answer, facts, enable_claim_level_score=True))


def supported(response: CheckResponse, index: int = -1) -> bool:
    return bool(response.claims[index].citation_indices)


def cited_sources(response: CheckResponse, index: int = -1) -> set[int]:
    return {response.cited_chunks[i].source for i in response.claims[index].citation_indices}


# --- an entity swapped with one from the other fact -------------------------------------

CAPITALS = ("Rome is the capital of Italy.", "Vienna is the capital of Austria.")
RIVERS = ("The Nile flows into the Mediterranean Sea.", "The Danube flows into the Black Sea.")
IBERIA = ("Madrid is the capital of Spain.", "Lisbon is the capital of Portugal.")
PLAYS = (
    "Hamlet was written by William Shakespeare around 1600.",
    "Doctor Faustus was written by Christopher Marlowe.",
)


@pytest.mark.parametrize(
    ("answer", "facts"),
    [
        ("Rome is the capital of Austria.", CAPITALS),
        ("Vienna is the capital of Italy.", CAPITALS),
        ("The Nile flows into the Black Sea.", RIVERS),
        ("Madrid is the capital of Portugal.", IBERIA),
        ("Hamlet was written by Christopher Marlowe.", PLAYS),
    ],
)
def test_an_entity_swapped_between_facts_is_unsupported(engine, answer, facts):
    r = run(engine, answer, facts)
    assert not supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("answer", "facts", "source"),
    [
        ("Rome is the capital of Italy.", CAPITALS, 0),
        ("Vienna is the capital of Austria.", CAPITALS, 1),
        ("The Danube flows into the Black Sea.", RIVERS, 1),
        ("Hamlet was written by William Shakespeare.", PLAYS, 0),
    ],
)
def test_the_unswapped_claims_stay_supported(engine, answer, facts, source):
    r = run(engine, answer, facts)
    assert supported(r) and cited_sources(r) == {source}, r.claims[0]


@pytest.mark.parametrize(
    ("answer", "facts"),
    [
        pytest.param(
            "Marie Curie, who was born in Warsaw, won the Nobel Prize in Physics in 1903.",
            (
                "Marie Curie was born in Warsaw in 1867.",
                "In 1903 Marie Curie won the Nobel Prize in Physics.",
            ),
            marks=pytest.mark.xfail(strict=True, reason=SPREAD_BELOW),
        ),
        # Version 3 read "opened to traffic in 1937" alone as support for both clauses
        # (0.71) and cited one fact; version 4 needs the other fact for the strait.
        (
            "The Golden Gate Bridge opened in 1937 and spans the Golden Gate strait.",
            (
                "The Golden Gate Bridge spans the Golden Gate, the strait between San Francisco"
                " Bay and the Pacific Ocean.",
                "The Golden Gate Bridge opened to traffic in 1937.",
            ),
        ),
    ],
)
def test_support_spread_over_two_facts_still_counts(engine, answer, facts):
    r = run(engine, answer, facts)
    assert supported(r) and cited_sources(r) == {0, 1}, r.claims[0]


def test_two_facts_are_not_read_together_for_a_swap():
    # A judge that only matches words finds all of them in the two facts together.
    judge = WordJudge()
    engine = GroundingEngine(HashingEncoder(), judge)
    r = engine.check(CheckRequest("Rome is the capital of Austria.", tuple(map(Fact, CAPITALS))))
    assert not supported(r)
    assert sorted(judge.evidence) == sorted(CAPITALS)


# --- roles exchanged inside the evidence --------------------------------------------------

TITANIC_ROLES = "Titanic was directed by James Cameron. Leonardo DiCaprio starred in it."
JAWS = "Jaws is a 1975 thriller directed by Steven Spielberg. It stars Roy Scheider."


APOLLO = (
    "Neil Armstrong was the first person to walk on the Moon. Buzz Aldrin followed him"
    " about twenty minutes later, while Michael Collins stayed in lunar orbit."
)


# The verifier reads these as support (every word is in the evidence); the engine's role
# check (engine/roles.py) finds the sentence stating the action and its other doer.
@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("Leonardo DiCaprio directed Titanic.", TITANIC_ROLES),
        ("James Cameron starred in Titanic.", TITANIC_ROLES),
        ("Roy Scheider directed Jaws.", JAWS),
        ("Buzz Aldrin was the first person to walk on the Moon.", APOLLO),
        ("Michael Collins walked on the Moon twenty minutes later.", APOLLO),
        pytest.param(
            "Michael Collins walked on the Moon twenty minutes after Neil Armstrong.",
            APOLLO,
            marks=pytest.mark.xfail(strict=True, reason=RIVAL_IN_CLAIM),
        ),
    ],
)
def test_roles_exchanged_inside_the_evidence_are_unsupported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert not supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("James Cameron directed Titanic.", TITANIC_ROLES),
        ("Leonardo DiCaprio starred in Titanic.", TITANIC_ROLES),
        ("Steven Spielberg directed Jaws.", JAWS),
        ("Neil Armstrong was the first person to walk on the Moon.", APOLLO),
        ("Michael Collins stayed in lunar orbit.", APOLLO),
    ],
)
def test_roles_as_the_evidence_gives_them_are_supported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert supported(r), r.claims[0]


# --- citation markers ---------------------------------------------------------------------

CAPITAL_OF_FRANCE = ("Paris is the capital of France.",)


@pytest.mark.parametrize(
    "answer",
    [
        "Paris is the capital of France [1].",
        "Paris is the capital of France.[1]",
        "Paris is the capital of France [1][2].",
        "Paris is the capital of France [1, 2].",
        "Paris is the capital of France【3†source】.",
        "[12] Paris is the capital of France.",
    ],
)
def test_a_citation_marker_costs_no_support(engine, answer):
    bare = run(engine, "Paris is the capital of France.", CAPITAL_OF_FRANCE).claims[0]
    marked = run(engine, answer, CAPITAL_OF_FRANCE).claims[0]
    assert marked.citation_indices and marked.text == answer
    assert marked.score == pytest.approx(bare.score, abs=0.02)


POPULATION = (
    "Paris has a population of about 3.7 million people. The city is on the river Seine.",
)


@pytest.mark.parametrize(
    "first",
    [
        "Paris has about 3.7 million people.[3]",
        "Paris has about 3.7 million people [3].",
        "Paris has about 3.7 million people.[3][4]",
        "Paris has about 3.7 million people. [3]",
    ],
)
def test_a_marker_ends_its_sentence_and_both_claims_are_supported(engine, first):
    answer = f"{first} The city is on the Seine."
    r = run(engine, answer, POPULATION)
    size = len(first.encode())
    assert [(c.start, c.end, c.text) for c in r.claims] == [
        (0, size, first),
        (size + 1, len(answer.encode()), "The city is on the Seine."),
    ]
    assert supported(r, 0) and supported(r, 1), r.claims


def test_a_marker_after_a_number_is_not_read_as_one(engine):
    answer = "Titanic is a movie directed by James Cameron. It won 11 Academy Awards [12]."
    r = run(engine, answer, FILM_FACTS)
    assert supported(r, 1), r.claims[1]


# --- numbers in words and in digits -------------------------------------------------------

FILM_IN_WORDS = (
    "Titanic is a 1997 film directed by James Cameron. The movie won eleven Academy Awards"
    " and was nominated for fourteen.",
)


@pytest.mark.parametrize(
    ("claim", "facts", "expected"),
    [
        # spelled out in the answer, digits in the fact ("won 11 Academy Awards")
        ("It won eleven Academy Awards.", FILM_FACTS, True),
        ("It won twelve Academy Awards.", FILM_FACTS, False),
        # digits in the answer, spelled out in the fact ("nominated for fourteen")
        ("It was nominated for 14 Academy Awards.", FILM_FACTS, True),
        ("It was nominated for 15 Academy Awards.", FILM_FACTS, False),
        ("It won 11 Academy Awards.", FILM_IN_WORDS, True),
        ("It won 12 Academy Awards.", FILM_IN_WORDS, False),
    ],
)
def test_numbers_in_words_compare_with_digits(engine, claim, facts, expected):
    r = run(engine, f"Titanic is a movie directed by James Cameron. {claim}", facts)
    assert supported(r, 1) is expected, r.claims[1]


BRIDGE = "The old stone bridge over the river has 21 arches and was finished in 1790."
WAR = "The Hundred Years' War between England and France lasted 116 years."
MUSEUM = "The museum has 12 rooms on two floors."


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("The bridge has twenty-one arches.", BRIDGE, True),
        ("The bridge has twenty-two arches.", BRIDGE, False),
        ("The war lasted one hundred and sixteen years.", WAR, True),
        ("The war lasted one hundred and six years.", WAR, False),
        ("The museum has ١٢ rooms.", MUSEUM, True),
        ("The museum has １２ rooms.", MUSEUM, True),
        ("The museum has ١٣ rooms.", MUSEUM, False),
    ],
)
def test_numbers_in_any_spelling_compare_by_value(engine, answer, fact, expected):
    r = run(engine, answer, [fact])
    assert supported(r) is expected, r.claims[0]


STADIUM = (
    "The new stadium, opened in 2004, holds 25,000 people; the old one held 4200. The new"
    " stadium cost $310,000,000 to build."
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # thousands separators on one side only (the judge once read them apart: 0.24)
        ("The new stadium holds 25000 people.", True),
        ("The new stadium holds 25,000 people.", True),
        ("The old stadium held 4,200 people.", True),
        ("The new stadium holds 26000 people.", False),
        ("The new stadium holds 26,000 people.", False),
        ("The old stadium held 4,300 people.", False),
        # a round figure against its scale word (read apart: 0.22)
        ("The new stadium cost $310 million to build.", True),
        ("The new stadium cost $320 million to build.", False),
    ],
)
def test_thousands_separators_on_one_side_only(engine, answer, expected):
    r = run(engine, answer, [STADIUM])
    assert supported(r) is expected, r.claims[0]


# --- structured facts -------------------------------------------------------------------

LUIGIS_RECORD = json.dumps(
    {
        "name": "Luigi's",
        "categories": "Italian, Restaurants, Pizza",
        "attributes": {"RestaurantsReservations": True, "WiFi": "free", "OutdoorSeating": False},
        "stars": 4.5,
    },
    indent=2,
)
LUIGIS_LINES = "name: Luigi's\ncuisine: Italian\nfounded = 1987\nreservations: true\ndelivery: no"


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("Luigi's is an Italian restaurant that takes reservations.", LUIGIS_RECORD, True),
        ("Luigi's does not take reservations.", LUIGIS_RECORD, False),
        ("Luigi's is a Chinese restaurant.", LUIGIS_RECORD, False),
        ("Luigi's offers free WiFi.", LUIGIS_RECORD, True),
        ("Luigi's has outdoor seating.", LUIGIS_RECORD, False),
        ("Luigi's serves Italian food.", LUIGIS_LINES, True),
        ("Luigi's was founded in 1987.", LUIGIS_LINES, True),
        ("Luigi's was founded in 1990.", LUIGIS_LINES, False),
        ("Luigi's delivers.", LUIGIS_LINES, False),
    ],
)
def test_a_structured_fact_supports_what_it_states(engine, answer, fact, expected):
    r = run(engine, answer, [fact])
    assert supported(r) is expected, r.claims[0]


def test_a_record_cites_the_statements_it_rests_on(engine):
    r = run(engine, "Luigi's is an Italian restaurant that takes reservations.", [LUIGIS_RECORD])
    assert {c.chunk_text for c in r.cited_chunks} == {
        "name: Luigi's.",
        "categories: Italian, Restaurants, Pizza.",
        "attributes, restaurants reservations: yes.",
    }


# --- a short news paragraph: summary and reversal ------------------------------------------

COUNCIL = (
    "On Tuesday the city council voted 7-2 to approve next year's budget. The plan raises"
    " spending on buses and trams by 12 percent, paid for by a new parking levy. Mayor Ana"
    " Lopez, who proposed the levy, said the vote was a win for commuters. Opposition"
    " councillor Mark Reed criticised the levy as a tax on drivers."
)
TRIAL = (
    "A team at the University of Leeds tested the drug on 400 patients over the age of 65."
    " After six months, the group taking the drug had lower blood pressure than the group"
    " given a placebo, the researchers reported on Monday. The drug's maker, Norvia, funded"
    " the study but had no role in the analysis."
)


@pytest.mark.parametrize(
    ("summary", "paragraph"),
    [
        (
            "The city council approved a new budget that raises spending on public transport.",
            COUNCIL,
        ),
        ("Ana Lopez proposed the parking levy, which Mark Reed criticised.", COUNCIL),
        ("In a Leeds study of 400 patients over 65, the drug lowered blood pressure.", TRIAL),
        ("Norvia, the drug's maker, funded the study.", TRIAL),
    ],
)
def test_a_faithful_summary_is_supported(engine, summary, paragraph):
    r = run(engine, summary, [paragraph])
    assert supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("reversal", "paragraph"),
    [
        ("Mark Reed proposed the parking levy, which Mayor Ana Lopez criticised.", COUNCIL),
        ("Norvia tested the drug, and the University of Leeds funded the study.", TRIAL),
        ("Mayor Ana Lopez criticised the levy as a tax on drivers.", COUNCIL),
    ],
)
def test_a_summary_reversing_who_did_what_is_unsupported(engine, reversal, paragraph):
    r = run(engine, reversal, [paragraph])
    assert not supported(r), r.claims[0]


# --- a hedge the evidence keeps, dropped by the answer -------------------------------------

MEMORY = (
    "Early studies suggest that the drug may slow memory loss in older adults, but the"
    " evidence is still limited."
)
FIRE = "Officials said the warehouse fire was probably caused by a faulty heater."
SHIP = "The wreck found off Cornwall is possibly the merchant ship Mary Rose II, divers said."
VACCINE = "The new vaccine could reduce hospital admissions by a third, the trial found."


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("The drug slows memory loss in older adults.", MEMORY),
        ("The warehouse fire was caused by a faulty heater.", FIRE),
        ("The wreck found off Cornwall is the merchant ship Mary Rose II.", SHIP),
        ("The new vaccine reduces hospital admissions by a third.", VACCINE),
    ],
)
def test_an_answer_that_drops_the_evidence_hedge_is_unsupported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert not supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("The drug may slow memory loss in older adults.", MEMORY),
        ("The warehouse fire was probably caused by a faulty heater.", FIRE),
        ("The wreck off Cornwall is possibly the Mary Rose II.", SHIP),
        ("The new vaccine might reduce hospital admissions by a third.", VACCINE),
    ],
)
def test_an_answer_that_keeps_the_hedge_is_supported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert supported(r), r.claims[0]


# --- FactCC's transformations, in a summariser's lower case ---------------------------------

MALALA = (
    "Malala Yousafzai was shot in the face by the Taliban in 2012 for speaking out in favour"
    " of girls' education. She later met President Muhammadu Buhari in Abuja to talk about"
    " the schoolgirls kidnapped in Chibok."
)
STRAUSS = (
    "The bridge was designed by Joseph Strauss and opened in 1937. He had spent more than a"
    " decade winning support for the project, and his name is on a plaque at the south tower."
)


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        # another name of the same article in the subject's role (every word is in it)
        ("muhammadu buhari was shot by the taliban in 2012.", MALALA),
        ("muhammadu buhari, 17, was shot in the face for speaking out.", MALALA),
    ],
)
def test_a_lower_case_summary_with_another_subject_is_unsupported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert not supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        # the wrong place: the names are right, where they met is not
        ("muhammadu buhari met malala yousafzai in chibok.", MALALA),
        # a pronoun of the other gender, with no name to resolve it to
        ("he was shot in the face by the taliban in 2012.", MALALA),
        ("her name is on a plaque at the south tower.", STRAUSS),
    ],
)
@pytest.mark.xfail(strict=True, reason=WRONG_PERSON)
def test_a_lower_case_summary_with_the_wrong_person_is_unsupported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert not supported(r), r.claims[0]


@pytest.mark.parametrize(
    ("answer", "fact"),
    [
        ("malala yousafzai was shot by the taliban in 2012.", MALALA),
        ("malala yousafzai met muhammadu buhari in abuja.", MALALA),
        ("she was shot in the face by the taliban in 2012.", MALALA),
        ("his name is on a plaque at the south tower.", STRAUSS),
    ],
)
def test_a_lower_case_summary_with_the_right_person_is_supported(engine, answer, fact):
    r = run(engine, answer, [fact])
    assert supported(r), r.claims[0]


@pytest.mark.parametrize(
    "answer",
    [
        "Malala Yousafzai was not shot by the Taliban.",
        "The bridge did not open in 1937.",
        "The bridge was not designed by Joseph Strauss.",
    ],
)
def test_a_negation_the_evidence_lacks_is_unsupported(engine, answer):
    r = run(engine, answer, [MALALA, STRAUSS])
    assert not supported(r), r.claims[0]


# --- a fact hidden in a question ---------------------------------------------------------
# Chatbots state facts as questions ("Did you know that ...?"). The question asserts its
# clause, so the clause is checked like any sentence; a question that only asks is not.

TITANIC = (
    "Titanic is a 1997 film directed by James Cameron. It won 11 Academy Awards,"
    " including Best Picture."
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("Did you know that Titanic won 11 Academy Awards?", True),
        ("Did you know that Titanic won 12 Academy Awards?", False),
        ("Hi, did you know Titanic was directed by Steven Spielberg?", False),
        ("Titanic was directed by James Cameron, did you know?", True),
        ("Titanic won 12 Academy Awards, right?", False),
    ],
)
def test_a_question_that_asserts_a_fact_is_checked(engine, answer, expected):
    r = run(engine, answer, [TITANIC])
    claim = r.claims[0]
    assert claim.grounding_check_required, claim
    assert supported(r) is expected, claim


def test_a_question_that_only_asks_is_not_checked(engine):
    r = run(engine, "Do you know who directed Titanic?", [TITANIC])
    assert not r.claims[0].grounding_check_required
    assert r.support_score is None


# --- a summary written in lower case ------------------------------------------------------
# Summarisers write in lower case; each of its sentences is a claim of its own, so an
# error in the first is not cut off the judge's input by the sentences after it (the
# judge reads at most 56 tokens of a claim, its end).


def test_each_sentence_of_a_lower_case_summary_is_checked(engine):
    answer = (
        "malala yousafzai was shot in the face by the taliban in 2014 for speaking out in"
        " favour of girls' education. the taliban shot malala yousafzai for speaking out in"
        " favour of girls' education. malala yousafzai later met president muhammadu buhari"
        " in abuja to talk about the schoolgirls kidnapped in chibok."
    )
    r = run(engine, answer, [MALALA])
    assert [c.text.split()[0] for c in r.claims] == ["malala", "the", "malala"]
    assert not supported(r, 0), r.claims[0]
    assert supported(r, 1), r.claims[1]
    assert supported(r, 2), r.claims[2]


# Read with the sentence before it ("... in 2014. >> she was shot for ..."), the second
# claim scored 0.52: the previous sentence's error counted against it. Its pronoun is
# now resolved through the fact's names, and the claim is read alone.
def test_a_pronoun_after_a_wrong_sentence_is_read_as_itself(engine):
    answer = (
        "malala yousafzai was shot in the face by the taliban in 2014. she was shot for"
        " speaking out in favour of girls' education."
    )
    r = run(engine, answer, [MALALA])
    assert not supported(r, 0), r.claims[0]
    assert supported(r, 1), r.claims[1]


# --- markup in the answer ----------------------------------------------------------------
# The judge reads the words, not the tags around them; the spans stay as written.


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # read with its tag, this one scored 0.10: "Answer" is a name the fact lacks
        ('<p class="Answer">Titanic was directed by James Cameron.</p>', True),
        ('<p class="Answer">Titanic was directed by Steven Spielberg.</p>', False),
        ("<b>Titanic</b> won <i>11</i> Academy Awards.", True),
        ("<b>Titanic</b> won <i>12</i> Academy Awards.", False),
        ("<t> titanic was directed by james cameron . </t>", True),
        ("<t> titanic was directed by steven spielberg . </t>", False),
    ],
)
def test_tags_in_the_answer_are_not_read_as_words(engine, answer, expected):
    r = run(engine, answer, [TITANIC])
    assert r.claims[0].text.startswith("<")
    assert supported(r, 0) is expected, r.claims[0]


# --- a summariser's placeholder for an unknown word -------------------------------------
# Sequence-to-sequence summarisers write "UNK" for a word outside their vocabulary. Read
# as a name the facts lack, it cost a right summary its support (0.002-0.22, all 9 such
# FRANK summaries of dev_realistic); it is an unreadable word, and the rest of the claim
# is still checked.

ADURIZ = (
    "Former Valencia striker Aritz Aduriz denied his old team victory with a last-gasp"
    " equaliser for Athletic Bilbao at San Mames Stadium. Aduriz pounced in the 90th minute"
    " to secure a 1-1 draw after Valencia had been reduced to 10 men."
)


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("former valencia striker UNK UNK denied his old team victory.", True),
        ("UNK pounced in the 90th minute to secure a 1-1 draw.", True),
        ("UNK pounced in the 90th minute to secure a 2-1 win.", False),
        ("Former Barcelona striker UNK UNK denied his old team victory.", False),
        pytest.param(
            "former barcelona striker UNK UNK denied his old team victory.",
            False,
            marks=pytest.mark.xfail(strict=True, reason=UNKNOWN_LOWER_CASE_NAME),
        ),
    ],
)
def test_a_placeholder_word_is_no_missing_name(engine, answer, expected):
    r = run(engine, answer, [ADURIZ])
    assert supported(r, 0) is expected, r.claims[0]


# --- a chat reply in lower case -----------------------------------------------------------
# "a great movie! do you like musicals?" was one sentence, a question, and went unchecked;
# the "!" ends the statement, which is checked, and a reaction is not.

LA_LA_LAND = "La La Land is a 2016 musical film by Damien Chazelle. It won six Academy Awards."


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("la la land won six academy awards! do you like musicals?", True),
        ("la la land won nine academy awards! do you like musicals?", False),
        ("la la land was directed by steven spielberg! have you seen it?", False),
    ],
)
def test_a_statement_before_a_question_in_lower_case_is_checked(engine, answer, expected):
    r = run(engine, answer, [LA_LA_LAND])
    assert len(r.claims) == 2, r.claims
    assert r.claims[0].grounding_check_required, r.claims[0]
    assert not r.claims[1].grounding_check_required, r.claims[1]
    assert supported(r, 0) is expected, r.claims[0]


def test_a_reaction_is_not_checked_and_the_fact_after_it_is(engine):
    r = run(engine, "that's awesome! la la land won six academy awards.", [LA_LA_LAND])
    assert [c.grounding_check_required for c in r.claims] == [False, True]
    assert supported(r, 1), r.claims[1]
    assert r.support_score is not None and r.support_score > 0.6


# --- a name and its abbreviation ---------------------------------------------------------
# "UN" and "United Nations" share no word: read as a name the facts lack (and the fact's
# name as a rival in its place), "The UN was founded in 1945." scored 0.009; "The French
# president" against "the president of France", 0.58.


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("The UN was founded in 1945.", "The United Nations was founded in 1945.", True),
        ("The United Nations was founded in 1945.", "The UN was founded in 1945.", True),
        (
            "The UK left the EU in 2020.",
            "The United Kingdom left the European Union in 2020.",
            True,
        ),
        (
            "NASA landed astronauts on the Moon in 1969.",
            "The National Aeronautics and Space Administration landed astronauts on the Moon"
            " in 1969.",
            True,
        ),
        ("The EU was founded in 1945.", "The United Nations was founded in 1945.", False),
        ("The UN was founded in 1955.", "The United Nations was founded in 1945.", False),
        (
            "The UK left the EU in 2016.",
            "The United Kingdom left the European Union in 2020.",
            False,
        ),
        (
            "The French president visited Berlin in 2019.",
            "The president of France visited Berlin in 2019.",
            True,
        ),
        (
            "The Spanish president visited Berlin in 2019.",
            "The president of France visited Berlin in 2019.",
            False,
        ),
    ],
)
def test_a_name_and_its_abbreviation_are_one_name(engine, answer, fact, expected):
    r = run(engine, answer, [fact])
    assert supported(r, 0) is expected, r.claims[0]


# --- a date in another form ----------------------------------------------------------------
# "1950-07-04" against "July 4, 1950" read as other numbers (0.009), "Dec. 1997" as a name
# the facts lack (0.026), "the 1990s" as the number 1990 with 1994 in its place (0.0).

BORN_1950 = "Smith was born on July 4, 1950, in Ohio. He founded the company in 1994."
RELEASED = "The movie was released on December 19, 1997."


@pytest.mark.parametrize(
    ("answer", "fact", "expected"),
    [
        ("Smith was born on 1950-07-04.", BORN_1950, True),
        ("Smith was born on 04/07/1950.", BORN_1950, True),
        ("Smith was born on 4 July 1950.", BORN_1950, True),
        ("Smith was born on 1950-07-05.", BORN_1950, False),
        ("Smith was born on 5 July 1950.", BORN_1950, False),
        ("The movie was released in Dec. 1997.", RELEASED, True),
        ("The movie was released in Dec. 1998.", RELEASED, False),
        ("Smith founded the company in the 1990s.", BORN_1950, True),
        ("Smith founded the company in the 1980s.", BORN_1950, False),
    ],
)
def test_a_date_in_another_form_compares_by_value(engine, answer, fact, expected):
    r = run(engine, answer, [fact])
    assert supported(r, 0) is expected, r.claims[0]
