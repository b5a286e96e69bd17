"""Sign-in and sign-out, with Django's own auth views."""

from __future__ import annotations

from django.contrib.auth import views as auth_views
from django.urls import path

from grounding_app.accounts.roles import public

app_name = "accounts"

urlpatterns = [
    path(
        "login/",
        public(
            auth_views.LoginView.as_view(
                template_name="accounts/login.html", redirect_authenticated_user=True
            )
        ),
        name="login",
    ),
    path("logout/", public(auth_views.LogoutView.as_view()), name="logout"),
]
