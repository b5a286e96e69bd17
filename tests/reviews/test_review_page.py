"""A review page: citations, sources, attribution, the sandboxed widget, and CSP."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest
from django.test import Client

from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from grounding_app.reviews.views import SUGGESTIONS_CSP
from tests.reviews.conftest import fixture_text

pytestmark = pytest.mark.django_db

Import = Callable[[str], Review]

XSS = '<script>window.__xss=1</script><img src=x onerror="window.__xss=1">'


def page_of(client: Client, review: Review) -> str:
    response = client.get(review.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def test_pages_send_a_strict_csp_with_a_nonce(reviewer_client: Client) -> None:
    response = reviewer_client.get("/reviews/new/")
    policy = response["Content-Security-Policy"]
    nonce = re.search(r"'nonce-([^']+)'", policy)[1]
    for directive in (
        "default-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "frame-src 'self'",
    ):
        assert directive in policy
    assert re.search(r"script-src 'self' 'nonce-[^']+'", policy)
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    assert response["X-Frame-Options"] == "DENY"
    body = response.content.decode()
    scripts = re.findall(r"<script[^>]*>", body)
    assert scripts == [
        f'<script src="/static/vendor/htmx.min.js" nonce="{nonce}" defer>',
        f'<script src="/static/js/workbench.js" nonce="{nonce}" defer>',
        f'<script src="/static/js/review.js" nonce="{nonce}" defer>',
    ]
    assert "</script>" in body and not re.search(r"<script[^>]*>[^<]", body)  # no inline code
    assert not re.search(r"\son[a-z]+=", body)  # no inline handlers
    assert re.search(r"<[^>]+\sstyle=", body) is None  # no inline styles either
    config = re.search(r'<meta name="htmx-config" content=\'([^\']+)\'>', body)[1]
    assert json.loads(config) == {
        "allowEval": False,
        "allowScriptTags": False,
        "historyCacheSize": 0,
        "historyRestoreAsHxRequest": False,
        "includeIndicatorStyles": False,
        "selfRequestsOnly": True,
    }
    assert re.search(r'<body hx-headers=\'\{"X-CSRFToken": "[^"]+"\}\'>', body)


def test_suggestions_are_served_unmodified_in_their_own_sandbox(
    import_payload: Import, reviewer_client: Client
) -> None:
    data = json.loads(fixture_text("gemini_web_search.json"))
    widget = data["candidates"][0]["groundingMetadata"]["searchEntryPoint"]["renderedContent"]
    review = import_payload(fixture_text("gemini_web_search.json"))
    url = f"/reviews/{review.public_id}/suggestions/0/0/"

    response = reviewer_client.get(url)
    assert response.status_code == 200
    # Google's HTML unchanged, after one <base> that sends chips to a new tab.
    assert response.content.decode() == f'<!doctype html><base target="_blank">{widget}'
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert response["Content-Security-Policy"] == (
        "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; "
        "style-src 'unsafe-inline'; img-src data: https:; base-uri 'none'; "
        "form-action 'none'; frame-ancestors 'self'"
    )
    assert response["Content-Security-Policy"] == SUGGESTIONS_CSP
    assert response["X-Frame-Options"] == "SAMEORIGIN"
    assert "Content-Security-Policy-Report-Only" not in response

    page = page_of(reviewer_client, review)
    frame = re.search(r"<iframe[^>]*>", page)[0]
    assert f'src="{url}"' in frame
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in frame
    assert "srcdoc" not in page and "allow-scripts" not in page
    assert "who won euro 2024" in page and "Web searches run" in page
    assert reviewer_client.get(f"/reviews/{review.public_id}/suggestions/0/1/").status_code == 404
    assert reviewer_client.get(f"/reviews/{review.public_id}/suggestions/1/0/").status_code == 404


def test_agent_attribution_is_next_to_the_claim(
    import_payload: Import, reviewer_client: Client
) -> None:
    review = import_payload(fixture_text("agent_session_output.json"))
    page = page_of(reviewer_client, review)
    answer = re.search(r'<section class="answer card".*?</section>', page, re.S)[0]
    link = (
        '<a href="https://science.nasa.gov/mission/hubble/overview/" '
        'rel="noopener noreferrer nofollow" target="_blank">Hubble Overview - NASA Science</a>'
    )
    assert f'<span class="ann attribution"><bdi>{link}</bdi></span>' in answer
    assert "Hubble - ESA" not in answer  # no attribution asked for
    assert page.count(link) == 2  # in the answer and the source list
    table_link = link.replace('">Hubble', '"><bdi>Hubble').replace("</a>", "</bdi></a>")
    assert page.count(table_link) == 1  # and in the claims table
    assert "attribution required" in page
    assert "hubble orbit altitude" in page


def test_markers_link_to_source_entries_and_back(
    import_payload: Import, reviewer_client: Client
) -> None:
    review = import_payload(fixture_text("gemini_web_search.json"))
    page = page_of(reviewer_client, review)
    anchors = re.findall(r'<a href="#(c0-src-\d+)" class="cite-link">', page)
    assert anchors and all(f'<li id="{a}" class="source">' in page for a in anchors)
    assert '<a href="#c0-claim-1">1</a>' in page  # "cited by" goes back to the claim


def _review_with(grounded: GroundedAnswer, user: object) -> Review:
    return services.save_review(user, grounded, source_format="agent")


def test_untrusted_text_is_escaped_everywhere(reviewer_client: Client, reviewer: object) -> None:
    text = f"Claim {XSS}."
    source = Source(
        text=f"chunk {XSS}",
        title=f"title {XSS}",
        uri="javascript:window.__xss=1",
        domain=f"dom {XSS}",
        requires_attribution=True,
        metadata={f"key {XSS}": f"value {XSS}"},
    )
    grounded = GroundedAnswer(
        format="agent",
        candidates=(
            Candidate(
                parts=(text,),
                segments=(Segment(0, 0, len(text.encode()), "", (0,)),),
                sources=(source, Source(uri="data:text/html,<script>alert(1)</script>")),
                web_search_queries=(f"query {XSS}",),
                search_suggestion_uris=("javascript:alert(1)",),
                search_entry_html=(XSS,),
            ),
        ),
    )
    review = _review_with(grounded, reviewer)
    page = page_of(reviewer_client, review)
    assert "<script>window" not in page and "<img src=x" not in page
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in page
    assert 'href="javascript:' not in page and 'href="data:' not in page
    assert "javascript:window.__xss=1" in page  # shown, as text


def test_hebrew_answer_is_marked_by_bytes_and_read_right_to_left(
    import_payload: Import, reviewer_client: Client
) -> None:
    review = import_payload(fixture_text("gemini_hebrew.json"))
    page = page_of(reviewer_client, review)
    first = review.result["candidates"][0]["segments"][0]
    part = review.result["candidates"][0]["parts"][first["part"]]
    claim_text = part.encode()[first["start"] : first["end"]].decode()
    glue = '<span class="ann" aria-hidden="true">\u2060</span>'  # no line break before it
    assert f'tabindex="0">{claim_text}</span>{glue}<sup class="ann cite"' in page
    assert '<div class="answer-part" dir="rtl">' in page


def test_two_candidates_are_both_shown(import_payload: Import, reviewer_client: Client) -> None:
    review = import_payload(fixture_text("gemini_two_candidates.json"))
    page = page_of(reviewer_client, review)
    assert "Candidate 1" in page and "Candidate 2" in page
    assert 'id="c1-src-1"' in page


def test_missing_review_is_404(reviewer_client: Client) -> None:
    response = reviewer_client.get("/reviews/00000000-0000-4000-8000-000000000000/")
    assert response.status_code == 404
    assert reviewer_client.get("/reviews/1/").status_code == 404  # ids are not sequential
