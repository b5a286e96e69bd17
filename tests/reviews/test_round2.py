"""Review round 2: reviewer verdicts (audited), filters, exports, expiry, views, storage."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from grounding_app.common.serialize import grounded_from_json
from grounding_app.engine import (
    CheckRequest,
    CheckResponse,
    CitedChunk,
    Claim,
    Fact,
    GroundingEngine,
)
from grounding_app.formats.from_check import grounded_from_check
from grounding_app.formats.grounding_jsonl import parse_example
from grounding_app.reviews import services
from grounding_app.reviews.models import Review, ReviewerVerdict, ReviewerVerdictChange

pytestmark = pytest.mark.django_db

FACT = Fact("Titanic was directed by James Cameron. It stars Kate Winslet.", {"author": "Wiki"})
ANSWER = "Titanic was directed by James Cameron. It starred Brad Pitt."


def film(user: object, answer: str = ANSWER) -> Review:
    first = answer.index(". ") + 1
    claims = (
        Claim(0, first, answer[:first], True, (0,), 0.97),
        Claim(first + 1, len(answer), answer[first + 1 :], True, (), 0.05),
    )
    request = CheckRequest(answer, (FACT,), 0.6, True)
    response = CheckResponse(claims, (CitedChunk(FACT.text, 0, {}),), 0.51)
    grounded = services.with_unsupported_words(grounded_from_check(request, response), request)
    return services.save_review(
        user, grounded, source_format=Review.Format.MANUAL, request=request, engine_checked=True
    )


def test_unsupported_words_are_stored_with_the_review(reviewer: object) -> None:
    review = film(reviewer)
    segment = grounded_from_json(review.result).candidates[0].segments[1]
    raw = ANSWER.encode()
    assert [raw[a:b].decode() for a, b in segment.unsupported] == ["Brad Pitt"]
    assert review.result["version"] == 3


def test_version_1_results_still_read(reviewer: object) -> None:
    review = film(reviewer)
    old = json.loads(json.dumps(review.result))
    old["version"] = 1
    for candidate in old["candidates"]:
        for segment in candidate["segments"]:
            del segment["unsupported"]
    segment = grounded_from_json(old).candidates[0].segments[1]
    assert segment.unsupported == () and segment.verdict == "unsupported"
    with pytest.raises(ValueError, match="version"):
        grounded_from_json({**old, "version": 99})


def test_check_and_save_marks_unsupported_words(
    reviewer: object, fake_engine: GroundingEngine
) -> None:
    review = services.check_and_save(reviewer, CheckRequest(ANSWER, (FACT,)))
    segments = grounded_from_json(review.result).candidates[0].segments
    for segment in segments:
        assert segment.unsupported == () or segment.verdict == "unsupported"


def test_the_page_underlines_unsupported_words(reviewer_client: Client, reviewer: object) -> None:
    review = film(reviewer)
    body = reviewer_client.get(review.get_absolute_url()).content.decode()
    assert body.count('<span class="unsupported-word">Brad Pitt</span>') == 2  # answer, table
    assert "Not in the evidence:" in body
    assert 'class="summary-bar"' in body and "1 supported" in body and "1 unsupported" in body
    assert "expires" in body


def test_view_switch_and_unsupported_filter(reviewer_client: Client, reviewer: object) -> None:
    review = film(reviewer, "**Titanic** was directed by James Cameron. It starred Brad Pitt.")
    url = review.get_absolute_url()
    rendered = reviewer_client.get(url).content.decode()
    assert "<strong>" in rendered and 'aria-current="true">Rendered' in rendered
    plain = reviewer_client.get(url + "?view=plain").content.decode()
    assert "**Titanic**" in plain and "<strong>" not in plain
    only = reviewer_client.get(url + "?only=unsupported").content.decode()
    assert 'id="c0-claim-2"' in only and 'id="c0-claim-1"' not in only
    assert "only-problems" in only and "Show all claims" in only


def test_reviewer_verdict_is_saved_apart_and_audited(
    reviewer_client: Client, reviewer: object
) -> None:
    review = film(reviewer)
    url = f"{review.get_absolute_url()}verdict/"
    form = reviewer_client.get(review.get_absolute_url() + "?verdict=0.2").content.decode()
    assert 'name="verdict"' in form and 'value="2"' in form
    response = reviewer_client.post(
        url, {"candidate": "0", "claim": "2", "verdict": "supported", "note": "Pitt was cast."}
    )
    assert response.status_code == 302 and response["Location"].endswith("#c0-claim-2")
    reviewer_client.post(url, {"candidate": "0", "claim": "2", "verdict": "unsupported"})
    [mine] = ReviewerVerdict.objects.all()
    assert (mine.verdict, mine.note, mine.model_verdict, mine.disagrees) == (
        "unsupported",
        "",
        "unsupported",
        False,
    )
    assert mine.set_by == reviewer
    changes = list(ReviewerVerdictChange.objects.values_list("previous_verdict", "verdict"))
    assert changes == [("", "supported"), ("supported", "unsupported")]
    assert all(c.changed_by == reviewer for c in ReviewerVerdictChange.objects.all())
    # the model's verdict is untouched
    assert grounded_from_json(review.result).candidates[0].segments[1].verdict == "unsupported"
    assert (
        reviewer_client.post(url, {"candidate": "0", "claim": "9", "verdict": ""}).status_code
        == 404
    )


def test_list_filters_reviews_where_the_reviewer_disagrees(
    reviewer_client: Client, reviewer: object
) -> None:
    agreed, disputed = film(reviewer), film(reviewer)
    services.set_reviewer_verdict(reviewer, agreed, 0, 2, "unsupported", "")
    services.set_reviewer_verdict(reviewer, disputed, 0, 2, "supported", "Cast later.")
    body = reviewer_client.get("/reviews/?disagrees=on").content.decode()
    assert str(disputed.public_id) in body and str(agreed.public_id) not in body


def test_exports_follow_the_filter(reviewer_client: Client, reviewer: object) -> None:
    disputed = film(reviewer)
    film(reviewer, "Titanic was directed by James Cameron. It starred Brad Pitt, no?")
    services.set_reviewer_verdict(reviewer, disputed, 0, 2, "supported", "=cmd|' /c calc'!A0")
    lines = b"".join(reviewer_client.get("/reviews/export.jsonl?disagrees=on").streaming_content)
    examples = [json.loads(line) for line in lines.decode().splitlines()]
    # Only the claim disagreed on, not the review's other claim.
    assert [e["meta"]["review"] for e in examples] == [str(disputed.public_id)]
    assert [e["label"] for e in examples] == [1]  # the reviewer's verdict wins
    assert [e["meta"]["label_from"] for e in examples] == ["reviewer"]
    assert examples[0]["meta"]["unsupported_spans"]
    for n, line in enumerate(lines.decode().splitlines()):
        parse_example(line, f"line {n + 1}")  # the shared schema's own reader
    everything = b"".join(reviewer_client.get("/reviews/export.csv").streaming_content)
    rows = list(csv.DictReader(io.StringIO(everything.decode())))
    assert len(rows) == 4
    notes = [r["reviewer_note"] for r in rows if r["reviewer_note"]]
    assert notes == ["'=cmd|' /c calc'!A0"]
    assert all(not v.startswith(("=", "+", "-", "@")) for r in rows for v in r.values())


def test_each_review_shows_when_it_expires(
    reviewer_client: Client, reviewer: object, settings: object
) -> None:
    review = film(reviewer)
    expected = review.created_at + timedelta(days=30)
    assert review.expires_at == expected
    body = reviewer_client.get("/reviews/").content.decode()
    assert f'class="expires" datetime="{expected:%Y-%m-%dT%H:%M:%S}' in body
    Review.objects.filter(pk=review.pk).update(created_at=timezone.now() - timedelta(days=31))
    assert reviewer_client.get(review.get_absolute_url()).status_code == 404


def test_exports_need_the_reviewer_role(client: Client, make_user: Callable[..., object]) -> None:
    client.force_login(make_user("annotator"))
    assert client.get("/reviews/export.jsonl").status_code == 403
    assert client.get("/reviews/export.csv").status_code == 403


def test_an_imported_response_gets_its_words_marked_lexically(
    import_payload: Callable[[str], Review],
) -> None:
    request = {
        "answerCandidate": ANSWER,
        "facts": [{"factText": FACT.text, "attributes": FACT.attributes}],
    }
    response = {
        "claims": [
            {
                "startPos": 0,
                "endPos": 38,
                "claimText": ANSWER[:38],
                "citationIndices": [0],
                "groundingCheckRequired": True,
            },
            {
                "startPos": 39,
                "endPos": len(ANSWER),
                "claimText": ANSWER[39:],
                "groundingCheckRequired": True,
            },
        ],
        "citedChunks": [{"chunkText": FACT.text, "source": "0"}],
    }
    review = import_payload(json.dumps({"request": request, "response": response}))
    segment = grounded_from_json(review.result).candidates[0].segments[1]
    raw = ANSWER.encode()
    assert [raw[a:b].decode() for a, b in segment.unsupported] == ["Brad Pitt"]
