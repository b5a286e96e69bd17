"""The official google-cloud-discoveryengine client, REST transport, against a live server.

SPEC §1 promises that existing clients work unchanged when pointed at us; these tests
are that promise. The REST transport keeps an `http://` scheme given in `api_endpoint`
and sends `client_options.api_key` as `x-goog-api-key`.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from google.api_core import exceptions
from google.cloud import discoveryengine_v1 as de

from grounding_app.active_verifier.checker import Checker, serving
from grounding_app.api.models import ApiKey
from grounding_app.engine import (
    VERIFIER,
    WORD_MATCHING,
    Band,
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    FeatureJudge,
    GroundingEngine,
    HashingEncoder,
    split_claims,
)
from grounding_app.formats.check_grounding import response_to_json
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge
from grounding_app.llm_judge.ledger import DatabaseLedger
from tests.conftest import FAKE_JUDGE_BIAS, FAKE_JUDGE_WEIGHTS, check_with
from tests.llm_judge.chat_server import Step, answer, chat_server

pytestmark = pytest.mark.django_db(transaction=True)

CONFIG = "projects/p/locations/global/groundingConfigs/default_grounding_config"
FILM_FACTS = [
    de.GroundingFact(
        fact_text=(
            "Titanic is a 1997 American epic romantic disaster movie. It was directed, "
            "written, and co-produced by James Cameron. The movie is about the 1912 sinking "
            "of the RMS Titanic. It stars Kate Winslet and Leonardo DiCaprio. The movie was "
            "released on December 19, 1997. It received positive critical reviews. The movie "
            "won 11 Academy Awards, and was nominated for fourteen total Academy Awards."
        ),
        attributes={"author": "Simple Wikipedia"},
    ),
    de.GroundingFact(
        fact_text=(
            'James Cameron\'s "Titanic" is an epic, action-packed romance set against the '
            "ill-fated maiden voyage of the R.M.S. Titanic; the pride and joy of the White Star "
            "Line and, at the time, the largest moving object ever built. She was the most "
            'luxurious liner of her era -- the "ship of dreams" -- which ultimately carried '
            "over 1,500 people to their death in the ice cold waters of the North Atlantic in "
            "the early hours of April 15, 1912."
        ),
        attributes={"author": "Rotten Tomatoes"},
    ),
]
ANSWER = (
    "Here is what I found. Titanic was directed by James Cameron. "
    "It starred Brad Pitt and Kate Winslet."
)


@contextmanager
def make_client(url: str, key: str) -> Iterator[de.GroundedGenerationServiceClient]:
    """A client whose keep-alive connections are closed, and served out, on exit.

    Otherwise the live server's request threads linger until the session ends and then
    close a test database connection that is no longer shared with them.
    """
    client = de.GroundedGenerationServiceClient(
        transport="rest", client_options={"api_endpoint": url, "api_key": key}
    )
    try:
        yield client
    finally:
        client.transport.close()
        gc.collect()  # responses in reference cycles still hold their sockets open
        for thread in threading.enumerate():
            if thread.name.endswith("(process_request_thread)"):
                thread.join(timeout=10)


def check(client: de.GroundedGenerationServiceClient, **fields: object):
    return client.check_grounding(
        request=de.CheckGroundingRequest(grounding_config=CONFIG, **fields)
    )


@pytest.fixture
def client(live_server) -> Iterator[de.GroundedGenerationServiceClient]:
    with make_client(live_server.url, ApiKey.issue("client tests")[1]) as client:
        yield client


def test_transport_round_trip_with_a_fake_engine(client, monkeypatch):
    """Our JSON parses into the client's proto: presence fields, string source, maps."""
    seen: list[CheckRequest] = []

    def fake_check(request: CheckRequest) -> CheckResponse:
        seen.append(request)
        return CheckResponse(
            claims=(
                Claim(0, 21, "Here is what I found.", False),
                Claim(22, 60, "Titanic was directed by James Cameron.", True, (0, 1), 0.97),
                Claim(61, 99, "It starred Brad Pitt and Kate Winslet.", True, (), 0.0),
            ),
            cited_chunks=(
                CitedChunk("It was directed by James Cameron.", 0, {"author": "Simple Wikipedia"}),
                CitedChunk("James Cameron's Titanic", 1, {}),
            ),
            support_score=0.5,
        )

    check_with(monkeypatch, fake_check)
    response = check(
        client,
        answer_candidate=ANSWER,
        facts=FILM_FACTS,
        grounding_spec=de.CheckGroundingSpec(citation_threshold=0.3, enable_claim_level_score=True),
        user_labels={"team": "search"},
    )

    request = seen[0]
    assert request.answer == ANSWER
    assert [fact.attributes["author"] for fact in request.facts] == [
        "Simple Wikipedia",
        "Rotten Tomatoes",
    ]
    assert request.citation_threshold == pytest.approx(0.3)
    assert request.enable_claim_level_score is True

    assert response.support_score == pytest.approx(0.5)
    assert [chunk.source for chunk in response.cited_chunks] == ["0", "1"]
    assert dict(response.cited_chunks[0].source_metadata) == {"author": "Simple Wikipedia"}
    assert [fact.chunk_text for fact in response.cited_facts] == [
        chunk.chunk_text for chunk in response.cited_chunks
    ]
    first, second, third = response.claims
    assert "start_pos" in first and first.start_pos == 0 and first.end_pos == 21
    assert "grounding_check_required" in first and not first.grounding_check_required
    assert "score" not in first
    assert (second.start_pos, second.end_pos) == (22, 60)
    assert list(second.citation_indices) == [0, 1]
    assert second.grounding_check_required and second.score == pytest.approx(0.97)
    assert list(third.citation_indices) == []
    assert "score" in third and third.score == 0.0


def error_of(client: de.GroundedGenerationServiceClient, **fields: object):
    """The exception class a failing call raises and the error envelope it carried.

    The exception itself is not returned: it holds the client's connection open.
    """
    with pytest.raises(exceptions.GoogleAPICallError) as info:
        check(client, **fields)
    return type(info.value), info.value.response.json()["error"]


def test_wrong_key_raises_unauthorized(live_server):
    ApiKey.issue("someone else")
    with make_client(live_server.url, "gwk_not-a-key") as client:
        kind, error = error_of(client, answer_candidate="A.")
    assert issubclass(kind, exceptions.Unauthorized)
    assert error["status"] == "UNAUTHENTICATED"


def test_over_limit_request_raises_bad_request(client):
    kind, error = error_of(client, answer_candidate="A.", facts=[FILM_FACTS[0]] * 201)
    assert issubclass(kind, exceptions.BadRequest)
    assert error["status"] == "INVALID_ARGUMENT"
    assert "facts" in error["message"]


def test_film_example_with_the_real_engine(client):
    response = check(client, answer_candidate=ANSWER, facts=FILM_FACTS)

    assert [claim.claim_text for claim in response.claims] == [
        "Here is what I found.",
        "Titanic was directed by James Cameron.",
        "It starred Brad Pitt and Kate Winslet.",
    ]
    found, directed, starred = response.claims
    # Byte offsets into the (ASCII) answer, end exclusive.
    for claim in response.claims:
        assert ANSWER.encode()[claim.start_pos : claim.end_pos].decode() == claim.claim_text

    assert "grounding_check_required" in found and not found.grounding_check_required
    assert list(found.citation_indices) == []

    assert directed.grounding_check_required
    assert directed.citation_indices
    assert "0" in {response.cited_chunks[i].source for i in directed.citation_indices}

    assert starred.grounding_check_required
    assert list(starred.citation_indices) == []  # half right is wrong

    assert 0.0 < response.support_score < 1.0


def test_the_official_client_parses_our_extensions(client, monkeypatch):
    """`unsupportedSpans`, `language`, `checkedBy`, `contextClaimIndices` and
    `calibration` are our extensions on claims: the
    proto client must still parse the response (it ignores unknown fields), and the spans
    are UTF-8 byte offsets. The spans are the engine's, which formats only encodes."""
    answer = (
        "Titanic was directed by James Cameron. It starred Brad Pitt 🎬 and Kate Winslet."
        " הסרט זכה ב-11 פרסי אוסקר."
    )
    second = answer.index("It")
    third = answer.index("הסרט")
    start = len(answer[:second].encode())
    hebrew = len(answer[:third].encode())
    pitt = len(answer[: answer.index("Brad")].encode())

    def fake_check(request: CheckRequest) -> CheckResponse:
        return CheckResponse(
            claims=(
                Claim(
                    0,
                    start - 1,
                    answer[: second - 1],
                    True,
                    (0,),
                    0.97,
                    "en",
                    VERIFIER,
                    scale="groundingConfigs/films/calibrations/3",
                ),
                Claim(
                    start,
                    hebrew - 1,
                    answer[second : third - 1],
                    True,
                    (),
                    0.02,
                    "en",
                    VERIFIER,
                    ((pitt, pitt + len(b"Brad Pitt")),),
                    context_claims=(0,),
                ),
                Claim(
                    hebrew, len(answer.encode()), answer[third:], True, (), 0.4, "he", WORD_MATCHING
                ),
            ),
            cited_chunks=(CitedChunk("It was directed by James Cameron.", 0, {}),),
            support_score=0.5,
        )

    check_with(monkeypatch, fake_check)
    seen = []
    original = response_to_json

    def spy(resp):
        seen.append(original(resp))
        return seen[-1]

    monkeypatch.setattr("grounding_app.api.views.response_to_json", spy)
    response = check(client, answer_candidate=answer, facts=FILM_FACTS)

    assert [claim.claim_text for claim in response.claims] == [
        answer[: second - 1],
        answer[second : third - 1],
        answer[third:],
    ]
    assert list(response.claims[1].citation_indices) == []
    spans = seen[0]["claims"][1]["unsupportedSpans"]
    raw = answer.encode()
    assert [raw[s["startPos"] : s["endPos"]].decode() for s in spans] == ["Brad Pitt"]
    assert "unsupportedSpans" not in seen[0]["claims"][0]
    # "It starred ..." was read with the claim before it, which resolved "It".
    assert seen[0]["claims"][1]["contextClaimIndices"] == [0]
    assert "contextClaimIndices" not in seen[0]["claims"][0]
    # The first claim's score is on the films config's own scale.
    assert seen[0]["claims"][0]["calibration"] == "groundingConfigs/films/calibrations/3"
    assert "calibration" not in seen[0]["claims"][1]
    assert response.claims[0].score == pytest.approx(0.97)
    assert [(c["language"], c["checkedBy"]) for c in seen[0]["claims"]] == [
        ("en", "VERIFIER"),
        ("en", "VERIFIER"),
        ("he", "WORD_MATCHING"),
    ]


def test_the_official_client_parses_why_structure_is_no_claim(client, monkeypatch):
    """`noCheckReason` on a table's header and rule rows and on code: parsed all the
    same, with `groundingCheckRequired` false there, and the data row a claim."""
    answer = "| Film | Year |\n|---|---|\n| Titanic | 1997 |\n\n```\nx = 1\n```"

    def fake_check(request: CheckRequest) -> CheckResponse:
        claims = tuple(
            Claim(
                s.start,
                s.end,
                s.text,
                s.no_check_reason is None,
                (0,) if s.no_check_reason is None else (),
                no_check_reason=s.no_check_reason,
            )
            for s in split_claims(answer)
        )
        chunks = (CitedChunk("Titanic is a 1997 film.", 0, {}),)
        return CheckResponse(claims=claims, cited_chunks=chunks, support_score=1.0)

    check_with(monkeypatch, fake_check)
    response = check(client, answer_candidate=answer, facts=FILM_FACTS)
    assert [(c.claim_text, c.grounding_check_required) for c in response.claims] == [
        ("| Film | Year |", False),
        ("|---|---|", False),
        ("| Titanic | 1997 |", True),
        ("```\nx = 1\n```", False),
    ]


def test_the_official_client_parses_the_llm_judges_fields(client, monkeypatch):
    """`checkedBy: LLM_JUDGE` where the LLM judge decided and `llmJudge` where it failed
    (here a 429): the whole path, the engine's hook calling a local chat server."""
    encoder = HashingEncoder()
    engine = GroundingEngine(encoder, FeatureJudge(encoder, FAKE_JUDGE_WEIGHTS, FAKE_JUDGE_BIAS))
    seen = []
    original = response_to_json

    def spy(resp):
        seen.append(original(resp))
        return seen[-1]

    monkeypatch.setattr("grounding_app.api.views.response_to_json", spy)
    script = (answer("unsupported", ("Brad Pitt",)), Step(status=429))
    with chat_server(*script) as server:
        judge = LLMJudge(
            Endpoint(server.url, "m"), Band(everything=True), DatabaseLedger(), concurrency=1
        )
        with serving(Checker(engine, judge)):
            response = check(
                client,
                answer_candidate="It starred Brad Pitt and Kate Winslet. Titanic won 11 awards.",
                facts=FILM_FACTS,
                grounding_spec=de.CheckGroundingSpec(enable_claim_level_score=True),
            )
    assert len(server.requests) == 2
    assert [c.claim_text for c in response.claims] == [
        "It starred Brad Pitt and Kate Winslet.",
        "Titanic won 11 awards.",
    ]
    assert response.claims[0].score == 0.0
    assert [(c["checkedBy"], c.get("llmJudge")) for c in seen[0]["claims"]] == [
        ("LLM_JUDGE", None),
        ("FEATURE_JUDGE", "fell back: http 429"),
    ]
