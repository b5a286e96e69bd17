"""Pages of trace sources, mounted under /traces/."""

from __future__ import annotations

from django.urls import path

from grounding_app.traces import views

app_name = "traces"

urlpatterns = [
    path("", views.source_list, name="sources"),
    path("connect/", views.connect, name="connect"),
    path("connect/test-trace/", views.send_test_trace, name="test_trace"),
    path("docs/", views.traces_docs, name="docs"),
    path("sources/<int:pk>/", views.source_detail, name="source"),
]
