"""Routes of the source policies, mounted under /policies/."""

from __future__ import annotations

from django.urls import path

from grounding_app.policies import views

app_name = "policies"

urlpatterns = [
    path("", views.policy_list, name="list"),
    path("new/", views.policy_new, name="new"),
    path("<int:pk>/", views.policy_detail, name="detail"),
    path("<int:pk>/delete/", views.policy_delete, name="delete"),
    path("review/<uuid:public_id>/", views.attach_review, name="attach_review"),
    path("project/<int:pk>/", views.attach_project, name="attach_project"),
]
