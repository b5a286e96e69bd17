"""Sign-in with a limit on failed attempts per client address; the role-based home page.

Every sign-in view asks `login_refusal` before checking a password, and that counts the
attempt first and refuses it when the count is over the limit: concurrent wrong
passwords each get their own number, so no more than the limit are ever checked. A
successful sign-in takes its count back, so people behind one address who sign in
correctly never lock each other out. A sign-in form that does not ask (one added
later) still has its failures counted, from Django's `user_login_failed` signal.
"""

from __future__ import annotations

import math
import weakref
from typing import Any

from django.contrib.auth.signals import user_logged_in, user_login_failed
from django.contrib.auth.views import LoginView, redirect_to_login
from django.core.exceptions import PermissionDenied
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from grounding_app.accounts.roles import ADMIN, ANNOTATOR, REVIEWER, has_role, roles_of
from grounding_app.limits import client_ip, login_limit

# Requests whose attempt login_refusal has already counted.
_counted: weakref.WeakSet[HttpRequest] = weakref.WeakSet()


def login_refusal(request: HttpRequest) -> HttpResponse | None:
    """Count a sign-in attempt; 429 when its address is over the limit, else None."""
    limit = login_limit()
    if request.method != "POST" or not limit.limit:
        return None
    count = limit.hit(client_ip(request))
    _counted.add(request)
    if not limit.exceeded(count):
        return None
    retry_after = limit.retry_after()
    response = render(
        request, "429.html", {"retry_after_minutes": math.ceil(retry_after / 60)}, status=429
    )
    response["Retry-After"] = str(retry_after)
    return response


@receiver(user_login_failed, dispatch_uid="count-failed-sign-ins")
def count_failure(sender: object, request: HttpRequest | None = None, **kwargs: Any) -> None:
    if request is not None and request not in _counted:
        login_limit().hit(client_ip(request))


@receiver(user_logged_in, dispatch_uid="uncount-sign-ins")
def uncount_success(sender: object, request: HttpRequest | None = None, **kwargs: Any) -> None:
    if request is not None and request in _counted:
        login_limit().release(client_ip(request))


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
