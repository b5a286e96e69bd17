"""Grounded answers -> HTML: escaped text, superscript citations, sources, safe links.

Pure Python (no Django), so it is table-tested on its own and reused by any view.

Answers are rendered as plain text, never as Markdown: every claim and segment is a
UTF-8 byte span into the raw text, and Markdown would change that text (strip `**`,
turn lines into list items) so that no span could be placed exactly. Plain text is
escaped with `html.escape` and never sanitised, so there is no HTML sanitiser here.
"""
