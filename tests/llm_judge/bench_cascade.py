"""Calls made vs. claims with the cascade on: `python -m tests.llm_judge.bench_cascade`.

The first 1,000 lines of dev_realistic through the shipped verifier, once alone and once
with the LLM judge (band 0.35-0.75) against the local scripted chat server: the claims
checked, those whose local score lies in the band, and the requests the server got.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from grounding_app.engine import VERIFIER, Band, CheckRequest, Fact, GroundingEngine
from grounding_app.llm_judge.client import Endpoint
from grounding_app.llm_judge.judge import LLMJudge, Usage
from tests.llm_judge.chat_server import answer, chat_server

DATA = Path(__file__).resolve().parents[3] / "shared/data/grounding/dev_realistic.jsonl"
BAND = Band(0.35, 0.75)


class Tally:
    def __init__(self) -> None:
        self.usage = Usage()

    def spent_today(self) -> int:
        return 0

    def record(self, usage: Usage) -> None:
        self.usage.add(usage)


def main(path: Path = DATA, lines: int = 1000) -> str:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:lines]]
    engine = GroundingEngine.default()
    tally = Tally()
    checked = in_band = 0
    with chat_server(answer("supported", passage=0)) as server:
        judge = LLMJudge(Endpoint(server.url, "m"), BAND, tally)
        started = time.monotonic()
        for row in rows:
            request = CheckRequest(
                row["claim"],
                tuple(Fact(f["text"]) for f in row["facts"]),
                enable_claim_level_score=True,
            )
            scored = [c for c in engine.check(request).claims if c.score is not None]
            checked += len(scored)
            in_band += sum(c.checked_by == VERIFIER and c.score in BAND for c in scored)
            engine.check(request, judge)
        seconds = time.monotonic() - started
    calls = len(server.requests)
    return (
        f"lines {len(rows)}, claims checked {checked}, in the band {in_band}, "
        f"calls {calls} ({100 * calls / max(checked, 1):.1f} % of claims), "
        f"tokens {tally.usage.tokens}, {seconds:.0f} s for both passes"
    )


if __name__ == "__main__":
    print(main(*(Path(a) for a in sys.argv[1:2])))
