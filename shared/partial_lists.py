"""A list that shows the first items of a total: how many it shows, whether that is all, and the sentence
that says so when it is not."""

from __future__ import annotations

from collections.abc import Sized
from typing import Any


def shown(items: Sized, total: int) -> dict[str, Any]:
    """`shown` and `all_shown` of a list that holds the first `items` of `total`."""
    return {"shown": len(items), "all_shown": len(items) >= total}


def shown_note(shown: int, total: int, what: str) -> str:
    """Empty when all are shown; otherwise a sentence (with its leading space) naming which `shown` of `total`."""
    return "" if shown >= total else f" Gezeigt: {what} {shown} von {total}."
