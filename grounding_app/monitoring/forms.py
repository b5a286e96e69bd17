"""The compare picker, the alert rule form (a webhook URL is validated here), the
sampling rule form (new and edited rules alike) and its pause switch."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from grounding_app.batch.models import BatchJob
from grounding_app.monitoring.models import AlertRule, SamplingRule
from grounding_app.monitoring.webhooks import BadWebhook, check_url

JOBS_OFFERED = 200
MAX_WINDOW_MINUTES = 7 * 24 * 60


class JobChoice(forms.ModelChoiceField):
    def label_from_instance(self, obj: BatchJob) -> str:
        return f"{obj.name or 'unnamed'} · {obj.created_at:%Y-%m-%d %H:%M} · {obj.total} lines"


class CompareForm(forms.Form):
    before = JobChoice(queryset=BatchJob.objects.none(), to_field_name="public_id")
    after = JobChoice(queryset=BatchJob.objects.none(), to_field_name="public_id")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        recent = BatchJob.objects.order_by("-created_at", "-id")
        # The latest jobs are offered; one linked by its id is accepted even if older.
        for name in ("before", "after"):
            field = self.fields[name]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = recent
            field.widget.choices = [("", "---------")] + [
                (str(job.public_id), field.label_from_instance(job))
                for job in recent[:JOBS_OFFERED]
            ]

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("before") and data.get("before") == data.get("after"):
            raise ValidationError("Pick two different runs.")
        return data


class AlertRuleForm(forms.ModelForm):
    url = forms.URLField(
        max_length=500,
        assume_scheme="https",
        label="Webhook URL",
        help_text="http or https; redirects are not followed.",
        widget=forms.URLInput(attrs={"placeholder": "https://hooks.example.com/…"}),
    )

    class Meta:
        model = AlertRule
        fields = (
            "name",
            "source",
            "key",
            "value",
            "kind",
            "window_minutes",
            "level",
            "min_answers",
            "score_below",
            "count",
            "url",
            "format",
            "enabled",
        )

    def clean_url(self) -> str:
        url: str = self.cleaned_data["url"]
        try:
            return check_url(url)
        except BadWebhook as exc:
            raise ValidationError(str(exc)) from exc

    def clean_window_minutes(self) -> int:
        minutes: int = self.cleaned_data["window_minutes"]
        if not 1 <= minutes <= MAX_WINDOW_MINUTES:
            raise ValidationError(f"A window is 1 to {MAX_WINDOW_MINUTES} minutes long.")
        return minutes

    def _fraction(self, name: str) -> float:
        value: float = self.cleaned_data[name]
        if not 0 <= value <= 1:
            raise ValidationError("A value from 0 to 1.")
        return value

    def clean_level(self) -> float:
        return self._fraction("level")

    def clean_score_below(self) -> float:
        return self._fraction("score_below")

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("value") and not data.get("key"):
            self.add_error("key", "A value needs the label it belongs to.")
        return data


class SamplingRuleForm(forms.ModelForm):
    job = JobChoice(
        queryset=BatchJob.objects.none(),
        required=False,
        label="or batch job",
        help_text="One of the two: a source's daily jobs, or this one job.",
    )

    class Meta:
        model = SamplingRule
        fields = ("source", "job", "project", "band", "daily_quota", "enabled")
        labels = {"source": "Trace source", "project": "Labeling project", "enabled": "Active"}
        help_texts = {"enabled": "Unticked, the rule is paused: it sends nothing."}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        field = self.fields["job"]
        assert isinstance(field, JobChoice)
        recent = BatchJob.objects.order_by("-created_at", "-id")
        field.queryset = recent
        offered = list(recent[:JOBS_OFFERED])
        own = self.instance.job
        if own is not None and own not in offered:  # an edited rule's older job stays picked
            offered.append(own)
        field.widget.choices = [("", "---------")] + [
            (str(job.pk), field.label_from_instance(job)) for job in offered
        ]

    def clean_band(self) -> float:
        band: float = self.cleaned_data["band"]
        if not 0 < band <= 0.5:
            raise ValidationError("A band from above 0 to 0.5 around the threshold.")
        return band

    def clean_daily_quota(self) -> int:
        quota: int = self.cleaned_data["daily_quota"]
        if quota < 1:
            raise ValidationError("At least one claim a day.")
        return quota

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if bool(data.get("source")) == bool(data.get("job")):
            raise ValidationError("Pick a trace source or a batch job, not both.")
        return data


class SamplingStateForm(forms.Form):
    """Pause or resume a rule: the state it should have, not a toggle, so a button sent
    twice (a double click, a page open in two tabs) leaves it as asked."""

    state = forms.ChoiceField(choices=(("paused", "Paused"), ("active", "Active")))
