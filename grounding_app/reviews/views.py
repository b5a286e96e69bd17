"""Thin views of the review workbench; each declares its one access rule first.

htmx requests get the result partial swapped into the page; the same forms posted
without JavaScript get a full page (a redirect to the saved review on success).
"""

from __future__ import annotations

from dataclasses import replace

from csp.decorators import csp_exempt
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import push_url, reswap, retarget

from grounding_app.accounts.roles import ADMIN, REVIEWER, has_role, role_required
from grounding_app.downloads import download
from grounding_app.formats.check_grounding import FormatError
from grounding_app.formats.imports import ImportFormatError
from grounding_app.htmx import HtmxHttpRequest
from grounding_app.rendering.answer import ClaimView, RenderedCandidate
from grounding_app.reviews import exports, flags, second_opinion, services, tables
from grounding_app.reviews.forms import (
    ImportForm,
    NewReviewForm,
    ReviewerVerdictForm,
    ReviewFilterForm,
)
from grounding_app.reviews.models import Review, ReviewerVerdict

reviewers = role_required(REVIEWER, ADMIN)

PAGE_SIZE = 25

# The search-suggestions document is Google's HTML, shown as is: it gets its own
# sandboxed origin, no script, only inline styles and images, no <base> URL or form
# targets, and only our own pages may frame it. Google's chips carry no target, so
# the document opens with <base target="_blank">: a chip opens Google's results in a
# new tab (Google's display rules) and the frame stays as it was; navigating the frame
# itself would be blocked by our page's frame-src and leave an error icon. The first
# <base> with a target wins, so one inside the untrusted HTML cannot undo it.
SUGGESTIONS_CSP = (
    "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; "
    "style-src 'unsafe-inline'; img-src data: https:; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'self'"
)


def suggestions_response(document: str | None) -> HttpResponse:
    """A stored Search Suggestions widget as its own sandboxed document (see above); the
    review page and the labeling page frame it alike."""
    if document is None:
        raise Http404("no such search-suggestions widget")
    response = HttpResponse(
        f'<!doctype html><base target="_blank">{document}', content_type="text/html; charset=utf-8"
    )
    response["Content-Security-Policy"] = SUGGESTIONS_CSP
    return response


VIEWS = {"rendered": True, "plain": False}  # ?view=: Markdown rendered or byte-exact text


def _editing(value: str) -> tuple[int, int] | None:
    """?verdict=C.N opens the verdict form of claim N of candidate C (no JavaScript needed)."""
    candidate, _, claim = value.partition(".")
    if len(value) > 20:  # int() refuses over 4,300 digits; no review has that many claims
        return None
    if candidate.isascii() and candidate.isdigit() and claim.isascii() and claim.isdigit():
        return int(candidate), int(claim)
    return None


def _claim_rows(
    request: HttpRequest,
    review: Review,
    candidate: RenderedCandidate,
    mine: dict[tuple[int, int], ReviewerVerdict],
    excluded: dict[str, str],
) -> SafeString:
    def form(index: int, claim: ClaimView, verdict: ReviewerVerdict | None) -> str:
        context = {
            "public_id": review.public_id,
            "candidate": index,
            "claim": claim,
            "mine": verdict,
            "choices": ReviewerVerdictForm.base_fields["verdict"].choices,  # type: ignore[attr-defined]
        }
        return render_to_string("reviews/_verdict_form.html", context, request)

    query = {k: str(request.GET.get(k)) for k in ("view", "only") if k in request.GET}
    return mark_safe(
        tables.rows_html(
            candidate,
            mine,
            only_problems=request.GET.get("only") == "unsupported",
            editing=_editing(request.GET.get("verdict", "")),
            verdict_form=form,
            query=query,
            excluded=excluded,
        )
    )


def _review_context(request: HttpRequest, review: Review) -> dict[str, object]:
    view = request.GET.get("view", "")
    facts = [(f["factText"], list(f["attributes"].items())) for f in review.facts]
    mine = services.reviewer_verdicts(review)
    panel = services.review_panel(review)
    rendered = services.rendered(review, VIEWS.get(view))
    excluded = {c.index: flags.excluded_sources(panel.report, c.index) for c in rendered}
    candidates = tuple(
        replace(c, parts_html=flags.flagged_parts(c, mine, excluded[c.index])) for c in rendered
    )
    return {
        "review": review,
        "candidates": candidates,
        # (candidate, its claims table rows, its source list as HTML, how many cards that
        # list has: passages of one document share one): see tables
        "claim_tables": [
            (
                c,
                _claim_rows(request, review, c, mine, excluded[c.index]),
                mark_safe(tables.sources_html(groups)),
                len(groups),
            )
            for c in candidates
            for groups in [tables.source_groups(c)]
        ],
        "view": view if view in VIEWS else "",
        "only_problems": request.GET.get("only") == "unsupported",
        "can_delete": services.can_delete(request.user, review),
        "can_recheck": services.stored_request(review) is not None,
        "can_engine_check": services.engine_request(review) is not None,
        # Pairs, not dicts: a template would read an attribute named "items" as the method.
        "facts": facts,
        "facts_html": mark_safe(tables.facts_html(facts)),
        "second_opinions": second_opinion.cached_for_review(review),
        "source_policy": panel,
        "api_example": services.api_example(review, f"{request.scheme}://{request.get_host()}"),
    }


def _saved(request: HtmxHttpRequest, review: Review) -> HttpResponse:
    """After a save: the result partial for htmx, else a redirect to the permalink."""
    if request.htmx:
        response = render(request, "reviews/detail.html#result", _review_context(request, review))
        return push_url(response, review.get_absolute_url())
    return redirect(review)


def _form_again(
    request: HtmxHttpRequest, template: str, context: dict[str, object]
) -> HttpResponse:
    """The form with its errors: swapped over the old form for htmx, else the full page."""
    if request.htmx:
        response = render(request, f"{template}#form", context)
        return reswap(retarget(response, "#review-form"), "outerHTML")
    return render(request, template, context)


@reviewers
@require_GET
def review_list(request: HtmxHttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET)
    filters = form.to_filter()
    reviews = services.find_reviews(filters)
    page = Paginator(reviews, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "query": query.urlencode(),
        "is_admin": has_role(request.user, ADMIN),
        # An empty list says why: nothing matches the filters, or nothing is there yet.
        "filtered": filters != services.ReviewFilter(),
    }
    template = "reviews/list.html#results" if request.htmx else "reviews/list.html"
    return render(request, template, context)


@reviewers
@require_http_methods(["GET", "POST"])
def review_new(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "reviews/new.html", {"form": NewReviewForm()})
    form = NewReviewForm(request.POST)
    if not form.is_valid():
        return _form_again(request, "reviews/new.html", {"form": form})
    return _saved(request, services.check_and_save(request.user, form.cleaned_data["request"]))


@reviewers
@require_http_methods(["GET", "POST"])
def review_import(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "GET":
        return render(request, "reviews/import.html", {"form": ImportForm()})
    form = ImportForm(request.POST, request.FILES)
    if form.is_valid():
        try:
            return _saved(request, services.import_and_save(request.user, form.cleaned_data["raw"]))
        except ImportFormatError as exc:
            form.add_error(None, f"{exc.field}: {exc.message}" if exc.field else exc.message)
    return _form_again(request, "reviews/import.html", {"form": form})


@reviewers
@require_GET
def review_detail(request: HttpRequest, public_id: str) -> HttpResponse:
    review = get_object_or_404(Review.objects.select_related("created_by"), public_id=public_id)
    return render(request, "reviews/detail.html", _review_context(request, review))


@reviewers
@require_GET
def review_second_opinion(request: HtmxHttpRequest, public_id: str) -> HttpResponse:
    """Run (or read from the cache) a review's second opinion: the table for htmx, which
    the review page asks for once it has loaded; without JavaScript, back to the review,
    which now shows it from the cache."""
    review = get_object_or_404(Review, public_id=public_id)
    opinions = second_opinion.for_review(review)
    if request.htmx:
        return render(request, "reviews/_second_opinion.html", {"second_opinions": opinions})
    return redirect(review.get_absolute_url() + "#second-opinion-0")


@reviewers
@require_POST
def review_verdict(request: HttpRequest, public_id: str) -> HttpResponse:
    """Save the reviewer's own verdict and note on one claim, then back to that claim."""
    review = get_object_or_404(Review, public_id=public_id)
    form = ReviewerVerdictForm(request.POST)
    if not form.is_valid():
        errors = "; ".join(str(e) for field in form.errors.values() for e in field)
        messages.error(request, f"The verdict was not saved: {errors}")
        return redirect(review)
    data = form.cleaned_data
    try:
        services.set_reviewer_verdict(
            request.user, review, data["candidate"], data["claim"], data["verdict"], data["note"]
        )
    except services.VerdictError as exc:
        raise Http404(str(exc)) from exc
    messages.success(request, f"Your verdict on claim {data['claim']} was saved.")
    return redirect(f"{review.get_absolute_url()}#c{data['candidate']}-claim-{data['claim']}")


def _export(request: HttpRequest, kind: str) -> StreamingHttpResponse:
    found = ReviewFilterForm(request.GET).to_filter()
    reviews = services.find_reviews(found)
    # Filtered to disagreements, the export holds the claims disagreed on, not every
    # claim of the reviews that have one.
    if kind == "csv":
        lines = exports.csv_lines(reviews, found.disagrees)
        content_type = "text/csv; charset=utf-8"
    else:
        lines = exports.jsonl_lines(reviews, found.disagrees)
        content_type = "application/jsonl; charset=utf-8"
    return download(lines, f"reviews.{kind}", content_type)


@reviewers
@require_GET
def review_export_jsonl(request: HttpRequest) -> StreamingHttpResponse:
    """The listed reviews (current filter), one shared-schema line per claim."""
    return _export(request, "jsonl")


@reviewers
@require_GET
def review_export_csv(request: HttpRequest) -> StreamingHttpResponse:
    """The listed reviews (current filter), one row per claim."""
    return _export(request, "csv")


@reviewers
@require_POST
def review_recheck(request: HtmxHttpRequest, public_id: str) -> HttpResponse:
    review = get_object_or_404(Review, public_id=public_id)
    if services.stored_request(review) is None:
        raise Http404("this review has no check-grounding request to re-check")
    new = services.recheck(request.user, review)
    messages.success(request, "Re-checked with our engine; this is the new review.")
    return redirect(new)


@reviewers
@require_POST
def review_engine_check(request: HtmxHttpRequest, public_id: str) -> HttpResponse:
    """Our engine's verdicts on an imported answer, which came with citations only."""
    review = get_object_or_404(Review, public_id=public_id)
    if services.engine_request(review) is None:
        raise Http404("this review has no answer and sources our engine can check")
    try:
        new = services.engine_check(request.user, review)
    except FormatError as exc:
        messages.error(
            request,
            f"Our engine did not check this answer: {exc.message} These are the check"
            " API's limits; check a shorter part of the answer, or fewer sources, instead.",
        )
        return redirect(review)
    messages.success(
        request, "Checked with our engine against the sources' text; this is the new review."
    )
    return redirect(new)


@reviewers
@require_POST
def review_delete(request: HttpRequest, public_id: str) -> HttpResponse:
    review = get_object_or_404(Review, public_id=public_id)
    if not services.can_delete(request.user, review):
        raise PermissionDenied("only the review's owner or an admin may delete it")
    review.delete()
    messages.success(request, "The review was deleted.")
    return redirect("reviews:list")


@reviewers
@require_GET
@csp_exempt()  # type: ignore[arg-type]  # django-csp types views as (request) only
@xframe_options_sameorigin
def review_suggestions(
    request: HttpRequest, public_id: str, candidate: int, number: int
) -> HttpResponse:
    review = get_object_or_404(Review, public_id=public_id)
    return suggestions_response(services.suggestion_html(review, candidate, number))
