"""One engine in its own process, for `grounding_bench --baseline`.

    python grounding_lab/bench_worker.py TREE [JUDGE] [cold]

`EngineProcess` starts it and talks to it; `baseline_tree` checks a commit out for it.

TREE's `grounding_app` is imported, not this file's, so a pinned commit's engine (checked
out under var/) runs in the same virtual environment as today's; each process has its own
peak RSS. It reads the requests once (one JSON line: name -> answer and facts as
[text, attributes]), then one line per call: a request's name (answered "ok" when its
check is done), "response NAME" (answered with the response as JSON) or "rss" (answered
with the peak RSS in MB). Only these answers go to
stdout: anything the engine prints goes to stderr.
"""

from __future__ import annotations

import dataclasses
import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def baseline_tree(ref: str, repo: Path = REPO) -> Path:
    """A detached worktree of `ref` under `repo`/var/bench/, made once per commit."""
    commit = _git(repo, "rev-parse", "--verify", f"{ref}^{{commit}}")
    tree = repo / "var" / "bench" / commit[:12]
    if not (tree / ".git").exists():
        tree.parent.mkdir(parents=True, exist_ok=True)
        _git(repo, "worktree", "add", "--detach", str(tree), commit)
    return tree


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


class EngineProcess:
    """A worker running `tree`'s engine on the requests it was given; `check(name)`
    returns when that request's check is done, so the caller times it."""

    def __init__(
        self,
        tree: Path,
        requests: dict[str, Any],
        judge: str = "verifier",
        env: Any = None,
        cold: bool = False,
    ) -> None:
        self._process = subprocess.Popen(
            [sys.executable, __file__, str(tree), judge, *(["cold"] if cold else [])],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._send(json.dumps(requests))
        ready = self._read().split(" ", 1)
        if ready[0] != "ready":
            raise RuntimeError(f"the engine of {tree} did not start: {ready}")
        # Which grounding_app the worker imported (TREE's, not the venv's checkout).
        self.package = Path(ready[1])

    def _send(self, line: str) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(line + "\n")
        self._process.stdin.flush()

    def _read(self) -> str:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker exited ({self._process.wait()})")
        return line.strip()

    def check(self, name: str) -> None:
        self._send(name)
        self._read()

    def response(self, name: str) -> dict[str, Any]:
        """The engine's response to the request, as plain data (every field, exact)."""
        self._send(f"response {name}")
        return json.loads(self._read())

    def peak_rss_mb(self) -> float:
        self._send("rss")
        return float(self._read())

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


def main() -> None:
    tree = str(Path(sys.argv[1]).resolve())
    judge = sys.argv[2] if len(sys.argv) > 2 else "verifier"
    cold = sys.argv[3:] == ["cold"]
    # The script's own folder (grounding_lab/) must not shadow top-level modules, and TREE must
    # come before the editable install of the checkout the venv was made from.
    sys.path[:] = [tree, *(p for p in sys.path[1:] if p != tree)]
    answers = sys.stdout
    sys.stdout = sys.stderr
    import grounding_app

    # From the modules, not the package: a pinned commit's package may not export them.
    from grounding_app.engine.pipeline import GroundingEngine
    from grounding_app.engine.types import CheckRequest, Fact

    engine = GroundingEngine.default(judge)
    requests = {
        name: CheckRequest(
            answer=body["answer"], facts=tuple(Fact(text, attrs) for text, attrs in body["facts"])
        )
        for name, body in json.loads(sys.stdin.readline()).items()
    }
    answers.write(f"ready {Path(grounding_app.__file__).parent}\n")
    answers.flush()
    for line in sys.stdin:
        command = line.strip()
        if command == "rss":
            answers.write(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}\n")
        elif command.startswith("response "):
            response = engine.check(requests[command.removeprefix("response ")])
            answers.write(json.dumps(dataclasses.asdict(response)) + "\n")
        else:
            if cold:
                forget(engine)
            engine.check(requests[command])
            answers.write("ok\n")
        answers.flush()


def forget(engine: Any) -> None:
    """Empty what an engine keeps across requests (a tree that keeps nothing: no-op),
    so each check reads its facts as if for the first time."""
    import importlib

    if hasattr(engine, "fact_encodings"):
        engine.fact_encodings.clear()
    clear = getattr(importlib.import_module("grounding_app.engine"), "clear_text_caches", None)
    if clear is not None:
        clear()


if __name__ == "__main__":
    main()
