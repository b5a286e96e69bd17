"""The render benchmark runs, measures a real page, and leaves nothing behind."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command

from grounding_app.rendering.answer import render_answer
from grounding_app.reviews.models import Review
from grounding_lab.management.commands.review_bench import big_review


def test_big_review_places_every_claim() -> None:
    _, grounded = big_review(40, 15)
    [candidate] = render_answer(grounded)
    assert len(candidate.claims) == 40 and len(candidate.sources) == 15
    assert not candidate.problems and all(claim.placed for claim in candidate.claims)


@pytest.mark.django_db
def test_bench_prints_the_median_and_rolls_back() -> None:
    out = StringIO()
    call_command("review_bench", "--claims", "20", "--facts", "20", "--runs", "2", stdout=out)
    assert re.search(r"20 claims and 20 facts .*: median [\d.]+ ms", out.getvalue())
    assert not Review.objects.exists()
