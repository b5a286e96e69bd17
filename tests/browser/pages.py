"""Every page of the workbench, seeded with the content that stresses its layout: a long
Markdown answer with many sources, a right-to-left answer, a policy, a labeling project
with labels, a finished batch job. Shared by the width and accessibility walks."""

from __future__ import annotations

import json
from typing import Any

from grounding_app.annotations.allocation import next_assignment
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.labels import ClaimState, submit
from grounding_app.batch import intake as batch_intake
from grounding_app.batch import running as batch_running
from grounding_app.engine import CheckRequest, Fact, GroundingEngine
from grounding_app.policies.models import SourcePolicy
from grounding_app.policies.services import attach_to_review
from grounding_app.reviews import services as review_services
from tests.reviews.conftest import fixture_text

REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"
# A labeling project's name as long as people write them: every review page offers it.
LONG_PROJECT = "Audit project with a rather long name: film facts checked by two annotators"

# A long Markdown answer: headings, bullets, a table, code, a long unbroken URL and link.
SENTENCES = (
    "## Remote work at Example Corp",
    "**Employees** may work remotely up to three days per week, as the "
    "[HR handbook](https://intranet.example/hr/handbook) says.",
    "Full-time remote work needs `director` approval.",
    "The policy was last updated in March 2024.",
    "Laptops are provided by IT at https://intranet.example/it/equipment/laptops/"
    "request-form-for-remote-employees-2024-edition.",
    "Home office costs are reimbursed up to 500 euros a year.",
    "Remote days must be recorded in the *attendance* system.",
    "Managers may refuse remote work during the first three months.",
    "The office in Leeds closes on Fridays.",
)


# A Hebrew Markdown answer whose list holds an English item.
RTL_MARKDOWN = (
    "## טיטאניק\n\n**טיטאניק** בוים על ידי ג'יימס קמרון.\n\n"
    "- Titanic won 11 Academy Awards.\n- הסרט זכה ב-11 פרסי אוסקר."
)


def _gemini_markdown() -> str:
    answer, supports = "", []
    for n, sentence in enumerate(SENTENCES):
        answer += "" if n == 0 else "\n\n" if n in (1, 5) else "\n- "
        start = len(answer.encode())
        answer += sentence
        if n:
            supports.append(
                {
                    "segment": {
                        "startIndex": start,
                        "endIndex": len(answer.encode()),
                        "text": sentence,
                    },
                    "groundingChunkIndices": [n % 7, (n + 3) % 7] if n % 3 else [n % 7],
                    "confidenceScores": [0.9, 0.7] if n % 3 else [0.8],
                }
            )
    chunks: list[dict[str, Any]] = [
        {
            "retrievedContext": {
                "uri": "https://intranet.example/hr/remote-work",
                "title": "Remote Work Policy 2024",
                "text": f"Section 2.{n}: eligible employees may work remotely for up to three "
                "days in each calendar week, and full-time remote arrangements require "
                "written approval by a director or above.",
            }
        }
        for n in range(3)
    ]
    chunks += [
        {"web": {"uri": REDIRECT + "AUZIYQE8Jx4wWm1Yd0kq8f2pV3a", "title": "hr-news.example"}},
        {
            "web": {
                "uri": REDIRECT + "AUZIYQHq0tY7bUu3nR2kWc9xLmPz",
                "title": "An extraordinarily long page title about remote working arrangements "
                "in large organisations across Europe",
                "domain": "very-long-subdomain.of-a-very-long-domain-name.example.co.uk",
            }
        },
        {"web": {"uri": REDIRECT + "AUZIYQQx1mN5cVb8aZ0pLs4dRt", "title": "wikipedia.org"}},
        {
            "retrievedContext": {
                "uri": "gs://company-intranet-bucket/it/equipment/laptops/request-form-for-"
                "remote-employees-2024-edition-final-version-approved-by-the-board.pdf",
                "title": "IT equipment",
                "text": "Laptops are provided by IT.",
            }
        },
    ]
    widget = json.loads(fixture_text("gemini_web_search.json"))["candidates"][0][
        "groundingMetadata"
    ]["searchEntryPoint"]
    return json.dumps(
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": [{"text": answer}]},
                    "groundingMetadata": {
                        "webSearchQueries": ["remote work policy approval"],
                        "searchEntryPoint": widget,
                        "groundingChunks": chunks,
                        "groundingSupports": supports,
                    },
                }
            ]
        }
    )


def _batch_line(n: int) -> str:
    fact = f"Order {n} shipped from the Leeds warehouse on day {n} of the month."
    claim = fact if n % 3 else f"Order {n} was refunded to a customer in Lisbon."
    return json.dumps(
        {"id": f"log-{n}", "source": "support-bot", "facts": [{"text": fact}], "claim": claim}
    )


def seed(user: Any, engine: GroundingEngine) -> dict[str, str]:
    """Create one of everything and return each page's path by name."""
    review = review_services.import_and_save(user, _gemini_markdown())
    policy = SourcePolicy.objects.create(
        name="Intranet only, no news sites",
        description="Answers about HR rules must rest on the intranet.",
        excluded_domains=["hr-news.example", "wikipedia.org"],
        preferred_domains=["intranet.example", "wikipedia.org"],  # overridden: a warning
        created_by=user,
    )
    attach_to_review(review, policy, user)
    hebrew = review_services.import_and_save(user, fixture_text("gemini_hebrew.json"))
    checked = review_services.check_and_save(
        user,
        CheckRequest(
            "Here is what I found. **Titanic** was directed by "
            "[James Cameron](https://example.org). It starred Brad Pitt.",
            (
                Fact(
                    "Titanic was directed by James Cameron. It stars Kate Winslet.",
                    {"author": "Simple Wikipedia"},
                ),
            ),
            0.6,
            True,
        ),
    )
    mixed = review_services.check_and_save(
        user,
        CheckRequest(
            RTL_MARKDOWN,
            (Fact("טיטאניק בוים על ידי ג'יימס קמרון. Titanic won 11 Academy Awards."),),
            0.6,
            True,
        ),
    )
    other = type(user).objects.create_user("second-annotator", password="pw-for-tests-only")
    project = create_project(
        user,
        name=LONG_PROJECT,
        instructions="Label each claim.",
        overlap=2,
        annotators=[user, other],
    )
    import_jsonl(
        project,
        "\n".join(
            json.dumps(
                {
                    "id": f"ex-{n}",
                    "facts": [{"text": "Titanic was directed by James Cameron in 1997."}],
                    "claim": claim,
                    "label": 1,
                }
            )
            for n, claim in enumerate(
                ("Titanic was directed by James Cameron.", "Titanic was made in 1975.") * 3
            )
        ),
    )
    # Both annotators label five of the six items, disagreeing on one (kappa 0.62,
    # "substantial": the agreement page's darkest cells), so one item is left to label.
    labels = {user: "SUSUS", other: "SUSUU"}
    for annotator, marks in labels.items():
        for _ in marks:
            assignment = next_assignment(project, annotator)
            assert assignment is not None
            mark = marks[assignment.item.position]
            submit(
                assignment,
                {
                    claim.pk: ClaimState("supported" if mark == "S" else "unsupported", (0,))
                    for claim in assignment.item.claims.all()
                },
            )
    assignment = next_assignment(project, user)
    assert assignment is not None
    job = batch_intake.create_job(
        ("\n".join(_batch_line(n) for n in range(1, 31)) + "\n{bad\n").encode(),
        name="support-log-2026-11-29-with-a-long-file-name.jsonl",
        send=False,
    )
    for chunk in job.chunks.all():
        batch_running.run_chunk(chunk.pk, run=engine.check, worker="test")
    return {
        "home": "/",
        "new review": "/reviews/new/",
        "review": review.get_absolute_url(),
        "review unsupported only": checked.get_absolute_url() + "?only=unsupported",
        "review rtl": hebrew.get_absolute_url(),
        "review checked": checked.get_absolute_url(),
        "review rtl markdown": mixed.get_absolute_url(),
        "reviews": "/reviews/",
        "import": "/reviews/import/",
        "policies": "/policies/",
        "policy edit": f"/policies/{policy.pk}/",
        "policy new": "/policies/new/",
        "labeling": "/annotations/",
        "labeling project": f"/annotations/{project.pk}/",
        "label": f"/annotations/label/{assignment.pk}/",
        "agreement": f"/annotations/{project.pk}/agreement/",
        "batch list": "/batch/",
        "batch detail": job.get_absolute_url(),
        "trace sources": "/traces/",
        "connect": "/traces/connect/",
        "verifier": "/verifiers/",
    }
