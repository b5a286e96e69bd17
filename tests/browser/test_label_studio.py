"""The Label Studio tab in chromium: the tasks download from the project's export bar,
an annotation export (with one changed task) goes back through the form, and the report
says what was imported and what was left out; `-m slow` also draws
docs/img/label-studio.png."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grounding_app.annotations import exports, jobs
from grounding_app.annotations.items import create_project, import_jsonl
from grounding_app.annotations.models import ClaimLabel, ImportJob, ItemClaim, LabelingProject
from grounding_app.engine import GroundingEngine
from tests.annotations.conftest import film_jsonl
from tests.browser.conftest import Session

pytestmark = pytest.mark.django_db(transaction=True)

IMAGES = Path(__file__).resolve().parents[2] / "docs" / "img"
HEBREW = json.dumps(
    {
        "id": "he-1",
        "facts": [{"text": "הספרייה פתוחה ביום שישי עד 12. 📚", "attributes": {}}],
        "claim": "📚 הספרייה פתוחה ביום שישי עד 12.",
    },
    ensure_ascii=False,
)


def _project(lead: Any, annotator: Any) -> LabelingProject:
    project = create_project(lead, name="Library answers", overlap=2, annotators=[annotator])
    import_jsonl(project, film_jsonl(3) + HEBREW + "\n")
    return project


def _annotated(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Label Studio's JSON export after one annotator accepted or flipped each verdict and
    cited the first fact; the second task's answer was edited in Label Studio."""
    for n, task in enumerate(tasks):
        result = []
        for m, region in enumerate(task["predictions"][0]["result"]):
            value = dict(region["value"])
            if (n + m) % 2:
                value["labels"] = ["Unsupported"]
            result.append({**region, "value": value})
            result.append(
                {
                    "id": region["id"],
                    "from_name": "cited_facts",
                    "to_name": "answer",
                    "type": "choices",
                    "value": {"start": value["start"], "end": value["end"], "choices": ["1"]},
                }
            )
        task["id"] = 100 + n
        task["annotations"] = [{"id": n + 1, "completed_by": 7, "result": result}]
    tasks[1]["data"]["answer"] += " (edited)"
    return tasks


def _import_in_browser(
    open_session: Callable[..., Session], annotator: Any, tmp_path: Path
) -> tuple[Session, LabelingProject]:
    session = open_session(name="lena")
    project = _project(session.user, annotator)
    page = session.page
    session.goto(project.get_absolute_url())
    page.get_by_role("link", name="Label Studio", exact=True).first.click()
    page.wait_for_url(f"**/annotations/{project.pk}/label-studio/")
    with page.expect_download() as download:
        page.get_by_role("link", name="tasks (JSON)").click()
    tasks = json.loads(Path(download.value.path()).read_text("utf-8"))
    assert len(tasks) == 4
    export = tmp_path / "label-studio-export.json"
    export.write_text(json.dumps(_annotated(tasks), ensure_ascii=False), "utf-8")
    page.set_input_files("input[type=file]", str(export))
    page.get_by_label("Annotators").fill("7 = ann")
    page.get_by_role("button", name="Import annotations").click()
    page.wait_for_selector(".report")
    return session, project


def test_tasks_out_and_annotations_back(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    tmp_path: Path,
) -> None:
    session, project = _import_in_browser(open_session, make_user("annotator", "ann"), tmp_path)
    report = session.page.locator(".report").inner_text()
    assert "3 annotations imported, 0 already here unchanged, 1 not imported" in report
    assert "task 101: its answer differs from item ex-1's; the task was changed." in report
    labels = ClaimLabel.objects.filter(claim__item__project=project)
    expected = ItemClaim.objects.filter(item__project=project).exclude(item__position=1)
    assert labels.count() == expected.count() > 0
    assert all(label.cited_facts == [0] for label in labels)
    assert labels.filter(claim__text__contains="הספרייה").exists()  # the Hebrew item too
    session.no_xss()


@pytest.mark.slow
def test_screenshot(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    tmp_path: Path,
) -> None:
    session, _ = _import_in_browser(open_session, make_user("annotator", "ann"), tmp_path)
    IMAGES.mkdir(exist_ok=True)
    session.page.screenshot(path=str(IMAGES / "label-studio.png"), full_page=True)
    assert (IMAGES / "label-studio.png").stat().st_size > 10_000


def test_a_large_export_shows_its_progress_and_then_the_report(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    tmp_path: Path,
    settings: Any,
) -> None:
    """Issue 32, item 13: an export read by a worker; the page polls (htmx) until the
    report replaces the progress bar, at a phone's width too."""
    settings.LABEL_STUDIO_INLINE_BYTES = 100
    session = open_session(name="lena")
    project = _project(session.user, make_user("annotator", "ann"))
    tasks = json.loads("".join(exports.label_studio_tasks(project)))
    export = tmp_path / "label-studio-export.json"
    export.write_text(json.dumps(_annotated(tasks), ensure_ascii=False), "utf-8")
    page = session.page
    page.set_viewport_size({"width": 375, "height": 800})
    session.goto(f"/annotations/{project.pk}/label-studio/")
    page.set_input_files("input[type=file]", str(export))
    page.get_by_label("Annotators").fill("7 = ann")
    page.get_by_role("button", name="Import annotations").click()
    page.wait_for_url(f"**/annotations/{project.pk}/imports/*/")
    assert page.locator("progress").count() == 1
    assert "Waiting for a worker" in page.locator("#import-progress").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    jobs.run(ImportJob.objects.get().pk)
    page.wait_for_selector(".report", timeout=10_000)  # swapped in by the poll
    assert page.locator("progress").count() == 0
    assert "3 annotations imported" in page.locator(".report").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    session.no_xss()
