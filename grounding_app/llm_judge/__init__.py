"""An LLM judge for the claims the verifier is unsure of (issue 34, item 5).

Any OpenAI-compatible chat-completions endpoint (vLLM, Ollama, LiteLLM, a hosted
gateway) judges the claims whose local score lies in a band, or every claim: the engine
calls it through its `Escalation` hook (`engine/escalation.py`), and the active
verifier's checker follows the one set on the Verifier page, else the LLM_JUDGE_*
settings (`config.py`). Off while neither names an endpoint.
"""

from __future__ import annotations
