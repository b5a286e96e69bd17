"""Routes of batch jobs, mounted under /batch/."""

from __future__ import annotations

from django.urls import path

from grounding_app.batch import views

app_name = "batch"

urlpatterns = [
    path("", views.job_list, name="jobs"),
    path("<uuid:public_id>/", views.job_detail, name="detail"),
    path("<uuid:public_id>/progress/", views.job_progress, name="progress"),
    path("<uuid:public_id>/cancel/", views.job_cancel, name="cancel"),
    path("<uuid:public_id>/lines/<int:number>/review/", views.line_review, name="line_review"),
    path("<uuid:public_id>/results.jsonl", views.export_jsonl, name="export_jsonl"),
    path("<uuid:public_id>/results.csv", views.export_csv, name="export_csv"),
]
