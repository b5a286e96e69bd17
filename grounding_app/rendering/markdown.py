"""Untrusted Markdown -> sanitised HTML with numbered points kept in place.

The one module that renders untrusted HTML: CommonMark (markdown-it-py, raw HTML off,
plus tables and strikethrough) and then bleach with an allow-list, so it can be swapped
for nh3 here alone. Only absolute http(s) URLs become links, with `rel="noopener
noreferrer nofollow"`; any other link (relative, `//host`, `mailto:`, `javascript:`)
stays the text it was written as. Images become links to their source (no remote image
is ever loaded).

Claims are UTF-8 byte spans into the raw text, which Markdown rewrites. So the caller
names char positions ("points"); each becomes a private-use sentinel character inserted
into the raw text before rendering, and survives into the output, where the caller
turns it into a marker. Only a text in which no character could be taken for a sentinel
is rendered this way (`can_place`: none written raw, none as a numeric entity, which
markdown-it decodes), so every sentinel in the output is one of ours, and nothing of the
user's is ever decoded or deleted to find them. A sentinel must not break Markdown, nor
be lost:

- a point at the start of a line moves past the list, heading or quote prefix; one on
  a blank line, to the end of the line before (it would join the blocks around it);
- a point right after a closing `*`, `_` or `~` run moves before it (else the run would
  no longer close its emphasis);
- a point inside a code block goes into its own paragraph right after the block;
- a point inside a code span, link text or link URL, or image, moves to the end of
  that construct (after `</code>` or `</a>`); one inside an entity (`&amp;`) or a
  reference link's label, past it;
- a point that still reaches a link destination is taken out of it before markdown-it
  normalises and checks the URL (`_Parser.normalizeLink`), so the href is exactly what
  the URL alone gives, and the point follows the link;
- a point that no construct printed (e.g. inside a link reference definition) is
  appended at the end, so every point appears exactly once.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import bleach
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from grounding_app.rendering.links import LINK_REL, safe_href

# The Private Use Area of the Basic Multilingual Plane (html5lib, under bleach, reads
# BMP characters faster than astral ones). A text that holds any of them itself is
# shown plain (`can_place`).
_BASE = 0xE000
MAX_POINTS = 0xF8FF - _BASE + 1
_SENTINEL = re.compile("[\ue000-\uf8ff]")
# Numeric character references, as markdown-it decodes them (`common/entities`), and
# any reference a point must not split.
_NUMERIC_ENTITY = re.compile(r"&#(?:[xX]([0-9a-fA-F]{1,6})|([0-9]{1,7}));")
_ENTITY = re.compile(r"&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z][A-Za-z0-9]{1,31});")
_NEWLINE = re.compile("\n")
_NON_BLANK = re.compile("[^ \t]")
_LINE_PREFIX = re.compile(r"(?:[ \t]*(?:[-*+][ \t]+|\d{1,9}[.)][ \t]+|#{1,6}[ \t]+|>[ \t]?))*")
# URLs in the raw text: a sentinel there would become part of the href (a host name
# would even be punycoded), so points inside move to the end of the construct first.
_URLS = re.compile(
    r"<[a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<>\x00-\x20]*>"  # autolink
    r"|<[^<>@\s]+@[^<>@\s]+>"  # e-mail autolink
    r"|\]\(\s*(?:<[^>\n]*>|(?:[^\s()]|\([^\s()]*\))*)"  # inline link destination
    r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)"  # and its title
    r"|^[ ]{0,3}\[[^\]\n]+\]:[^\n]*",  # link reference definition
    re.MULTILINE,
)
_DEFINITION_LABEL = re.compile(r"[ ]{0,3}\[([^\]\n]+)\]:")
# A reference link, `[text]`, `[text][]` or `[text][label]`: its label must stay whole.
_REFERENCE = re.compile(r"\[([^\[\]\n]+)\](?:\[([^\[\]\n]*)\])?")
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"</?([a-zA-Z0-9]+)")
_HOLDERS = frozenset({"a", "code", "pre"})  # constructs a point may not stay inside
_TABLE_BOX = '<div class="table-scroll" tabindex="0" role="group" aria-label="Table">'
# A code block scrolls sideways too: the keyboard must reach it (axe's
# scrollable-region-focusable), and a focusable element needs a name.
_CODE_BOX = '<pre tabindex="0" role="group" aria-label="Code">'

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "em", "s", "del",
        "code", "pre", "blockquote", "ul", "ol", "li", "a", "table", "thead", "tbody",
        "tr", "th", "td",
    }
)  # fmt: skip


# A table column's alignment (`|:---:|`), as a class: style attributes are not allowed.
_ALIGN_CLASSES = frozenset({"align-left", "align-center", "align-right"})


def _allowed_attribute(tag: str, name: str, value: str) -> bool:
    if tag in ("th", "td"):
        return name == "class" and value in _ALIGN_CLASSES
    if tag == "a":
        return name == "href" or name == "title" or (name == "rel" and value == LINK_REL)
    if tag == "ol":
        return name == "start"
    if tag == "code":
        return name == "class" and value.startswith("language-")
    return False


_cleaner = bleach.Cleaner(
    tags=ALLOWED_TAGS,
    attributes=_allowed_attribute,
    protocols={"http", "https"},
    strip=True,
    strip_comments=True,
)


def _link_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    tokens[idx].attrSet("rel", LINK_REL)
    return renderer.renderToken(tokens, idx, options, env)


def _cell_open(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    style = str(token.attrs.pop("style", ""))
    if style.startswith("text-align:"):
        token.attrSet("class", "align-" + style.removeprefix("text-align:"))
    return renderer.renderToken(tokens, idx, options, env)


def _image(
    renderer: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: EnvType
) -> str:
    token = tokens[idx]
    alt = renderer.renderInlineAsText(token.children or [], options, env)
    src = escapeHtml(str(token.attrGet("src") or ""))
    return f'<a href="{src}" rel="{LINK_REL}">image: {escapeHtml(alt)}</a>'


class _Parser(MarkdownIt):
    """markdown-it with the points kept out of what it does to link destinations."""

    def normalizeLink(self, url: str) -> str:
        """The URL normalised without the points in it, which follow it in the href
        (where `_relocate` finds them): markdown-it and bleach judge the URL as written."""
        points = "".join(_SENTINEL.findall(url))
        return str(super().normalizeLink(_SENTINEL.sub("", url))) + points

    def validateLink(self, url: str) -> bool:
        """The link policy (`links.safe_href`): a link to anything but an absolute
        http(s) URL with a host is not a link, so markdown-it leaves it as text."""
        return safe_href(_SENTINEL.sub("", url)) is not None

    def normalizeLinkText(self, link: str) -> str:
        """An autolink's text, percent-decoded unless that would write a character that
        reads as a point (then as written), followed by the points that stood in it."""
        points = "".join(_SENTINEL.findall(link))
        link = _SENTINEL.sub("", link)
        text = str(super().normalizeLinkText(link))
        return (link if _SENTINEL.search(text) else text) + points


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    md = _Parser("commonmark", {"html": False}).enable(["table", "strikethrough"])
    md.add_render_rule("link_open", _link_open)
    md.add_render_rule("image", _image)
    md.add_render_rule("th_open", _cell_open)
    md.add_render_rule("td_open", _cell_open)
    return md


def block_tokens(text: str) -> list[Token]:
    """The parsed tokens of a raw answer: parse once, pass to the two functions below."""
    return _parser().parse(text)


def looks_like_markdown(text: str, tokens: list[Token] | None = None) -> bool:
    """True when Markdown would change more than paragraphs and line breaks."""
    for token in block_tokens(text) if tokens is None else tokens:
        if token.type not in ("paragraph_open", "paragraph_close", "inline"):
            return True
        for child in token.children or ():
            if child.type not in ("text", "softbreak"):
                return True
    return False


def _decodes_to_sentinel(match: re.Match[str]) -> bool:
    code = int(match[1], 16) if match[1] else int(match[2])
    return _BASE <= code < _BASE + MAX_POINTS


def can_place(text: str, points: int) -> bool:
    """Whether the points fit and the text holds no character we would mistake for one,
    written raw or as a numeric character reference."""
    return (
        points <= MAX_POINTS
        and _SENTINEL.search(text) is None
        and not any(_decodes_to_sentinel(m) for m in _NUMERIC_ENTITY.finditer(text))
    )


def sentinel(point: int) -> str:
    return chr(_BASE + point)


class _Spans:
    """Sorted, disjoint char spans, found by bisection: an answer may hold thousands of
    points and of links, and a scan per point made rendering quadratic."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self.spans = sorted(spans)
        self.starts = [start for start, _ in self.spans]

    def around(self, at: int, inclusive: bool = False) -> tuple[int, int] | None:
        """The span that holds `at` inside it (or at either end, when `inclusive`)."""
        i = bisect_right(self.starts, at) - 1
        if i < 0:
            return None
        start, end = self.spans[i]
        inside = at <= end if inclusive else start < at < end
        return (start, end) if inside else None


class _Lines:
    """Where each line of a text starts, for lookups in time independent of its length."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0, *(match.end() for match in _NEWLINE.finditer(text))]

    def start(self, at: int) -> int:
        return self.starts[bisect_right(self.starts, at) - 1]

    def blank(self, at: int) -> bool:
        """Whether the line holding `at` has nothing but spaces and tabs."""
        i = bisect_right(self.starts, at) - 1
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)
        return _NON_BLANK.search(self.text, self.starts[i], end) is None


def _code_blocks(lines: _Lines, tokens: list[Token]) -> _Spans:
    """Char ranges (start of first line, end of last line) of fenced and indented code."""
    starts = [*lines.starts, len(lines.text) + 1]
    blocks = []
    for token in tokens:
        if token.type in ("fence", "code_block") and token.map:
            first, last = token.map
            blocks.append((starts[first], starts[max(first, last - 1) + 1] - 1))
    return _Spans(blocks)


class _TableRows:
    """Where a point on a table's row may stand: inside its cells, never before the
    leading pipe or after the trailing one (it would make a cell of its own and the row
    would no longer be one), and never in the rule row (`|---|`), which would stop being
    one: a point there goes to the end of the header's last cell."""

    def __init__(self, lines: _Lines, tokens: list[Token]) -> None:
        self.lines = lines
        self.bounds: dict[int, tuple[int, int]] = {}  # line start -> cell text bounds
        for token in tokens:
            if token.type == "thead_open" and token.map:
                header = self._cells(token.map[0])
                self.bounds[lines.starts[token.map[0]]] = header
                rule = token.map[0] + 1
                if rule < len(lines.starts):
                    self.bounds[lines.starts[rule]] = (header[1], header[1])
            elif token.type == "tr_open" and token.map:
                self.bounds.setdefault(lines.starts[token.map[0]], self._cells(token.map[0]))

    def _cells(self, line: int) -> tuple[int, int]:
        text, starts = self.lines.text, self.lines.starts
        start = starts[line]
        end = starts[line + 1] - 1 if line + 1 < len(starts) else len(text)
        prefix = _LINE_PREFIX.match(text, start)
        low = prefix.end() if prefix is not None else start
        while low < end and text[low] in " \t":
            low += 1
        low += text.startswith("|", low)
        high = end
        while high > low and text[high - 1] in " \t\r":
            high -= 1
        if high > low and text[high - 1] == "|" and text[high - 2 : high] != "\\|":
            high -= 1
        while low < high and text[low] in " \t":
            low += 1
        while high > low and text[high - 1] in " \t":
            high -= 1
        return low, max(low, high)

    def place(self, at: int) -> int:
        bounds = self.bounds.get(self.lines.start(at))
        return at if bounds is None else min(max(at, bounds[0]), bounds[1])


def _adjust(text: str, lines: _Lines, at: int) -> int:
    """Where a point at `at` can stand without changing what the Markdown means."""
    line_start = lines.start(at)
    while line_start and lines.blank(at):
        # On a blank line a point would join the blocks around it: end of the line before.
        at = line_start - 1
        line_start = lines.start(at)
    prefix = _LINE_PREFIX.match(text, line_start)
    if prefix is not None and prefix.end() >= at:
        return prefix.end()
    while at > line_start and text[at - 1] in "*_~":
        at -= 1
    return at


def _label(text: str) -> str:
    """A reference label as markdown-it compares them (`normalizeReference`)."""
    return " ".join(text.split()).lower().upper()


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _spans(text: str) -> tuple[_Spans, _Spans]:
    """Char spans a point moves to the end of (URLs, entities, reference links; merged),
    and the reference definitions, which print nothing."""
    moves: list[tuple[int, int]] = []
    definitions: list[tuple[int, int]] = []
    for match in _URLS.finditer(text):
        (moves if match[0].startswith(("<", "]")) else definitions).append(match.span())
    labels = set()
    for start, _ in definitions:
        label = _DEFINITION_LABEL.match(text, start)
        if label is not None:
            labels.add(_label(label[1]))
    if labels:
        moves.extend(m.span() for m in _REFERENCE.finditer(text) if _label(m[2] or m[1]) in labels)
    moves.extend(m.span() for m in _ENTITY.finditer(text))
    return _Spans(_merged(moves)), _Spans(definitions)


def _with_sentinels(text: str, points: Sequence[int], tokens: list[Token]) -> str:
    lines = _Lines(text)
    blocks = _code_blocks(lines, tokens)
    rows = _TableRows(lines, tokens)
    moves, definitions = _spans(text)
    inserts: dict[int, list[str]] = {}  # char position -> what goes there, in order
    for point, at in enumerate(points):
        block = blocks.around(at, inclusive=True)
        if block is not None:  # its own paragraph after the block
            marks = inserts.setdefault(block[1], ["\n\n", "\n\n"])
            marks.insert(-1, sentinel(point))
            continue
        if definitions.around(at, inclusive=True):
            continue  # appended at the end
        move = moves.around(at)
        at = rows.place(_adjust(text, lines, at if move is None else move[1]))
        inserts.setdefault(at, []).append(sentinel(point))
    out: list[str] = []
    last = 0
    for at in sorted(inserts):
        out.append(text[last:at])
        out.extend(inserts[at])
        last = at
    out.append(text[last:])
    return "".join(out)


def _relocate(rendered: str) -> str:
    """Move sentinels out of attributes, code and links to just after the construct."""
    out: list[str] = []
    held: list[str] = []  # sentinels waiting for the outermost holder to close
    depth = 0
    for token in _TAG.split(rendered):
        if not token:
            continue
        if not token.startswith("<"):
            if depth:
                held.extend(_SENTINEL.findall(token))
                token = _SENTINEL.sub("", token)
            out.append(token)
            continue
        found = _SENTINEL.findall(token)  # in an href only through `_Parser.normalizeLink`
        token = _SENTINEL.sub("", token)
        name_match = _TAG_NAME.match(token)
        name = name_match[1].lower() if name_match else ""
        closing = token.startswith("</")
        if name in _HOLDERS and not closing and not token.endswith("/>"):
            depth += 1
        held.extend(found)
        out.append(token)
        if name in _HOLDERS and closing:
            depth = max(0, depth - 1)
        if not depth and held:
            out.append("".join(sorted(set(held))))  # an autolink's text and href hold one twice
            held = []
    out.append("".join(sorted(set(held))))
    return "".join(out)


def render_markdown(
    text: str, points: Sequence[int] = (), tokens: list[Token] | None = None
) -> str:
    """Sanitised HTML of `text`, holding `sentinel(i)` once for each char position `points[i]`.

    Call `can_place` first: a text that fails it would lose or confuse sentinels.
    `tokens` are `block_tokens(text)` where the caller has them already.
    """
    tokens = block_tokens(text) if tokens is None else tokens
    html = _relocate(_parser().render(_with_sentinels(text, points, tokens)))
    seen = set(_SENTINEL.findall(html))
    missing = "".join(sentinel(i) for i in range(len(points)) if sentinel(i) not in seen)
    clean = str(_cleaner.clean(html + missing))
    # Each table scrolls sideways in a box of its own (a phone is narrower than most
    # tables), which the keyboard can reach and scroll, as can each code block. After
    # cleaning, a `<table>` or `<pre>` tag is one markdown-it wrote: the user's would be
    # escaped text.
    boxed = clean.replace("<table>", _TABLE_BOX + "<table>").replace("</table>", "</table></div>")
    return boxed.replace("<pre>", _CODE_BOX)


def pieces(html: str) -> Iterator[tuple[str, Any]]:
    """("tag", markup), ("text", escaped text) and ("point", number), in document order."""
    for token in _TAG.split(html):
        if not token:
            continue
        if token.startswith("<"):
            yield "tag", token
            continue
        at = 0
        for match in _SENTINEL.finditer(token):
            if match.start() > at:
                yield "text", token[at : match.start()]
            yield "point", ord(match[0]) - _BASE
            at = match.end()
        if at < len(token):
            yield "text", token[at:]
