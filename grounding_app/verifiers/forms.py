"""The Verifier page's forms: a switch names a listed directory; an adaptation names a
labeling project, the new verifier's name and a few of adapt_verifier's options."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils import timezone
from django.utils.text import slugify

from grounding_app.annotations.models import LabelingProject
from grounding_app.verifiers.services import AdaptOptions


class SwitchForm(forms.Form):
    directory = forms.CharField(max_length=1000)


class AdaptForm(forms.Form):
    project = forms.ModelChoiceField(
        queryset=LabelingProject.objects.all(),
        label="Labeling project",
        empty_label=None,
        help_text="Its submitted final labels, as its training export writes them.",
    )
    name = forms.CharField(
        max_length=64,
        required=False,
        label="Name of the new verifier",
        help_text="Lower-case letters, digits, '.', '_', '-'; blank: the project's name and"
        " the time.",
    )
    epochs = forms.FloatField(initial=1.0, min_value=0.1, max_value=20)
    replay = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=100_000,
        label="Original training pairs mixed in",
        help_text="Keeps what the verifier knew; blank: as many as the labels trained on, 0:"
        " none (faster).",
    )
    max_minutes = forms.FloatField(
        initial=30,
        min_value=0.01,
        max_value=24 * 60,
        label="Stop training after (minutes)",
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        project = data.get("project")
        if project is not None and not data.get("name"):
            stamp = timezone.now().strftime("%Y%m%d-%H%M")
            data["name"] = f"{slugify(project.name)[:40] or 'project'}-{stamp}"
        return data

    def options(self) -> AdaptOptions:
        data = self.cleaned_data
        return AdaptOptions(
            epochs=data["epochs"], replay=data["replay"], max_minutes=data["max_minutes"]
        )
