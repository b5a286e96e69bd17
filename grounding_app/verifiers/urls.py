from __future__ import annotations

from django.urls import path

from grounding_app.verifiers import views

app_name = "verifiers"

urlpatterns = [
    path("", views.page, name="page"),
    path("switch/", views.switch, name="switch"),
    path("adapt/", views.adapt, name="adapt"),
    path("jobs/", views.jobs, name="jobs"),
    path("llm-judge/", views.llm_judge_save, name="llm_judge"),
    path("llm-judge/reset/", views.llm_judge_reset, name="llm_judge_reset"),
    path("llm-judge/try/", views.llm_judge_try, name="llm_judge_try"),
    path(
        "calibrations/<int:pk>/apply/",
        views.calibration_action,
        {"action": "apply"},
        name="calibration_apply",
    ),
    path(
        "calibrations/<int:pk>/undo/",
        views.calibration_action,
        {"action": "undo"},
        name="calibration_undo",
    ),
]
