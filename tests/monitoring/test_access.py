"""Every monitoring route declares its access rule: reviewers and admins read, admins
alone change alert rules and edit, pause, run or delete sampling rules."""

from __future__ import annotations

from django.urls import get_resolver

from tests.reviews.test_access import _patterns

ADMIN_ONLY = {
    "rule_new",
    "rule_edit",
    "rule_test",
    "rule_delete",
    "sampling_edit",
    "sampling_state",
    "sampling_delete",
    "sampling_run",
}


def test_every_monitoring_view_declares_its_rule() -> None:
    ours = [(r, p) for r, p in _patterns(get_resolver()) if r.startswith("monitoring/")]
    assert len(ours) == 16
    for route, pattern in ours:
        rule = getattr(pattern.callback, "access_rule", None)
        expected = "roles: admin" if pattern.name in ADMIN_ONLY else "roles: reviewer, admin"
        assert rule == expected, route
