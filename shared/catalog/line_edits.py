"""Lines a suggestion offers instead of the caller's: one typed piece taken out or spelt as likely meant, with the
word that only joined it ("mit", "in") gone too (for shared/connector.py's suggestions)."""

from __future__ import annotations

import re

from shared.catalog import line_words as W
from shared.catalog.free_text import CONNECTIVES
from shared.catalog.text import STOP_WORDS

_JOINING = frozenset({"mit", "ohne", "und", "in", "im", "bei", "nahe", "naehe", "ab", "bis", "unter", "um"})  # joins the piece only
_DANGLING = frozenset(STOP_WORDS | CONNECTIVES | {"nahe", "naehe", "raum", "umgebung", "umkreis", "rund"})


def without(line: str, piece: str) -> str:
    """`line` with one typed piece taken out, for a suggestion that drops one filter; a word left hanging where the
    piece was ("Wohnung in", "2-Zimmer-") goes with it."""
    at = line.find(piece)
    if at < 0:
        return line
    before = line[:at].rstrip("- ")
    after = line[at + len(piece) :].lstrip("- ")
    words = before.split()
    while words and W.key(words[-1]) in _DANGLING and (not after.strip(" ,") or W.key(words[-1]) in _JOINING):
        words.pop()
    text = " ".join([*words, *after.split()])
    text = re.sub(r"\s+,", ",", text).strip(" ,")
    return text


def replaced(line: str, piece: str, by: str) -> str:
    """`line` with one typed piece replaced, for a suggestion that spells it as likely meant."""
    return " ".join(line.replace(piece, by, 1).split())


