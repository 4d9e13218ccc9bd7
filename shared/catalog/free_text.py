"""One line as a person types it ("3 Zimmer Balkon Leipzig"), read as catalog filters plus full-text words.

The connector tools `search` take a single string (ChatGPT's shape), while the catalog takes filters. This module
reads what is unmistakably a filter and leaves every other word to the full text, which already matches titles,
descriptions, places, districts, property types and features:

- a listing number (A-0000042) or an inquiry number (I-000042) names one record;
- five digits are a postal code; "3 Zimmer", "3,5-Zimmer-Wohnung" are at least that many rooms; "ab 80 m²" (or
  "80 qm") at least that living area; "bis 1.200 €" (or "unter", "max.") at most that price, "ab 300.000 €" at least;
- Kauf/kaufen/Eigentum and Miete/mieten are the marketing type; Wohnung, Haus, Grundstück (and compounds such as
  Mietwohnung) the property type;
- a run of up to three words that is exactly a known place's name (any case, ü = ue) is the place (`city`).

Nothing is guessed beyond that: a word that is not read as a filter is searched as a word, and `parts` says in
German what each filter was read from, so the answer can tell the reader. Pure: the caller passes the place lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shared.catalog.text import STOP_WORDS, normalise

LISTING_REF = re.compile(r"^A-\d{7}$", re.IGNORECASE)
INQUIRY_REF = re.compile(r"^I-\d{6,}$", re.IGNORECASE)

_NUMBER = r"(\d{1,3}(?:\.\d{3})+|\d+)(?:,(\d+))?"
_ROOMS = re.compile(r"\b(\d{1,2})(?:[.,](5))?\s*-?\s*(?:zimmer|zi\.?|räume|raeume)(?:-?(wohnung|haus))?(?=\W|$)", re.IGNORECASE)
_AREA = re.compile(rf"(?:\bab\s+)?\b{_NUMBER}\s*(?:m²|m2|qm|quadratmeter)(?=\W|$)", re.IGNORECASE)
_PRICE = re.compile(rf"\b(bis|unter|max\.?|höchstens|hoechstens|ab)\s+{_NUMBER}\s*(?:€|eur|euro)(?=\W|$)", re.IGNORECASE)
_PRICE_UNMARKED = re.compile(rf"\b(bis|unter|max\.?|höchstens|hoechstens)\s+{_NUMBER}(?=\s|$)", re.IGNORECASE)
_POSTAL_CODE = re.compile(r"(?<![\d-])\d{5}(?![\d-])")

_MARKETING = {"kauf": "buy", "kaufen": "buy", "eigentum": "buy", "miete": "rent", "mieten": "rent"}
_MARKETING_LABEL = {"buy": "Kauf", "rent": "Miete"}
_PROPERTY = {
    "wohnung": "apartment", "wohnungen": "apartment", "mietwohnung": "apartment", "eigentumswohnung": "apartment",
    "haus": "house", "haeuser": "house", "einfamilienhaus": "house", "reihenhaus": "house", "doppelhaushaelfte": "house",
    "grundstueck": "land", "grundstuecke": "land", "bauland": "land",
}
_PROPERTY_LABEL = {"apartment": "Wohnung", "house": "Haus", "land": "Grundstück"}
# compounds that say the marketing type too
_PROPERTY_MARKETING = {"mietwohnung": "rent", "eigentumswohnung": "buy"}
_MAX_PLACE_WORDS = 3
# Words that only connect a filter in a typed line ("ab 3 Zimmer", "nahe Leipzig"): never searched as words.
_CONNECTIVES = frozenset("ab bis unter max mindestens hoechstens nahe naehe".split())


@dataclass
class Reading:
    """What one line was read as. `filters` are arguments of search_listings (CatalogFilters)."""

    filters: dict[str, Any] = field(default_factory=dict)
    words: str | None = None
    parts: list[str] = field(default_factory=list)  # German: "Ort Leipzig", "ab 3 Zimmer", "Suchwörter „Balkon“"
    pieces: list[str] = field(default_factory=list)  # the typed text each filter was read from, for suggestions
    listing_id: str | None = None
    inquiry_id: str | None = None

    def sentence(self) -> str:
        return ", ".join(self.parts) if self.parts else "nichts, das gesucht werden kann"


def _amount(whole: str, fraction: str | None) -> float:
    value = float(whole.replace(".", ""))
    return value + float(f"0.{fraction}") if fraction else value


def _german_amount(value: float) -> str:
    text = f"{value:,.2f}".replace(",", "\x00").replace(".", ",").replace("\x00", ".")
    return text[:-3] if text.endswith(",00") else text


def read_line(line: str, place_of: Callable[[str], str | None]) -> Reading:
    """Read `line`; `place_of(text)` returns a known place's name as the catalog spells it, or None."""
    reading = Reading()
    text = " ".join(line.split())
    single = text.strip().rstrip(".")
    if LISTING_REF.match(single):
        reading.listing_id = single.upper()
        reading.parts.append(f"Inseratsnummer {reading.listing_id}")
        return reading
    if INQUIRY_REF.match(single):
        reading.inquiry_id = single.upper()
        reading.parts.append(f"Anfragenummer {reading.inquiry_id}")
        return reading

    def take(pattern: re.Pattern[str], handle: Callable[[re.Match[str]], None]) -> None:
        nonlocal text
        while (match := pattern.search(text)) is not None:
            handle(match)
            reading.pieces.append(match.group(0).strip())
            text = (text[: match.start()] + " " + text[match.end():]).strip()

    def rooms(match: re.Match[str]) -> None:
        count = float(match.group(1)) + (0.5 if match.group(2) else 0)
        reading.filters["min_rooms"] = count
        reading.parts.append(f"ab {_german_amount(count)} Zimmer")
        if match.group(3):
            kind = _PROPERTY[normalise(match.group(3))]
            reading.filters["property_types"] = [kind]
            reading.parts.append(f"Objektart {_PROPERTY_LABEL[kind]}")

    def area(match: re.Match[str]) -> None:
        value = _amount(match.group(1), match.group(2))
        reading.filters["min_living_area"] = value
        reading.parts.append(f"ab {_german_amount(value)} m² Wohnfläche")

    def price(match: re.Match[str]) -> None:
        value = _amount(match.group(2), match.group(3))
        lower = match.group(1).casefold() == "ab"
        reading.filters["min_price" if lower else "max_price"] = value
        reading.parts.append(f"Preis {'ab' if lower else 'bis'} {_german_amount(value)} €")

    def postal_code(match: re.Match[str]) -> None:
        reading.filters.setdefault("postal_codes", []).append(match.group(0))
        reading.parts.append(f"PLZ {match.group(0)}")

    take(_ROOMS, rooms)
    take(_AREA, area)
    take(_PRICE, price)
    take(_PRICE_UNMARKED, price)
    take(_POSTAL_CODE, postal_code)

    rest: list[str] = []
    for word in text.split():
        key = normalise(word.strip(",;"))
        if key in _MARKETING and "marketing_type" not in reading.filters:
            reading.filters["marketing_type"] = _MARKETING[key]
            reading.parts.append(f"Vermarktung {_MARKETING_LABEL[_MARKETING[key]]}")
            reading.pieces.append(word)
        elif key in _PROPERTY and "property_types" not in reading.filters:
            kind = _PROPERTY[key]
            reading.filters["property_types"] = [kind]
            reading.parts.append(f"Objektart {_PROPERTY_LABEL[kind]}")
            if key in _PROPERTY_MARKETING and "marketing_type" not in reading.filters:
                reading.filters["marketing_type"] = _PROPERTY_MARKETING[key]
                reading.parts.append(f"Vermarktung {_MARKETING_LABEL[_PROPERTY_MARKETING[key]]}")
            reading.pieces.append(word)
        else:
            rest.append(word)

    rest = _take_place(rest, place_of, reading)
    searched = [w for w in rest if normalise(w) and normalise(w) not in STOP_WORDS | _CONNECTIVES]
    if searched:
        reading.words = " ".join(searched)
        reading.parts.append(f"Suchwörter „{reading.words}“")
    return reading


def _take_place(words: list[str], place_of: Callable[[str], str | None], reading: Reading) -> list[str]:
    """The first run of up to three words that names a known place exactly becomes `city`; longer runs first."""
    for width in range(min(_MAX_PLACE_WORDS, len(words)), 0, -1):
        for start in range(len(words) - width + 1):
            typed = " ".join(words[start : start + width]).strip(",;")
            if normalise(typed) in STOP_WORDS | _CONNECTIVES or typed.isdigit():
                continue
            name = place_of(typed)
            if name is not None:
                reading.filters["city"] = name
                reading.parts.append(f"Ort {name}")
                reading.pieces.append(typed)
                return words[:start] + words[start + width :]
    return words


def without(line: str, piece: str) -> str:
    """`line` with one typed piece taken out, for a suggestion that drops one filter."""
    return " ".join(line.replace(piece, " ", 1).split())
