"""Thin views of the source policies; each declares its one access rule first.

Policies are the reviewers' and admins' tools (leads): they write them, attach them to
reviews and to labeling projects. Annotators only see a project's policy flags on the
labeling page. Reviews and projects are reached through the relations of the link
tables (`ReviewPolicy.review`, `ProjectPolicy.project`), so this app imports neither
app: they link to it.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import models
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from grounding_app.accounts.roles import ADMIN, REVIEWER, may_change, role_required
from grounding_app.policies import services
from grounding_app.policies.forms import AttachForm, PolicyForm
from grounding_app.policies.models import ProjectPolicy, ReviewPolicy, SourcePolicy
from grounding_app.retention.expiry import related_model

leads = role_required(REVIEWER, ADMIN)


def _reviews() -> type[models.Model]:
    return related_model(ReviewPolicy, "review")


def _projects() -> type[models.Model]:
    return related_model(ProjectPolicy, "project")


@leads
@require_GET
def policy_list(request: HttpRequest) -> HttpResponse:
    return render(request, "policies/list.html", {"policies": SourcePolicy.objects.all()})


@leads
@require_http_methods(["GET", "POST"])
def policy_new(request: HttpRequest) -> HttpResponse:
    form = PolicyForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        policy = form.save(commit=False)
        policy.created_by = request.user if request.user.is_authenticated else None
        policy.save()
        messages.success(request, f"Policy “{policy.name}” created.")
        return redirect(policy)
    return render(request, "policies/edit.html", {"form": form, "policy": None})


@leads
@require_http_methods(["GET", "POST"])
def policy_detail(request: HttpRequest, pk: int) -> HttpResponse:
    policy = get_object_or_404(SourcePolicy, pk=pk)
    can_change = may_change(request.user, policy.created_by_id)
    if request.method == "POST" and not can_change:
        raise PermissionDenied("only the policy's owner or an admin may change it")
    form = PolicyForm(request.POST if request.method == "POST" else None, instance=policy)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "Policy saved.")
        return redirect(policy)
    context = {
        "form": form,
        "policy": policy,
        "can_change": can_change,
        "warnings": services.warnings(policy),
        "tool_json": json.dumps(policy.tool_json(), indent=2, ensure_ascii=False),
        "review_count": _reviews()._default_manager.filter(source_policy__policy=policy).count(),
        "projects": _projects()._default_manager.filter(source_policy__policy=policy),
    }
    return render(request, "policies/edit.html", context)


@leads
@require_POST
def policy_delete(request: HttpRequest, pk: int) -> HttpResponse:
    policy = get_object_or_404(SourcePolicy, pk=pk)
    if not may_change(request.user, policy.created_by_id):
        raise PermissionDenied("only the policy's owner or an admin may delete it")
    policy.delete()
    messages.success(request, f"Policy “{policy.name}” deleted; nothing is checked against it now.")
    return redirect("policies:list")


@leads
@require_POST
def attach_review(request: HttpRequest, public_id: str) -> HttpResponse:
    review = get_object_or_404(_reviews(), public_id=public_id)
    form = AttachForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the source policies.")
        return redirect(resolve_url(review))
    policy = form.cleaned_data["policy"]
    services.attach_to_review(review, policy, request.user)
    messages.success(
        request,
        f"Citations are now checked against “{policy.name}”." if policy else "Policy removed.",
    )
    return redirect(resolve_url(review) + "#source-policy")


@leads
@require_POST
def attach_project(request: HttpRequest, pk: int) -> HttpResponse:
    project = get_object_or_404(_projects(), pk=pk)
    form = AttachForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the source policies.")
        return redirect(resolve_url(project))
    policy = form.cleaned_data["policy"]
    services.attach_to_project(project, policy, request.user)
    messages.success(
        request,
        f"The project's sources are now checked against “{policy.name}”."
        if policy
        else "Policy removed from the project.",
    )
    return redirect(resolve_url(project))
