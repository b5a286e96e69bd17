"""Users with their roles in the admin list: a column, a filter, and actions that give or
take a role from the selected users (the change form keeps Django's group picker)."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import QuerySet
from django.http import HttpRequest

from grounding_app.accounts.roles import ADMIN, ROLES

Action = Callable[[admin.ModelAdmin, HttpRequest, QuerySet[User]], None]


def _role_action(role: str, give: bool) -> Action:
    verb = "Give" if give else "Take away"

    @admin.action(description=f"{verb} the {role} role", permissions=["change"])
    def action(model_admin: admin.ModelAdmin, request: HttpRequest, users: QuerySet[User]) -> None:
        group = Group.objects.get_or_create(name=role)[0]
        if give:
            group.user_set.add(*users)
        else:
            group.user_set.remove(*users)
        model_admin.message_user(
            request,
            f"{verb} the {role} role: {users.count()} user(s).",
            messages.SUCCESS,
        )

    action.__name__ = f"{'give' if give else 'take'}_{role}_role"
    return action


admin.site.unregister(User)


@admin.register(User)
class WorkbenchUserAdmin(UserAdmin):
    list_display = ("username", "roles", "email", "is_active", "last_login", "date_joined")
    list_filter = ("groups", "is_active", "is_superuser")
    actions = [_role_action(role, give) for role in ROLES for give in (True, False)]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).prefetch_related("groups")

    @admin.display(description="Roles")
    def roles(self, user: User) -> str:
        names = sorted(group.name for group in user.groups.all() if group.name in ROLES)
        if user.is_superuser and ADMIN not in names:
            names.append(f"{ADMIN} (superuser)")
        return ", ".join(names) or "—"
