"""Labeling projects: items (an answer, its facts, the engine's claims) and people's labels.

An item is copied into the project when it is imported or sent from a review, so later
changes elsewhere never change what was labeled; an item sent from a review goes with
that review when the review is deleted (its text is the review's text).

Who labels what is an `Assignment`: one per (item, annotator), never two. While it
counts towards the project's overlap k it holds a `slot` in 0..k-1, and (item, slot) is
unique too, so the database itself refuses a (k+1)-th annotator even if two requests
race past the application's check. A skipped assignment gives its slot up but stays,
so the same item is never offered to that annotator again.
"""

from __future__ import annotations

from functools import cached_property

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from grounding_app.annotations.labelset import Label, build_label_set
from grounding_app.retention.expiry import RetentionManager

MAX_OVERLAP = 20


class LabelingProject(models.Model):
    name = models.CharField(max_length=200)
    instructions = models.TextField(blank=True, help_text="Shown to annotators beside every item.")
    extra_labels = models.JSONField(
        default=list,
        blank=True,
        help_text="Names of labels beyond supported / unsupported / no check needed.",
    )
    overlap = models.PositiveSmallIntegerField(
        default=2,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_OVERLAP)],
        help_text="How many annotators label each item (k).",
    )
    blind = models.BooleanField(
        default=False, help_text="Hide the model's verdicts and scores from annotators."
    )
    annotators = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="labeling_projects"
    )
    retention_days = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Keep this project's items for this many days instead of the site default.",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("annotations:project", args=[self.pk])

    @cached_property
    def labels(self) -> tuple[Label, ...]:
        return build_label_set(self.extra_labels)

    @property
    def label_keys(self) -> frozenset[str]:
        return frozenset(label.key for label in self.labels)

    def label_name(self, key: str) -> str:
        return next((label.name for label in self.labels if label.key == key), key)


class Item(models.Model):
    project = models.ForeignKey(LabelingProject, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveIntegerField(help_text="Import order within the project.")
    external_id = models.CharField(max_length=300, blank=True)
    source = models.CharField(max_length=100, blank=True)
    answer = models.TextField()
    facts = models.JSONField(default=list)  # [{"text", "attributes"}], as the dataset schema
    meta = models.JSONField(default=dict, blank=True)
    review = models.ForeignKey(
        "reviews.Review",
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="labeling_items",
    )
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    # Every query sees only live items: the project's retention_days, else the site
    # period (grounding_app.retention), and never longer than the review it came from.
    objects = RetentionManager(project="project", follows=("review",))

    class Meta:
        ordering = ("project", "position")
        constraints = [
            models.UniqueConstraint(fields=("project", "position"), name="item_position_unique"),
            models.UniqueConstraint(fields=("project", "review"), name="item_review_once"),
        ]

    def __str__(self) -> str:
        return self.external_id or f"item {self.position + 1}"

    @property
    def export_id(self) -> str:
        return self.external_id or f"{self.project_id}-{self.position + 1}"


class ItemClaim(models.Model):
    """One sentence of the answer, with what the model said about it at import."""

    class Verdict(models.TextChoices):
        SUPPORTED = "supported", "Supported"
        UNSUPPORTED = "unsupported", "Unsupported"
        NO_CHECK = "no_check", "No check needed"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="claims")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField(help_text="UTF-8 byte offset into the answer.")
    end = models.PositiveIntegerField(help_text="UTF-8 byte offset, exclusive.")
    text = models.TextField()
    check_required = models.BooleanField()
    model_verdict = models.CharField(max_length=20, choices=Verdict.choices)
    model_score = models.FloatField(null=True, blank=True)
    model_cited_facts = models.JSONField(default=list, blank=True)
    # What judged the model's verdict (engine.CHECKED_BY) and the claim's language (ISO
    # 639-1); blank for claims stored before the engine said, and for unchecked ones.
    language = models.CharField(max_length=16, blank=True)
    checked_by = models.CharField(max_length=20, blank=True)
    # Of a claim the LLM judge was asked about and did not decide: why, as the engine
    # stored it ("fell back: timeout"), so the pages can say the local verdict stands.
    llm_fallback = models.CharField(max_length=200, blank=True)
    adjudicated_label = models.CharField(max_length=60, blank=True)
    adjudicated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    adjudicated_at = models.DateTimeField(null=True, blank=True)

    objects = RetentionManager(None, follows=("item",))

    class Meta:
        ordering = ("item", "index")
        constraints = [
            models.UniqueConstraint(fields=("item", "index"), name="claim_index_unique"),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class Assignment(models.Model):
    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted"
        SKIPPED = "skipped", "Skipped"

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="labeling_assignments"
    )
    slot = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="0..k-1 while it counts towards k; empty when skipped."
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.IN_PROGRESS)
    started_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    imported_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Who imported these labels from Label Studio; empty for labels given here.",
    )

    objects = RetentionManager(None, follows=("item",))

    class Meta:
        ordering = ("item", "slot", "id")
        constraints = [
            models.UniqueConstraint(
                fields=("item", "annotator"), name="assignment_once_per_annotator"
            ),
            models.UniqueConstraint(fields=("item", "slot"), name="assignment_slot_unique"),
            models.CheckConstraint(
                condition=Q(status="skipped", slot__isnull=True)
                | (~Q(status="skipped") & Q(slot__isnull=False)),
                name="assignment_slot_iff_counted",
            ),
        ]
        indexes = [models.Index(fields=("annotator", "status"))]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.item}"

    def get_absolute_url(self) -> str:
        return reverse("annotations:label", args=[self.pk])


class ClaimLabel(models.Model):
    """One annotator's label of one claim; a draft until its assignment is submitted."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="labels")
    claim = models.ForeignKey(ItemClaim, on_delete=models.CASCADE, related_name="labels")
    label = models.CharField(max_length=60, blank=True)
    cited_facts = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = RetentionManager(None, follows=("assignment",))

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=("assignment", "claim"), name="label_once_per_claim"),
        ]

    def __str__(self) -> str:
        return f"{self.label or 'unlabeled'} by {self.assignment.annotator}"


class ImportJob(models.Model):
    """An upload too long to read within the request, read by a worker (`jobs.run`): a
    Label Studio export (4,500 tasks held a web worker 71 s) or JSONL items, each checked
    by the engine (2,000 items, a couple of minutes). The upload is kept here (in the
    database, so a worker on any machine reads it, as batch uploads are) until it is
    read; the page polls `done` of `total` and then shows the outcome."""

    class Kind(models.TextChoices):
        LABEL_STUDIO = "label_studio", "Label Studio annotations"
        ITEMS = "items", "Items"

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey(
        LabelingProject, on_delete=models.CASCADE, related_name="import_jobs"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    name = models.CharField(max_length=200, blank=True, help_text="The uploaded file's name.")
    data = models.BinaryField(default=b"", help_text="The upload, emptied once read.")
    mapping = models.JSONField(default=dict, blank=True, help_text="Annotator lines.")
    total = models.PositiveIntegerField(default=0, help_text="Tasks or items in the upload.")
    done = models.PositiveIntegerField(default=0, help_text="Tasks read or items checked.")
    imported = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True, help_text="Why nothing was imported.")

    objects = RetentionManager(project="project")

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} import {self.pk} into {self.project_id}"

    def get_absolute_url(self) -> str:
        return reverse("annotations:import_job", args=[self.project_id, self.pk])

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)

    @property
    def percent(self) -> int:
        return int(100 * self.done / self.total) if self.total else 0
