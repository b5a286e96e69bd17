"""Sign-in (rate-limited per address) and sign-out, with Django's own auth views."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from grounding_app.accounts.roles import public
from grounding_app.accounts.views import SignInView

app_name = "accounts"

urlpatterns = [
    path(
        "login/",
        public(SignInView.as_view()),
        name="login",
    ),
    path("logout/", public(auth_views.LogoutView.as_view()), name="logout"),
]
