"""A recorded set of check requests and the API's answers, to show a refactoring kept them.

    python -m grounding_lab.record_responses record OUT.jsonl [--count 200]
    python -m grounding_lab.record_responses compare BASELINE.jsonl [--count 200]

`record` builds `--count` deterministic requests (seeded; the benchmark's film and
everyday requests, dev examples alone and merged, realistic and Hebrew dev examples;
never the 20-second "largest" kind), posts each through Django's test client to the
public check API with the configured (by default the bundled) verifier, and writes one
line per request: its name, HTTP status and JSON body, keys sorted, timing fields
removed. `compare` does the same and prints the first request whose line differs from
the baseline's (exit status 1), or that all are identical.

It runs on a throwaway SQLite database in a temporary directory (migrated on start), so
it needs no server and leaves nothing behind.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

from grounding_app.engine import CheckRequest
from grounding_app.formats.check_grounding import request_to_json
from grounding_app.formats.grounding_jsonl import Example, read_examples
from grounding_lab.bench_requests import DEFAULT_DATA, benchmark_texts, everyday_request
from grounding_lab.bench_requests import film_request as film

URL = "/v1/projects/p/locations/global/groundingConfigs/default_grounding_config:check"
DATA = DEFAULT_DATA.parent  # dev.jsonl and dev_realistic.jsonl; ../hebrew/dev_hebrew.jsonl
# How many of each kind in a set of 200 (scaled for other counts); the rest are dev
# examples alone, the cheapest kind.
SHARES = {"everyday": 0.1, "merged": 0.2, "realistic": 0.15, "hebrew": 0.05}


def _sample(path: Path, rng: random.Random, count: int) -> list[Example]:
    """`count` examples of a file, seeded, in the file's order."""
    examples = list(read_examples(path))
    picked = sorted(rng.sample(range(len(examples)), min(count, len(examples))))
    return [examples[i] for i in picked]


def _varied(request: CheckRequest, rng: random.Random) -> CheckRequest:
    """Claim-level scores on most requests, a threshold other than the default on some."""
    threshold = rng.choice((request.citation_threshold, 0.3, 0.8))
    return CheckRequest(request.answer, request.facts, threshold, rng.random() < 0.8)


def _merged(group: Sequence[Example]) -> CheckRequest:
    """Several examples as one request: their facts together, their claims as one answer."""
    facts = tuple(fact for example in group for fact in example.facts)
    return CheckRequest(" ".join(example.claim.strip() for example in group), facts)


def _kinds(count: int, data: Path, rng: random.Random) -> Iterator[tuple[str, CheckRequest]]:
    sizes = {kind: round(count * share) for kind, share in SHARES.items()}
    yield "film", film()
    texts = benchmark_texts(data / "dev.jsonl")
    for seed in range(sizes["everyday"]):
        yield f"everyday-{seed}", everyday_request(texts, seed)
    dev = _sample(data / "dev.jsonl", rng, 3 * sizes["merged"] + count)
    for i in range(sizes["merged"]):
        group = dev[3 * i : 3 * i + rng.randint(2, 3)]
        yield f"merged-{i}", _merged(group)
    for example in _sample(data / "dev_realistic.jsonl", rng, sizes["realistic"]):
        yield f"realistic:{example.id}", CheckRequest(example.claim, example.facts)
    for example in _sample(data.parent / "hebrew" / "dev_hebrew.jsonl", rng, sizes["hebrew"]):
        yield f"hebrew:{example.id}", CheckRequest(example.claim, example.facts)
    for example in dev[3 * sizes["merged"] :]:
        yield f"dev:{example.id}", CheckRequest(example.claim, example.facts)


def build_requests(count: int = 200, data: Path = DATA, seed: int = 33) -> list[tuple[str, dict]]:
    """(name, JSON body) of `count` requests, the same on every run."""
    rng = random.Random(seed)
    return [
        (name, request_to_json(_varied(request, rng)))
        for name, request in islice(_kinds(count, data, rng), count)
    ]


def _untimed(value: Any) -> Any:
    """The value without timing fields (keys ending in "Ms" or "Seconds"), at any depth."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if not k.endswith(("Ms", "Seconds"))}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def response_line(name: str, status: int, body: Any) -> str:
    return json.dumps(
        {"name": name, "status": status, "body": _untimed(body)}, sort_keys=True, ensure_ascii=False
    )


Post = Callable[[dict], tuple[int, Any]]


def client_post(client: Any, key: str) -> Post:
    """Post one body to the check API through Django's test client."""

    def post(body: dict) -> tuple[int, Any]:
        response = client.post(
            URL,
            json.dumps(body),
            content_type="application/json",
            secure=True,
            HTTP_X_GOOG_API_KEY=key,
        )
        return response.status_code, json.loads(response.content)

    return post


def responses(requests: Sequence[tuple[str, dict]], post: Post) -> Iterator[str]:
    for name, body in requests:
        yield response_line(name, *post(body))


def first_difference(baseline: Sequence[str], now: Sequence[str]) -> str | None:
    """A description of the first line that differs, or None when all are identical."""
    for number, (before, after) in enumerate(zip(baseline, now, strict=False), start=1):
        if before != after:
            return f"request {number} ({json.loads(before)['name']}) differs:\n-{before}\n+{after}"
    if len(baseline) != len(now):
        return f"{len(baseline)} lines recorded, {len(now)} now"
    return None


def _django_post() -> Post:
    """Set up Django on a throwaway database and return a poster with a fresh API key."""
    scratch = tempfile.mkdtemp(prefix="record-responses-")
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch}/db.sqlite3"
    os.environ.setdefault("SECRET_KEY", "record-responses-not-secret")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "grounding_app.settings")
    os.environ["API_RATE_LIMIT"] = "0"
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import setup_test_environment

    from grounding_app.api.models import ApiKey

    setup_test_environment()
    call_command("migrate", verbosity=0)
    _, key = ApiKey.issue("record-responses")
    return client_post(Client(), key)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("record", "compare"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args(argv)
    requests = build_requests(args.count, args.data)
    lines = list(responses(requests, _django_post()))
    if args.mode == "record":
        args.path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
        print(f"{len(lines)} responses written to {args.path}")
        return 0
    difference = first_difference(args.path.read_text(encoding="utf-8").splitlines(), lines)
    print(difference or f"all {len(lines)} responses identical to {args.path}")
    return 1 if difference else 0


if __name__ == "__main__":
    sys.exit(main())
