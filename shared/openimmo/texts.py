"""Texts as CRMs write them, made plain: HTML line breaks and paragraphs (`<br>`, `<p>`, written inside CDATA, so they
arrive as text) become line breaks, other tags are dropped, entities (`&amp;`, `&nbsp;`) become their characters."""

from __future__ import annotations

import html
import re

_BREAK = re.compile(r"<\s*br\s*/?\s*>", re.IGNORECASE)
_PARAGRAPH = re.compile(r"<\s*/\s*(p|div|li|h[1-6])\s*>|<\s*(p|div|h[1-6])(\s[^<>]*)?>", re.IGNORECASE)
_ITEM = re.compile(r"<\s*li(\s[^<>]*)?>", re.IGNORECASE)
_TAG = re.compile(r"<\s*/?\s*[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?\s*>")
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLANK_LINES = re.compile(r"\n\s*\n(\s*\n)+")


def plain(text: str | None) -> str | None:
    """The text without markup, its paragraphs kept as blank lines; None when nothing is left."""
    if not text:
        return None
    if "<" in text or "&" in text:
        text = _BREAK.sub("\n", text)
        text = _ITEM.sub("\n- ", text)
        text = _PARAGRAPH.sub("\n\n", text)
        text = _TAG.sub("", text)
        text = html.unescape(text)
    text = "\n".join(_SPACES.sub(" ", line).strip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    text = _BLANK_LINES.sub("\n\n", text).strip()
    return text or None
