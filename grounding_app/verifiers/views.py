"""The Verifier page, for admins: which verifier judges, its figures, the others on disk
(each one click from judging), the switches made, adaptations on labeling projects, and
the LLM judge of the claims the verifier is unsure of (and of languages it does not read).

The adaptations' list polls its partial with htmx while one is queued or running, as
the batch job page does; once none is, the page reloads itself so the new verifier
shows in the list on disk.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRefresh

from grounding_app.accounts.roles import ADMIN, role_required
from grounding_app.active_verifier import services as active_verifier
from grounding_app.active_verifier.checker import FOLLOW_SECONDS, checker
from grounding_app.active_verifier.models import ActiveVerifier, VerifierSwitch
from grounding_app.calibration import services as calibration
from grounding_app.calibration.models import Calibration
from grounding_app.engine import known_languages, language_name
from grounding_app.htmx import HtmxHttpRequest
from grounding_app.llm_judge import config as llm_judge
from grounding_app.llm_judge.models import JudgeDay
from grounding_app.rendering.markdown import render_markdown
from grounding_app.verifiers import accuracy, calibrations, services
from grounding_app.verifiers.forms import AdaptForm, LLMJudgeForm, SwitchForm

admins = role_required(ADMIN)

SWITCHES_SHOWN = 50


def _jobs_context() -> dict[str, Any]:
    jobs = list(services.recent_jobs())
    return {"jobs": jobs, "any_active": any(job.active for job in jobs)}


def _today() -> JudgeDay | None:
    return JudgeDay.objects.filter(day=timezone.now().date()).first()


def _llm_judge_context(active_languages: list[str], form: LLMJudgeForm | None) -> dict[str, Any]:
    """What the LLM judge section shows: the judge working now and where it is set, the
    languages it would take from word matching, today's spending, and the form."""
    row = llm_judge.saved()
    problem = ""
    try:
        setup = llm_judge.current()
    except ImproperlyConfigured as exc:
        setup, problem = None, str(exc)
    return {
        "judge_setup": setup,
        "judge_row": row,
        "judge_problem": problem,
        "judge_settings_url": settings.LLM_JUDGE_URL,
        "judge_today": _today(),
        "unread": [language_name(c) for c in known_languages if c not in active_languages],
        "judge_form": form or LLMJudgeForm.of(row, setup),
    }


def _page(
    request: HttpRequest,
    form: AdaptForm | None = None,
    status: int = 200,
    judge_form: LLMJudgeForm | None = None,
) -> HttpResponse:
    active = active_verifier.active()
    listed = active_verifier.on_disk()
    context = {
        "active": active,
        "chosen": ActiveVerifier.objects.filter(pk=ActiveVerifier.SINGLETON).first(),
        "configured": active_verifier.configured_directory(),
        "card": render_markdown(active.card) if active.card else "",
        "held": services.held_back(active),
        "accuracy": accuracy.by_week(accuracy.team_labels(active.verifier_id))
        if active.verifier_id
        else [],
        "adapt_min_labels": settings.VERIFIER_ADAPT_MIN_LABELS,
        "listed": [
            (entry, entry.directory.resolve() == active.directory.resolve()) for entry in listed
        ],
        "switches": VerifierSwitch.objects.select_related("changed_by")[:SWITCHES_SHOWN],
        "form": form or AdaptForm(),
        "root": active_verifier.verifiers_root(),
        "follow_seconds": FOLLOW_SECONDS,
        **_jobs_context(),
        **_llm_judge_context(list(active.languages), judge_form),
        "calibrations": calibrations.by_scope(active.verifier_id),
    }
    context["calibration_versus"] = calibrations.versus(context["held"], context["calibrations"])
    return render(request, "verifiers/page.html", context, status=status)


@admins
@require_GET
def page(request: HttpRequest) -> HttpResponse:
    return _page(request)


@admins
@require_POST
def switch(request: HttpRequest) -> HttpResponse:
    form = SwitchForm(request.POST)
    entry = active_verifier.find(form.data.get("directory", "")) if form.is_valid() else None
    if entry is None:
        messages.error(request, "Not switched: that is none of the verifiers listed here.")
        return redirect("verifiers:page")
    try:
        record = active_verifier.switch(request.user, entry)
    except active_verifier.SwitchError as exc:
        messages.error(request, f"Not switched: {exc}")
        return redirect("verifiers:page")
    messages.success(
        request,
        f"{record.to_verifier} judges now; every worker follows within"
        f" {FOLLOW_SECONDS:g} seconds, without a restart.",
    )
    return redirect("verifiers:page")


@admins
@require_POST
def adapt(request: HttpRequest) -> HttpResponse:
    form = AdaptForm(request.POST)
    if form.is_valid():
        try:
            job = services.start(
                request.user,
                form.cleaned_data["project"],
                form.cleaned_data["name"],
                form.options(),
            )
        except services.AdaptRequestError as exc:
            form.add_error("name", str(exc))
        else:
            messages.success(request, f"Adaptation {job.name} is queued.")
            return redirect(reverse("verifiers:page") + "#adaptations")
    return _page(request, form, status=400)


@admins
@require_GET
def jobs(request: HtmxHttpRequest) -> HttpResponse:
    """The adaptations partial; once none runs, htmx reloads the page (the new verifier
    then shows on disk)."""
    context = _jobs_context()
    if request.htmx and not context["any_active"] and request.GET.get("was") == "active":
        return HttpResponseClientRefresh()
    return render(request, "verifiers/page.html#jobs", context)


def _to_judge_section() -> HttpResponse:
    return redirect(reverse("verifiers:page") + "#llm-judge")


@admins
@require_POST
def llm_judge_save(request: HttpRequest) -> HttpResponse:
    form = LLMJudgeForm(request.POST)
    if not form.is_valid():
        return _page(request, status=400, judge_form=form)
    row = form.save(request.user)
    checker().forget_followed()
    state = f"{row.model} at {row.url} judges" if row.enabled else "No LLM judge works"
    forgot = (
        " The saved API key was removed: the URL's scheme, host or port changed."
        if form.key_forgotten
        else ""
    )
    messages.success(
        request,
        f"{state} from now on; every worker follows within {FOLLOW_SECONDS:g} seconds.{forgot}",
    )
    return _to_judge_section()


@admins
@require_POST
def llm_judge_reset(request: HttpRequest) -> HttpResponse:
    """Forget what the page saved: the LLM_JUDGE_* settings decide again."""
    found = llm_judge.saved()
    if found is not None:
        found.delete()
    checker().forget_followed()
    messages.success(request, "The LLM judge is the one the LLM_JUDGE_* settings name again.")
    return _to_judge_section()


@admins
@require_POST
def llm_judge_try(request: HtmxHttpRequest) -> HttpResponse:
    """One sample claim to the judge working now: does the endpoint answer as it must?"""
    try:
        setup = llm_judge.current()
    except ImproperlyConfigured as exc:
        messages.error(request, f"Not tried: {exc}")
        return _to_judge_section()
    if setup is None:
        messages.error(request, "Not tried: no LLM judge is set.")
        return _to_judge_section()
    works, said = llm_judge.try_endpoint(setup)
    if request.htmx:  # the result beside the button, and the judge's state redrawn
        context = {"works": works, "said": said, "judge_setup": setup, "judge_today": _today()}
        return render(request, "verifiers/_judge_try.html", context)
    (messages.success if works else messages.error)(request, said)
    return _to_judge_section()


# What Apply and Undo do, what they say when done, and the word for a refusal.
_CALIBRATION_ACTIONS = {
    "apply": (calibration.apply, "{name} applies to {scope} from its next check.", "applied"),
    "undo": (calibration.undo, "{scope} is back on the verifier's own scale.", "undone"),
}


@admins
@require_POST
def calibration_action(request: HttpRequest, pk: int, action: str) -> HttpResponse:
    """Apply a candidate to its scope, or undo the applied one; back to the section."""
    act, done, refused = _CALIBRATION_ACTIONS[action]
    found = get_object_or_404(Calibration, pk=pk)
    try:
        act(found, request.user)
    except calibration.CalibrationError as exc:
        messages.error(request, f"Not {refused}: {exc}")
    else:
        messages.success(request, done.format(name=found.name, scope=found.scope))
    return redirect(reverse("verifiers:page") + "#calibration")
