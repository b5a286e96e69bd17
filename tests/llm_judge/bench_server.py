"""The LLM judge against a real OpenAI-compatible server: a few claims, supported and
not, judged as a check would, with what it cost.

    python -m tests.llm_judge.bench_server http://127.0.0.1:8765/v1 MODEL [--concurrency 1]

Prints per claim the outcome and, in all, calls, failures, tokens, seconds and the
response_format the server took (docs/llm-judge.md, "Against llama.cpp's server").
"""

from __future__ import annotations

import argparse
import time

from grounding_app.engine import Band, Escalated
from grounding_app.llm_judge import client
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge, metered
from tests.llm_judge.test_judge import MemoryLedger

PARIS = "Paris is the capital of France. The Eiffel Tower, built in 1889, stands in Paris."
CLAIMS = [
    Escalated("The Eiffel Tower is in Paris.", "", (PARIS,), 0.5, "en"),
    Escalated("The Eiffel Tower was built in 1889.", "", (PARIS,), 0.5, "en"),
    Escalated("The Eiffel Tower is in Rome.", "", (PARIS,), 0.5, "en"),
    Escalated("It was built in 1920.", "The Eiffel Tower stands in Paris.", (PARIS,), 0.5, "en"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("model")
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    endpoint = Endpoint(args.url, args.model, timeout=args.timeout)
    judge = LLMJudge(endpoint, Band(everything=True), MemoryLedger(), concurrency=args.concurrency)
    started = time.monotonic()
    with metered() as usage:
        outcomes = judge.judge(CLAIMS)
    took = time.monotonic() - started
    for item, outcome in zip(CLAIMS, outcomes, strict=True):
        said = outcome.ruling if outcome.ruling is not None else f"fell back: {outcome.fell_back}"
        print(f"{item.claim!r}: {said}")
    print(
        f"{usage.claims} claims, {usage.calls} calls ({usage.failures} failed),"
        f" {usage.tokens} tokens, {took:.1f} s wall;"
        f" response_format taken: {client.response_format(endpoint)}"
    )


if __name__ == "__main__":
    main()
