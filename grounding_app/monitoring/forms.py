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
# Each alert rule kind's own fields; the page shows only the chosen kind's (CSS :has, so
# without JavaScript too) and the other kind's are kept as they were.
KIND_FIELDS = {
    AlertRule.Kind.RATE: ("level", "min_answers"),
    AlertRule.Kind.LOW_SCORES: ("score_below", "count"),
}


def _job_choices(field: JobChoice, jobs: list[BatchJob], prompt: str) -> list[tuple[str, str]]:
    return [("", prompt)] + [(str(job.pk), field.label_from_instance(job)) for job in jobs]


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
            field.widget.choices = [("", "Choose a run")] + [
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
    kind = forms.ChoiceField(
        choices=AlertRule.Kind.choices,
        initial=AlertRule.Kind.RATE,
        widget=forms.RadioSelect,
        label="Alert when",
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
        labels = {"source": "Trace source", "key": "Label", "value": "Label value"}
        widgets = {
            "key": forms.TextInput(attrs={"list": "known-label-keys", "autocomplete": "off"}),
            "value": forms.TextInput(attrs={"list": "known-label-values", "autocomplete": "off"}),
        }

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        source = self.fields["source"]
        assert isinstance(source, forms.ModelChoiceField)
        source.empty_label = "Every batch job (no trace source)"
        for names in KIND_FIELDS.values():
            for name in names:
                self.fields[name].required = False  # the chosen kind's are checked in clean

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

    def _fraction(self, name: str) -> float | None:
        value: float | None = self.cleaned_data[name]
        if value is not None and not 0 <= value <= 1:
            raise ValidationError("A value from 0 to 1.")
        return value

    def clean_level(self) -> float | None:
        return self._fraction("level")

    def clean_score_below(self) -> float | None:
        return self._fraction("score_below")

    def clean(self) -> dict[str, object]:
        """The chosen kind's fields are required; the other kind's, hidden on the page,
        keep the rule's values whatever was sent for them."""
        data = super().clean() or {}
        if data.get("value") and not data.get("key"):
            self.add_error("key", "A value needs the label it belongs to.")
        kind = data.get("kind")
        for other, names in KIND_FIELDS.items():
            for name in names:
                if other != kind:
                    self.errors.pop(name, None)
                    data[name] = getattr(self.instance, name)
                elif data.get(name) is None and name not in self.errors:
                    self.add_error(name, "This rule kind needs it.")
        return data


class SamplingRuleForm(forms.ModelForm):
    draws_from = forms.ChoiceField(
        choices=(("source", "A trace source's daily jobs"), ("job", "One batch job")),
        widget=forms.RadioSelect,
        initial="source",
        required=False,
        label="Draws from",
    )
    job = JobChoice(queryset=BatchJob.objects.none(), required=False, label="Batch job")

    class Meta:
        model = SamplingRule
        fields = ("source", "job", "project", "band", "daily_quota", "enabled")
        labels = {"source": "Trace source", "project": "Labeling project", "enabled": "Active"}
        help_texts = {"enabled": "Unticked, the rule is paused: it sends nothing."}

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.order_fields(["draws_from"])
        if self.instance.pk is not None and self.instance.job_id is not None:
            self.fields["draws_from"].initial = "job"
        field = self.fields["job"]
        assert isinstance(field, JobChoice)
        recent = BatchJob.objects.order_by("-created_at", "-id")
        field.queryset = recent
        offered = list(recent[:JOBS_OFFERED])
        own = self.instance.job
        if own is not None and own not in offered:  # an edited rule's older job stays picked
            offered.append(own)
        field.widget.choices = _job_choices(field, offered, "Choose a batch job")
        for name, prompt in (("source", "Choose a trace source"), ("project", "Choose a project")):
            chosen = self.fields[name]
            assert isinstance(chosen, forms.ModelChoiceField)
            chosen.empty_label = prompt

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
        """Only the scope chosen in "Draws from" counts (the other select is hidden on
        the page and whatever it holds is dropped); a form sent without the choice, as
        before it existed, must name exactly one."""
        data = super().clean() or {}
        chosen = data.get("draws_from") or self.data.get("draws_from")
        if chosen in ("source", "job"):
            other = "job" if chosen == "source" else "source"
            data[other] = None
            self.errors.pop(other, None)
            if not data.get(chosen):
                label = "a trace source" if chosen == "source" else "a batch job"
                self.add_error(chosen, f"Choose {label}.")
        elif bool(data.get("source")) == bool(data.get("job")):
            raise ValidationError("Pick a trace source or a batch job, not both.")
        return data


class SamplingStateForm(forms.Form):
    """Pause or resume a rule: the state it should have, not a toggle, so a button sent
    twice (a double click, a page open in two tabs) leaves it as asked."""

    state = forms.ChoiceField(choices=(("paused", "Paused"), ("active", "Active")))
