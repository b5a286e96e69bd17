"""Users with their roles in the admin list: a column, a filter, and actions that give or
take a role from the selected users (the change form keeps Django's group picker).

An admin who is not a superuser manages users but cannot raise anyone above the admin
role: superusers are read-only to them, and the superuser, staff and per-user
permission fields are not theirs to set.
"""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import admin, messages
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import Group, User
from django.db.models import Model, QuerySet
from django.db.models.fields.related import ManyToManyField
from django.forms import ModelMultipleChoiceField
from django.http import HttpRequest

from grounding_app.accounts.roles import ADMIN, ROLES

Action = Callable[[admin.ModelAdmin, HttpRequest, QuerySet[User]], None]


def _role_action(role: str, give: bool) -> Action:
    verb = "Give" if give else "Take away"

    @admin.action(description=f"{verb} the {role} role", permissions=["change"])
    def action(model_admin: admin.ModelAdmin, request: HttpRequest, users: QuerySet[User]) -> None:
        # The change form refuses a superuser to an admin who is not one; so do actions.
        skipped = 0
        if not request.user.is_superuser:
            skipped = users.filter(is_superuser=True).count()
            users = users.filter(is_superuser=False)
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
        if skipped:
            model_admin.message_user(
                request,
                f"{skipped} superuser(s) left unchanged: only a superuser may change them.",
                messages.WARNING,
            )

    action.__name__ = f"{'give' if give else 'take'}_{role}_role"
    return action


def _above(request: HttpRequest, obj: Model | None) -> bool:
    """A superuser, seen by someone who is not one."""
    return bool(getattr(obj, "is_superuser", False)) and not request.user.is_superuser


admin.site.unregister(User)


@admin.register(User)
class WorkbenchUserAdmin(UserAdmin):
    list_display = ("username", "roles", "email", "is_active", "last_login", "date_joined")
    list_filter = ("groups", "is_active", "is_superuser")
    actions = [_role_action(role, give) for role in ROLES for give in (True, False)]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return super().get_queryset(request).prefetch_related("groups")

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        fields = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            fields += ["is_superuser", "is_staff", "user_permissions", "last_login", "date_joined"]
        return fields

    def has_change_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        if _above(request, obj):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request: HttpRequest, obj: Model | None = None) -> bool:
        if _above(request, obj):
            return False
        return super().has_delete_permission(request, obj)

    def formfield_for_manytomany(
        self, db_field: ManyToManyField, request: HttpRequest, **kwargs: object
    ) -> ModelMultipleChoiceField | None:
        if db_field.name == "groups" and not request.user.is_superuser:
            kwargs["queryset"] = Group.objects.filter(name__in=ROLES)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="Roles")
    def roles(self, user: User) -> str:
        names = sorted(group.name for group in user.groups.all() if group.name in ROLES)
        if user.is_superuser and ADMIN not in names:
            names.append(f"{ADMIN} (superuser)")
        return ", ".join(names) or "—"
