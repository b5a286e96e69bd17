from __future__ import annotations

from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    name = "grounding_app.reviews"
    label = "reviews"
    verbose_name = "Reviews"
