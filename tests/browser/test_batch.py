"""Batch jobs in chromium: the progress bar moves without a reload while chunks are
checked, then the page shows the results; `-m slow` also redraws the screenshots
docs/img/batch-progress.png and docs/img/batch-results.png."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.db import connection

from grounding_app.batch import intake, running
from grounding_app.batch.models import BatchChunk, BatchJob
from grounding_app.engine import CheckRequest, CheckResponse, GroundingEngine
from tests.browser.conftest import Session

pytestmark = pytest.mark.django_db(transaction=True)

IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
SOURCES = ("support-bot", "search-answers", "docs-assistant")


def _line(n: int) -> str:
    """Answers of three sources; some wholly, some half and some not supported."""
    fact = f"Order {n} shipped from the Leeds warehouse on day {n} of the month."
    kind = n % 6
    if kind == 0:
        claim = f"Order {n} was refunded to a customer in Lisbon after a complaint."
    elif kind == 3:
        claim = f"{fact} It was delivered by drone to Oslo within an hour."
    else:
        claim = fact
    source = SOURCES[n % 5 % 3] if kind else SOURCES[0]
    line = {"id": f"log-{n}", "source": source, "facts": [{"text": fact}], "claim": claim}
    return json.dumps(line)


def _job(count: int) -> BatchJob:
    data = "\n".join(_line(n) for n in range(1, count + 1)) + "\n{truncated line\n"
    return intake.create_job(data.encode(), name="support-log-2026-11-29.jsonl", send=False)


@pytest.fixture
def checking(fake_engine: GroundingEngine) -> Iterator[Callable[[BatchJob, float], None]]:
    """Run a job's chunks in a thread of this process, `delay` seconds per line, as a
    worker would (the live server reads the same test database)."""
    threads: list[threading.Thread] = []

    def start(job: BatchJob, delay: float) -> None:
        def run(request: CheckRequest) -> CheckResponse:
            time.sleep(delay)
            return fake_engine.check(request)

        def work() -> None:
            try:
                for chunk_id in BatchChunk.objects.filter(job=job).values_list("pk", flat=True):
                    running.run_chunk(chunk_id, run=run, worker="browser-test")
            finally:
                connection.close()

        thread = threading.Thread(target=work, daemon=True)
        threads.append(thread)
        thread.start()

    yield start
    for thread in threads:
        thread.join(60)


def _bar(session: Session) -> int:
    return int(session.page.locator("#progress progress").get_attribute("value") or 0)


def test_the_bar_moves_without_a_reload_then_results_show(
    open_session: Callable[..., Session], checking: Callable[[BatchJob, float], None]
) -> None:
    session = open_session()
    job = _job(60)
    session.goto(job.get_absolute_url())
    assert _bar(session) == 1  # the bad line failed at upload
    session.page.evaluate("() => { window.__sameDocument = true; }")
    checking(job, 0.05)
    session.page.wait_for_function(
        "() => Number(document.querySelector('#progress progress').value) >= 20"
    )
    assert session.page.evaluate("() => window.__sameDocument") is True  # no reload
    assert session.page.locator("[data-stat='rate']").inner_text() != "—"
    # Once the job is over the page reloads itself, and the results are there.
    session.page.wait_for_selector("#progress[data-status='done']", timeout=60_000)
    assert session.page.evaluate("() => window.__sameDocument") is None
    assert session.page.locator("#progress").get_attribute("hx-trigger") is None
    assert session.page.locator("svg.chart:visible .chart-bar").count() == 10
    rows = session.page.locator("section[aria-label='Worst answers'] tbody tr")
    assert rows.count() == 25  # the worst 25, lowest score first
    failed = session.page.inner_text("section[aria-label='Failed lines']")
    assert "line 61: not valid JSON" in failed
    with session.page.expect_navigation():
        rows.first.get_by_role("button", name="Open review").click()
    assert "/reviews/" in session.page.url
    session.no_xss()


@pytest.mark.slow
def test_screenshots(
    open_session: Callable[..., Session], checking: Callable[[BatchJob, float], None]
) -> None:
    session = open_session(name="lena")
    page = session.page
    page.set_viewport_size({"width": 1280, "height": 1000})
    earlier = _job(120)
    checking(earlier, 0.0)
    BatchJob.objects.filter(pk=earlier.pk).update(name="support-log-2026-11-28.jsonl")
    time.sleep(0.5)
    job = _job(300)
    session.goto(job.get_absolute_url())
    checking(job, 0.03)
    page.wait_for_function(
        "() => Number(document.querySelector('#progress progress').value) >= 120"
    )
    page.locator("#progress").screenshot(path=str(IMG / "batch-progress.png"))
    page.wait_for_selector("#progress[data-status='done']", timeout=120_000)
    page.screenshot(path=str(IMG / "batch-results.png"), full_page=True)
    assert (IMG / "batch-results.png").stat().st_size > 10_000
