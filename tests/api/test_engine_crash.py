"""Issue 10: a claim the prefilter finds nothing for was answered 500 INTERNAL."""

from __future__ import annotations

import json

import pytest

from grounding_app.api.models import ApiKey
from grounding_app.engine import GroundingEngine
from grounding_app.formats.check_grounding_response import parse_check_response
from tests.engine.realistic import OFF_TOPIC_ANSWER, OFF_TOPIC_FACTS

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"

pytestmark = pytest.mark.django_db


def test_off_topic_claim_against_many_passages_is_unsupported(
    client, fake_engine: GroundingEngine
) -> None:
    body = {
        "answerCandidate": OFF_TOPIC_ANSWER,
        "facts": [{"factText": f.text, "attributes": f.attributes} for f in OFF_TOPIC_FACTS],
        "groundingSpec": {"enableClaimLevelScore": True},
    }
    response = client.post(
        URL,
        json.dumps(body),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("tests")[1]},
    )
    assert response.status_code == 200, response.content
    data = response.json()
    # Our extensions: the words of the unsupported claim that no fact backs, its
    # language and what judged it. The judge read the facts' openings (no claim is
    # declared unsupported unread) and found no support.
    (claim,) = data["claims"]
    assert claim.pop("unsupportedSpans")
    score = claim.pop("score")
    assert 0.0 < score < 0.1 and data.pop("supportScore") == score
    assert data == {
        "claims": [
            {
                "startPos": 0,
                "endPos": len(OFF_TOPIC_ANSWER.encode()),
                "claimText": OFF_TOPIC_ANSWER,
                "groundingCheckRequired": True,
                "language": "en",
                "checkedBy": "FEATURE_JUDGE",
            }
        ],
    }
    parse_check_response(data, OFF_TOPIC_ANSWER)
