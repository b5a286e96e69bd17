"""The Verifier page in chromium, end to end: an admin switches to a tiny NLI verifier,
adapts it on a labeling project's labels in a real Celery worker (the progress bar
moves without a reload), the page lists the new verifier once done, the admin switches
to it, and a new review names it. `-m slow` runs the same flow and redraws
docs/img/verifier-{progress,page,review}-{light,dark}.png."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from grounding_app.engine import GroundingEngine
from grounding_app.reviews.models import Review
from tests.batch.conftest import running_workers
from tests.browser.conftest import Session
from tests.engine.verifier.tiny_models import NLI, bert_classifier, onnx_cache
from tests.lab.test_adapt_verifier import label_lines
from tests.verifiers.conftest import labeled_project

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
BAR = "() => { const p = document.querySelector('#adapt-jobs progress');"
MOVING = BAR + " return p !== null && Number(p.value) > 0 && Number(p.value) < 100; }"


@pytest.fixture
def root(tmp_path: Path, fresh_checker: object, settings: Any) -> Iterator[dict[str, Path]]:
    """A verifiers root holding a tiny NLI verifier; the process checker put back after."""
    folder = tmp_path / "verifiers"
    with onnx_cache(tmp_path / "cache"):
        nli = bert_classifier(folder / "tiny-nli", NLI)
        call_command("package_verifier", str(nli), "--languages", "en", stdout=io.StringIO())
        settings.GROUNDING_VERIFIERS_ROOT = folder
        yield {"root": folder, "nli": nli}


def _use(page: Any, directory: Path) -> None:
    row = page.locator(f"tr[data-directory='{directory}']")
    with page.expect_navigation():
        row.get_by_role("button", name="Use this verifier").click()
    assert row.locator(".tag", has_text="judging now").count() == 1


def _shoot(page: Any, name: str, locator: str | None = None) -> None:
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.wait_for_timeout(300)  # colour transitions
        path = str(IMG / f"verifier-{name}-{scheme}.png")
        if locator:
            page.locator(locator).screenshot(path=path)
        else:
            page.screenshot(path=path, full_page=True)
    page.emulate_media(color_scheme="light")


def flow(session: Session, root: dict[str, Path], project: Any, tmp: Path, shots: bool) -> None:
    page = session.page
    session.accept_confirms = True  # "Use this verifier" asks first
    if shots:
        IMG.mkdir(parents=True, exist_ok=True)
        page.set_viewport_size({"width": 1280, "height": 1000})
    with running_workers("embedded", tmp) as workers:
        workers.env["GROUNDING_VERIFIERS_ROOT"] = str(root["root"])
        workers.start()
        session.goto("/verifiers/")
        assert "minilm-l6-v4@sha256:" in page.inner_text("[data-active]")
        _use(page, root["nli"])
        # The switch asked first, and said where claims in other languages go (issue 32).
        assert len(session.confirmed) == 1 and "word matching" in session.confirmed[0]
        assert "tiny-nli@sha256:" in page.inner_text("[data-active]")
        assert "judges now" in page.inner_text(".messages")

        page.select_option("#id_project", str(project.pk))
        page.fill("#id_name", "team-adapted")
        page.fill("#id_replay", "0")
        page.fill("#id_max_minutes", "5")
        with page.expect_navigation():
            page.get_by_role("button", name="Adapt").click()
        page.evaluate("() => { window.__sameDocument = true; }")
        page.wait_for_function(MOVING, timeout=120_000)
        assert page.evaluate("() => window.__sameDocument") is True  # polled, not reloaded
        if shots:
            _shoot(page, "progress", "#adaptations")
        out = root["root"] / "team-adapted"
        # Once done, the page reloads itself and lists the new verifier.
        page.wait_for_selector(f"tr[data-directory='{out}']", timeout=300_000)
    assert page.evaluate("() => window.__sameDocument") is None
    assert "Written to" in page.inner_text("#adapt-jobs")
    _use(page, out)
    assert "team-adapted@sha256:" in page.inner_text("[data-active]")
    assert page.locator(".reliability svg").count() == 1
    table = page.inner_text(".switch-log")
    assert table.index("team-adapted@sha256:") < table.index("minilm-l6-v4@sha256:")
    if shots:
        page.locator(".model-card summary").click()
        _shoot(page, "page")

    session.goto("/reviews/new/")
    page.fill("#id_answer", "the film was directed by the mayor. the tower stands north.")
    page.fill("#fact-0-text", "the film was directed by the mayor .")
    page.get_by_role("button", name="Check answer").click()
    page.wait_for_selector("#result .review .judged-by")
    review = Review.objects.get()
    assert review.verifier.startswith("team-adapted@sha256:")
    shown = page.inner_text(".review-meta .judged-by")
    assert shown.startswith("Judged by team-adapted") and review.verifier.split("@")[1] in shown
    if shots:
        _shoot(page, "review", "header.review-head")
    session.no_xss()


def test_adapt_switch_and_see_the_new_verifier_on_a_review(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    root: dict[str, Path],
    tmp_path: Path,
) -> None:
    project = labeled_project(label_lines(20), make_user)
    flow(open_session(role="admin", name="ada"), root, project, tmp_path, shots=False)


@pytest.mark.slow
def test_screenshots(
    open_session: Callable[..., Session],
    make_user: Callable[..., Any],
    fake_engine: GroundingEngine,
    root: dict[str, Path],
    tmp_path: Path,
) -> None:
    project = labeled_project(label_lines(20), make_user)
    flow(open_session(role="admin", name="ada"), root, project, tmp_path, shots=True)
