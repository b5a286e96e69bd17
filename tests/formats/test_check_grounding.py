"""Table tests for the check-grounding wire format (SPEC §1)."""

from __future__ import annotations

import json
import time

import pytest
from google.cloud import discoveryengine_v1 as de

from grounding_app.engine import (
    DEFAULT_CITATION_THRESHOLD,
    MAX_ANSWER_TOKENS,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    count_tokens,
)
from grounding_app.formats.check_grounding import (
    MAX_ANSWER_BYTES,
    FormatError,
    decode_json_body,
    parse_check_request,
    request_to_json,
    response_to_json,
)


def _fact(text: str = "T is the capital of O", **attributes: str) -> dict[str, object]:
    return {"factText": text, "attributes": attributes}


# --- accepted requests ---------------------------------------------------------------


def test_camel_case_request():
    request = parse_check_request(
        {
            "groundingConfig": "projects/p/locations/global/groundingConfigs/default",
            "answerCandidate": "T is the capital of O.",
            "facts": [_fact(author="Encyclopedia")],
            "groundingSpec": {"citationThreshold": 0.7, "enableClaimLevelScore": True},
            "userLabels": {"team": "search"},
        }
    )
    assert request == CheckRequest(
        answer="T is the capital of O.",
        facts=(Fact("T is the capital of O", {"author": "Encyclopedia"}),),
        citation_threshold=0.7,
        enable_claim_level_score=True,
    )


def test_snake_case_request_is_the_same():
    camel = parse_check_request(
        {
            "answerCandidate": "A.",
            "facts": [{"factText": "A", "attributes": {"k": "v"}}],
            "groundingSpec": {"citationThreshold": 0.2, "enableClaimLevelScore": True},
            "userLabels": {"a": "b"},
        }
    )
    snake = parse_check_request(
        {
            "answer_candidate": "A.",
            "facts": [{"fact_text": "A", "attributes": {"k": "v"}}],
            "grounding_spec": {"citation_threshold": 0.2, "enable_claim_level_score": True},
            "user_labels": {"a": "b"},
        }
    )
    assert camel == snake


def test_defaults_and_nulls_mean_unset():
    expected = CheckRequest(answer="", facts=(), citation_threshold=DEFAULT_CITATION_THRESHOLD)
    assert parse_check_request({}) == expected
    assert (
        parse_check_request(
            {
                "answerCandidate": None,
                "facts": None,
                "groundingSpec": {"citationThreshold": None, "enableClaimLevelScore": None},
                "userLabels": None,
            }
        )
        == expected
    )
    assert parse_check_request({"facts": [{}]}).facts == (Fact(""),)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(0, 0.0), (1, 1.0), ("0.25", 0.25), ("1", 1.0), ("1e-1", 0.1), ("-0", 0.0), (0.5, 0.5)],
)
def test_threshold_as_number_or_numeric_string(raw, expected):
    request = parse_check_request({"groundingSpec": {"citationThreshold": raw}})
    assert request.citation_threshold == expected


def test_threshold_agrees_with_the_official_client_encoding():
    """What the client sends for a threshold round-trips through our parser."""
    spec = de.CheckGroundingSpec(citation_threshold=0.35, enable_claim_level_score=True)
    body = json.loads(de.CheckGroundingSpec.to_json(spec))
    request = parse_check_request({"groundingSpec": body})
    assert request.citation_threshold == pytest.approx(0.35)
    assert request.enable_claim_level_score is True


@pytest.mark.parametrize(
    "labels",
    [
        {},
        {"env": ""},
        {"a": "b", "team-1": "search_v2", "x" * 63: "y" * 63},
        {"équipe": "données", "検索": "東京", "צוות": "חיפוש"},
        {f"k{i}": "v" for i in range(64)},
    ],
)
def test_valid_labels(labels):
    parse_check_request({"userLabels": labels})


# --- refused requests: (body, field named in the error) ------------------------------

_BAD_TYPES = [
    ([], ""),
    ("text", ""),
    (None, ""),
    ({"answerCandidate": 3}, "answerCandidate"),
    ({"answerCandidate": ["a"]}, "answerCandidate"),
    ({"groundingConfig": {}}, "groundingConfig"),
    ({"facts": {"factText": "a"}}, "facts"),
    ({"facts": "a"}, "facts"),
    ({"facts": [None]}, "facts[0]"),
    ({"facts": ["a"]}, "facts[0]"),
    ({"facts": [{"factText": 1}]}, "facts[0].factText"),
    ({"facts": [_fact(), {"attributes": []}]}, "facts[1].attributes"),
    ({"facts": [{"attributes": {"author": 1}}]}, 'facts[0].attributes["author"]'),
    ({"facts": [{"attributes": {"author": None}}]}, 'facts[0].attributes["author"]'),
    ({"groundingSpec": []}, "groundingSpec"),
    ({"groundingSpec": {"citationThreshold": True}}, "groundingSpec.citationThreshold"),
    ({"groundingSpec": {"citationThreshold": "high"}}, "groundingSpec.citationThreshold"),
    ({"groundingSpec": {"citationThreshold": "inf"}}, "groundingSpec.citationThreshold"),
    ({"groundingSpec": {"citationThreshold": " 0.5"}}, "groundingSpec.citationThreshold"),
    ({"groundingSpec": {"citationThreshold": "1_0"}}, "groundingSpec.citationThreshold"),
    ({"groundingSpec": {"citationThreshold": [0.5]}}, "groundingSpec.citationThreshold"),
    (
        {"grounding_spec": {"enable_claim_level_score": 1}},
        "grounding_spec.enable_claim_level_score",
    ),
    ({"groundingSpec": {"enableClaimLevelScore": "true"}}, "groundingSpec.enableClaimLevelScore"),
    ({"userLabels": []}, "userLabels"),
    ({"userLabels": {"a": 1}}, 'userLabels["a"]'),
]


@pytest.mark.parametrize(("body", "field"), _BAD_TYPES)
def test_wrong_types_name_the_field(body, field):
    with pytest.raises(FormatError) as info:
        parse_check_request(body)
    assert info.value.field == field
    assert field in str(info.value)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"answer": "x"}, "answer"),
        ({"answerCandidate": "x", "extra": 1}, "extra"),
        ({"AnswerCandidate": "x"}, "AnswerCandidate"),
        ({"facts": [{"factText": "a", "source": "web"}]}, "facts[0].source"),
        ({"groundingSpec": {"threshold": 0.5}}, "groundingSpec.threshold"),
    ],
)
def test_unknown_fields_are_refused(body, field):
    with pytest.raises(FormatError, match="Unknown name") as info:
        parse_check_request(body)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"answerCandidate": "a", "answer_candidate": "a"}, "answer_candidate"),
        ({"facts": [{"fact_text": "a", "factText": "a"}]}, "facts[0].factText"),
        (
            {"groundingSpec": {"citationThreshold": 0.5, "citation_threshold": 0.5}},
            "groundingSpec.citation_threshold",
        ),
    ],
)
def test_both_spellings_of_one_field_are_refused(body, field):
    with pytest.raises(FormatError, match="same field") as info:
        parse_check_request(body)
    assert info.value.field == field


@pytest.mark.parametrize(
    "raw",
    [
        -0.01,
        1.0001,
        2,
        -1,
        pytest.param(10**400, id="huge-int"),
        pytest.param(-(10**400), id="huge-negative-int"),
        "1.5",
        "1e400",
        "NaN",
        "Infinity",
        "-Infinity",
    ],
)
def test_threshold_outside_unit_interval(raw):
    with pytest.raises(FormatError, match=r"\[0, 1\]") as info:
        parse_check_request({"groundingSpec": {"citationThreshold": raw}})
    assert info.value.field == "groundingSpec.citationThreshold"


def test_fact_limits():
    parse_check_request({"facts": [_fact("x" * 10_000)] * 200})
    with pytest.raises(FormatError, match="at most 200 facts") as info:
        parse_check_request({"facts": [_fact()] * 201})
    assert info.value.field == "facts"
    with pytest.raises(FormatError, match="10000 characters") as info:
        parse_check_request({"facts": [_fact(), _fact("é" * 10_001)]})
    assert info.value.field == "facts[1].factText"


def test_answer_token_limit():
    parse_check_request({"answerCandidate": "word " * 4096})
    with pytest.raises(FormatError, match="4096 tokens") as info:
        parse_check_request({"answerCandidate": "word " * 4097})
    assert info.value.field == "answerCandidate"


def test_answer_byte_limit_counts_utf8_bytes():
    parse_check_request({"answerCandidate": "a" * MAX_ANSWER_BYTES})  # one token
    parse_check_request({"answerCandidate": "é" * (MAX_ANSWER_BYTES // 2)})
    with pytest.raises(FormatError, match=f"at most {MAX_ANSWER_BYTES} bytes") as info:
        parse_check_request({"answerCandidate": "é" * (MAX_ANSWER_BYTES // 2) + "a"})
    assert info.value.field == "answerCandidate"
    assert f"got {MAX_ANSWER_BYTES + 1}" in info.value.message


@pytest.mark.parametrize(
    "sentence",
    [
        "The movie was released on December 19, 1997 and won eleven Academy Awards.",
        "Der Film wurde am 19. Dezember 1997 veröffentlicht und gewann elf Oscars.",
        "Фильм вышел 19 декабря 1997 года и получил одиннадцать премий «Оскар».",
        "הסרט יצא לאקרנים ב-19 בדצמבר 1997 וזכה באחד עשר פרסי אוסקר.",
        "这部电影于1997年12月19日上映\uff0c并获得了十一项奥斯卡奖。",
    ],
)
def test_real_text_at_the_token_limit_fits_the_byte_limit(sentence):
    per_sentence = count_tokens(sentence)
    answer = " ".join([sentence] * (MAX_ANSWER_TOKENS // per_sentence))
    assert MAX_ANSWER_TOKENS - per_sentence < count_tokens(answer) <= MAX_ANSWER_TOKENS
    assert parse_check_request({"answerCandidate": answer}).answer == answer


def test_a_huge_answer_of_few_tokens_is_refused_before_its_tokens_are_counted(monkeypatch):
    """Issue 10 item 9: 2,048 words of 7,000 letters (14.3 MB) held a worker for 16 s."""
    counted: list[str] = []

    def count_tokens(text: str) -> int:
        counted.append(text)
        return 1

    monkeypatch.setattr("grounding_app.formats.check_grounding.count_tokens", count_tokens)
    raw = json.dumps({"answerCandidate": " ".join(["a" * 7_000] * 2_048)}).encode()
    assert len(raw) > 14_000_000
    started = time.perf_counter()
    with pytest.raises(FormatError, match=f"at most {MAX_ANSWER_BYTES} bytes") as info:
        parse_check_request(decode_json_body(raw))
    assert time.perf_counter() - started < 0.5
    assert info.value.field == "answerCandidate"
    assert not counted


# proto3 JSON numbers as strings: ASCII JSON number syntax only. float() and int() would
# also take other scripts' digits, blanks and underscores.
_NUMBER_STRINGS = ["0", "1", "0.5", "5e-1", "5E-1", "0.1e+1", "-0", "1.0E0"]
_NOT_NUMBER_STRINGS = [
    "\u0661",  # ARABIC-INDIC DIGIT ONE
    "\uff10.5",  # FULLWIDTH DIGIT ZERO
    "0.\uff15",
    "\u0660.\u0665",
    "\u0967",  # DEVANAGARI DIGIT ONE
    "1e\u0661",
    "\U0001d7ce",  # MATHEMATICAL BOLD DIGIT ZERO
    "1_0",
    "0._5",
    " 0.5",
    "0.5 ",
    "0.5\n",
    "\u00a00.5",
    "+0.5",
    "0x1",
    "1/2",
    "",
    "-",
    ".",
    "e1",
    "inf",
    "-inf",
    "nan",
    "infinity",
    "NAN",
    "½",
    "\u00b2",  # SUPERSCRIPT TWO: a digit to str.isdigit, not to float
]


@pytest.mark.parametrize("raw", _NUMBER_STRINGS)
def test_numeric_strings_in_json_number_syntax_are_numbers(raw):
    threshold = parse_check_request({"groundingSpec": {"citationThreshold": raw}})
    assert threshold.citation_threshold == float(raw)


@pytest.mark.parametrize("raw", _NOT_NUMBER_STRINGS)
def test_other_strings_are_not_numbers(raw):
    with pytest.raises(FormatError, match="expected a number, got the string") as info:
        parse_check_request({"groundingSpec": {"citationThreshold": raw}})
    assert info.value.field == "groundingSpec.citationThreshold"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"answerCandidate": "ok \ud800"}, "answerCandidate"),
        ({"groundingConfig": "\udfff"}, "groundingConfig"),
        ({"facts": [_fact(), _fact("a\udc00b")]}, "facts[1].factText"),
        ({"facts": [{"attributes": {"author": "\ud83d"}}]}, 'facts[0].attributes["author"]'),
        ({"facts": [{"attributes": {"\ud83d": "x"}}]}, 'facts[0].attributes["\ud83d"]'),
        ({"userLabels": {"a": "\ud800"}}, 'userLabels["a"]'),
    ],
)
def test_lone_surrogates_are_refused(body, field):
    with pytest.raises(FormatError, match="surrogate") as info:
        parse_check_request(body)
    assert info.value.field == field


def test_paired_surrogate_escape_is_an_ordinary_character():
    body = decode_json_body(b'{"answerCandidate": "I like \\ud83d\\ude00."}')
    assert parse_check_request(body).answer == "I like \U0001f600."


@pytest.mark.parametrize(
    "labels",
    [
        {"": "v"},
        {"x" * 64: "v"},
        {"k": "v" * 64},
        {"Team": "v"},
        {"1team": "v"},
        {"_team": "v"},
        {"team": "Search"},
        {"team": "a b"},
        {"team.name": "v"},
        {"team": "a/b"},
        {f"k{i}": "v" for i in range(65)},
    ],
)
def test_invalid_labels(labels):
    with pytest.raises(FormatError) as info:
        parse_check_request({"userLabels": labels})
    assert info.value.field.startswith("userLabels")


# --- body decoding -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{", "Invalid JSON payload"),
        (b"", "Invalid JSON payload"),
        (b'{"a": 1} x', "Invalid JSON payload"),
        (b'{"a": NaN}', "NaN"),
        (b'{"a": 1, "a": 2}', 'Duplicate key "a"'),
        (b'{"answerCandidate": "caf\xe9"}', "UTF-8"),
        ('{"a": 1}'.encode("utf-16"), "UTF-8"),
        (b"[" * 100_000, "Invalid JSON payload"),
        (b'{"a": ' + b"1" * 5000 + b"}", "Invalid JSON payload"),
    ],
)
def test_bad_bodies(raw, message):
    with pytest.raises(FormatError, match=message):
        decode_json_body(raw)


def test_good_body():
    assert decode_json_body('{"a": ["é", 1.5, null]}'.encode()) == {"a": ["é", 1.5, None]}


@pytest.mark.parametrize(
    "request_",
    [
        CheckRequest(answer="", facts=()),
        CheckRequest(
            answer="T is the capital of O. Encyclopedia says so.",
            facts=(Fact("T is the capital of O", {"author": "Encyclopedia"}), Fact("")),
            citation_threshold=0.0,
            enable_claim_level_score=True,
        ),
    ],
)
def test_request_to_json_round_trips(request_):
    body = request_to_json(request_)
    assert parse_check_request(body) == request_
    proto = de.CheckGroundingRequest.from_json(json.dumps(body))
    assert "citation_threshold" in proto.grounding_spec
    assert proto.answer_candidate == request_.answer


# --- response ------------------------------------------------------------------------


def test_response_shape():
    response = CheckResponse(
        claims=(
            Claim(0, 22, "Here is what I found.", grounding_check_required=False),
            Claim(23, 61, "Titanic was directed by James Cameron.", True, (0,), score=0.98),
            Claim(62, 90, "It starred Brad Pitt.", True, (), score=0.01),
        ),
        cited_chunks=(
            CitedChunk("It was directed by James Cameron.", 0, {"author": "Simple Wikipedia"}),
            CitedChunk("An epic.", 12, {}),
        ),
        support_score=0.5,
    )
    assert response_to_json(response) == {
        "supportScore": 0.5,
        "citedChunks": [
            {
                "chunkText": "It was directed by James Cameron.",
                "source": "0",
                "sourceMetadata": {"author": "Simple Wikipedia"},
            },
            {"chunkText": "An epic.", "source": "12"},
        ],
        "citedFacts": [
            {"chunkText": "It was directed by James Cameron."},
            {"chunkText": "An epic."},
        ],
        "claims": [
            {
                "startPos": 0,
                "endPos": 22,
                "claimText": "Here is what I found.",
                "groundingCheckRequired": False,
            },
            {
                "startPos": 23,
                "endPos": 61,
                "claimText": "Titanic was directed by James Cameron.",
                "citationIndices": [0],
                "groundingCheckRequired": True,
                "score": 0.98,
            },
            {
                "startPos": 62,
                "endPos": 90,
                "claimText": "It starred Brad Pitt.",
                "groundingCheckRequired": True,
                "score": 0.01,
            },
        ],
    }


def test_empty_response_is_an_empty_object():
    assert response_to_json(CheckResponse(claims=(), cited_chunks=(), support_score=None)) == {}


def test_response_parses_as_the_official_proto():
    response = CheckResponse(
        claims=(Claim(0, 4, "Hi.", False), Claim(5, 9, "T.", True, (0,), score=0.0)),
        cited_chunks=(CitedChunk("T", 3, {"author": "E"}),),
        support_score=0.0,
    )
    proto = de.CheckGroundingResponse.from_json(json.dumps(response_to_json(response)))
    assert "support_score" in proto and proto.support_score == 0.0
    assert proto.cited_chunks[0].source == "3"
    assert dict(proto.cited_chunks[0].source_metadata) == {"author": "E"}
    first, second = proto.claims
    assert "start_pos" in first and first.start_pos == 0
    assert "grounding_check_required" in first and not first.grounding_check_required
    assert "score" not in first
    assert list(second.citation_indices) == [0]
    assert "score" in second and second.score == 0.0
