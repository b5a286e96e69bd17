"""A batch line's review, made when someone first opens it (`review_for`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from grounding_app.batch.lines import parse, request_for
from grounding_app.batch.models import BatchLine
from grounding_app.common.importing import ItemSource
from grounding_app.common.serialize import grounded_from_json
from grounding_app.formats.grounded import Problem
from grounding_app.policies.services import attach_to_review
from grounding_app.reviews.models import Review
from grounding_app.reviews.services import checked_words, save_review


def _line_problems(line: BatchLine, item: ItemSource) -> tuple[Problem, ...]:
    """What the line's review must say beyond the engine's verdicts: the line's warning,
    and the sources that came without text (the engine never read them, so a claim only
    they could support has no verdict and the answer no score)."""
    problems = []
    if line.error:
        problems.append(Problem(f"line {line.number}", line.error))
    missing = item.meta.get("facts_without_text", ())
    if missing:
        titles = ", ".join(
            item.facts[i].attributes.get("title", "") or f"#{i + 1}" for i in missing
        )
        problems.append(
            Problem(
                "sources",
                f"{len(missing)} of {len(item.facts)} sources came without text (title and "
                f"link only: {titles}); the engine could not read them, so claims they may "
                "support have no verdict.",
            )
        )
    return tuple(problems)


def review_for(user: Any, line: BatchLine) -> Review:
    """The line's review, saved on first demand (not per line: a 50,000-line job would
    otherwise fill the review list with answers nobody opens).

    The review is dated when its job was uploaded, so it expires with the job: the
    answer may hold a search service's results, which may be kept only so long.
    """
    if line.review_id is not None and (review := Review.objects.filter(pk=line.review_id).first()):
        return review
    if line.result is None:
        raise ValueError("only a checked line has a review")
    item = parse(line.raw, line.number).item
    request = request_for(item, line.job.citation_threshold)
    grounded = checked_words(grounded_from_json(line.result), request)
    if problems := _line_problems(line, item):
        grounded = replace(
            grounded,
            candidates=tuple(
                replace(c, problems=c.problems + problems) if i == 0 else c
                for i, c in enumerate(grounded.candidates)
            ),
        )
    review = save_review(
        user,
        grounded,
        source_format=Review.Format.CHECK_GROUNDING,
        request=request,
        raw_payload=line.raw,
        engine_checked=True,
        verifier=line.verifier,
    )
    Review.objects.filter(pk=review.pk).update(created_at=line.job.created_at)
    if line.job.source_policy is not None:
        attach_to_review(review, line.job.source_policy, user)
    BatchLine.objects.filter(pk=line.pk).update(review=review)
    review.refresh_from_db()
    return review
