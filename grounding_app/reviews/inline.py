"""Claim text as the rendered answer shows it, for tables and lists.

A claim cut from a Markdown answer carries its syntax (`**Titanic**`, `[James
Cameron](…)`, a leading `- ` or `## `). Tables show it as the answer does: emphasis,
strike-through and code kept, links and images reduced to their text, block markers
dropped. The HTML is built from the answer parser's tokens with every piece of text escaped,
so nothing from the answer reaches the page as markup and no sanitiser is needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from grounding_app.rendering.markdown import block_tokens

_TAGS = {
    "strong_open": "<strong>",
    "strong_close": "</strong>",
    "em_open": "<em>",
    "em_close": "</em>",
    "s_open": "<s>",
    "s_close": "</s>",
}


def _plain(text: str) -> str:
    return text


def _inline(children: Sequence[Any], markup: bool) -> str:  # markdown-it Tokens
    esc = escape if markup else _plain
    out = []
    for token in children:
        if token.type == "text":
            out.append(esc(token.content))
        elif token.type == "code_inline":
            code = esc(token.content)
            out.append(f"<code>{code}</code>" if markup else code)
        elif token.type in ("softbreak", "hardbreak"):
            out.append(" ")
        elif token.type == "image":
            out.append(_inline(token.children or [], markup))
        elif markup and token.type in _TAGS:
            out.append(_TAGS[token.type])
    return "".join(out)


def _pieces(text: str, markup: bool) -> str:
    out = []
    for token in block_tokens(text):  # parsed by the answer's own parser
        if token.type == "inline":
            out.append(_inline(token.children or [], markup))
        elif token.type in ("code_block", "fence"):
            code = escape(token.content.strip()) if markup else token.content.strip()
            out.append(f"<code>{code}</code>" if markup else code)
    return " ".join(piece for piece in out if piece.strip())


def claim_html(text: str) -> str:
    """Escaped HTML of a claim's text with its inline Markdown rendered."""
    return _pieces(text, markup=True) or escape(text)


def claim_text(text: str) -> str:
    """A claim's (or answer's) text without its Markdown syntax, not escaped."""
    return _pieces(text, markup=False) or text
