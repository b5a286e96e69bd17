"""`Cache-Control: private, no-store` on every answer to a signed-in person or an API key.

Review pages, exports and API results hold answers and facts that a shared proxy must
never keep, and that a browser must not leave on disk for the next person at the same
machine. Anonymous answers (the sign-in page, probes, static files) are left alone.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control

# Where the API looks for a key (grounding_app.api.auth): a header, or ?key=.
_KEY_HEADERS = ("HTTP_X_GOOG_API_KEY", "HTTP_AUTHORIZATION")


class PrivateNoStoreMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        signed_in = bool(user is not None and user.is_authenticated)
        if signed_in or "key" in request.GET or any(h in request.META for h in _KEY_HEADERS):
            patch_cache_control(response, private=True, no_store=True)
        return response
