"""Permissions that come with a role, declared here rather than stored as group rows.

A permission row would have to be created by a migration before the permissions
themselves exist (Django makes those after every migration has run), and an edit in the
admin could silently widen a role. Here the admin role's rights are one reviewed list,
and a test checks every admin page against it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import BaseBackend

from grounding_app.accounts.roles import ADMIN, has_role

# What an admin does (SPEC §4): users and their roles, API keys, the retention period,
# the purge history. Nothing else: reviews and labeling data are reached through the
# app's own pages, where the admin role already opens everything.
ADMIN_PERMISSIONS = frozenset(
    {
        "auth.view_user",
        "auth.add_user",
        "auth.change_user",
        "auth.delete_user",
        "auth.view_group",
        "api.view_apikey",
        "api.add_apikey",
        "api.change_apikey",
        "api.delete_apikey",
        "retention.view_retentionsettings",
        "retention.add_retentionsettings",
        "retention.change_retentionsettings",
        "retention.view_purge",
    }
)


class RolePermissionBackend(BaseBackend):
    """Grants each role's permissions; authenticates nobody (ModelBackend does that)."""

    def get_all_permissions(self, user_obj: Any, obj: object = None) -> set[str]:
        if obj is not None or not user_obj.is_active or not has_role(user_obj, ADMIN):
            return set()
        return set(ADMIN_PERMISSIONS)

    def has_perm(self, user_obj: Any, perm: str, obj: object = None) -> bool:
        return perm in self.get_all_permissions(user_obj, obj)

    def has_module_perms(self, user_obj: Any, app_label: str) -> bool:
        return any(p.startswith(f"{app_label}.") for p in self.get_all_permissions(user_obj))
