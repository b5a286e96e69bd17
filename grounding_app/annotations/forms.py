"""Forms of the annotation pages: project settings, imports, labels, adjudication.

Labels arrive as plain form fields named per claim (`label-<id>`, `cite-<id>`,
`note-<id>`), the same whether the page posts the whole form (no JavaScript, or the
final submit) or the script saves one claim's draft, so both go through
`claim_states`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.db.models import Q, QuerySet

from grounding_app.accounts.roles import ROLES
from grounding_app.annotations.labels import ClaimState
from grounding_app.annotations.labelset import LabelSetError, build_label_set
from grounding_app.annotations.models import ClaimLabel, ItemClaim, LabelingProject
from grounding_app.common.numbers import plain_number
from grounding_app.reviews.forms import NUL_REFUSED, upload_or_paste

MAX_NOTE_CHARS = 2000


class PeopleField(forms.ModelMultipleChoiceField):
    """Checks the posted ids before Django queries them: a number past the database's
    integers would crash that query (OverflowError on SQLite) rather than match nobody."""

    def clean(self, value: Any) -> Any:
        value = self.prepare_value(value)
        if isinstance(value, list | tuple):
            for pk in value:
                if plain_number(str(pk)) is None:
                    raise forms.ValidationError(
                        self.error_messages["invalid_pk_value"],
                        code="invalid_pk_value",
                        params={"pk": pk},
                    )
        return super().clean(value)


def people() -> QuerySet[Any]:
    """Active users holding any workbench role: the people who can be assigned."""
    return (
        get_user_model()
        .objects.filter(Q(groups__name__in=ROLES) | Q(is_superuser=True), is_active=True)
        .distinct()
        .order_by("username")
    )


class ProjectForm(forms.ModelForm):
    extra_labels = forms.CharField(
        required=False,
        label="Extra labels",
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Partially supported\nContradicted"}
        ),
        help_text="One per line, after supported / unsupported / no check needed (at most 6).",
    )
    annotators = PeopleField(
        queryset=people(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Only these people see the project and get its items.",
    )

    class Meta:
        model = LabelingProject
        fields = ("name", "instructions", "extra_labels", "overlap", "blind", "annotators")
        widgets = {"instructions": forms.Textarea(attrs={"rows": 4})}
        labels = {"overlap": "Overlap (k)", "blind": "Blind mode"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ModelMultipleChoiceField, self.fields["annotators"]).queryset = people()
        if self.instance.pk:
            self.initial["extra_labels"] = "\n".join(self.instance.extra_labels)

    def clean_extra_labels(self) -> list[str]:
        names = [" ".join(line.split()) for line in self.cleaned_data["extra_labels"].splitlines()]
        names = [name for name in names if name]
        try:
            labels = build_label_set(names)
        except LabelSetError as exc:
            raise forms.ValidationError(str(exc)) from exc
        if self.instance.pk:
            kept = {label.key for label in labels}
            in_use = (
                ClaimLabel.objects.filter(claim__item__project=self.instance)
                .exclude(label__in=kept)
                .exclude(label="")
                .values_list("label", flat=True)
                .distinct()
            )
            dropped = sorted(self.instance.label_name(key) for key in in_use)
            if dropped:
                raise forms.ValidationError(
                    f"Labels already given cannot be removed: {', '.join(dropped)}."
                )
        return names


class ItemsFields(forms.Form):
    payload = forms.CharField(
        required=False,
        strip=False,
        label="Paste JSONL",
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text="One item per line: the shared grounding schema, or any payload the review "
        "import reads (check-grounding request, Gemini response, agent output).",
    )
    file = forms.FileField(required=False, label="Or upload a .jsonl file")


class NewProjectForm(ProjectForm, ItemsFields):
    """Settings plus, optionally, the first items; reviews can be sent to it later too."""

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        data["raw"] = upload_or_paste(data, required=False, what="JSONL")
        return data


class ImportItemsForm(ItemsFields):
    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        data["raw"] = upload_or_paste(data, required=True, what="JSONL")
        return data


class SendReviewForm(forms.Form):
    project = forms.ModelChoiceField(queryset=LabelingProject.objects.none())

    def __init__(self, *args: Any, projects: QuerySet[LabelingProject], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ModelChoiceField, self.fields["project"]).queryset = projects


def claim_states(
    data: Any, claims: Iterable[ItemClaim], project: LabelingProject, fact_count: int
) -> dict[int, ClaimState]:
    """The posted state of each given claim; raises ValidationError on a foreign value."""
    keys = project.label_keys
    states = {}
    for claim in claims:
        label = data.get(f"label-{claim.pk}", "")
        if label and label not in keys:
            raise forms.ValidationError(f"“{label}” is not a label of this project.")
        cited: set[int] = set()
        for value in data.getlist(f"cite-{claim.pk}"):
            index = plain_number(value)
            if index is None or index >= fact_count:
                raise forms.ValidationError(f"There is no fact {value[:20]!r} to cite.")
            cited.add(index)
        note = data.get(f"note-{claim.pk}", "").replace("\r\n", "\n")
        if len(note) > MAX_NOTE_CHARS:
            raise forms.ValidationError(f"A note may be at most {MAX_NOTE_CHARS} characters.")
        if "\x00" in note:  # PostgreSQL cannot store it; refused on SQLite alike
            raise forms.ValidationError(f"A note: {NUL_REFUSED}")
        states[claim.pk] = ClaimState(label, tuple(sorted(cited)), note)
    return states


class AdjudicateForm(forms.Form):
    label = forms.ChoiceField(required=False)

    def __init__(self, *args: Any, project: LabelingProject, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["label"]).choices = [("", "— use the majority —")] + [
            (label.key, label.name) for label in project.labels
        ]


class LabelStudioImportForm(forms.Form):
    """A Label Studio JSON export to read back, and who its annotators are here."""

    file = forms.FileField(
        label="Label Studio JSON export",
        help_text="In Label Studio: Export, JSON. Tasks must come from this project's export.",
    )
    annotators = forms.CharField(
        label="Annotators",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "3 = ann\nbob@example.org = bob"}),
        help_text=(
            "One per line: a Label Studio user id or email, “=”, a username here. Needed "
            "where the export names annotators by id only, or their email is not a user's."
        ),
    )

    def clean_annotators(self) -> dict[str, str]:
        """`LS id or email = username` lines as a lookup (keys case-folded)."""
        mapping = {}
        for number, line in enumerate(self.cleaned_data["annotators"].splitlines(), start=1):
            if not line.strip():
                continue
            left, sep, right = line.partition("=")
            if not sep or not left.strip() or not right.strip():
                raise forms.ValidationError(
                    f"Line {number}: write “Label Studio id or email = username”."
                )
            mapping[left.strip().casefold()] = right.strip()
        return mapping
