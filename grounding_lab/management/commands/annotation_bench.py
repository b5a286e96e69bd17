"""Time the server side of the labeling page (issue 5: at most 150 ms for 50 claims).

Builds a project with one item of N claims and F facts directly (no engine run), gives
it to an annotator with half of the claims already labeled as drafts, then fetches the
labeling page through the whole Django stack (middleware, session, template) with the
test client and prints the median. Everything it writes is rolled back.
"""

from __future__ import annotations

import statistics

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction
from django.test import Client

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import add_items, create_project
from grounding_app.annotations.labels import ClaimState, save_draft
from grounding_app.common.importing import CheckedItem, ItemSource, ModelClaim
from grounding_app.engine import Fact, utf8_len
from grounding_lab.pages import bench_sentences, time_page

FACT_TEXT = (
    "Fact {i}: the observatory recorded {i} clear nights in the survey year, and its "
    "director, Dr. Ada Example, said the figure was a record for the site."
)


def big_item(claims: int, facts: int) -> CheckedItem:
    """An answer of `claims` sentences (some Hebrew and emoji) with model verdicts."""
    sentences = bench_sentences(claims)
    verdicts = ("supported", "supported", "unsupported", "no_check")
    model, at = [], 0
    for i, sentence in enumerate(sentences):
        verdict = verdicts[i % 4]
        model.append(
            ModelClaim(
                index=i,
                start=at,
                end=at + utf8_len(sentence),
                text=sentence,
                check_required=verdict != "no_check",
                verdict=verdict,
                score=None if verdict == "no_check" else 0.3 + (i % 7) / 10,
                cited_facts=(i % facts,) if verdict == "supported" else (),
            )
        )
        at += utf8_len(sentence) + 1  # the space between sentences
    fact_list = tuple(
        Fact(
            FACT_TEXT.format(i=i),
            {"title": f"Survey report {i}", "uri": f"https://example.org/{i}"},
        )
        for i in range(facts)
    )
    return CheckedItem(ItemSource(" ".join(sentences), fact_list, "bench-1", "bench"), tuple(model))


class Command(BaseCommand):
    help = "Print the median server time to render the labeling page of a 50-claim item."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--claims", type=int, default=50)
        parser.add_argument("--facts", type=int, default=10)
        parser.add_argument("--runs", type=int, default=30)

    def handle(self, *args: object, **options: int) -> None:
        claims, facts, runs = options["claims"], options["facts"], options["runs"]
        with transaction.atomic():
            user = get_user_model().objects.create_superuser("annotation-bench", password=None)
            project = create_project(
                user, name="Benchmark", extra_labels=["Partially supported"], annotators=[user]
            )
            add_items(project, [big_item(claims, facts)])
            assignment = next_assignment(project, user)
            if assignment is None:
                raise RuntimeError("the benchmark item was not handed out")
            drafts = {
                claim.pk: ClaimState("supported", (0,), "checked" if n % 5 == 0 else "")
                for n, claim in enumerate(assignment.item.claims.order_by("index")[: claims // 2])
            }
            save_draft(assignment, drafts)
            client = Client(HTTP_HOST="localhost")
            client.force_login(user)
            url = assignment.get_absolute_url()
            timings, size = time_page(client, url, runs)
            transaction.set_rollback(True)
        self.stdout.write(
            f"labeling page with {claims} claims and {facts} facts ({size / 1024:.0f} KiB): "
            f"median {statistics.median(timings):.1f} ms, max {max(timings):.1f} ms "
            f"over {runs} renders"
        )
