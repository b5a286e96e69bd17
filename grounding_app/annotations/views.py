"""Thin views of the annotation queues; each declares its one access rule first.

Two rules: `labelers` (annotators, reviewers, admins) for pages where people label,
after which a project must be assigned to the user (leads see every project); `leads`
(reviewers, admins) for creating, settings, agreement, adjudication and export. Someone
else's assignment is a 404: its existence is nobody else's business.
"""

from __future__ import annotations

from typing import Any

from csp.decorators import csp_exempt
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.clickjacking import xframe_options_sameorigin
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import trigger_client_event

from grounding_app.accounts.roles import ADMIN, ANNOTATOR, REVIEWER, role_required
from grounding_app.annotations import access, agreement, exports, jobs, label_studio
from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.forms import (
    AdjudicateForm,
    ImportItemsForm,
    LabelStudioImportForm,
    NewProjectForm,
    ProjectForm,
    SendReviewForm,
    claim_states,
)
from grounding_app.annotations.items import checked_items, create_project, import_jsonl
from grounding_app.annotations.items import send_review as copy_review
from grounding_app.annotations.label_page import label_page, suggestion_html
from grounding_app.annotations.labels import ClaimState, save_draft, skip, submit
from grounding_app.annotations.models import (
    Assignment,
    ImportJob,
    ItemClaim,
    LabelingProject,
)
from grounding_app.annotations.progress import annotator_progress, project_rows, project_summary
from grounding_app.common.importing import ImportProblems
from grounding_app.common.numbers import plain_number
from grounding_app.downloads import download
from grounding_app.formats.check_grounding import FormatError
from grounding_app.formats.imports import MAX_IMPORT_BYTES
from grounding_app.htmx import HtmxHttpRequest
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import project_policy
from grounding_app.reviews.models import Review
from grounding_app.reviews.views import suggestions_response

labelers = role_required(ANNOTATOR, REVIEWER, ADMIN)
leads = role_required(REVIEWER, ADMIN)

DISAGREEMENTS_PER_PAGE = 25


def _visible_project(request: HttpRequest, pk: int) -> LabelingProject:
    project = get_object_or_404(LabelingProject, pk=pk)
    if not access.is_lead(request.user) and not access.can_label(request.user, project):
        raise PermissionDenied("this project is not assigned to you")
    return project


def _managed_project(request: HttpRequest, pk: int) -> LabelingProject:
    project = get_object_or_404(LabelingProject, pk=pk)
    if not access.can_manage(request.user, project):
        raise PermissionDenied("only the project's owner or an admin may change it")
    return project


def _own_assignment(request: HttpRequest, pk: int) -> Assignment:
    assignment = get_object_or_404(
        Assignment.objects.select_related("item__project"), pk=pk, annotator=request.user
    )
    if not access.can_label(request.user, assignment.item.project):
        raise PermissionDenied("this project is no longer assigned to you")
    return assignment


def _to_next(
    request: HttpRequest, project: LabelingProject, done: str = ""
) -> HttpResponseRedirect:
    """To the next item, saying `done` (what just happened) before where this leads."""
    assignment = next_assignment(project, request.user)
    if assignment is None:
        messages.success(request, f"{done}Nothing left to label in this project. Thank you!")
        return redirect(project)
    if done:
        messages.success(request, f"{done}Here is the next item.")
    return redirect(assignment)


@labelers
@require_GET
def project_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "annotations/list.html",
        {"rows": project_rows(request.user), "is_lead": access.is_lead(request.user)},
    )


def _refused(form: Any, problems: ImportProblems) -> None:
    for problem in problems.problems:
        form.add_error(None, problem)


def _imported(request: HttpRequest, count: int) -> None:
    messages.success(request, f"Imported {count} item{'s' if count != 1 else ''}.")


def _is_long(raw: str | bytes | None) -> bool:
    """More items than LABELING_IMPORT_INLINE_ITEMS: the engine checks each, so they
    are checked by a worker, not within the request."""
    if raw is None:
        return False
    lines = raw.splitlines() if isinstance(raw, bytes) else raw.encode().splitlines()
    return sum(1 for line in lines if line.strip()) > settings.LABELING_IMPORT_INLINE_ITEMS


def _queue_items(request: HttpRequest, project: LabelingProject, raw: str | bytes) -> ImportJob:
    data = raw if isinstance(raw, bytes) else raw.encode("utf-8", "surrogatepass")
    upload = request.FILES.get("file")
    name = (upload.name or "") if upload is not None else "pasted items"
    return jobs.queue(project, ImportJob.Kind.ITEMS, data, name=name, user=request.user)


@leads
@require_http_methods(["GET", "POST"])
def project_new(request: HttpRequest) -> HttpResponse:
    posted = request.method == "POST"
    form = NewProjectForm(request.POST if posted else None, request.FILES if posted else None)
    if posted and form.is_valid():
        data = form.cleaned_data
        long = _is_long(data["raw"])
        try:
            items = checked_items(data["raw"]) if data["raw"] and not long else []
        except ImportProblems as exc:
            _refused(form, exc)
        else:
            project = create_project(
                request.user,
                name=data["name"],
                instructions=data["instructions"],
                extra_labels=data["extra_labels"],
                overlap=data["overlap"],
                blind=data["blind"],
                annotators=data["annotators"],
                items=items,
            )
            if long:  # the project first, then its items through a worker
                return redirect(_queue_items(request, project, data["raw"]))
            if items:
                _imported(request, len(items))
            return redirect(project)
    return render(request, "annotations/new.html", {"form": form})


@labelers
@require_GET
def project_detail(request: HttpRequest, pk: int) -> HttpResponse:
    project = _visible_project(request, pk)
    can_label = access.can_label(request.user, project)
    is_lead = access.is_lead(request.user)
    context = {
        "project": project,
        "is_lead": is_lead,
        "can_label": can_label,
        "progress": annotator_progress(project, request.user) if can_label else None,
        "summary": project_summary(project) if is_lead else None,
        "tab": "overview",
        "source_policy": project_policy(project),
        "policies": SourcePolicy.objects.only("pk", "name") if is_lead else (),
    }
    return render(request, "annotations/project.html", context)


@leads
@require_http_methods(["GET", "POST"])
def project_settings(request: HttpRequest, pk: int) -> HttpResponse:
    project = _managed_project(request, pk)
    posted = request.method == "POST"
    form = ProjectForm(request.POST if posted else None, instance=project)
    if posted and form.is_valid():
        form.save()
        messages.success(request, "Settings saved.")
        return redirect(project)
    return render(
        request,
        "annotations/settings.html",
        {"project": project, "form": form, "tab": "settings", "is_lead": True},
    )


@leads
@require_http_methods(["GET", "POST"])
def project_import(request: HttpRequest, pk: int) -> HttpResponse:
    project = _managed_project(request, pk)
    posted = request.method == "POST"
    form = ImportItemsForm(request.POST if posted else None, request.FILES if posted else None)
    if posted and form.is_valid() and _is_long(form.cleaned_data["raw"]):
        return redirect(_queue_items(request, project, form.cleaned_data["raw"]))
    if posted and form.is_valid():
        try:
            items = import_jsonl(project, form.cleaned_data["raw"])
        except ImportProblems as exc:
            _refused(form, exc)
        else:
            _imported(request, len(items))
            return redirect(project)
    return render(
        request,
        "annotations/import.html",
        {"project": project, "form": form, "tab": "import", "is_lead": True},
    )


@labelers
@require_POST
def project_next(request: HttpRequest, pk: int) -> HttpResponse:
    project = _visible_project(request, pk)
    if not access.can_label(request.user, project):
        raise PermissionDenied("only the project's annotators label its items")
    return _to_next(request, project)


def _label_page(
    request: HttpRequest,
    assignment: Assignment,
    states: dict[int, ClaimState] | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    page = label_page(assignment, states)
    context = {"page": page, "project": page.project, "error": error}
    return render(request, "annotations/label.html", context, status=status)


@labelers
@require_GET
def label(request: HttpRequest, pk: int) -> HttpResponse:
    return _label_page(request, _own_assignment(request, pk))


@labelers
@require_POST
def label_draft(request: HttpRequest, pk: int) -> HttpResponse:
    """Save one claim's state (the script posts on every change); answers JSON."""
    assignment = _own_assignment(request, pk)
    claim_pk = plain_number(request.POST.get("claim"))
    if claim_pk is None:
        return JsonResponse({"error": "The draft does not name a claim by its number."}, status=400)
    claim = get_object_or_404(ItemClaim, pk=claim_pk, item=assignment.item)
    try:
        states = claim_states(
            request.POST, [claim], assignment.item.project, len(assignment.item.facts)
        )
        save_draft(assignment, states)
    except ValidationError as exc:
        return JsonResponse({"error": " ".join(exc.messages)}, status=400)
    except access.LabelingError as exc:
        return JsonResponse({"error": str(exc)}, status=409)
    return JsonResponse({"saved": True})


@labelers
@require_POST
def label_submit(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = _own_assignment(request, pk)
    item = assignment.item
    claims = list(ItemClaim.objects.filter(item=item))
    try:
        states = claim_states(request.POST, claims, item.project, len(item.facts))
    except ValidationError as exc:
        return _label_page(request, assignment, error=" ".join(exc.messages), status=400)
    try:
        submit(assignment, states)
    except access.LabelingError as exc:
        return _label_page(request, assignment, states, error=str(exc), status=400)
    return _to_next(request, item.project, done="Submitted. ")


@labelers
@require_POST
def label_skip(request: HttpRequest, pk: int) -> HttpResponse:
    assignment = _own_assignment(request, pk)
    try:
        skip(assignment)
    except access.LabelingError as exc:
        messages.error(request, str(exc))
        return redirect(assignment)
    messages.info(request, "Skipped; someone else will label that item.")
    return _to_next(request, assignment.item.project)


@labelers
@require_GET
@csp_exempt()  # type: ignore[arg-type]  # django-csp types views as (request) only
@xframe_options_sameorigin
def label_suggestions(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """The item's Search Suggestions, served exactly as the review page serves them: the
    same sandboxed document (`reviews.views.suggestions_response`)."""
    assignment = _own_assignment(request, pk)
    return suggestions_response(suggestion_html(assignment.item, number))


# The htmx event a recorded final label sends, on which the agreement figures refresh.
ADJUDICATED = "adjudicated"


@leads
@require_GET
def agreement_page(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(LabelingProject, pk=pk)
    report = agreement.agreement(project)
    page = Paginator(report.disagreements, DISAGREEMENTS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "project": project,
        "report": report,
        "alpha_verdict": agreement.alpha_verdict(report.alpha),
        "disagreements": page,
        "verdicts": agreement.MODEL_VERDICTS,
        "tab": "agreement",
        "is_lead": True,
    }
    return render(request, "annotations/agreement.html", context)


@leads
@require_POST
def adjudicate(request: HtmxHttpRequest, pk: int, claim_pk: int) -> HttpResponse:
    project = get_object_or_404(LabelingProject, pk=pk)
    claim = get_object_or_404(
        ItemClaim.objects.select_related("item__project"), pk=claim_pk, item__project=project
    )
    form = AdjudicateForm(request.POST, project=project)
    if not form.is_valid():
        return HttpResponse("That is not a label of this project.", status=400)
    agreement.adjudicate(claim, form.cleaned_data["label"], request.user)
    if request.htmx:
        context = {
            "project": project,
            "d": agreement.disagreement(claim),
            "just_saved": True,
        }
        response = render(request, "annotations/agreement.html#disagreement", context)
        # The figures above (unresolved count, final label x model verdict) change with it:
        # they fetch themselves again on this event.
        return trigger_client_event(response, ADJUDICATED)
    messages.success(request, "Final label recorded.")
    return HttpResponseRedirect(
        reverse("annotations:agreement", args=[project.pk]) + f"#claim-{claim.pk}"
    )


@leads
@require_GET
def export_jsonl(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """Every item with all labels; `?schema=grounding` gives training lines instead."""
    project = get_object_or_404(LabelingProject, pk=pk)
    name = slugify(project.name) or f"project-{project.pk}"
    if request.GET.get("schema") == "grounding":
        lines, filename = exports.grounding_lines(project), f"{name}-grounding.jsonl"
    else:
        lines, filename = exports.item_lines(project), f"{name}-labels.jsonl"
    return download(lines, filename, "application/x-ndjson; charset=utf-8")


@leads
@require_GET
def export_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    project = get_object_or_404(LabelingProject, pk=pk)
    name = slugify(project.name) or f"project-{project.pk}"
    return download(exports.csv_lines(project), f"{name}-labels.csv", "text/csv; charset=utf-8")


@leads
@require_POST
def send_review(request: HttpRequest, public_id: str) -> HttpResponse:
    review = get_object_or_404(Review, public_id=public_id)
    form = SendReviewForm(request.POST, projects=access.visible_projects(request.user))
    if not form.is_valid():
        messages.error(request, "Choose a labeling project to send the review to.")
        return redirect(review)
    project = form.cleaned_data["project"]
    try:
        item = copy_review(project, review)
    except (access.LabelingError, FormatError) as exc:
        messages.error(request, getattr(exc, "message", str(exc)))
        return redirect(review)
    messages.success(
        request,
        f"Sent to “{project.name}” as item {item.position + 1} "
        f"with {item.claims.count()} claims to label.",
    )
    return redirect(review)


@leads
@require_GET
def export_label_studio(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """Label Studio tasks (JSON), or with `?part=config` the labeling interface (XML)."""
    project = get_object_or_404(LabelingProject, pk=pk)
    name = slugify(project.name) or f"project-{project.pk}"
    if request.GET.get("part") == "config":
        config = exports.label_studio_config(project)
        return download([config], f"{name}-label-studio.xml", "application/xml; charset=utf-8")
    return download(
        exports.label_studio_tasks(project),
        f"{name}-label-studio-tasks.json",
        "application/json; charset=utf-8",
    )


@leads
@require_http_methods(["GET", "POST"])
def label_studio_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Send items to Label Studio and read its annotations back, with a report."""
    project = _managed_project(request, pk)
    posted = request.method == "POST"
    form = LabelStudioImportForm(
        request.POST if posted else None, request.FILES if posted else None
    )
    report = None
    status = 200
    if posted and form.is_valid():
        upload = form.cleaned_data["file"]
        if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
            form.add_error("file", f"The file is larger than {MAX_IMPORT_BYTES // 2**20} MiB.")
        elif upload.size is None or upload.size > settings.LABEL_STUDIO_INLINE_BYTES:
            job = jobs.queue(
                project,
                ImportJob.Kind.LABEL_STUDIO,
                upload.read(MAX_IMPORT_BYTES + 1),
                name=upload.name or "",
                user=request.user,
                mapping=form.cleaned_data["annotators"],
            )
            return redirect(job)
        else:
            try:
                report = label_studio.import_annotations(
                    project, upload.read(), form.cleaned_data["annotators"], by=request.user
                )
            except label_studio.LabelStudioFileError as exc:
                form.add_error("file", str(exc))
    if posted and report is None:
        status = 400
    context = {
        "project": project,
        "form": form,
        "report": report,
        "tab": "label_studio",
        "is_lead": True,
        "config": exports.label_studio_config(project),
    }
    return render(request, "annotations/label_studio.html", context, status=status)


@leads
@require_GET
def import_job(request: HtmxHttpRequest, pk: int, job_pk: int) -> HttpResponse:
    """An import a worker reads: its progress while it runs (htmx polls this page for
    the partial, which stops polling once it shows the outcome)."""
    job = get_object_or_404(ImportJob, pk=job_pk, project_id=pk)
    tab = "label_studio" if job.kind == ImportJob.Kind.LABEL_STUDIO else "import"
    context = {"project": job.project, "job": job, "tab": tab, "is_lead": True}
    if request.htmx:
        return render(request, "annotations/import_job.html#progress", context)
    return render(request, "annotations/import_job.html", context)
