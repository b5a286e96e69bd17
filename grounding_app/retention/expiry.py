"""Expiry in every query: rows past their retention period are invisible at once.

A model opts in by making a `RetentionManager` its default manager (its first one).
Every query through it — pages, exports, the admin, related managers, form and
constraint validation — then sees live rows only, from the moment a row expires, not
from the next purge. `purge.purge_expired` deletes the rest for real through
`_base_manager`, which Django keeps unfiltered (so do cascades and foreign-key access).

A row lives by its own clock (`date_field`, e.g. `created_at`, against the site period
or, with `project`, that project's `retention_days` where set) and/or no longer than
the rows it `follows` (foreign keys to other governed models: an annotation claim goes
with its item, an item sent from a review goes with the review).

The cutoff is not a value frozen into a queryset: `KeptSince` reads the periods and the
clock when the SQL is compiled, so a queryset built before midnight still hides what
expires at midnight. Within one request the periods are read once
(`PeriodsPerRequestMiddleware`); elsewhere they are read per query.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import reduce
from operator import or_
from typing import Any, TypeVar

from django.db import models
from django.db.models import Case, DateTimeField, Expression, F, Q, TextField, Value, When
from django.db.models.functions import Cast
from django.db.models.lookups import Exact
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone

T = TypeVar("T")


@dataclass(frozen=True)
class Policy:
    """How rows of one model expire (see the module docstring)."""

    model: type[models.Model]
    date_field: str | None
    project_field: str | None
    follows: tuple[str, ...]


_policies: dict[type[models.Model], Policy] = {}


def policies() -> tuple[Policy, ...]:
    """Every governed model's policy, in the order the models were defined."""
    return tuple(_policies.values())


def policy_for(model: type[models.Model]) -> Policy:
    return _policies[model._meta.concrete_model or model]


def related_model(model: type[models.Model], name: str) -> type[models.Model]:
    """The model that relation `name` of `model` points to."""
    target = model._meta.get_field(name).related_model
    if not isinstance(target, type):
        raise TypeError(f"{model.__name__}.{name} is not a relation to a model class")
    return target


# --- the periods, read once per request --------------------------------------------

_memo: contextvars.ContextVar[dict[object, Any] | None] = contextvars.ContextVar(
    "retention_periods", default=None
)


def _remembered(key: object, read: Callable[[], T]) -> T:
    memo = _memo.get()
    if memo is None:
        return read()
    if key not in memo:
        memo[key] = read()
    return memo[key]


def site_days() -> int:
    from grounding_app.retention.models import RetentionSettings

    return _remembered("site", RetentionSettings.site_days)


def project_days(project_model: type[models.Model]) -> dict[Any, int]:
    """{project pk: days} of the projects that set their own period."""

    def read() -> dict[Any, int]:
        rows = project_model._base_manager.filter(retention_days__isnull=False)
        return {pk: max(1, days) for pk, days in rows.values_list("pk", "retention_days")}

    return _remembered(project_model, read)


class PeriodsPerRequestMiddleware:
    """Read the retention periods once per request instead of once per query."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        token = _memo.set({})
        try:
            return self.get_response(request)
        finally:
            _memo.reset(token)


# --- the cutoff, computed when SQL is compiled -------------------------------------


class KeptSince(Expression):
    """The oldest creation time still kept; with a project column, a CASE over the
    projects that set their own period, the site period for all others."""

    def __init__(
        self,
        project_model: type[models.Model] | None = None,
        project: Expression | F | None = None,
    ) -> None:
        super().__init__(output_field=DateTimeField())
        self.project_model = project_model
        self.project = project

    def get_source_expressions(self) -> list[Any]:
        return [self.project] if self.project is not None else []

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        if exprs:
            (self.project,) = exprs

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        now = timezone.now()

        def since(days: int) -> Value:
            return Value(now - timedelta(days=days), output_field=DateTimeField())

        cutoff: Expression = since(site_days())
        if self.project is not None and self.project_model is not None:
            overrides = project_days(self.project_model)
            if overrides:
                cutoff = Case(
                    *(
                        When(Exact(self.project, pk), then=since(days))
                        for pk, days in sorted(overrides.items())
                    ),
                    default=cutoff,
                    output_field=DateTimeField(),
                )
        return compiler.compile(cutoff)


def _kept_since(policy: Policy) -> KeptSince:
    if policy.project_field is None:
        return KeptSince()
    project_model = related_model(policy.model, policy.project_field)
    return KeptSince(project_model, F(policy.project_field))


def live(model: type[models.Model]) -> Q:
    """The condition a row of `model` must meet to be visible."""
    policy = policy_for(model)
    condition = Q()
    if policy.date_field is not None:
        condition &= Q(**{f"{policy.date_field}__gte": _kept_since(policy)})
    for name in policy.follows:
        parent = related_model(model, name)
        parent_live = Q(**{f"{name}__in": parent._default_manager.values("pk")})
        if getattr(model._meta.get_field(name), "null", False):
            parent_live |= Q(**{f"{name}__isnull": True})
        condition &= parent_live
    return condition


def expired_by_own_clock(policy: Policy) -> Q:
    """Rows whose own period is over (rows that only follow others go with them)."""
    if policy.date_field is None:
        raise ValueError(f"{policy.model._meta.label} has no clock of its own")
    return Q(**{f"{policy.date_field}__lt": _kept_since(policy)})


def stale_log_entries() -> Q:
    """Admin log entries about governed rows that are no longer live (expired or gone).

    An entry's object_repr quotes its object (an annotation claim's repr is its text),
    so an entry lives no longer than the object it names.
    """
    from django.contrib.contenttypes.models import ContentType

    conditions = [
        Q(content_type=ContentType.objects.get_for_model(policy.model))
        & ~Q(
            object_id__in=policy.model._default_manager.annotate(
                logged_id=Cast("pk", TextField())
            ).values("logged_id")
        )
        for policy in policies()
    ]
    return reduce(or_, conditions, Q(pk__in=[]))


class RetentionManager(models.Manager):
    """Default manager of a model whose rows expire: every query sees live rows only.

    `RetentionManager()` for rows with their own `created_at`; `project="project"` where
    a foreign key's `retention_days` may override the site period;
    `RetentionManager(None, follows=("item",))` for rows that live as long as a parent.
    """

    def __init__(
        self,
        date_field: str | None = "created_at",
        *,
        project: str | None = None,
        follows: tuple[str, ...] = (),
    ) -> None:
        super().__init__()
        if date_field is None and not follows:
            raise ValueError("a RetentionManager needs a date field or parents to follow")
        self._policy_args = (date_field, project, tuple(follows))

    def contribute_to_class(self, cls: type[models.Model], name: str) -> None:
        super().contribute_to_class(cls, name)
        if not cls._meta.abstract and not cls._meta.proxy:
            _policies[cls] = Policy(cls, *self._policy_args)

    def get_queryset(self) -> models.QuerySet[Any]:
        return super().get_queryset().filter(live(self.model))
