from __future__ import annotations

from django.apps import AppConfig


class CalibrationConfig(AppConfig):
    name = "grounding_app.calibration"
    label = "calibration"
    verbose_name = "Calibration per scope"
