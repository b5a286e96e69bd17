"""One chat-completions exchange: the prompt, the HTTP call and the answer's validation.

Plain Python (stdlib urllib), so the protocol is tested against a real local server.
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from grounding_app.engine import Escalated, Ruling

SYSTEM = (
    "You check whether a claim is supported by evidence passages. A claim is supported "
    "only when the passages state or directly imply every part of it. Answer with one JSON "
    'object and nothing else: {"verdict": "supported" or "unsupported", '
    '"unsupported_words": [the claim\'s words the passages do not back], '
    '"supporting_passage": the number of the passage that supports it most, or null}.'
)
RETRY = (
    'That was not the JSON object asked for. Answer with the JSON object only: {"verdict": ...}.'
)


@dataclass(frozen=True)
class Endpoint:
    url: str  # the base URL, e.g. http://localhost:11434/v1
    model: str
    key: str = ""
    timeout: float = 30.0


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class EndpointError(Exception):
    """The endpoint gave no answer to read; `reason` goes into the claim's fallback note."""

    def __init__(self, reason: str, seconds: float = 0.0) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seconds = seconds


def messages(item: Escalated) -> list[dict[str, str]]:
    """The prompt: the claim, the earlier context it refers to, the numbered evidence."""
    passages = "\n".join(f"[{k}] {text}" for k, text in enumerate(item.evidence))
    context = f"Earlier context the claim may refer to: {item.context}\n\n" if item.context else ""
    user = f"{context}Evidence passages:\n{passages or '(none)'}\n\nClaim: {item.claim}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def complete(endpoint: Endpoint, conversation: list[dict[str, str]]) -> Reply:
    """POST /chat/completions; raises `EndpointError` for a timeout, an HTTP error or a
    body that is no chat completion."""
    body = json.dumps(
        {"model": endpoint.model, "messages": conversation, "temperature": 0}
    ).encode()
    headers = {"Content-Type": "application/json"}
    if endpoint.key:
        headers["Authorization"] = f"Bearer {endpoint.key}"
    request = urllib.request.Request(
        endpoint.url.rstrip("/") + "/chat/completions", body, headers, method="POST"
    )
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=endpoint.timeout) as response:
            data = json.loads(response.read())
        content = data["choices"][0]["message"]["content"]
        usage = data.get("usage") or {}
        prompt, completion = (
            int(usage.get("prompt_tokens", 0)),
            int(usage.get("completion_tokens", 0)),
        )
    except urllib.error.HTTPError as exc:
        raise EndpointError(f"http {exc.code}", time.monotonic() - started) from exc
    except urllib.error.URLError as exc:
        reason = "timeout" if isinstance(exc.reason, TimeoutError) else "unreachable"
        raise EndpointError(reason, time.monotonic() - started) from exc
    except TimeoutError as exc:
        raise EndpointError("timeout", time.monotonic() - started) from exc
    except (ValueError, KeyError, IndexError, TypeError, AttributeError, OSError) as exc:
        raise EndpointError("bad response", time.monotonic() - started) from exc
    if not isinstance(content, str):
        raise EndpointError("bad response", time.monotonic() - started)
    return Reply(content, prompt, completion, time.monotonic() - started)


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)


def parse_ruling(content: str, passages: int) -> Ruling | None:
    """The answer as a ruling, or None when it is not the JSON asked for (a model may
    wrap it in a Markdown fence; anything else is refused)."""
    fenced = _FENCE.match(content)
    try:
        data: Any = json.loads(fenced.group(1) if fenced else content)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("verdict") not in ("supported", "unsupported"):
        return None
    words = data.get("unsupported_words", [])
    passage = data.get("supporting_passage")
    if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
        return None
    if passage is not None and (
        isinstance(passage, bool) or not isinstance(passage, int) or not 0 <= passage < passages
    ):
        return None
    return Ruling(data["verdict"] == "supported", tuple(words), passage)
