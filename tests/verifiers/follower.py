"""A long-lived process that checks on request, as a web or batch worker does: for each
line "check" on stdin it follows the active verifier and prints which one judged and
the claim scores (JSON). Run as `python -m tests.verifiers.follower`; the environment
names the database (tests/verifiers/test_switching.py)."""

from __future__ import annotations

import json
import sys

import django

django.setup()

from grounding_app.active_verifier.checker import checker  # noqa: E402
from grounding_app.engine import CheckRequest, Fact  # noqa: E402

REQUEST = CheckRequest(
    answer="the film was directed by the mayor. the tower stands north of the river.",
    facts=(Fact("the film was directed by the mayor ."),),
    enable_claim_level_score=True,
)

print("ready", flush=True)
for line in sys.stdin:
    if line.strip() == "check":
        checked = checker().check(REQUEST)
        scores = [c.score for c in checked.response.claims]
        print(json.dumps({"verifier": checked.verifier, "scores": scores}), flush=True)
