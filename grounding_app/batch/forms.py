"""The upload form of a batch job."""

from __future__ import annotations

import uuid

from django import forms

from grounding_app.engine import DEFAULT_CITATION_THRESHOLD
from grounding_app.policies.forms import PolicyChoiceField
from grounding_app.policies.models import SourcePolicy


class BatchUploadForm(forms.Form):
    file = forms.FileField(
        label="File",
        help_text=(
            "JSONL, one answer per line: the grounding schema, check-grounding requests, "
            "Gemini responses, agent session outputs, Langfuse traces or RAGAS rows. Or a "
            "Langfuse traces export (JSON), or a RAGAS dataset as JSON or CSV (question, "
            "contexts, answer)."
        ),
    )
    citation_threshold = forms.FloatField(
        label="Citation threshold",
        min_value=0.0,
        max_value=1.0,
        initial=DEFAULT_CITATION_THRESHOLD,
        widget=forms.NumberInput(attrs={"step": "0.05"}),
    )
    source_policy = PolicyChoiceField(
        label="Source policy",
        queryset=SourcePolicy.objects.all(),
        required=False,
        empty_label="No policy",
        help_text="Count the answers that cite a source the policy excludes.",
    )
    # A fresh key on every page: the same form sent again (a retry after a timeout, a
    # second click) opens the job the first one made instead of making another.
    request_id = forms.RegexField(
        regex=r"\A[A-Za-z0-9._-]{1,100}\Z",
        required=False,
        widget=forms.HiddenInput,
        initial=lambda: uuid.uuid4().hex,
    )
