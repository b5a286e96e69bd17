"""Routes of the annotation queues, mounted under /annotations/."""

from __future__ import annotations

from django.urls import path

from grounding_app.annotations import views

app_name = "annotations"

urlpatterns = [
    path("", views.project_list, name="projects"),
    path("new/", views.project_new, name="new_project"),
    path("<int:pk>/", views.project_detail, name="project"),
    path("<int:pk>/settings/", views.project_settings, name="settings"),
    path("<int:pk>/import/", views.project_import, name="import_items"),
    path("<int:pk>/next/", views.project_next, name="next"),
    path("<int:pk>/agreement/", views.agreement_page, name="agreement"),
    path("<int:pk>/claims/<int:claim_pk>/adjudicate/", views.adjudicate, name="adjudicate"),
    path("<int:pk>/export.jsonl", views.export_jsonl, name="export_jsonl"),
    path("<int:pk>/export.csv", views.export_csv, name="export_csv"),
    path(
        "<int:pk>/label-studio/export.json",
        views.export_label_studio,
        name="export_label_studio",
    ),
    path("<int:pk>/label-studio/", views.label_studio_page, name="label_studio"),
    path("<int:pk>/imports/<int:job_pk>/", views.import_job, name="import_job"),
    path("label/<int:pk>/", views.label, name="label"),
    path("label/<int:pk>/draft/", views.label_draft, name="draft"),
    path("label/<int:pk>/submit/", views.label_submit, name="submit"),
    path("label/<int:pk>/skip/", views.label_skip, name="skip"),
    path(
        "label/<int:pk>/suggestions/<int:number>/",
        views.label_suggestions,
        name="label_suggestions",
    ),
    path("send-review/<uuid:public_id>/", views.send_review, name="send_review"),
]
