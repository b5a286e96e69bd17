"""Timing page renders through the whole Django stack, and the answers the page
benchmarks render."""

from __future__ import annotations

import time

from django.test import Client


def time_page(client: Client, url: str, runs: int) -> tuple[list[float], int]:
    """Milliseconds of `runs` GETs of `url` after one warm-up, and the page's size."""
    timings, size = [], 0
    for _ in range(runs + 1):  # the first run warms template and URL caches
        start = time.perf_counter()
        # https, as production serves pages (SECURE_SSL_REDIRECT redirects http)
        response = client.get(url, secure=True)
        timings.append((time.perf_counter() - start) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        size = len(response.content)
    return timings[1:], size


def bench_sentences(claims: int) -> list[str]:
    """An answer's sentences for the page benchmarks: mostly English, every tenth from the
    fourth Hebrew and every tenth from the eighth with an emoji (right-to-left runs and
    astral characters are where offsets and rendering go wrong)."""
    sentences = []
    for i in range(claims):
        if i % 10 == 3:
            sentences.append(f"המצפה תיעד {i} לילות בהירים.")
        elif i % 10 == 7:
            sentences.append(f"The site 🌌 logged {i} nights, a record.")
        else:
            sentences.append(f"The observatory recorded {i} clear nights that year.")
    return sentences
