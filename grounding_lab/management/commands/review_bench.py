"""Time the server side of showing a big saved review (target at most 200 ms).

Builds a review with N claims citing N facts directly (no engine run), then fetches its
page through the whole Django stack (middleware, session, template) with the test
client, and prints the median. By default the answer is Markdown (list items, bold,
code spans, links; the unsupported claims with underlined words), rendered through
markdown-it-py and bleach; `--plain` times the plain-text answer of the first release.
Everything it writes is rolled back.
"""

from __future__ import annotations

import statistics

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.test import Client

from grounding_app.engine import CheckRequest, Fact, utf8_len
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import save_review
from grounding_lab.pages import bench_sentences, time_page

FACT_TEXT = (
    "Fact {i}: the observatory recorded {i} clear nights in the survey year, "
    "and its director, Dr. Ada Example, said the figure was a record for the site. "
    "The survey covered the northern sky from the summit at 4,200 metres."
)


def _markdown(i: int, sentence: str) -> tuple[str, str]:
    """(separator before, sentence) with some Markdown, varied by position."""
    if i % 10 == 0:
        return "\n\n- ", sentence
    if i % 10 == 1:
        return "\n- ", f"**{sentence}**"
    if i % 10 == 5:
        return " ", sentence.replace("recorded", "recorded `clear_nights`")
    if i % 10 == 9:
        return " ", sentence.replace("that year", "in [the survey](https://example.org/s/9)")
    return " ", sentence


def big_review(
    claims: int, facts: int, markdown: bool = False
) -> tuple[CheckRequest, GroundedAnswer]:
    """An answer of `claims` sentences (some Hebrew and emoji) citing `facts` facts."""
    sentences = bench_sentences(claims)
    pieces = [_markdown(i, s) if markdown else (" ", s) for i, s in enumerate(sentences)]
    segments, at, answer = [], 0, ""
    verdicts = ("supported", "supported", "unsupported", "no_check")
    for i, (separator, sentence) in enumerate(pieces):
        if i:
            answer += separator
            at += utf8_len(separator)
        elif separator.startswith("\n"):
            answer, at = "- ", 2
        start = at
        answer += sentence
        at += utf8_len(sentence)
        verdict = verdicts[i % 4]
        cited = (i % facts, (i * 7 + 3) % facts) if verdict == "supported" else ()
        words = ((start + 4, start + 15),) if verdict == "unsupported" else ()
        segments.append(
            Segment(0, start, at, sentence, cited, verdict, 0.42 + (i % 50) / 100, (), words)  # type: ignore[arg-type]
        )
    fact_list = tuple(
        Fact(FACT_TEXT.format(i=i), {"author": f"Survey report {i}", "year": "2024"})
        for i in range(facts)
    )
    sources = tuple(
        Source(
            text=fact.text[:140],
            title=f"Survey report {i}",
            uri=f"https://reports.example.org/survey/{i}",
            fact_index=i,
            requires_attribution=i % 5 == 0,
            metadata=dict(fact.attributes),
        )
        for i, fact in enumerate(fact_list)
    )
    grounded = GroundedAnswer(
        format="check_grounding",
        candidates=(
            Candidate(
                parts=(answer,), segments=tuple(segments), sources=sources, support_score=0.5
            ),
        ),
    )
    return CheckRequest(answer=answer, facts=fact_list, enable_claim_level_score=True), grounded


class Command(BaseCommand):
    help = "Print the median server time to render a saved review with many claims and facts."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--claims", type=int, default=200)
        parser.add_argument("--facts", type=int, default=200)
        parser.add_argument("--runs", type=int, default=30)
        parser.add_argument(
            "--plain", action="store_true", help="a plain-text answer instead of Markdown"
        )

    def handle(self, *args: object, **options: int) -> None:
        claims, facts, runs = options["claims"], options["facts"], options["runs"]
        markdown = not options["plain"]
        with transaction.atomic():
            user = get_user_model().objects.create_superuser("review-bench", password=None)
            request, grounded = big_review(claims, facts, markdown)
            review = save_review(
                user, grounded, source_format=Review.Format.CHECK_GROUNDING, request=request
            )
            client = Client(HTTP_HOST="localhost")
            client.force_login(user)
            url = review.get_absolute_url()
            timings, size = time_page(client, url, runs)
            transaction.set_rollback(True)
        median = statistics.median(timings)
        worst = max(timings)
        kind = "Markdown" if markdown else "plain-text"
        self.stdout.write(
            f"{kind} review page with {claims} claims and {facts} facts "
            f"({size / 1024:.0f} KiB): "
            f"median {median:.1f} ms, max {worst:.1f} ms over {runs} renders"
        )
