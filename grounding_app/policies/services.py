"""What the policy views and the review and labeling pages ask of a policy, without HTTP.

Reviews and labeling projects link to policies, never the reverse: a review or project
is passed in as the row its link table points to, so this app imports neither.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import models, transaction

from grounding_app.formats.grounded import GroundedAnswer, Source
from grounding_app.policies.models import ProjectPolicy, ReviewPolicy, SourcePolicy
from grounding_app.policies.rules import ContextUse, Rules, SourceRef, Verdict, context_uses, judge
from grounding_app.rendering.links import safe_href


@dataclass(frozen=True)
class FlaggedSource:
    candidate: int  # 0-based candidate index
    number: int  # 1-based, as in the page's source list
    anchor: str  # id of that source's entry on the review page
    title: str
    uri: str
    href: str | None  # None: not a safe link, shown as text
    verdict: Verdict
    cited_by: tuple[int, ...]  # 1-based claim / segment numbers


@dataclass(frozen=True)
class PolicyReport:
    policy: SourcePolicy
    sources: tuple[FlaggedSource, ...]
    context: tuple[ContextUse, ...]

    def _with(self, status: str) -> list[FlaggedSource]:
        return [s for s in self.sources if s.verdict.status == status]

    @property
    def excluded(self) -> list[FlaggedSource]:
        return self._with("excluded")

    @property
    def preferred(self) -> list[FlaggedSource]:
        return self._with("preferred")

    @property
    def unknown(self) -> list[FlaggedSource]:
        return self._with("unknown")


def _ref(source: Source, cited: bool) -> SourceRef:
    """A fact's attributes stand in where the format has no uri or domain of its own."""
    uri = source.uri or source.metadata.get("uri", "") or source.metadata.get("url", "")
    domain = source.domain or source.metadata.get("domain", "")
    return SourceRef(source.title, uri, domain, cited)


def grounded_report(policy: SourcePolicy, grounded: GroundedAnswer) -> PolicyReport:
    """Every source of every candidate judged by the policy, with the claims citing it."""
    rules = policy.rules
    flagged: list[FlaggedSource] = []
    refs: list[SourceRef] = []
    for c, candidate in enumerate(grounded.candidates):
        cited_by: dict[int, list[int]] = defaultdict(list)
        for n, segment in enumerate(candidate.segments, start=1):
            for index in segment.source_indices:
                cited_by[index].append(n)
        for i, source in enumerate(candidate.sources):
            ref = _ref(source, bool(cited_by[i]))
            refs.append(ref)
            flagged.append(
                FlaggedSource(
                    candidate=c,
                    number=i + 1,
                    anchor=f"c{c}-src-{i + 1}",
                    title=source.title or ref.domain or ref.uri or f"Source {i + 1}",
                    uri=ref.uri,
                    href=safe_href(ref.uri),
                    verdict=judge(rules, ref),
                    cited_by=tuple(cited_by[i]),
                )
            )
    return PolicyReport(policy, tuple(flagged), context_uses(rules, refs))


def fact_verdicts(rules: Rules, facts: Sequence[Mapping[str, Any]]) -> dict[int, Verdict]:
    """Fact index -> the policy's verdict, for facts that name a uri or domain."""
    verdicts = {}
    for index, fact in enumerate(facts):
        attributes = fact.get("attributes", {})
        ref = SourceRef(
            str(attributes.get("title", "")),
            str(attributes.get("uri", "") or attributes.get("url", "")),
            str(attributes.get("domain", "")),
        )
        if ref.uri or ref.domain:
            verdicts[index] = judge(rules, ref)
    return verdicts


def review_policy(review: models.Model) -> SourcePolicy | None:
    link = ReviewPolicy.objects.select_related("policy").filter(review_id=review.pk).first()
    return link.policy if link else None


def project_policy(project: models.Model) -> SourcePolicy | None:
    link = ProjectPolicy.objects.select_related("policy").filter(project_id=project.pk).first()
    return link.policy if link else None


def attach_to_review(review: models.Model, policy: SourcePolicy | None, user: Any) -> None:
    """Check the review against `policy` from now on (None: against none)."""
    with transaction.atomic():
        ReviewPolicy.objects.filter(review_id=review.pk).delete()
        if policy is not None:
            ReviewPolicy.objects.create(review_id=review.pk, policy=policy, attached_by=user)


def attach_to_project(project: models.Model, policy: SourcePolicy | None, user: Any) -> None:
    with transaction.atomic():
        ProjectPolicy.objects.filter(project_id=project.pk).delete()
        if policy is not None:
            ProjectPolicy.objects.create(project_id=project.pk, policy=policy, attached_by=user)


@dataclass(frozen=True)
class PolicyWarning:
    entry: str
    message: str


def warnings(policy: SourcePolicy) -> list[PolicyWarning]:
    """Entries that the precedence makes useless, so their author can see why."""
    rules = policy.rules
    out = [
        PolicyWarning(use.url, f"not used: its domain is excluded ({use.excluded_by})")
        for use in context_uses(rules, ())
        if use.excluded_by
    ]
    for domain in rules.preferred:
        excluded = rules.excluded_list.first(domain)
        if excluded is not None:
            out.append(PolicyWarning(domain, f"never preferred: excluded by {excluded}"))
    return out
