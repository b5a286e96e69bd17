"""Review round 3 (issue 25): flags on the claim itself, claim text as the answer renders
it, one source card per document with the site's own name, and hostile query values."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.test import Client

from grounding_app.api.models import ApiKey
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import attach_to_review
from grounding_app.reviews import services
from grounding_app.reviews.inline import claim_html, claim_text
from grounding_app.reviews.models import Review
from tests.browser.pages import REDIRECT, _gemini_markdown

pytestmark = pytest.mark.django_db

MARKDOWN = "**Titanic** was directed by [James Cameron](https://example.org/cameron)."


def _claims_table(page: str) -> str:
    """The claims table as shown: without the copy buttons' raw text."""
    table = page[page.index('<table class="claims">') : page.index("</table>")]
    return re.sub(r' data-copy="[^"]*"', "", table)


def gemini(reviewer: object) -> Review:
    return services.import_and_save(reviewer, _gemini_markdown())


@pytest.mark.parametrize(
    ("text", "html", "plain"),
    [
        (MARKDOWN, "<strong>Titanic</strong> was directed by James Cameron.", None),
        ("## Titanic in brief", "Titanic in brief", None),
        ("- It premiered in `Paris`.", "It premiered in <code>Paris</code>.", None),
        ("<b>x</b> & ![a<b](http://i)", "&lt;b&gt;x&lt;/b&gt; &amp; a&lt;b", "<b>x</b> & a<b"),
        ("Plain text, nothing to render.", "Plain text, nothing to render.", None),
    ],
)
def test_claim_text_reads_as_the_answer_renders_it(text: str, html: str, plain: str | None) -> None:
    assert claim_html(text) == html
    assert claim_text(text) == (plain or re.sub(r"</?\w+>", "", html))


def test_the_claims_table_renders_markdown_as_the_answer_does(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    review = services.check_and_save(
        reviewer, CheckRequest(MARKDOWN, (Fact("Titanic was directed by James Cameron."),))
    )
    rendered = _claims_table(reviewer_client.get(review.get_absolute_url()).content.decode())
    assert "<strong>Titanic</strong> was directed by James Cameron." in rendered
    assert "**" not in rendered and "](https" not in rendered
    plain = reviewer_client.get(review.get_absolute_url() + "?view=plain").content.decode()
    assert "**Titanic**" in _claims_table(plain)  # the byte-exact view stays byte-exact


def test_the_review_list_shows_answers_without_their_markdown(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    services.check_and_save(reviewer, CheckRequest(MARKDOWN, (Fact("Titanic."),)))
    page = reviewer_client.get("/reviews/").content.decode()
    assert "Titanic was directed by James Cameron." in page
    assert "**Titanic**" not in page


def test_the_reviewers_verdict_and_policy_flags_are_on_the_claim(
    reviewer_client: Client, reviewer: object
) -> None:
    review = gemini(reviewer)
    services.set_reviewer_verdict(reviewer, review, 0, 1, "unsupported", "")
    policy = SourcePolicy.objects.create(name="No news", excluded_domains=["hr-news.example"])
    attach_to_review(review, policy, reviewer)
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    answer = page[page.index('class="answer card"') : page.index("</section>")]
    # The claim's last fragment carries the verdict (CSS draws it after the text).
    assert len(re.findall(r'data-claims="c0-claim-1"[^>]*data-mine="unsupported"', answer)) == 1
    # hr-news.example is source 4 (the web chunk without a domain): struck in the answer...
    assert re.search(r'class="cite-link is-excluded" title="[^"]*hr-news\.example">4', answer)
    # ...and named in the row of every claim citing it (claims 3 and 7).
    rows = re.findall(r'<tr id="(c0-claim-\d+)".*?</tr>', _claims_table(page), re.S)
    flagged = [
        anchor
        for anchor, row in zip(rows, re.split(r"<tr ", _claims_table(page))[1:], strict=True)
        if "source 4 is from an excluded domain" in row
    ]
    assert flagged == ["c0-claim-3", "c0-claim-7"]


def test_one_card_per_document_naming_the_site_not_the_redirect_host(
    reviewer_client: Client, reviewer: object
) -> None:
    review = gemini(reviewer)
    page = reviewer_client.get(review.get_absolute_url()).content.decode()
    sources = page[page.index('<ol class="sources">') : page.index("</ol>", page.index("sources"))]
    # Three passages of the HR policy share a card; each keeps the id its markers link to.
    assert sources.count("Remote Work Policy 2024") == 1
    assert all(f'id="c0-src-{n}" class="passage"' in sources for n in (1, 2, 3))
    assert sources.count('<li id="c0-src-') + sources.count("source-group") == 5
    assert 'Sources <span class="muted">5</span>' in page
    assert "vertexaisearch" not in sources.replace(REDIRECT, "")


def test_a_huge_verdict_parameter_is_ignored(reviewer_client: Client, reviewer: object) -> None:
    review = gemini(reviewer)
    response = reviewer_client.get(review.get_absolute_url() + "?verdict=0." + "9" * 5000)
    assert response.status_code == 200


def _current(page: str) -> list[str]:
    return re.findall(r'<a href="[^"]*" aria-current="page">([^<]+)</a>', page)


@pytest.mark.parametrize(
    ("path", "current"),
    [
        ("/reviews/", ["Reviews"]),
        ("/reviews/new/", ["New review"]),
        ("/reviews/import/", ["Import"]),
        ("/policies/", ["Policies"]),
        ("/policies/new/", ["Policies"]),
        ("/batch/", ["Batch"]),
        ("/annotations/", ["Labeling"]),
    ],
)
def test_the_nav_marks_the_section_you_are_in(
    reviewer_client: Client, path: str, current: list[str]
) -> None:
    page = reviewer_client.get(path).content.decode()
    assert _current(page) == current
    assert '<a href="/policies/"' in page
    # The first link on every page skips the top bar.
    assert page.index('class="skip-link" href="#main"') < page.index('class="topbar"')
    assert '<main id="main"' in page


def test_a_review_without_facts_says_so(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    empty = services.check_and_save(reviewer, CheckRequest("Titanic won 11 Oscars.", ()))
    assert "No facts were given" in reviewer_client.get(empty.get_absolute_url()).content.decode()
    full = services.check_and_save(reviewer, CheckRequest(MARKDOWN, (Fact("Titanic."),)))
    assert (
        "No facts were given" not in reviewer_client.get(full.get_absolute_url()).content.decode()
    )


def test_the_disagreements_export_holds_only_the_claims_disagreed_on(
    reviewer_client: Client, reviewer: object
) -> None:
    review = gemini(reviewer)
    services.set_reviewer_verdict(reviewer, review, 0, 2, "unsupported", "")
    rows = list(
        csv.DictReader(
            io.StringIO(
                b"".join(
                    reviewer_client.get("/reviews/export.csv?disagrees=on").streaming_content
                ).decode()
            )
        )
    )
    assert [(r["claim"], r["disagrees"]) for r in rows] == [("2", "yes")]
    jsonl = b"".join(reviewer_client.get("/reviews/export.jsonl?disagrees=on").streaming_content)
    assert [json.loads(line)["meta"]["claim_index"] for line in jsonl.splitlines()] == [1]


def test_a_defused_claim_cell_says_how_to_read_it_back(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    answer = "Titanic facts:\n\n- Titanic won 11 Academy Awards.\n- It was made in 1997."
    services.check_and_save(reviewer, CheckRequest(answer, (Fact("Titanic won 11 awards."),)))
    body = b"".join(reviewer_client.get("/reviews/export.csv").streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    review = Review.objects.get()
    answer = review.answer.encode()
    for row in rows:
        text = answer[int(row["start"]) : int(row["end"])].decode()
        if row["claim_text_guard"]:
            assert row["claim_text"] == "'" + text
            assert "drop it" in row["claim_text_guard"]
        else:
            assert row["claim_text"] == text
    assert any(row["claim_text_guard"] for row in rows)


def test_the_api_example_is_this_reviews_request(
    reviewer_client: Client, reviewer: object, fake_engine: GroundingEngine
) -> None:
    answer = "Titanic was directed by James Cameron.\nJSON\nIt won 11 Oscars."
    review = services.check_and_save(
        reviewer, CheckRequest(answer, (Fact("Titanic.", {"author": "Wiki"}),), 0.7)
    )
    example = services.api_example(review, "https://grounding.example")
    command, _, rest = example.partition("<<'JSON'\n")
    assert "https://grounding.example/v1/projects/-/locations/global/groundingConfigs/" in command
    body = json.loads(rest.removesuffix("\nJSON"))  # the answer's own "JSON" line is escaped
    assert body == {
        "answerCandidate": answer,
        "facts": [{"factText": "Titanic.", "attributes": {"author": "Wiki"}}],
        "groundingSpec": {"citationThreshold": 0.7, "enableClaimLevelScore": True},
    }
    assert services.api_example(gemini(reviewer), "https://grounding.example") == ""
    # The command works: its URL and body, sent with a key, are answered by the check API.
    path = command.split('"')[1].removeprefix("https://grounding.example")
    answer_of = Client().post(
        path,
        json.dumps(body),
        content_type="application/json",
        headers={"x-goog-api-key": ApiKey.issue("docs")[1]},
    )
    assert answer_of.status_code == 200 and answer_of.json()["claims"]
