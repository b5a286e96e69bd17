"""Thin views of trends, run comparisons and alert rules; each declares its access rule.

Reviewers and admins see everything here; only admins create, change, test or delete
alert rules (and see a rule's full webhook URL and secret: a Slack URL is a secret too),
and only admins add, edit, pause or delete sampling rules.
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlsplit

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from grounding_app.accounts.roles import ADMIN, REVIEWER, has_role, role_required
from grounding_app.batch.models import BatchJob
from grounding_app.downloads import download
from grounding_app.monitoring import (
    alerts,
    calibration_marks,
    charts,
    compare,
    sampling,
    tasks,
    trends,
)
from grounding_app.monitoring.forms import (
    AlertRuleForm,
    CompareForm,
    SamplingRuleForm,
    SamplingStateForm,
)
from grounding_app.monitoring.models import AlertRule, SamplingRule
from grounding_app.traces.models import SourceJob, TraceSource

reviewers = role_required(REVIEWER, ADMIN)
admins = role_required(ADMIN)

DELIVERIES_SHOWN = 50


def _scope(request: HttpRequest) -> trends.Scope:
    source = None
    if (raw := request.GET.get("source", "")).isdigit():
        source = TraceSource.objects.filter(pk=int(raw)).first()
    key, value = request.GET.get("key", "")[:200], request.GET.get("value", "")[:200]
    if "\x00" in key + value:  # no label holds a NUL, and PostgreSQL refuses one in a query
        key = value = ""
    return trends.Scope(source, key, value if key else "")


def _versus(request: HttpRequest, scope: trends.Scope) -> trends.Scope | None:
    """The scope drawn beside `scope`: another trace source (or all jobs) and/or another
    value of the same label; None when none is asked for or it is the same scope."""
    raw = request.GET.get("vs_source", "")
    value = request.GET.get("vs_value", "")[:200].replace("\x00", "")
    source = scope.source
    if raw == "all":
        source = None
    elif raw.isdigit():
        source = TraceSource.objects.filter(pk=int(raw)).first()
    elif not (value and scope.key):
        return None
    other = trends.Scope(source, scope.key, value if value and scope.key else scope.value)
    return None if other == scope else other


def _side_by_side(
    scope: trends.Scope, mine: list[trends.Point], other: trends.Scope, days: int
) -> tuple[str, list[tuple[trends.Point, trends.Point, str]]]:
    """The two scopes' daily rates as two lines, and the rows of their table."""
    theirs = trends.daily(other, days)
    labels = [p.bucket[5:] for p in mine]
    svg = charts.lines_wide_and_narrow(
        labels,
        [
            charts.Series(scope.name, [p.rate for p in mine]),
            charts.Series(other.name, [p.rate for p in theirs]),
        ],
        title=f"Unsupported-claim rate per day: {scope.name} and {other.name}",
    )
    rows = [(a, b, _day_link(scope, a.bucket)) for a, b in zip(mine, theirs, strict=True)]
    return svg, rows[::-1]


def _days(request: HttpRequest) -> int:
    raw = request.GET.get("days", "")
    return int(raw) if raw.isdigit() and int(raw) in trends.RANGES else trends.RANGES[2]


def _day_link(scope: trends.Scope, bucket: str) -> str:
    return reverse("monitoring:day") + "?" + urlencode({**scope.query(), "day": bucket})


def _bars(points: list[trends.Point], scope: trends.Scope, hourly: bool) -> list[charts.Bar]:
    bars = []
    for p in points:
        label = f"{p.bucket[11:13]}h" if hourly else p.bucket[5:]
        rate = "no claims" if p.rate is None else f"{p.rate:.1%} of {p.claims} claims unsupported"
        score = "" if p.mean_score is None else f", mean score {p.mean_score:.2f}"
        title = f"{p.bucket}{':00' if hourly else ''}: {p.answers} answers, {rate}{score}"
        href = "" if hourly else _day_link(scope, p.bucket)
        bars.append(charts.Bar(label, title, p.rate, p.mean_score, href))
    return bars


@reviewers
@require_GET
def trend_page(request: HttpRequest) -> HttpResponse:
    """The whole page, or (asked by htmx when the range or scope changes) its figures."""
    scope, days = _scope(request), _days(request)
    other = _versus(request, scope)
    daily, hourly = trends.daily(scope, days), trends.hourly(scope)
    changed = calibration_marks.changes(scope, days)
    context = {
        "scope": scope,
        "days": days,
        "ranges": trends.RANGES,
        "daily_svg": charts.wide_and_narrow(
            _bars(daily, scope, False), title=f"Unsupported-claim rate per day, last {days} days"
        ),
        "hourly_svg": charts.wide_and_narrow(
            _bars(hourly, scope, True), title="Unsupported-claim rate per hour, last 48 hours"
        ),
        "daily_rows": [
            (p, _day_link(scope, p.bucket), changed.get(p.bucket, ())) for p in reversed(daily)
        ],
        "scale_changes": sorted(changed.items()),
        "hourly_rows": [p for p in reversed(hourly) if p.answers or p.not_checkable],
        "sources": TraceSource.objects.order_by("service_name"),
        "labels": trends.label_keys(scope, days),
        "versus": other,
        "vs_source": request.GET.get("vs_source", ""),
        "vs_value": other.value if other and other.key else "",
    }
    if other is not None:
        context["versus_svg"], context["versus_rows"] = _side_by_side(scope, daily, other, days)
    template = "monitoring/trends.html"
    if getattr(request, "htmx", False):
        template += "#figures"
    return render(request, template, context)


@reviewers
@require_GET
def trend_day(request: HttpRequest) -> HttpResponse:
    scope = _scope(request)
    try:
        day = date.fromisoformat(request.GET.get("day", ""))
    except ValueError:
        day = date.max
    if day == date.max:  # not a day, or the last one, whose end no date can hold
        return HttpResponse("Not a day: give ?day=YYYY-MM-DD.", status=400)
    back = reverse("monitoring:trends") + "?" + urlencode(scope.query())
    context = {"scope": scope, "day": day, "worst": trends.worst_of_day(scope, day), "back": back}
    return render(request, "monitoring/day.html", context)


def _day_job(source: TraceSource, raw: str) -> BatchJob | None:
    """The source's rolling job of that UTC day (the latest, if the day had two)."""
    try:
        day = date.fromisoformat(raw)
    except ValueError:
        return None
    found = SourceJob.objects.filter(source=source, day=day).select_related("job").first()
    return found.job if found else None


@reviewers
@require_GET
def compare_page(request: HttpRequest) -> HttpResponse:
    """Two jobs picked, or two days of a trace source (resolved to their jobs)."""
    if (raw := request.GET.get("source", "")).isdigit():
        source = get_object_or_404(TraceSource, pk=int(raw))
        before = _day_job(source, request.GET.get("day_before", ""))
        after = _day_job(source, request.GET.get("day_after", ""))
        if before and after:
            query = {"before": str(before.public_id), "after": str(after.public_id)}
            return redirect(reverse("monitoring:compare") + "?" + urlencode(query))
        messages.error(request, "The source has no job on one of those days.")
    form = CompareForm(request.GET if "before" in request.GET else None)
    result = None
    if form.is_bound and form.is_valid():
        result = compare.compare(form.cleaned_data["before"], form.cleaned_data["after"])
    status = 400 if form.is_bound and not form.is_valid() else 200
    context = {
        "form": form,
        "result": result,
        "sources": TraceSource.objects.order_by("service_name"),
    }
    return render(request, "monitoring/compare.html", context, status=status)


def _compared(request: HttpRequest) -> CompareForm:
    form = CompareForm(request.GET)
    if not form.is_valid():
        raise Http404("pick two runs")
    return form


@reviewers
@require_GET
def compare_csv(request: HttpRequest) -> StreamingHttpResponse:
    data = _compared(request).cleaned_data
    lines = compare.csv_lines(data["before"], data["after"])
    return download(lines, "compare.csv", "text/csv")


@reviewers
@require_GET
def compare_jsonl(request: HttpRequest) -> StreamingHttpResponse:
    data = _compared(request).cleaned_data
    lines = compare.jsonl_lines(data["before"], data["after"])
    return download(lines, "compare.jsonl", "application/x-ndjson")


@reviewers
@require_GET
def rule_list(request: HttpRequest) -> HttpResponse:
    rules = AlertRule.objects.select_related("source")
    return render(
        request,
        "monitoring/rules.html",
        {"rules": rules, "can_manage": has_role(request.user, ADMIN)},
    )


@reviewers
@require_GET
def rule_detail(request: HttpRequest, pk: int) -> HttpResponse:
    rule = get_object_or_404(AlertRule.objects.select_related("source"), pk=pk)
    context = {
        "rule": rule,
        "deliveries": rule.deliveries.defer("body")[:DELIVERIES_SHOWN],
        "can_manage": has_role(request.user, ADMIN),
        "host": urlsplit(rule.url).hostname,
    }
    return render(request, "monitoring/rule.html", context)


@admins
@require_http_methods(["GET", "POST"])
def rule_edit(request: HttpRequest, pk: int | None = None) -> HttpResponse:
    rule = get_object_or_404(AlertRule, pk=pk) if pk is not None else None
    form = AlertRuleForm(request.POST or None, instance=rule)
    if request.method == "POST" and form.is_valid():
        saved = form.save(commit=False)
        if rule is None:
            saved.created_by = request.user
        saved.save()
        messages.success(request, "The alert rule is saved.")
        return redirect(saved)
    status = 400 if request.method == "POST" else 200
    context = {"form": form, "rule": rule, "known": trends.label_keys(trends.Scope(), 90)}
    return render(request, "monitoring/rule_form.html", context, status=status)


@admins
@require_POST
def rule_test(request: HttpRequest, pk: int) -> HttpResponse:
    """Send a test payload now (and, if it fails, through the worker's retries)."""
    rule = get_object_or_404(AlertRule, pk=pk)
    delivery = alerts.test_delivery(rule)
    wait = alerts.attempt(delivery.pk)
    delivery.refresh_from_db()
    if delivery.state == delivery.State.DELIVERED:
        messages.success(request, "The test was delivered.")
    else:
        messages.error(request, f"The test was not delivered ({delivery.last_error}).")
        if wait is not None:
            tasks.send([delivery.pk])
    return redirect(rule)


@admins
@require_POST
def rule_delete(request: HttpRequest, pk: int) -> HttpResponse:
    get_object_or_404(AlertRule, pk=pk).delete()
    messages.success(request, "The alert rule is deleted.")
    return redirect("monitoring:rules")


def _sampling(
    request: HttpRequest, form: SamplingRuleForm | None, status: int = 200, error: str = ""
) -> HttpResponse:
    today = timezone.now().date()
    rules = SamplingRule.objects.select_related("source", "job", "project").annotate(
        sent=Count("sampled"), sent_today=Count("sampled", filter=Q(sampled__day=today))
    )
    can_manage = has_role(request.user, ADMIN)
    context = {"rules": rules, "form": form, "can_manage": can_manage, "error": error}
    return render(request, "monitoring/sampling.html", context, status=status)


@reviewers
@require_http_methods(["GET", "POST"])
def sampling_page(request: HttpRequest) -> HttpResponse:
    """The sampling rules with what each sent; admins add one here."""
    can_manage = has_role(request.user, ADMIN)
    if request.method == "POST" and not can_manage:
        raise PermissionDenied
    form = SamplingRuleForm(request.POST or None) if can_manage else None
    if form is not None and request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, "The sampling rule is saved; it sends claims from the next run.")
        return redirect("monitoring:sampling")
    return _sampling(request, form, status=400 if request.method == "POST" else 200)


@admins
@require_http_methods(["GET", "POST"])
def sampling_edit(request: HttpRequest, pk: int) -> HttpResponse:
    """The rule's form, filled in; a change applies from the next run, and the claims
    the rule sent stay sent (its SampledClaim rows are kept, so none goes twice)."""
    rule = get_object_or_404(SamplingRule, pk=pk)
    form = SamplingRuleForm(request.POST or None, instance=rule)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(
            request,
            "The sampling rule is saved; the change applies from the next run, "
            "and claims it already sent are not sent again.",
        )
        return redirect("monitoring:sampling")
    status = 400 if request.method == "POST" else 200
    return render(
        request, "monitoring/sampling_rule.html", {"form": form, "rule": rule}, status=status
    )


@admins
@require_POST
def sampling_state(request: HttpRequest, pk: int) -> HttpResponse:
    """Pause a rule (the next runs send nothing for it) or resume it."""
    rule = get_object_or_404(SamplingRule, pk=pk)
    form = SamplingStateForm(request.POST)
    if not form.is_valid():
        reason = " ".join(str(e) for e in form.errors["state"])
        return _sampling(request, SamplingRuleForm(), 400, f"Pause or resume? {reason}")
    rule.enabled = form.cleaned_data["state"] == "active"
    rule.save(update_fields=["enabled"])
    done = "resumed: it sends claims from the next run" if rule.enabled else "paused"
    messages.success(request, f"The sampling rule is {done}.")
    return redirect("monitoring:sampling")


def _ran(rule: SamplingRule, sent: int, today: date) -> str:
    """What a run of the rule did, in a sentence."""
    if not rule.enabled:
        return "Paused: nothing sent. Resume the rule to run it."
    total = rule.sampled.filter(day=today).count()
    if sent:
        claims = "1 claim" if sent == 1 else f"{sent} claims"
        return f"Sent {claims} to {rule.project.name} now; {total} of {rule.daily_quota} today."
    if total >= rule.daily_quota:
        return f"Nothing sent: today's quota ({rule.daily_quota}) is already sent."
    return "Nothing sent: no claim left within the band that was not sent before."


@admins
@require_POST
def sampling_run(request: HttpRequest, pk: int) -> HttpResponse:
    """Run one rule now, as the day's run would (it fills what is left of today's quota);
    htmx puts the sentence beside the button, a plain form gets it as a message."""
    rule = get_object_or_404(SamplingRule.objects.select_related("project"), pk=pk)
    today = timezone.now().date()
    sent = len(sampling.sample(rule, today))
    rule.refresh_from_db()
    said = _ran(rule, sent, today)
    if getattr(request, "htmx", False):
        context = {"rule": rule, "said": said, "sent": sent, "total": rule.sampled.count()}
        context["today"] = rule.sampled.filter(day=today).count()
        return render(request, "monitoring/_sampling_ran.html", context)
    messages.success(request, said)
    return redirect("monitoring:sampling")


@admins
@require_POST
def sampling_delete(request: HttpRequest, pk: int) -> HttpResponse:
    """Delete a rule and its record of what it sent (its SampledClaim rows, which only
    keep this rule from sending a claim twice); the items it sent stay in the project."""
    rule = get_object_or_404(SamplingRule.objects.select_related("project"), pk=pk)
    sent = rule.sampled.count()
    rule.delete()
    claims = "1 claim" if sent == 1 else f"{sent} claims"
    messages.success(
        request,
        f"The sampling rule is deleted; the {claims} it sent stay in {rule.project.name}.",
    )
    return redirect("monitoring:sampling")
