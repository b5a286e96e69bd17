"""Rendering time grows linearly with the answer (issue 25 item 13): an answer four
times as long may take about four times as long, never sixteen. The bound is loose
(6x) and each size takes its least CPU time of three runs, so a busy machine does not
fail it."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

import pytest

from grounding_app.engine import utf8_len
from grounding_app.formats.grounded import Candidate, Segment
from grounding_app.rendering.answer import render_candidate
from grounding_app.rendering.languages import JudgeInfo

JUDGE = JudgeInfo(languages=("en",))


def _answer(claims: int, markdown: bool) -> Candidate:
    """`claims` sentences, unsupported with a word underlined (every other one in plain
    text); in Markdown each is mostly a link and entities, the constructs a point may
    not split, whose number made the cost grow."""
    text, segments = "", []
    for i in range(claims):
        if markdown:
            sentence = f"**Item {i}** &amp; [it](https://e.org/{i}) &lt; &gt; &amp; &#169;."
        else:
            sentence = f"Item {i} was made in the town of Avalon in the year {1900 + i % 100}."
        if text:
            text += "\n\n- " if i % 5 == 0 else " "
        start = utf8_len(text)
        text += sentence
        end = utf8_len(text)
        unsupported = markdown or i % 2 == 1
        words = ((start + 2, start + 6),) if unsupported else ()
        verdict = "unsupported" if unsupported else "supported"
        segments.append(Segment(0, start, end, "", (), verdict, 0.5, (), words))  # type: ignore[arg-type]
    return Candidate(parts=(text,), segments=tuple(segments))


def _best_time(run: Callable[[], object]) -> float:
    """The least CPU time of three runs (other processes' load does not count), without
    the garbage collector, whose full passes cost more as the test's own objects pile up."""
    timings = []
    for _ in range(3):
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            run()
            timings.append(time.process_time() - start)
        finally:
            gc.enable()
    return min(timings)


@pytest.mark.parametrize(("markdown", "claims"), [(True, 300), (False, 400)])
def test_rendering_time_grows_linearly(markdown: bool, claims: int) -> None:
    small, large = _answer(claims, markdown), _answer(4 * claims, markdown)

    def render(candidate: Candidate) -> Callable[[], object]:
        return lambda: render_candidate(candidate, 0, markdown, JUDGE)

    assert render_candidate(large, 0, markdown, JUDGE).markdown is markdown
    small_time = _best_time(render(small))
    large_time = _best_time(render(large))
    assert large_time <= 6 * small_time + 0.02, (small_time, large_time)
