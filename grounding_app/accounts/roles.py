"""The roles and the one access rule every page view declares.

Roles are Django groups; a superuser counts as an admin. Each view is wrapped by
exactly one of `role_required(...)` or `public`, which also records the rule on the
view (`access_rule`) so a test can prove that no route was left without one.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase

REVIEWER = "reviewer"
ANNOTATOR = "annotator"
ADMIN = "admin"
ROLES = (REVIEWER, ANNOTATOR, ADMIN)

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def roles_of(user: Any) -> frozenset[str]:
    """The roles a user holds; cached on the user object for the request."""
    if not getattr(user, "is_authenticated", False):
        return frozenset()
    cached = getattr(user, "_workbench_roles", None)
    if cached is None:
        names = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            names.add(ADMIN)
        cached = frozenset(names)
        user._workbench_roles = cached
    return cached


def has_role(user: object, *roles: str) -> bool:
    return bool(roles_of(user) & set(roles))


def may_change(user: Any, owner_id: int | None) -> bool:
    """The one ownership rule: what a person made (a review, a batch job, a source policy,
    an API key and the trace sources fed through it) is changed, cancelled or deleted by
    that person or an admin, nobody else; a thing without an owner, by an admin."""
    if has_role(user, ADMIN):
        return True
    return owner_id is not None and owner_id == getattr(user, "pk", None)


def role_required(*roles: str) -> Callable[[View], View]:
    """Anonymous users go to the login page; signed-in users without a role get 403."""
    unknown = set(roles) - set(ROLES)
    if not roles or unknown:
        raise ValueError(f"role_required needs roles from {ROLES}, got {roles}")

    def decorator(view: View) -> View:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponseBase:
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not has_role(request.user, *roles):
                raise PermissionDenied(f"this page needs one of the roles {', '.join(roles)}")
            return view(request, *args, **kwargs)

        wrapped.access_rule = f"roles: {', '.join(roles)}"  # type: ignore[attr-defined]
        return wrapped  # type: ignore[return-value]

    return decorator


def public(view: View) -> View:
    """Mark a view as open to everyone (sign-in pages): an explicit rule, not an omission."""
    view.access_rule = "public"  # type: ignore[attr-defined]
    return view
