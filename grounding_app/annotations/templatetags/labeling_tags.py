"""Template helpers of the annotation pages, and the review page's "send to project" form."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from grounding_app.active_verifier.services import judge_info
from grounding_app.annotations.access import is_lead, visible_projects
from grounding_app.annotations.models import ItemClaim, LabelingProject
from grounding_app.common.importing import NOT_CHECKABLE
from grounding_app.engine import LLM_JUDGE, WORD_MATCHING
from grounding_app.rendering import llm_notes
from grounding_app.rendering.answer import prose_direction
from grounding_app.rendering.languages import mark_text
from grounding_app.rendering.markdown import render_markdown

register = template.Library()


@register.filter
def label_of(key: str, project: LabelingProject) -> str:
    """A label key's name in the project ("partially_supported" -> "Partially supported")."""
    return project.label_name(key) if key else "—"


@register.filter
def model_verdict_name(claim: ItemClaim) -> str:
    """The model's verdict in words, including the one outside the model's choices."""
    if claim.model_verdict == NOT_CHECKABLE:
        return "Not checkable: no source text"
    return claim.get_model_verdict_display()


@register.simple_tag
def word_matching_mark(claim: ItemClaim) -> SafeString | str:
    """Beside the model's verdict, where word matching gave it ("Hebrew: word matching",
    the full sentence in its title and for screen readers); "" for other claims."""
    if claim.checked_by != WORD_MATCHING:
        return ""
    item = claim.item
    judged = item.claims.values_list("checked_by", flat=True)
    judge = judge_info(item.review.verifier if item.review else "", judged)
    note = judge.note(claim.language or None)
    return format_html(
        '<span class="wm-mark" dir="ltr" title="{}" aria-hidden="true">{}</span>'
        '<span class="sr-only">{}</span>',
        note,
        mark_text(claim.language or None),
        note,
    )


def _llm_fallback(claim: ItemClaim) -> str:
    """Why the LLM judge did not decide the claim, worded ("timeout"); "" if it did, or
    was not asked."""
    return "" if claim.checked_by == LLM_JUDGE else llm_notes.fallback_reason(claim.llm_fallback)


@register.simple_tag
def llm_judge_mark(claim: ItemClaim) -> SafeString | str:
    """Beside the model's verdict, where the LLM judge gave it ("LLM judge", the sentence
    in its title and for screen readers) or fell back ("LLM fell back", dashed, its
    sentence in the title and in `llm_fallback_note`); "" for other claims."""
    if claim.checked_by == LLM_JUDGE:
        kind, words, title = "llm-decided", llm_notes.MARK, llm_notes.DECIDED
        spoken = title
    elif reason := _llm_fallback(claim):
        kind, words = "llm-fell-back", llm_notes.FELL_BACK_MARK
        title = llm_notes.fallback_note(reason, claim.checked_by or None)
        spoken = words  # the note below the claim says the sentence to everyone
    else:
        return ""
    return format_html(
        '<span class="llm-mark {}" dir="ltr" title="{}" aria-hidden="true">{}</span>'
        '<span class="sr-only">{}</span>',
        kind,
        title,
        words,
        spoken,
    )


@register.simple_tag
def llm_fallback_note(claim: ItemClaim) -> SafeString | str:
    """Below a claim the LLM judge fell back on, its sentence in words, as the review
    page's claim table says it ("LLM judge fell back (timeout): the verifier's verdict
    stands"); "" for other claims."""
    reason = _llm_fallback(claim)
    if not reason:
        return ""
    return format_html(
        '<p class="llm-note" dir="ltr">{}</p>',
        llm_notes.fallback_note(reason, claim.checked_by or None),
    )


@register.filter
def direction(text: str | list[Any] | tuple[Any, ...]) -> str:
    """`dir` value for untrusted text, or for a sequence of answer pieces (their text
    joined): stated, since `dir="auto"` skips children that state their own, and by
    most of the words of its prose (`answer.prose_direction`), as a Hebrew line opening
    with a Latin name is still Hebrew, and English code in it does not count."""
    if not isinstance(text, str):
        text = "".join(piece.text for piece in text)
    return prose_direction(text) or "auto"


@register.filter
def instructions_html(text: str) -> SafeString:
    """A project's instructions as their writer formatted them: Markdown, sanitised by the
    one module that turns untrusted text into HTML (links only to http(s), no raw HTML)."""
    return mark_safe(render_markdown(text))


@register.inclusion_tag("annotations/_send_review.html", takes_context=True)
def send_to_labeling(context: template.Context, review: Any) -> dict[str, Any]:
    """The small form that copies a saved review into a labeling project (leads only)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    projects = list(visible_projects(user)) if is_lead(user) else []
    return {"review": review, "projects": projects, "csrf_token": context.get("csrf_token")}
