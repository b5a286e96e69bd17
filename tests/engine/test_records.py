"""Records as facts (issue 31, part 3): a JSON record read as one statement per leaf.

A Yelp-style business record nests its attributes and writes some of them as Python
literals inside JSON strings; each leaf becomes "attributes, outdoor seating: yes.", its
span still pointing at the leaf's value in the record as given. The real engine then
supports a claim joining two of its yes/no attributes and rejects their opposites.
"""

from __future__ import annotations

import json

import pytest

from grounding_app.engine.checks.record_flag import record_states
from grounding_app.engine.pipeline import GroundingEngine
from grounding_app.engine.retrieval import split_fact
from grounding_app.engine.types import CheckRequest, Fact

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

YELP = {
    "business_id": "tnhfDv5Il8EaGSXZGiuQGg",
    "name": "Caf\u00e9 Lucia",
    "address": "412 Elm Street",
    "city": "Springfield",
    "stars": 4.0,
    "categories": "Italian, Pizza",
    "attributes": {
        "RestaurantsReservations": True,
        "OutdoorSeating": True,
        "RestaurantsDelivery": False,
        "WiFi": "u'free'",
        "BusinessParking": "{'garage': False, 'street': True, 'lot': False}",
        "Ambience": {"romantic": False, "casual": True},
    },
    "hours": {"Monday": "11:0-22:0", "Friday": "11:0-23:0"},
}

# (statement, the leaf as the record writes it)
LEAVES = [
    ("business id: tnhfDv5Il8EaGSXZGiuQGg.", "tnhfDv5Il8EaGSXZGiuQGg"),
    ("name: Caf\u00e9 Lucia.", "Caf\u00e9 Lucia"),
    ("address: 412 Elm Street.", "412 Elm Street"),
    ("city: Springfield.", "Springfield"),
    ("stars: 4.0.", "4.0"),
    ("categories: Italian, Pizza.", "Italian, Pizza"),
    ("attributes, restaurants reservations: yes.", "true"),
    ("attributes, outdoor seating: yes.", "true"),
    ("attributes, restaurants delivery: no.", "false"),
    ("attributes, WiFi: free.", "free"),
    ("attributes, business parking, garage: no.", "False"),
    ("attributes, business parking, street: yes.", "True"),
    ("attributes, business parking, lot: no.", "False"),
    ("attributes, ambience, romantic: no.", "false"),
    ("attributes, ambience, casual: yes.", "true"),
    ("hours, monday: 11:0-22:0.", "11:0-22:0"),
    ("hours, friday: 11:0-23:0.", "11:0-23:0"),
]


@pytest.mark.parametrize("indent", [None, 2])
@pytest.mark.parametrize("ascii_only", [True, False])
def test_a_yelp_record_reads_as_one_statement_per_leaf(indent, ascii_only):
    text = json.dumps(YELP, indent=indent, ensure_ascii=ascii_only)
    passages = split_fact(0, text)
    assert [p.text for p in passages] == [statement for statement, _ in LEAVES]
    data = text.encode()
    for passage, (_, leaf) in zip(passages, LEAVES, strict=True):
        # The citation's byte span is the leaf as the record writes it.
        start = len(text[: passage.start].encode())
        end = len(text[: passage.end].encode())
        written = leaf if ascii_only is False or leaf.isascii() else "Caf\\u00e9 Lucia"
        assert data[start:end].decode() == written


def test_statements_keep_their_own_keys():
    passages = split_fact(0, json.dumps(YELP))
    assert [p.key for p in passages[:3]] == ["business_id", "name", "address"]
    assert passages[10].key == "garage"


STATEMENTS = (
    "name: Caf\u00e9 Lucia.",
    "categories: Italian, Pizza.",
    "attributes, restaurants reservations: yes.",
    "attributes, outdoor seating: yes.",
    "attributes, restaurants delivery: no.",
)


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Customers can make reservations, and there is outdoor seating available.", True),
        ("Caf\u00e9 Lucia takes reservations.", True),
        ("Caf\u00e9 Lucia is Italian and does not deliver.", True),
        ("Outdoor seating is offered.", True),
        # the opposite of a yes or no
        ("There is no outdoor seating.", False),
        ("They deliver.", False),
        ("Reservations are not accepted.", False),
        ("Customers can make reservations, but there is no outdoor seating.", False),
        # more than the record says, or no yes or no named
        ("Customers can make reservations, and there is a large garden.", False),
        ("Reservations are required on weekends.", False),
        ("Caf\u00e9 Lucia serves Italian food.", False),
        ("", False),
    ],
)
def test_record_states(claim, expected):
    assert record_states(claim, STATEMENTS) is expected


def test_no_record_states_nothing():
    assert not record_states("They take reservations.", ("name: Caf\u00e9 Lucia.",))


@pytest.fixture(scope="module")
def engine() -> GroundingEngine:
    return GroundingEngine.default()


def score(engine: GroundingEngine, answer: str) -> float:
    request = CheckRequest(answer, (Fact(json.dumps(YELP)),), enable_claim_level_score=True)
    result = engine.check(request).claims[0].score
    assert result is not None
    return result


def test_a_claim_joining_two_attributes_is_supported(engine):
    trap = "Customers can make reservations, and there is outdoor seating available."
    assert score(engine, trap) >= 0.6


@pytest.mark.parametrize(
    "twin",
    [
        "There is no outdoor seating.",
        "They deliver.",
        "Reservations are not accepted.",
        "Customers can make reservations, and there is a rooftop bar.",
    ],
)
def test_its_wrong_twins_are_unsupported(engine, twin):
    assert score(engine, twin) < 0.6
