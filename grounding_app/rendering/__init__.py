"""Grounded answers -> HTML: escaped text, superscript citations, sources, safe links.

Pure Python (no Django), so it is table-tested on its own and reused by any view.

Every claim and segment is a UTF-8 byte span into the raw text. The plain view escapes
that text with `html.escape` and never sanitises it, so it stays byte-exact. Markdown
changes the text (strips `**`, turns lines into list items), so the rendered view
carries the spans through as sentinel characters (`markdown.py`), and that module is
the only place where HTML made from untrusted input is produced, and sanitised.
"""
