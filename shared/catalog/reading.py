"""What one line was read as (shared.catalog.free_text): the catalog filters, the words searched as full text, and
in German every part of the line accounted for, what was not understood and which place names are ambiguous."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Unclear:
    typed: str
    why: str  # German
    fixes: list[str] = field(default_factory=list)  # what was likely meant instead of `typed` (not searched)


@dataclass
class Ambiguous:
    typed: str
    names: list[str]  # as a filter takes each candidate ('Offenbach am Main')
    shown: list[str]  # with its Bundesland ('Offenbach am Main in Hessen')


@dataclass
class Token:
    typed: str
    key: str
    segment: int
    role: str | None = None  # None: not read yet
    hole: int | None = None  # index into the holes (quantities and postal codes)
    cue: str | None = None  # for a near cue, its radius
    phrase: str = ""  # for a token of a phrase, the whole phrase as typed


@dataclass
class Reading:
    """What one line was read as. `filters` are arguments of search_listings (CatalogFilters)."""

    filters: dict[str, Any] = field(default_factory=dict)
    words: list[str] = field(default_factory=list)  # searched as full text, as typed
    parts: list[str] = field(default_factory=list)  # German: "Ort Leipzig", "3 bis 3,5 Zimmer", …
    pieces: list[str] = field(default_factory=list)  # the typed text each filter was read from, for suggestions
    unclear: list[Unclear] = field(default_factory=list)
    ambiguous: list[Ambiguous] = field(default_factory=list)
    sort: str | None = None
    place_words: set[str] = field(default_factory=set)  # words in a place's position ("in Dresdn"): maybe a misspelt place
    free: list[str] = field(default_factory=list)  # the search words no table read: maybe misspelt
    named: list[str] = field(default_factory=list)  # words read as features, as typed ("Balkon"): words of a message too
    listing_id: str | None = None
    inquiry_id: str | None = None

    @property
    def query(self) -> str | None:
        return " ".join(self.words) or None

    @property
    def message_words(self) -> str | None:
        """What a message (an inquiry) is searched for: the search words and the features as typed."""
        return " ".join([*self.words, *self.named]) or None

    def sentence(self) -> str:
        parts = list(self.parts)
        if self.words:
            parts.append(f"Suchwörter „{self.query}“")
        for item in self.ambiguous:
            parts.append(f"„{item.typed}“ mehrdeutig ({_listed(item.shown)}), als Suchwort gesucht")
        for item in self.unclear:
            fixes = f", gemeint vielleicht {' oder '.join(f'„{f}“' for f in item.fixes)}" if item.fixes else ""
            parts.append(f"nicht verstanden: „{item.typed}“ ({item.why}{fixes})")
        return ", ".join(parts) if parts else "nichts, das gesucht werden kann"

    def misspelt(self, typed: str, fixes: list[str]) -> None:
        """`typed`, a search word no listing contains, is likely one of `fixes`: named as not understood."""
        self.unclear.append(Unclear(typed, "steht in keinem Inserat", fixes))


def _listed(names: list[str], shown: int = 6) -> str:
    more = f" und {len(names) - shown} weitere" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more
