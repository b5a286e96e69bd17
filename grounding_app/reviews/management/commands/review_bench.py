"""Time the server side of showing a big saved review (issue 3: target at most 200 ms).

Builds a review with N claims citing N facts directly (no engine run), then fetches its
page through the whole Django stack (middleware, session, template) with the test
client, and prints the median. Everything it writes is rolled back.
"""

from __future__ import annotations

import statistics

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.test import Client

from grounding_app.engine.offsets import utf8_len
from grounding_app.engine.types import CheckRequest, Fact
from grounding_app.evaluation.pages import time_page
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import save_review

FACT_TEXT = (
    "Fact {i}: the observatory recorded {i} clear nights in the survey year, "
    "and its director, Dr. Ada Example, said the figure was a record for the site. "
    "The survey covered the northern sky from the summit at 4,200 metres."
)


def big_review(claims: int, facts: int) -> tuple[CheckRequest, GroundedAnswer]:
    """An answer of `claims` sentences (some Hebrew and emoji) citing `facts` facts."""
    sentences = []
    for i in range(claims):
        if i % 10 == 3:
            sentences.append(f"המצפה תיעד {i} לילות בהירים.")
        elif i % 10 == 7:
            sentences.append(f"The site 🌌 logged {i} nights, a record.")
        else:
            sentences.append(f"The observatory recorded {i} clear nights that year.")
    answer = " ".join(sentences)
    segments, at = [], 0
    verdicts = ("supported", "supported", "unsupported", "no_check")
    for i, sentence in enumerate(sentences):
        start = at
        at += utf8_len(sentence)
        verdict = verdicts[i % 4]
        cited = (i % facts, (i * 7 + 3) % facts) if verdict == "supported" else ()
        segments.append(Segment(0, start, at, sentence, cited, verdict, 0.42 + (i % 50) / 100))  # type: ignore[arg-type]
        at += 1  # the space between sentences
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

    def handle(self, *args: object, **options: int) -> None:
        claims, facts, runs = options["claims"], options["facts"], options["runs"]
        with transaction.atomic():
            user = get_user_model().objects.create_superuser("review-bench", password=None)
            request, grounded = big_review(claims, facts)
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
        self.stdout.write(
            f"review page with {claims} claims and {facts} facts ({size / 1024:.0f} KiB): "
            f"median {median:.1f} ms, max {worst:.1f} ms over {runs} renders"
        )
