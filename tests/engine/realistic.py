"""Requests as real clients send them, which once crashed the engine (issue 10).

Each has more passages than `DENSE_ONLY_LIMIT`, so the BM25 prefilter runs, and its claim
shares no word with the facts, so the prefilter finds no candidate for it.
"""

from __future__ import annotations

import json

from grounding_app.engine.types import CheckRequest, Fact

_VOLCANOES = (
    "Etna",
    "Vesuvius",
    "Stromboli",
    "Hekla",
    "Krakatoa",
    "Pinatubo",
    "Erebus",
    "Kilauea",
    "Cotopaxi",
    "Merapi",
)
_VOLCANO_TEMPLATES = (
    "{name} is a stratovolcano whose lava flows have reached the coast.",
    "Geologists monitor {name} with seismometers and gas sensors.",
    "The most recent eruption of {name} covered nearby villages in ash.",
)
VOLCANO_SENTENCES = tuple(
    template.format(name=name) for name in _VOLCANOES for template in _VOLCANO_TEMPLATES
)
OFF_TOPIC_ANSWER = "The quarterback threw a touchdown in the fourth quarter."
OFF_TOPIC_FACTS = (Fact(" ".join(VOLCANO_SENTENCES), {"author": "Volcano atlas"}),)

# A record as RAG over structured data sends it: one key per line, so one passage each.
RESTAURANT = {
    "name": "Luigi's",
    "cuisine": "Italian",
    "reservations": True,
    "price_range": "$$",
    "address": "12 Main Street, Springfield",
    "phone": "+1 555 0100",
    "rating": 4.5,
    "opening_hours": {
        "monday": "closed",
        "tuesday": "17:00-22:00",
        "wednesday": "17:00-22:00",
        "thursday": "17:00-22:00",
        "friday": "17:00-23:00",
        "saturday": "12:00-23:00",
        "sunday": "12:00-21:00",
    },
    "outdoor_seating": False,
    "wheelchair_accessible": True,
    "parking": "street",
    "chef": "Maria Rossi",
    "founded": 1987,
    "vegetarian_options": True,
    "delivery": False,
    "dress_code": "casual",
    "signature_dish": "lasagna",
    "wine_list": True,
    "seats": 60,
    "neighbourhood": "Old Town",
}
JSON_ANSWER = "The restaurant is popular among families on weekends."
JSON_FACTS = (Fact(json.dumps(RESTAURANT, indent=2), {"source": "restaurants.json"}),)

# Claims that share bigrams, but not the exact sentence, with one passage among many.
CJK_CASES = {
    "chinese": (
        "长城是古代中国的防御工程。",
        "长城是中国古代修建的军事防御工程。",
        tuple(f"编号{i}的图书馆在周末开放。" for i in range(30)),
    ),
    "japanese": (
        "東京タワーは電波塔として完成しました。",
        "東京タワーは昭和に完成した電波塔です。",
        tuple(f"{i}番目の美術館は月曜日に休館します。" for i in range(30)),
    ),
}


def off_topic_request() -> CheckRequest:
    return CheckRequest(OFF_TOPIC_ANSWER, OFF_TOPIC_FACTS, enable_claim_level_score=True)


def json_fact_request() -> CheckRequest:
    return CheckRequest(JSON_ANSWER, JSON_FACTS, enable_claim_level_score=True)


def cjk_request(language: str) -> CheckRequest:
    """The paraphrase as the answer; the passage it paraphrases among 30 fillers."""
    claim, passage, fillers = CJK_CASES[language]
    facts = tuple(Fact(text) for text in (*fillers[:17], passage, *fillers[17:]))
    return CheckRequest(claim, facts, enable_claim_level_score=True)
