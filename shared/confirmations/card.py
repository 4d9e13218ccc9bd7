"""The confirmation card's HTML (card.html beside this module), read once per process.

Two things the card must say exactly as the server does come from the contract, not from a copy in its script: which
characters count as blank (a draft of only invisible characters is never offered for sending) and the German label
of every right (a host that refuses the click for a missing right gets it named)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from contract.confirmations import BLANK_CATEGORIES, BLANK_GLYPHS
from contract.rights import RIGHTS

CARD_FILE = Path(__file__).with_name("card.html")
BLANK_SLOT = "/*ATHAUS_BLANK*/"
RIGHTS_SLOT = "/*ATHAUS_RIGHTS*/"


def blank_pattern() -> str:
    """A JavaScript regular expression (flag u) matching a text that is blank by contract.confirmations.is_blank."""
    glyphs = "".join(f"\\u{{{low:X}}}" + (f"-\\u{{{high:X}}}" if high != low else "") for low, high in BLANK_GLYPHS)
    categories = "".join(f"\\p{{{category}}}" for category in BLANK_CATEGORIES)
    return f"^[\\s{categories}{glyphs}]*$"


def right_labels() -> dict[str, str]:
    return {right.scope: right.label for rights in RIGHTS.values() for right in rights if right.scope}


@cache
def card_html() -> str:
    html = CARD_FILE.read_text(encoding="utf-8")
    assert html.count(BLANK_SLOT) == 1 and html.count(RIGHTS_SLOT) == 1
    html = html.replace(BLANK_SLOT, json.dumps(blank_pattern()))
    return html.replace(RIGHTS_SLOT, json.dumps(right_labels(), ensure_ascii=False))
