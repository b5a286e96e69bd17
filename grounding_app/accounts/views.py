"""Sign-in with a limit on failed attempts per client address; the role-based home page.

Failures are counted from Django's `user_login_failed` signal, which every sign-in form
sends (this app's, the admin's, any added later), and every sign-in view asks
`login_refusal` before checking a password.
"""

from __future__ import annotations

import math
from typing import Any

from django.contrib.auth.signals import user_login_failed
from django.contrib.auth.views import LoginView, redirect_to_login
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from grounding_app.accounts.roles import ADMIN, ANNOTATOR, REVIEWER, has_role, roles_of
from grounding_app.limits import client_ip, login_limit


def login_refusal(request: HttpRequest) -> HttpResponse | None:
    """429 for a sign-in attempt from an address over its failure limit, else None."""
    limit = login_limit()
    if request.method != "POST" or not limit.limit:
        return None
    if limit.used(client_ip(request)) < limit.limit:
        return None
    retry_after = limit.retry_after()
    response = render(
        request, "429.html", {"retry_after_minutes": math.ceil(retry_after / 60)}, status=429
    )
    response["Retry-After"] = str(retry_after)
    return response


@receiver(user_login_failed, dispatch_uid="count-failed-sign-ins")
def count_failure(sender: object, request: HttpRequest | None = None, **kwargs: Any) -> None:
    if request is not None:
        login_limit().hit(client_ip(request))


class SignInView(LoginView):
    """Django's LoginView; after LOGIN_RATE_LIMIT failures from one address within
    LOGIN_RATE_WINDOW seconds, further attempts get 429 until the window ends.

    Only failures count, so people behind one address who sign in correctly never
    lock each other out.
    """

    template_name = "accounts/login.html"
    redirect_authenticated_user = True

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        return login_refusal(request) or super().post(request, *args, **kwargs)


def home(request: HttpRequest) -> HttpResponse:
    """Send each person to the page of their role: reviews, else the labeling queue."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if has_role(request.user, REVIEWER, ADMIN):
        return redirect("reviews:list")
    if has_role(request.user, ANNOTATOR):
        return redirect("annotations:projects")
    raise PermissionDenied("this account has no role yet; ask an admin for one")


def roles(request: HttpRequest) -> dict[str, frozenset[str]]:
    """Template context: the signed-in person's roles, to show only the pages they may use."""
    return {"workbench_roles": roles_of(request.user)}
