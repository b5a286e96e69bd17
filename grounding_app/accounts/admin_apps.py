"""Django's admin app with the workbench's site (admin_site.py), loaded by INSTALLED_APPS.

Kept apart from admin_site.py, which imports forms and models that cannot be imported
while apps are still loading.
"""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class WorkbenchAdminConfig(AdminConfig):
    default_site = "grounding_app.accounts.admin_site.WorkbenchAdminSite"
