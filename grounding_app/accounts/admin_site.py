"""The Django admin, opened by the `admin` role as well as by staff.

Roles are groups (roles.py), so a person made an admin in the user list can use the
admin at once, with exactly the permissions of `backends.ADMIN_PERMISSIONS`; nobody has
to remember to tick "staff status" as well. Sign-in here counts failures against the
same per-address limit as the app's own sign-in page.
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin import AdminSite
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse

from grounding_app.accounts.roles import ADMIN, has_role


def may_use_admin(user: Any) -> bool:
    return bool(user.is_active and (user.is_staff or has_role(user, ADMIN)))


class RoleAdminAuthenticationForm(AdminAuthenticationForm):
    """Django's admin sign-in form, letting the admin role in besides staff."""

    def confirm_login_allowed(self, user: Any) -> None:
        AuthenticationForm.confirm_login_allowed(self, user)
        if not may_use_admin(user):
            raise ValidationError(
                self.error_messages["invalid_login"],
                code="invalid_login",
                params={"username": self.username_field.verbose_name},
            )


class WorkbenchAdminSite(AdminSite):
    site_header = "Grounding workbench administration"
    site_title = "Grounding workbench admin"
    login_form = RoleAdminAuthenticationForm

    def has_permission(self, request: HttpRequest) -> bool:
        return may_use_admin(request.user)

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        from grounding_app.accounts.views import login_refusal

        refusal: HttpResponse | None = login_refusal(request)
        return refusal or super().login(request, extra_context)
