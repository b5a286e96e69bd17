"""Routes of the review workbench, mounted under /reviews/."""

from __future__ import annotations

from django.urls import path

from grounding_app.reviews import views

app_name = "reviews"

urlpatterns = [
    path("", views.review_list, name="list"),
    path("new/", views.review_new, name="new"),
    path("import/", views.review_import, name="import"),
    path("export.jsonl", views.review_export_jsonl, name="export_jsonl"),
    path("export.csv", views.review_export_csv, name="export_csv"),
    path("<uuid:public_id>/", views.review_detail, name="detail"),
    path("<uuid:public_id>/recheck/", views.review_recheck, name="recheck"),
    path("<uuid:public_id>/engine-check/", views.review_engine_check, name="engine_check"),
    path("<uuid:public_id>/verdict/", views.review_verdict, name="verdict"),
    # The second opinion on imported citations, fetched once the page has loaded.
    path(
        "<uuid:public_id>/second-opinion/",
        views.review_second_opinion,
        name="second_opinion",
    ),
    path("<uuid:public_id>/delete/", views.review_delete, name="delete"),
    path(
        "<uuid:public_id>/suggestions/<int:candidate>/<int:number>/",
        views.review_suggestions,
        name="suggestions",
    ),
]
