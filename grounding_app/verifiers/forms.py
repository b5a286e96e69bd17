"""The Verifier page's forms: a switch names a listed directory; an adaptation names a
labeling project, the new verifier's name and a few of adapt_verifier's options; the LLM
judge names an endpoint and which claims go to it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.utils import timezone
from django.utils.text import slugify

from grounding_app.annotations.models import LabelingProject
from grounding_app.engine import Band
from grounding_app.llm_judge.client import CALL_SECONDS, origin, refused
from grounding_app.llm_judge.config import JudgeSetup, saved
from grounding_app.llm_judge.models import JudgeConfig
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


def endpoint_url(value: str) -> str:
    """An http(s) base URL with a host; a service name without a dot (http://ollama:11434)
    is fine, as it is in a compose network."""
    url = value.strip()
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        raise forms.ValidationError("A URL holds no spaces or control characters.")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises ValueError on a port out of range)
    except ValueError as exc:
        raise forms.ValidationError(f"Not a URL: {exc}.") from exc
    if parts.scheme not in {"http", "https"} or not parts.hostname:
        raise forms.ValidationError(
            "An http:// or https:// URL with a host, e.g. http://localhost:11434/v1."
        )
    if parts.username or parts.password:
        raise forms.ValidationError("The URL carries no user name or password: use the key.")
    why = refused(url, settings.LLM_JUDGE_ALLOW)
    if why:
        raise forms.ValidationError(f"Not this host: {why}.")
    return url


class LLMJudgeForm(forms.Form):
    """The LLM judge as an admin sets it on the Verifier page (docs/llm-judge.md)."""

    key_forgotten = False  # set by `save` when the URL's origin changed under a saved key

    enabled = forms.BooleanField(required=False, initial=True, label="Use an LLM judge")
    url = forms.CharField(
        max_length=500,
        required=False,
        label="Base URL",
        help_text="OpenAI-compatible: http://localhost:11434/v1 (Ollama),"
        " http://localhost:8000/v1 (vLLM).",
    )
    model = forms.CharField(max_length=200, required=False)
    key = forms.CharField(
        max_length=500,
        required=False,
        label="API key",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text="Blank keeps the key saved before, unless the URL's scheme, host or port"
        " changes: a key goes only to the endpoint it was given for.",
    )
    clear_key = forms.BooleanField(required=False, label="Remove the saved key")
    every_claim = forms.BooleanField(
        required=False, label="Judge every claim (not only those in the band)"
    )
    low = forms.FloatField(min_value=0, max_value=1, initial=0.35, label="Band from")
    high = forms.FloatField(min_value=0, max_value=1, initial=0.75, label="Band to")
    unread_languages = forms.BooleanField(
        required=False,
        label="Also every claim in a language the verifier does not read",
        help_text="Instead of word matching (Hebrew with the bundled verifier).",
    )
    timeout = forms.IntegerField(
        min_value=1,
        max_value=CALL_SECONDS,
        initial=30,
        label="Timeout (seconds)",
        help_text=f"Per request, at most {CALL_SECONDS}: a check's judging ends within the"
        " web worker's timeout.",
    )
    concurrency = forms.IntegerField(
        min_value=1,
        max_value=64,
        initial=2,
        label="Requests at once (per process)",
        help_text="More wait their turn: 1 for a server that answers one at a time.",
    )
    daily_tokens = forms.IntegerField(
        min_value=0,
        max_value=10**12,
        initial=0,
        label="Tokens a day at most",
        help_text="0: no cap. Counted over every process, per UTC day.",
    )

    def clean_url(self) -> str:
        url = self.cleaned_data.get("url", "")
        return endpoint_url(url) if url else ""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("enabled") and not data.get("url"):
            self.add_error("url", "An LLM judge in use needs its base URL.")
        if data.get("enabled") and not (data.get("model") or "").strip():
            self.add_error("model", "Name the model the endpoint serves.")
        low, high = data.get("low"), data.get("high")
        if low is not None and high is not None and low > high:
            self.add_error("high", "The band ends at or above where it starts.")
        return data

    @classmethod
    def of(cls, row: JudgeConfig | None, setup: JudgeSetup | None) -> LLMJudgeForm:
        """The form showing what works now: the saved row, else the settings' judge."""
        if row is not None:
            band = Band.parse(row.band)
            initial = {
                "enabled": row.enabled,
                "url": row.url,
                "model": row.model,
                "unread_languages": row.unread_languages,
                "timeout": row.timeout,
                "concurrency": row.concurrency,
                "daily_tokens": row.daily_tokens,
            }
        elif setup is not None:
            band = setup.band
            initial = {
                "enabled": True,
                "url": setup.endpoint.url,
                "model": setup.endpoint.model,
                "unread_languages": setup.unread_languages,
                "timeout": int(setup.endpoint.timeout),
                "concurrency": setup.concurrency,
                "daily_tokens": setup.daily_tokens,
            }
        else:  # no judge anywhere: nothing is in use, so the box is not ticked
            return cls(initial={"enabled": False})
        initial |= {"every_claim": band.everything, "low": band.low, "high": band.high}
        return cls(initial=initial)

    def save(self, user: User | AnonymousUser) -> JudgeConfig:
        data = self.cleaned_data
        row = saved() or JudgeConfig(pk=JudgeConfig.SINGLETON)
        moved = bool(row.key) and origin(row.url) != origin(data["url"])
        self.key_forgotten = moved and not data["key"]
        if data["key"]:
            row.key = data["key"]
        elif data["clear_key"] or moved:
            row.key = ""
        row.enabled = data["enabled"]
        row.url = data["url"]
        row.model = data["model"].strip()
        row.band = "all" if data["every_claim"] else f"{data['low']:g},{data['high']:g}"
        row.unread_languages = data["unread_languages"]
        row.timeout = data["timeout"]
        row.concurrency = data["concurrency"]
        row.daily_tokens = data["daily_tokens"]
        row.changed_by = user if user.is_authenticated else None
        row.username = user.get_username()[:150]
        row.changed_at = timezone.now()
        row.save()
        return row
