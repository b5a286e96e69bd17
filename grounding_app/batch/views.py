"""Thin views of batch jobs; each declares its one access rule first.

The job page polls its progress partial with htmx while the job runs (the partial
stops carrying the trigger once the job is over, and then asks for the full page,
so the results appear); without JavaScript the page offers a reload link.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from grounding_app.accounts.roles import ADMIN, REVIEWER, may_change, role_required
from grounding_app.active_verifier.services import judge_info
from grounding_app.batch import exports, intake, line_reviews, results, running
from grounding_app.batch.charts import histogram_svg
from grounding_app.batch.forms import BatchUploadForm
from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.downloads import download
from grounding_app.htmx import HtmxHttpRequest
from grounding_app.rendering.languages import word_matching_reason

reviewers = role_required(REVIEWER, ADMIN)

JOBS_SHOWN = 50


def _job(public_id: str) -> BatchJob:
    return get_object_or_404(
        BatchJob.objects.select_related("source_policy", "api_key"), public_id=public_id
    )


@reviewers
@require_http_methods(["GET", "POST"])
def job_list(request: HttpRequest) -> HttpResponse:
    form = BatchUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        request_id = form.cleaned_data["request_id"]
        if request_id and (earlier := _sent_before(request, request_id)):
            return redirect(earlier)
        upload = form.cleaned_data["file"]
        try:
            with transaction.atomic():
                job = intake.receive_job(
                    upload.read(intake.MAX_BATCH_BYTES + 1),
                    name=upload.name or "",
                    citation_threshold=form.cleaned_data["citation_threshold"],
                    source_policy=form.cleaned_data["source_policy"],
                    user=request.user,
                )
                if request_id:  # in the job's transaction: a concurrent retry fails here
                    BatchJob.objects.filter(pk=job.pk).update(request_id=request_id)
        except intake.BatchInputError as exc:
            form.add_error("file", str(exc))
        except IntegrityError:
            if earlier := _sent_before(request, request_id):
                return redirect(earlier)
            raise
        else:
            return redirect(job)
    jobs = BatchJob.objects.select_related("created_by")[:JOBS_SHOWN]
    status = 400 if request.method == "POST" else 200
    return render(request, "batch/list.html", {"form": form, "jobs": jobs}, status=status)


def _sent_before(request: HttpRequest, request_id: str) -> BatchJob | None:
    """The job this person's form with this key made, if it came before."""
    return BatchJob.objects.filter(
        created_by_id=request.user.pk, api_key=None, request_id=request_id
    ).first()


def _progress_context(job: BatchJob, user: Any) -> dict[str, object]:
    return {
        "job": job,
        "progress": results.progress(job),
        "can_cancel": may_change(user, results.owner_id(job)),
    }


def _results_context(job: BatchJob, by: str | None) -> dict[str, object]:
    """The figures of the lines checked so far: drawn while the job runs too, and sent
    again with the polled progress whenever more lines are checked."""
    keys = results.group_keys(job)
    default = "source" if "source" in keys else "format"
    key = by if by in keys else default
    judges, matched = results.judge_counts(job)
    judge = judge_info(job.verifier, (count.checked_by for count in judges))
    groups = results.unsupported_by(job, key)
    return {
        "judges": judges,
        # Why word matching judged some claims, once for the counts above it.
        "word_matching_note": word_matching_reason(matched, judge) if matched else "",
        "histogram": histogram_svg(results.score_histogram(job)),
        "keys": keys,
        "key": key,
        "groups": groups,
        # Lines whose sources came without text, in no group's answers or rate.
        "not_checkable": sum(g.not_checkable for g in groups),
        "worst": [(line, results.line_mark(line, judge)) for line in results.worst_lines(job)],
        "excluded": results.excluded_answers(job) if job.source_policy_id else None,
    }


@reviewers
@require_GET
def job_detail(request: HttpRequest, public_id: str) -> HttpResponse:
    job = _job(public_id)
    context = {
        **_progress_context(job, request.user),
        **_results_context(job, request.GET.get("by")),
        "verifiers": results.verifier_counts(job),
        "failed": results.failed_lines(job),
        "warned": results.warned_lines(job),
    }
    return render(request, "batch/detail.html", context)


@reviewers
@require_GET
def job_progress(request: HtmxHttpRequest, public_id: str) -> HttpResponse:
    """The progress partial; once the job is over, htmx reloads the whole page so the
    results show (the partial's `data-active` says whether the page saw it running).
    While it runs, the results go along (htmx out-of-band swaps) whenever more lines are
    checked than the page has seen (`seen`), so an idle poll costs no figures."""
    job = _job(public_id)
    if request.htmx and not job.active and request.GET.get("was") == "active":
        return HttpResponseClientRefresh()
    context = {**_progress_context(job, request.user), "key": request.GET.get("by", "")}
    progress = context["progress"]
    assert isinstance(progress, results.Progress)
    if request.htmx and request.GET.get("seen", "") != str(progress.done):
        context.update(_results_context(job, request.GET.get("by")), oob=True)
    return render(request, "batch/detail.html#live", context)


@reviewers
@require_POST
def job_cancel(request: HttpRequest, public_id: str) -> HttpResponse:
    job = _job(public_id)
    if not may_change(request.user, results.owner_id(job)):
        raise PermissionDenied("only the job's owner or an admin may cancel it")
    if running.cancel(job):
        messages.success(request, "The job is cancelled; lines already checked are kept.")
    return redirect(job)


@reviewers
@require_POST
def line_review(request: HttpRequest, public_id: str, number: int) -> HttpResponse:
    """Open (saving on first use) the review page of one checked line."""
    job = _job(public_id)
    line = get_object_or_404(BatchLine, job=job, number=number, state=BatchLine.State.DONE)
    return redirect(line_reviews.review_for(request.user, line))


@reviewers
@require_GET
def export_jsonl(request: HttpRequest, public_id: str) -> StreamingHttpResponse:
    job = _job(public_id)
    return download(
        exports.jsonl_lines(job), f"batch-{job.public_id}.jsonl", "application/x-ndjson"
    )


@reviewers
@require_GET
def export_csv(request: HttpRequest, public_id: str) -> StreamingHttpResponse:
    job = _job(public_id)
    return download(exports.csv_lines(job), f"batch-{job.public_id}.csv", "text/csv")
