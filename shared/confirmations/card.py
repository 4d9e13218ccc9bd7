"""The confirmation card's HTML (card.html beside this module), read once per process."""

from __future__ import annotations

from functools import cache
from pathlib import Path

CARD_FILE = Path(__file__).with_name("card.html")


@cache
def card_html() -> str:
    return CARD_FILE.read_text(encoding="utf-8")
