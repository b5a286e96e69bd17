"""Markdown answers: points survive every construct, and no payload gets through."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grounding_app.engine import utf8_len
from grounding_app.formats.grounded import Candidate, Segment
from grounding_app.rendering.answer import render_candidate
from grounding_app.rendering.markdown import (
    can_place,
    looks_like_markdown,
    pieces,
    render_markdown,
    sentinel,
)


def shown(html: str) -> str:
    """The HTML with point i written as [i], for readable expectations."""
    return re.sub("[\ue000-\uf8ff]", lambda m: f"[{ord(m[0]) - 0xE000}]", html)


def at(text: str, marker: str = "|") -> tuple[str, list[int]]:
    """`text` without its `|` markers, and where they stood (char offsets)."""
    points = []
    while marker in text:
        points.append(text.index(marker))
        text = text.replace(marker, "", 1)
    return text, points


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Plain **bold.**| More.", "<strong>bold.[0]</strong> More."),
        ("|- item one.|\n- item two.", "<li>[0]item one.[1]</li>"),
        ("|# Title|\n\nText.", "<h1>[0]Title[1]</h1>"),
        ("|> quoted.|", "<blockquote>\n<p>[0]quoted.[1]</p>"),
        ("Use `co|de` now.", "<code>code</code>[0] now."),
        ("See [li|nk](https://a.org/x) now.", 'rel="noopener noreferrer nofollow">link</a>[0]'),
        ("See [link](https://a.|org/x) now.", '<a href="https://a.org/x"'),
        ("See <https://a.|org/x> now.", '<a href="https://a.org/x"'),
        ("See ![al|t](https://a.org/i.png).", "image: alt</a>[0]"),
        ("Code:\n\n```\nx = 1|\n```\n\nAfter.", "</code></pre>\n<p>[0]</p>"),
        ("See [r][ref].\n\n[ref]: https://a.org/|x\n", "[0]"),
    ],
)
def test_points_land_outside_constructs_and_never_vanish(source: str, expected: str) -> None:
    text, points = at(source)
    html = render_markdown(text, points)
    assert expected in shown(html)
    for i in range(len(points)):
        assert html.count(sentinel(i)) == 1
    # never inside code, a link's text or an attribute
    assert not re.search("<code>[^<]*[\ue000-\uf8ff]", html)
    assert not re.search("<a [^>]*>[^<]*[\ue000-\uf8ff][^<]*</a>", html)
    assert not re.search("<[^>]*[\ue000-\uf8ff][^>]*>", html)


def test_a_sentinel_at_a_closing_run_keeps_the_emphasis() -> None:
    text, points = at("**All of it.**| Next.")
    assert "<strong>" in render_markdown(text, points)


def test_pieces_split_tags_text_and_points() -> None:
    html = render_markdown("A *b*.", [0, 6])
    assert list(pieces(html)) == [
        ("tag", "<p>"),
        ("point", 0),
        ("text", "A "),
        ("tag", "<em>"),
        ("text", "b"),
        ("tag", "</em>"),
        ("text", "."),
        ("point", 1),
        ("tag", "</p>"),
        ("text", "\n"),
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Paris is the capital. It is big.", False),
        ("Line one.\nLine two.", False),
        ("A <b>tag</b> and 3 < 4.", False),
        ("**Bold** claim.", True),
        ("- a list", True),
        ("Use `code`.", True),
        ("[a](https://a.org)", True),
        ("# Heading", True),
    ],
)
def test_looks_like_markdown(text: str, expected: bool) -> None:
    assert looks_like_markdown(text) is expected


def test_text_holding_private_use_characters_is_not_placed() -> None:
    assert can_place("plain", 10)
    assert not can_place("icon \uf015 here", 10)


# Markdown XSS corpus: each must come out without script, handler, non-http(s) link,
# image, raw HTML element or style.
RUN = "window.__xss=1;alert(1)"
MARKDOWN_PAYLOADS = [
    f"[x](javascript:{RUN})",
    f"[x](JaVaScRiPt:{RUN})",
    f"[x](java\tscript:{RUN})",
    f"[x](  javascript:{RUN} )",
    f"[x](vbscript:{RUN})",
    "[x](data:text/html,<script>alert(1)</script>)",
    f"[x](&#106;avascript:{RUN})",
    f"[x](javascript&#58;{RUN})",
    f'[x](https://a.org "title\\" onmouseover=\\"{RUN}")',
    f"<javascript:{RUN}>",
    "<data:text/html,alert(1)>",
    f"[ref]\n\n[ref]: javascript:{RUN}",
    f'[ref]\n\n[ref]: https://a.org "x" onclick="{RUN}"',
    f"![img](javascript:{RUN})",
    '![img](https://a.org/x.png "t" onerror="alert(1)")',
    f'![x" onerror="{RUN}](https://a.org/x.png)',
    f"<script>{RUN}</script>",
    f'<img src=x onerror="{RUN}">',
    f'<svg onload="{RUN}"></svg>',
    f'<a href="javascript:{RUN}">x</a>',
    "<iframe src=https://evil.example></iframe>",
    '<style>body{display:none}</style><div style="x">y</div>',
    f"&lt;script&gt;{RUN}&lt;/script&gt;",
    "&#60;script&#62;alert(1)&#60;/script&#62;",
    f"`<script>{RUN}</script>`",
    f"```html\n<script>{RUN}</script>\n```",
    f"[<img src=x onerror={RUN}>](https://a.org)",
    "<!-- comment --><form action=https://evil.example><input></form>",
    f"*<b onclick={RUN}>x</b>*",
]


@pytest.mark.parametrize("payload", MARKDOWN_PAYLOADS)
def test_markdown_payloads_come_out_inert(payload: str) -> None:
    html = render_markdown(f"Start. {payload} End.", [0, 7])
    lowered = html.lower()
    for tag in ("<script", "<img", "<svg", "<iframe", "<style", "<form", "<input", "<div"):
        assert tag not in lowered
    tags = _Tags()
    tags.feed(html)
    for tag, name in tags.attributes:
        assert (tag, name) in ALLOWED_ATTRIBUTES, (tag, name)
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith(("http://", "https://")), href
    for anchor in re.findall(r"<a [^>]*>", html):
        assert 'rel="noopener noreferrer nofollow"' in anchor


ALLOWED_ATTRIBUTES = {
    ("a", "href"),
    ("a", "title"),
    ("a", "rel"),
    ("ol", "start"),
    ("code", "class"),
    # Ours, the same on every code block: the keyboard can reach and scroll it.
    ("pre", "tabindex"),
    ("pre", "role"),
    ("pre", "aria-label"),
}


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.attributes: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.attributes.extend((tag, name) for name, _ in attrs)


def _candidate(text: str, sentences: list[str], words: dict[int, str]) -> Candidate:
    segments = []
    for n, sentence in enumerate(sentences):
        start = utf8_len(text[: text.index(sentence)])
        end = start + utf8_len(sentence)
        unsupported = ()
        if n in words:
            w = start + utf8_len(sentence[: sentence.index(words[n])])
            unsupported = ((w, w + utf8_len(words[n])),)
        verdict = "unsupported" if n in words else "supported"
        segments.append(
            Segment(
                0, start, end, sentence, (), verdict, 0.2 if n in words else 0.9, (), unsupported
            )
        )
    return Candidate(parts=(text,), segments=tuple(segments))


def test_markdown_answer_keeps_every_claim_and_underlines_words() -> None:
    sentences = ["- **Titanic** was directed by James Cameron.", "- It starred Brad Pitt."]
    text = "\n".join(sentences)
    rendered = render_candidate(_candidate(text, sentences, {1: "Brad Pitt"}), 0, markdown=True)
    html = rendered.parts_html[0]
    assert rendered.markdown and "<ul>" in html and "<strong>" in html
    assert html.count('class="ann sr-only"') == 2  # each claim's markers, once
    assert '<span class="unsupported-word">Brad Pitt</span>' in html
    assert 'data-claims="c0-claim-2"' in html and "s-low" in html
    assert re.search(r'Cameron\.</span><span class="ann', html)  # markers right after it
    plain = render_candidate(_candidate(text, sentences, {1: "Brad Pitt"}), 0, markdown=False)
    assert "**Titanic**" in plain.parts_html[0] and not plain.markdown


def test_markdown_rendering_is_chosen_by_content_unless_asked() -> None:
    plain_text = "Paris is the capital of France."
    candidate = _candidate(plain_text, [plain_text], {})
    assert not render_candidate(candidate, 0, markdown=None).markdown
    assert render_candidate(candidate, 0, markdown=True).markdown
    markdown_text = "Paris is the **capital** of France."
    assert render_candidate(
        _candidate(markdown_text, [markdown_text], {}), 0, markdown=None
    ).markdown


def test_one_module_renders_untrusted_html() -> None:
    """bleach and markdown-it-py are used by rendering/markdown.py and nothing else, but
    for the engine's claim splitter, which parses the answer's blocks with markdown-it
    (so that what is shown as a table is read as one) and renders nothing."""
    root = Path(__file__).resolve().parents[2]

    def users(library: str) -> list[str]:
        return sorted(
            str(path.relative_to(root))
            for path in (root / "grounding_app").rglob("*.py")
            if re.search(rf"^\s*(from|import) {library}\b", path.read_text(), re.M)
        )

    assert users("bleach") == ["grounding_app/rendering/markdown.py"]
    assert users("markdown_it") == [
        "grounding_app/engine/claims.py",
        "grounding_app/rendering/markdown.py",
    ]
    claims = (root / "grounding_app/engine/claims.py").read_text()
    assert ".render" not in claims and "bleach" not in claims


# --- user URLs are never rewritten (issue 25 item 12) -------------------------------------

# (URL as written, href expected): markdown-it's own normalisation (percent-encoding of
# non-ASCII, punycode hosts) and nothing else, whatever points stand in or near it.
URLS_KEPT = [
    ("http://example.com/%EF%A3%BF", "http://example.com/%EF%A3%BF"),
    ("http://example.com/%ee%80%80", "http://example.com/%ee%80%80"),
    (
        "https://ja.wikipedia.org/wiki/%EF%BD%B6%EF%BE%80%EF%BD%B6%EF%BE%85",
        "https://ja.wikipedia.org/wiki/%EF%BD%B6%EF%BE%80%EF%BD%B6%EF%BE%85",
    ),
    (
        "https://ja.wikipedia.org/wiki/ｶﾀｶﾅ",
        "https://ja.wikipedia.org/wiki/%EF%BD%B6%EF%BE%80%EF%BD%B6%EF%BE%85",
    ),
    ("https://example.com/%E2%9D%A4%EF%B8%8F", "https://example.com/%E2%9D%A4%EF%B8%8F"),
    ("https://example.com/❤️", "https://example.com/%E2%9D%A4%EF%B8%8F"),
    (
        "https://example.com/%EE%80%80?q=%EF%BF%BD#%EF%A3%BF",
        "https://example.com/%EE%80%80?q=%EF%BF%BD#%EF%A3%BF",
    ),
    ("https://bücher.example/%EF%A3%BF", "https://xn--bcher-kva.example/%EF%A3%BF"),
    ("https://example.com/a_(b)", "https://example.com/a_(b)"),
]
LINK_SHAPES = [
    "See [docs]({url}) now.",
    'See [docs]({url} "Docs") now.',
    "See <{url}> now.",
    "See ![pic]({url}) now.",
    "See [docs][r] now.\n\n[r]: {url}\n",
]


def _hrefs(html: str) -> list[str]:
    return re.findall(r'href="([^"]*)"', html)


@pytest.mark.parametrize("shape", LINK_SHAPES)
@pytest.mark.parametrize(("url", "href"), URLS_KEPT)
def test_user_urls_come_out_byte_identical_wherever_the_points_are(
    url: str, href: str, shape: str
) -> None:
    text = shape.format(url=url)
    assert _hrefs(render_markdown(text)) == [href]
    for at in range(len(text) + 1):
        html = render_markdown(text, [0, at, len(text)])
        assert _hrefs(html) == [href], at
        for i in range(3):
            assert html.count(sentinel(i)) == 1, (at, i)


def test_a_percent_encoded_private_use_character_does_not_break_the_answer() -> None:
    text = "Read [docs](http://example.com/%EF%A3%BF). It helps."
    sentences = ["Read [docs](http://example.com/%EF%A3%BF).", "It helps."]
    rendered = render_candidate(_candidate(text, sentences, {1: "helps"}), 0, markdown=True)
    html = rendered.parts_html[0]
    assert rendered.markdown
    assert _hrefs(html) == ["http://example.com/%EF%A3%BF"]
    assert html.count('class="ann sr-only"') == 2
    assert '<span class="unsupported-word">helps</span>' in html


# Each must lose its link: none is an absolute http(s) URL, and none may gain a scheme.
HOSTILE_URLS = [
    "java%EE%80%80script:alert(1)",
    "%EE%80%80javascript:alert(1)",
    "java&#xE000;script:alert(1)",
    "&#xE000;javascript:alert(1)",
    "javascript&#xE000;:alert(1)",
    "java%EF%A3%BFscript:alert(1)",
    "data%EE%80%80:text/html,<script>alert(1)</script>",
]


@pytest.mark.parametrize("shape", LINK_SHAPES)
@pytest.mark.parametrize("url", HOSTILE_URLS)
def test_hostile_urls_are_not_turned_into_schemes(url: str, shape: str) -> None:
    text = shape.format(url=url)
    for points in ([], [0, len(text)], [0, text.index(url) + 4, len(text)]):
        html = render_markdown(text, points)
        assert _hrefs(html) == [], html


@pytest.mark.parametrize(
    "text",
    [
        "Icon &#xE000; here.",
        "Icon &#57344; here.",
        "Icon &#XF8FF; here.",
        "See [x](https://a.org/&#xE001;) here.",
    ],
)
def test_entities_that_decode_to_points_are_not_placed(text: str) -> None:
    """markdown-it decodes numeric entities: one in the private-use area would be read
    as a point, so such a text is shown plain."""
    assert not can_place(text, 2)
    sentences = [text]
    rendered = render_candidate(_candidate(text, sentences, {}), 0, markdown=True)
    assert not rendered.markdown
    assert rendered.parts_html[0].count('class="ann sr-only"') == 1


def test_a_point_inside_an_entity_moves_past_it() -> None:
    text = "Tom &amp; Jerry &#169; 2024."
    for at in range(len(text) + 1):
        html = render_markdown(text, [at])
        assert re.sub("[\ue000-\uf8ff]", "", html) == "<p>Tom &amp; Jerry © 2024.</p>\n", at
        assert html.count(sentinel(0)) == 1


# Not absolute http(s) URLs with a host: shown as text, as the link policy says.
URLS_SHOWN_AS_TEXT = [
    "/relative/path",
    "relative/page.html",
    "//evil.example/x",
    "?q=1",
    "#section",
    "https:///no-host",
    "mailto:someone@example.com",
    "ftp://example.com/file",
    "java%EE%80%80script:alert(1)",
]


@pytest.mark.parametrize("shape", LINK_SHAPES)
@pytest.mark.parametrize("url", URLS_SHOWN_AS_TEXT)
def test_links_that_are_not_absolute_http_are_shown_as_text(url: str, shape: str) -> None:
    text = shape.format(url=url)
    for points in ([], [0, text.index(url) + 2, len(text)]):
        html = render_markdown(text, points)
        assert "<a " not in html, html
        assert html.count(sentinel(0)) == (1 if points else 0)


def test_e_mail_autolinks_are_shown_as_text() -> None:
    html = render_markdown("Write to <someone@example.com> today.")
    assert "<a " not in html and "someone@example.com" in html


def test_every_href_is_an_absolute_http_url() -> None:
    text = "\n\n".join(shape.format(url=url) for shape in LINK_SHAPES for url in URLS_SHOWN_AS_TEXT)
    text += "\n\nAnd [one](https://example.org/ok) link."
    assert _hrefs(render_markdown(text)) == ["https://example.org/ok"]
