"""Review round 2 in chromium: Markdown, unsupported words, long answers, reviewer
verdicts, exports and expiry. The screenshot test (slow) redraws docs/img/review-md-*.png."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from grounding_app.engine import CheckRequest, ClaimToExplain, Fact, unsupported_spans, utf8_len
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from grounding_app.reviews import services
from grounding_app.reviews.models import Review
from tests.browser.conftest import Session
from tests.browser.shots import fits, lit, shows
from tests.rendering.test_markdown import MARKDOWN_PAYLOADS

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"

FACTS = (
    Fact(
        "Titanic is a 1997 American epic romantic disaster movie. It was directed, written, "
        "and co-produced by James Cameron. It stars Kate Winslet and Leonardo DiCaprio. "
        "The movie won 11 Academy Awards.",
        {"author": "Simple Wikipedia", "uri": "https://simple.wikipedia.org/wiki/Titanic"},
    ),
)
# (separator before, sentence, verdict, score)
FILM_MD = (
    ("", "## Titanic in brief", "no_check", None),
    (
        "\n\n",
        "**Titanic** was directed by [James Cameron](https://example.org/cameron).",
        "supported",
        0.97,
    ),
    ("\n\n- ", "It starred Brad Pitt and Kate Winslet.", "unsupported", 0.04),
    ("\n- ", "It won 11 Academy Awards.", "supported", 0.91),
    ("\n- ", "It premiered in `Paris` in 1996.", "unsupported", 0.12),
    ("\n\n", "The director also made *Avatar*, a 2009 film.", "unsupported", 0.55),
)
HEBREW_MD = (
    ("", "## טיטאניק", "no_check", None),
    ("\n\n", "**טיטאניק** בוים על ידי ג'יימס קמרון.", "supported", 0.93),
    ("\n\n- ", "בסרט שיחקו בראד פיט וקייט וינסלט.", "unsupported", 0.06),
    ("\n- ", "הסרט זכה ב-11 פרסי אוסקר.", "supported", 0.88),
)
HEBREW_FACTS = (
    Fact(
        "טיטאניק הוא סרט משנת 1997 שבוים על ידי ג'יימס קמרון. בסרט שיחקו קייט וינסלט "
        "ולאונרדו דיקפריו. הסרט זכה ב-11 פרסי אוסקר.",
        {"author": "ויקיפדיה"},
    ),
)


def make_review(
    user: object,
    pieces: Sequence[tuple[str, str, str, float | None]],
    facts: Sequence[Fact] = FACTS,
) -> Review:
    """A saved review of a Markdown answer with the given verdicts (no engine run)."""
    answer, segments = "", []
    for separator, sentence, _, _ in pieces:
        answer += separator
        segments.append((utf8_len(answer), sentence))
        answer += sentence
    unsupported = [
        ClaimToExplain(s, start)
        for (start, s), (_, _, verdict, _) in zip(segments, pieces, strict=True)
        if verdict == "unsupported"
    ]
    found = iter(unsupported_spans(unsupported, [f.text for f in facts]))
    built = []
    for (start, sentence), (_, _, verdict, score) in zip(segments, pieces, strict=True):
        cited = (0,) if verdict == "supported" else ()
        words = next(found) if verdict == "unsupported" else ()
        built.append(
            Segment(
                0, start, start + utf8_len(sentence), sentence, cited, verdict, score, (), words
            )  # type: ignore[arg-type]
        )
    sources = (Source(text=facts[0].text, title=facts[0].attributes["author"], fact_index=0),)
    grounded = GroundedAnswer(
        "check_grounding", (Candidate((answer,), tuple(built), sources, support_score=0.5),)
    )
    return services.save_review(
        user,
        grounded,
        source_format=Review.Format.MANUAL,
        request=CheckRequest(answer, tuple(facts), 0.6, True),
        engine_checked=True,
    )


def long_review(user: object, claims: int = 200) -> Review:
    pieces = []
    for i in range(claims):
        verdict = ("supported", "supported", "unsupported", "no_check")[i % 4]
        score = None if verdict == "no_check" else (0.9 if verdict == "supported" else 0.1)
        separator = "" if i == 0 else ("\n\n- " if i % 20 == 0 else ("\n- " if i % 5 == 0 else " "))
        sentence = f"Item {i}: the movie **won {i % 12} awards** in {1990 + i % 30}."
        pieces.append((separator, sentence, verdict, score))
    return make_review(user, pieces)


def test_markdown_is_rendered_and_the_plain_view_stays_byte_exact(
    open_session: Callable[..., Session],
) -> None:
    session = open_session(javascript=False)
    review = make_review(session.user, FILM_MD)
    session.goto(review.get_absolute_url())
    page = session.page
    answer = page.locator(".answer-part.answer-md")
    assert answer.locator("h2").inner_text().startswith("Titanic in brief")
    assert answer.locator("strong").first.inner_text() == "Titanic"
    assert answer.locator("li").count() == 3
    assert answer.locator("code").inner_text() == "Paris"
    link = answer.locator("a[href='https://example.org/cameron']")
    assert link.get_attribute("rel") == "noopener noreferrer nofollow"
    # every claim's marker is there, also the one after the code span
    assert answer.locator(".ann.sr-only").count() == len(FILM_MD)
    assert answer.locator(".unsupported-word", has_text="Brad Pitt").count() == 1
    page.get_by_role("link", name="Plain", exact=True).click()
    plain = page.locator(".answer-part").first
    assert "**Titanic**" in plain.inner_text() and plain.locator("strong").count() == 0
    assert page.locator(".answer-part .unsupported-word", has_text="Brad Pitt").count() == 1
    page.get_by_role("link", name="Rendered", exact=True).click()
    assert page.locator(".answer-md strong").count() >= 1


def test_markdown_payloads_never_run(open_session: Callable[..., Session]) -> None:
    session = open_session()
    pieces = [("", "Intro **text**.", "supported", 0.9)]
    pieces += [(" ", f"{p} End.", "unsupported", 0.1) for p in MARKDOWN_PAYLOADS]
    review = make_review(session.user, pieces)
    session.goto(review.get_absolute_url())
    page = session.page
    page.wait_for_selector(".answer-md")
    for link in page.locator(".answer a").all():
        href = link.get_attribute("href") or ""
        assert href.startswith(("http://", "https://", "#")), href
    assert page.locator(".answer img, .answer script, .answer iframe, .answer svg").count() == 0
    for claim in page.locator(".answer .claim").all()[:10]:
        claim.hover()
    session.no_xss()


def test_j_and_k_jump_between_unsupported_claims(open_session: Callable[..., Session]) -> None:
    session = open_session()
    review = make_review(session.user, FILM_MD)
    session.goto(review.get_absolute_url())
    page = session.page
    page.wait_for_selector(".answer-md")

    def focused() -> str:
        return page.evaluate(
            "() => document.activeElement.getAttribute('data-claims') || document.activeElement.id"
        )

    page.keyboard.press("j")
    assert focused() == "c0-claim-3"
    page.keyboard.press("j")
    assert focused() == "c0-claim-5"
    page.keyboard.press("j")
    assert focused() == "c0-claim-6"
    page.keyboard.press("k")
    assert focused() == "c0-claim-5"
    assert "Unsupported claim 2 of 3" in page.locator("#jump-status").inner_text()
    session.no_xss()


def test_unsupported_only_summary_bar_and_score_underlines(
    open_session: Callable[..., Session],
) -> None:
    session = open_session(javascript=False)
    review = make_review(session.user, FILM_MD)
    session.goto(review.get_absolute_url())
    page = session.page
    legend = page.locator(".summary-legend").inner_text()
    assert "2 supported" in legend and "3 unsupported" in legend and "1 no check needed" in legend
    assert page.locator(".summary-svg rect").count() == 3
    # the score is printed beside the underline, so colour is never the only signal
    assert page.locator(".answer .score-tag.s-low").count() == 2
    assert (
        page.locator(".answer .claim.s-low").first.evaluate(
            "el => getComputedStyle(el).textDecorationStyle"
        )
        == "dotted"
    )
    page.get_by_role("link", name="Unsupported only").click()
    rows = page.locator(".claims tbody tr")
    assert rows.count() == 3
    assert all("is-problem" in (r.get_attribute("class") or "") for r in rows.all())
    page.get_by_role("link", name="Show all claims").click()
    assert page.locator(".claims tbody tr").count() == len(FILM_MD)


def test_reviewer_verdict_filter_export_and_expiry(open_session: Callable[..., Session]) -> None:
    session = open_session(javascript=False)
    page = session.page
    agreed = make_review(session.user, FILM_MD)
    disputed = make_review(session.user, FILM_MD)
    session.goto(disputed.get_absolute_url())
    assert page.locator(".review-meta .expires").inner_text().startswith("expires")
    row = page.locator("#c0-claim-3")
    row.get_by_role("link", name="Set verdict").click()
    form = page.locator("#c0-claim-3 form.verdict-form")
    form.locator("select[name=verdict]").select_option("supported")
    form.locator("textarea[name=note]").fill("Pitt was cast in an early draft.")
    form.get_by_role("button", name="Save verdict").click()
    row = page.locator("#c0-claim-3")
    assert "Supported" in row.locator("td.mine").inner_text()
    assert "disagrees" in row.locator("td.mine").inner_text()
    assert "Pitt was cast" in row.locator("td.mine").inner_text()

    session.goto("/reviews/")
    assert page.locator("table.reviews-table tbody tr").count() == 2
    assert page.locator("td time.expires").count() == 2
    page.locator("#id_disagrees").check()
    page.get_by_role("button", name="Filter").click()
    rows = page.locator("table.reviews-table tbody tr")
    assert rows.count() == 1 and str(disputed.public_id) in rows.first.inner_html()
    assert str(agreed.public_id) not in page.content()
    with page.expect_download() as download:
        page.get_by_role("link", name="JSONL").click()
    lines = Path(download.value.path()).read_text(encoding="utf-8").splitlines()
    examples = [json.loads(line) for line in lines]
    assert {e["meta"]["review"] for e in examples} == {str(disputed.public_id)}
    assert [e["label"] for e in examples if e["meta"]["label_from"] == "reviewer"] == [1]
    with page.expect_download() as download:
        page.get_by_role("link", name="CSV").click()
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert text.startswith("review,url,created_at,expires_at") and "Pitt was cast" in text


@pytest.mark.slow
def test_round2_screenshots(open_session: Callable[..., Session]) -> None:
    """docs/img/review-md-light.png, -dark.png, -hebrew.png and -200-claims.png."""
    IMG.mkdir(exist_ok=True)
    session = open_session(name="rina")
    page = session.page
    page.set_viewport_size({"width": 1360, "height": 900})
    film = make_review(session.user, FILM_MD)
    services.set_reviewer_verdict(session.user, film, 0, 3, "supported", "Cast in a draft.")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        session.goto(film.get_absolute_url())
        page.keyboard.press("j")
        page.wait_for_timeout(300)
        # Markdown rendered (heading, list, code), the first unsupported claim jumped to.
        shows(page.locator(".answer-md h2"), "Titanic in brief")
        assert page.locator(".answer-md li").count() == 3
        shows(page.locator(".answer-md code"), "Paris")
        shows(page.locator("#jump-status"), "Unsupported claim 1 of 3")
        lit(page.locator(".is-jumped").first)
        shows(page.locator(".claims"), "Cast in a draft.")
        fits(page)
        page.screenshot(path=str(IMG / f"review-md-{scheme}.png"), full_page=True)
    page.emulate_media(color_scheme="light")
    hebrew = make_review(session.user, HEBREW_MD, HEBREW_FACTS)
    session.goto(hebrew.get_absolute_url())
    page.wait_for_timeout(300)
    heading = page.locator(".answer-md h2")
    shows(heading, "טיטאניק")
    assert heading.evaluate("(h) => getComputedStyle(h).direction") == "rtl"
    assert page.locator(".answer-md li").count() == 2
    fits(page)
    page.screenshot(path=str(IMG / "review-md-hebrew.png"), full_page=True)
    long = long_review(session.user)
    session.goto(long.get_absolute_url() + "?only=unsupported")
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.wait_for_timeout(300)
    # The unsupported claims stand out of 200, the second one jumped to and ringed.
    shows(page.locator("#jump-status"), "Unsupported claim 2 of 50")
    shows(page.locator(".is-jumped").first, "Item 6")
    shows(page.locator("main"), "50 unsupported", "Show all claims")
    fits(page)
    page.screenshot(path=str(IMG / "review-md-200-claims.png"))
    session.no_xss()
