"""Routes of trends, comparisons, alert rules and sampling rules, mounted under /monitoring/."""

from __future__ import annotations

from django.urls import path

from grounding_app.monitoring import views

app_name = "monitoring"

urlpatterns = [
    path("", views.trend_page, name="trends"),
    path("day/", views.trend_day, name="day"),
    path("compare/", views.compare_page, name="compare"),
    path("compare.csv", views.compare_csv, name="compare_csv"),
    path("compare.jsonl", views.compare_jsonl, name="compare_jsonl"),
    path("alerts/", views.rule_list, name="rules"),
    path("alerts/new/", views.rule_edit, name="rule_new"),
    path("alerts/<int:pk>/", views.rule_detail, name="rule"),
    path("alerts/<int:pk>/edit/", views.rule_edit, name="rule_edit"),
    path("alerts/<int:pk>/test/", views.rule_test, name="rule_test"),
    path("alerts/<int:pk>/delete/", views.rule_delete, name="rule_delete"),
    path("sampling/", views.sampling_page, name="sampling"),
    path("sampling/<int:pk>/edit/", views.sampling_edit, name="sampling_edit"),
    path("sampling/<int:pk>/state/", views.sampling_state, name="sampling_state"),
    path("sampling/<int:pk>/delete/", views.sampling_delete, name="sampling_delete"),
    path("sampling/<int:pk>/run/", views.sampling_run, name="sampling_run"),
]
