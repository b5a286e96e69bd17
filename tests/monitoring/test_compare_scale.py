"""Two jobs of 100,000 checked lines (the documented maximum): the compare page and both
exports run in bounded memory (`-m slow`; DATABASE_URL picks the database).

Each line holds a stored grounded answer as the workers write it (three or four claims
with their cited facts, about 2.5 KB of JSON), so holding both jobs' results at once, as
compare did before, cost 1.8 GB of Python objects in a web worker.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from django.db import connection
from django.test import Client

from grounding_app.batch.models import BatchJob, BatchLine
from grounding_app.common.serialize import grounded_to_json
from grounding_app.formats.grounded import Candidate, GroundedAnswer, Segment, Source
from tests.monitoring import data

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

LINES = 100_000
ROWS_PER_CALL = 5_000
RUNS = 3
# Bounded: a chunk of lines with their results and the first 200 changed answers the
# page keeps (about 20 MB measured); reading both jobs whole took 1.8 GB.
LIMIT_MB = 100

_COLUMNS = (
    "job_id, number, raw, state, error, external_id, source, labels, answer, result, "
    "support_score, summary, claim_count, unsupported_count, excluded_cited, judged_by, "
    "verifier, processed_at, answered_at, worker"
)
_FACT = (
    "Fact {n}: the Eiffel Tower in Paris was completed in 1889 for the World's Fair and "
    "is about 330 metres tall, the tallest structure in France until 1930."
)
_CLAIM = "Claim {c} of answer {n}: the tower stands {m} metres tall and opened in 1889."
_VERDICTS = ("supported", "unsupported", "partial")


def _result(n: int, claims: int, flip: bool) -> tuple[str, str, float, int, int]:
    """The line's stored result (JSON), its answer, score, claims and unsupported ones.
    `flip`: the run after judged the first claim the other way."""
    texts = [_CLAIM.format(c=c, n=n, m=300 + c) for c in range(claims)]
    answer = " ".join(texts)
    segments, start, unsupported = [], 0, 0
    for c, text in enumerate(texts):
        verdict = _VERDICTS[(n + c) % 2]
        if flip and c == 0:
            verdict = _VERDICTS[(n + 1) % 2]
        unsupported += verdict == "unsupported"
        end = start + len(text.encode())
        segments.append(
            Segment(
                0, start, end, text, (c % 3, (c + 1) % 3), verdict, 0.9 - 0.1 * c,
                (0.8, 0.6), ((start, start + 5),) if verdict == "unsupported" else (), "en",
                "verifier",
            )
        )  # fmt: skip
        start = end + 1
    facts = tuple(Source(text=_FACT.format(n=f), fact_index=f) for f in range(3))
    score = round(1 - unsupported / claims, 4)
    candidate = Candidate((answer,), tuple(segments), facts, score)
    stored = grounded_to_json(GroundedAnswer("check_grounding", (candidate,)))
    return json.dumps(stored), answer, score, claims, unsupported


def _line_id(number: int, after: bool) -> tuple[int, str]:
    n = (number * 7919) % LINES if after else number - 1  # 7919 is prime: a permutation
    if number % 1000 == 0:
        return n, "" if after else "q-1"  # no id / a repeat (the first line wins)
    return n, f"new-{n}" if after and n % 50 == 0 else f"q-{n}"


def _counts() -> dict[str, int]:
    """What the page counts, from the ids alone."""
    ids = [{_line_id(k, after)[1] for k in range(1, LINES + 1)} for after in (False, True)]
    before, after = (found - {""} for found in ids)
    return {
        "matched": len(before & after),
        "only-before": len(before - after),
        "only-after": len(after - before),
    }


def _rows(job_id: int, after: bool, now: object) -> Iterator[tuple[object, ...]]:
    """Ids q-0 ... in the job before; the job after holds them in another order, drops
    every 50th, adds its own, flips a claim of every 9th, and has a repeated id and
    lines without one."""
    for number in range(1, LINES + 1):
        n, external_id = _line_id(number, after)
        result, answer, score, claims, unsupported = _result(n, 3 + n % 2, after and n % 9 == 0)
        summary = "supported" if unsupported == 0 else "partial"
        raw = json.dumps({"id": external_id, "answer": answer, "facts": [_FACT.format(n=0)]})
        yield (
            job_id, number, raw, "done", "", external_id, "", "{}", answer, result, score,
            summary, claims, unsupported, 0, "{}", "verifier@sha256:0123456789ab", now, now,
            "w1",
        )  # fmt: skip


def _insert(jobs: list[BatchJob]) -> None:
    now = connection.ops.adapt_datetimefield_value(datetime.now(UTC))
    for after, job in enumerate(jobs):
        data.bulk_lines(_COLUMNS, _rows(job.pk, bool(after), now), ROWS_PER_CALL)
    data.analyze()


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@dataclass
class Took:
    seconds: list[float]
    traced_mb: float  # peak growth of Python allocations (tracemalloc)
    rss_mb: float  # peak growth of the resident set, C buffers (libpq, SQLite) included
    size: int  # bytes of the page or the file


def _fetch(client: Client, path: str, query: dict[str, str], lines: int = 0) -> int:
    """The response's size in bytes, its stream consumed chunk by chunk (never joined)
    and its lines counted."""
    response: Any = client.get(path, query)
    assert response.status_code == 200
    if not response.streaming:
        return len(response.content)
    size = found = 0
    for chunk in response.streaming_content:
        size += len(chunk)
        found += chunk.count(b"\n")
    assert found == lines or not lines
    return size


def _measure(fetch: Callable[[], int]) -> Took:
    """RUNS timed runs, then one traced (tracemalloc slows every allocation) with the
    resident set sampled every 10 ms beside it."""
    seconds = []
    for _ in range(RUNS):
        start = time.perf_counter()
        fetch()
        seconds.append(time.perf_counter() - start)
    base, peak, done = _rss(), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], _rss())

    sampler = threading.Thread(target=sample)
    sampler.start()
    tracemalloc.start()
    try:
        size = fetch()
        current, traced = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        done.set()
        sampler.join()
    return Took(sorted(seconds), (traced - current) / 2**20, (peak[0] - base) / 2**20, size)


def test_two_jobs_of_100000_lines_compare_in_bounded_memory(
    client: Client, make_user: Callable[..., Any], capsys: pytest.CaptureFixture[str]
) -> None:
    jobs = [data.job("run before"), data.job("run after")]
    started = time.perf_counter()
    _insert(jobs)
    inserted = time.perf_counter() - started
    assert BatchLine.objects.count() == 2 * LINES
    client.force_login(make_user("reviewer"))
    query = {"before": str(jobs[0].public_id), "after": str(jobs[1].public_id)}
    page = client.get("/monitoring/compare/", query)  # connects, warms the caches
    html = page.content.decode()
    counts = _counts()
    for stat, count in counts.items():
        assert f'data-stat="{stat}">{count}<' in html
    assert f"{LINES // 1000} without an id" in html
    figures = {
        "page": _measure(lambda: _fetch(client, "/monitoring/compare/", query)),
        "CSV": _measure(lambda: _fetch(client, "/monitoring/compare.csv", query)),
        "JSONL": _measure(
            lambda: _fetch(client, "/monitoring/compare.jsonl", query, counts["matched"])
        ),
    }
    with capsys.disabled():
        print(f"\n{connection.vendor}: inserted {2 * LINES:,} lines in {inserted:.1f} s")
        for name, took in figures.items():
            shown = ", ".join(f"{t:.2f}" for t in took.seconds)
            print(
                f"{connection.vendor}: compare {name} ({took.size / 2**20:.1f} MB): {shown} s "
                f"(median {statistics.median(took.seconds):.2f} s); peak Python memory "
                f"+{took.traced_mb:.1f} MB, resident set +{took.rss_mb:.1f} MB"
            )
    heavy = {name: took.traced_mb for name, took in figures.items() if took.traced_mb > LIMIT_MB}
    assert not heavy, f"over {LIMIT_MB} MB: {heavy}"
