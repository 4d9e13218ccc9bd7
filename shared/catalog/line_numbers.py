"""The numbers of a German search line: rooms, living area, prices and rents, radii (read by free_text.py).

One pattern reads a quantity as people write it in listings and searches:

    [marker] [bound] amount [unit] [(- | bis | und) amount [unit]] [marker]

- amounts: "1.200", "1200", "2,5", "250 Tsd.", "1,2 Mio.", "300k", "350 T€", "250.000,-";
- bounds: ab, mind., mindestens, über, mehr als (lower); bis, bis zu, unter, max., maximal, höchstens, weniger als
  (upper); ca., etwa, rund (about: read like a bare number); zwischen … und …, von … bis …, 2-3, 2 bis 3 (range);
- units: Zimmer/Zi./Räume/ZKB (rooms), m²/qm/Quadratmeter (area), €/Euro/EUR (money), km (radius);
- markers: Warmmiete/warm, Kaltmiete/kalt, Miete, Kaufpreis, Preis, Wohnfläche, Umkreis … before or after.

A number with neither unit, marker nor bound is no quantity here (a postal code, or not understood).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"\d{1,3}(?:\.\d{3})+(?:,\d+)?|\d+(?:[.,]\d+)?"
_MULT = r"tsd\.?|tausend|mio\.?|millionen|million|mill\.?|mrd\.?|k(?![a-zäöüß])"
_CUR = r"t€|teur\b|€|eur(?:o)?\b\.?|,-"
_ROOMS = r"-?\s*(?:zimmer(?:n)?|zi\b\.?|zkb\b|räume(?:n)?|raeume(?:n)?|raum\b)"
_AREA = r"m²|m2\b|qm\b|quadratmeter(?:n)?\b|m\^2"
_KM = r"km\b|kilometer(?:n)?\b"
_BOUND = (
    r"zwischen|von|ab|mind\.?|mindestens|min\.?|minimum|über|ueber|mehr\s+als|größer\s+als|groesser\s+als|wenigstens|"
    r"nicht\s+unter|bis\s+zu|bis\s+max\.?|bis\s+maximal|bis|unter|unterhalb\s+von|max\.?|maximal|höchstens|hoechstens|"
    r"weniger\s+als|nicht\s+mehr\s+als|kleiner\s+als|nicht\s+über|ca\.?|circa|etwa|rund|ungefähr|ungefaehr|um\s+die|[<>≤≥]"
)
_PRE = (
    r"baujahr|bj\.?|warmmiete|kaltmiete|nettokaltmiete|gesamtmiete|bruttomiete|grundmiete|mietpreis|miete|kaufpreis|preis|budget|"
    r"warm|kalt|wohnfläche|wohnflaeche|wfl\.?|fläche|flaeche|größe|groesse|(?:im\s+)?(?:umkreis|radius)(?:\s+von)?|\+"
)
_POST = (
    r"warmmiete|kaltmiete|warm|kalt|miete|monatlich|mtl\.?|pro\s+monat|im\s+monat|/\s*monat|p\.\s*m\.|"
    r"inkl\.?\s+nk|inkl\.?\s+nebenkosten|inklusive\s+nebenkosten|zzgl\.?\s+nk|kaufpreis|vb|wohnfläche|wohnflaeche|"
    r"wfl\.?|umkreis|radius|entfernt|entfernung|rund\s+um|um|von"
)


def _amount(name: str) -> str:
    unit = rf"(?P<{name}r>{_ROOMS})|(?P<{name}a>{_AREA})|(?P<{name}k>{_KM})"
    return (
        rf"(?:(?P<{name}q>€|eur(?:o)?)\s*)?(?P<{name}>{_NUM})(?P<{name}p>\+)?\s*(?P<{name}m>{_MULT})?\s*(?P<{name}c>{_CUR})?"
        rf"\s*(?:{unit})?"
    )


def _pattern(separator: str) -> re.Pattern[str]:
    return re.compile(
        rf"(?<![\w.,])(?:(?P<pre>{_PRE})\s*:?\s*)?(?:(?P<bound>{_BOUND})\s*)?{_amount('a')}"
        rf"(?:\s*(?P<sep>{separator})\s*{_amount('b')})?(?![\d])(?:\s*(?<=[\s€.\-])(?P<post>{_POST})(?![\w]))?",
        re.IGNORECASE,
    )


_BETWEEN = _pattern(r"und|-|–|—|bis")
_GENERAL = _pattern(r"-|–|—|bis(?:\s+zu)?")
_SINGLE = _pattern(r"(?!)")  # never a range

LOWER = {"von", "ab", "mind", "mindestens", "min", "minimum", "über", "ueber", "mehr als", "größer als", "groesser als",
         "wenigstens", "nicht unter", ">", "≥"}
UPPER = {"bis zu", "bis max", "bis maximal", "bis", "unter", "unterhalb von", "max", "maximal", "höchstens", "hoechstens",
         "weniger als", "nicht mehr als", "kleiner als", "nicht über", "<", "≤"}
_WARM = {"warmmiete", "gesamtmiete", "bruttomiete", "warm", "inkl nk", "inkl nebenkosten", "inklusive nebenkosten"}
_COLD = {"kaltmiete", "nettokaltmiete", "grundmiete", "kalt", "zzgl nk"}
_RENT = {"miete", "mietpreis", "monatlich", "mtl", "pro monat", "im monat", "/ monat", "/monat", "p. m.", "p.m."}
_BUY = {"kaufpreis", "vb"}
_MONEY = {"preis", "budget"}
_AREA_MARK = {"wohnfläche", "wohnflaeche", "wfl", "fläche", "flaeche", "größe", "groesse"}
_RADIUS_MARK = {"umkreis", "radius", "entfernt", "entfernung", "+"}
_PLACE_AFTER = {"um", "von", "rund um"}  # "30 km um Kassel": the radius's place follows
MONEY_WITHOUT_UNIT = 200  # a bounded number without unit from here is an amount of money ("bis 1200")


@dataclass
class Quantity:
    """One quantity as read: its kind (rooms, area, money, radius), bounds, and for money what it prices."""

    kind: str
    low: float | None
    high: float | None
    how: str  # bare, lower, upper, range
    typed: str
    start: int
    end: int
    money: str | None = None  # warm, cold, rent, buy, or None (a price, marketing type not said)
    unitless: bool = False  # money read from a bounded number without unit


def _norm(text: str | None) -> str:
    return " ".join((text or "").casefold().replace(".", " ").split()) if text else ""


def number_value(text: str) -> float:
    if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?", text):
        return float(text.replace(".", "").replace(",", "."))
    return float(text.replace(",", "."))


def _times(mult: str | None, currency: str | None) -> float:
    m = _norm(mult)
    if m.startswith(("mio", "million", "mill")):
        return 1e6
    if m.startswith("mrd"):
        return 1e9
    if m or _norm(currency) in {"t€", "teur"}:
        return 1e3
    return 1.0


def _unit(match: re.Match[str], side: str) -> str | None:
    for suffix, kind in (("r", "rooms"), ("a", "area"), ("k", "radius")):
        if match.group(side + suffix):
            return kind
    return None


def _two_things(match: re.Match[str]) -> bool:
    """'60 m² bis 700 €': two quantities side by side, not one range."""
    if match.group("b") is None:
        return False
    first = _unit(match, "a") or ("money" if match.group("ac") or match.group("aq") else None)
    second = _unit(match, "b") or ("money" if match.group("bc") or match.group("bq") else None)
    return first is not None and second is not None and first != second


def _read(match: re.Match[str]) -> Quantity | None:
    pre, post, bound = _norm(match.group("pre")), _norm(match.group("post")), _norm(match.group("bound"))
    if pre in {"baujahr", "bj"}:
        return None  # a year of building: no filter of the catalog, never a price
    ranged = match.group("b") is not None
    unit = _unit(match, "a") or (_unit(match, "b") if ranged else None)
    money_said = any(match.group(g) for g in ("aq", "am", "ac")) or (ranged and any(match.group(g) for g in ("bq", "bm", "bc")))
    marks = {pre, post} - {""}
    money_mark = marks & (_WARM | _COLD | _RENT | _BUY | _MONEY)
    if unit is None:
        if marks & _AREA_MARK:
            unit = "area"
        elif money_said or money_mark:
            unit = "money"
    values = [number_value(match.group("a"))] + ([number_value(match.group("b"))] if ranged else [])
    unitless = False
    if unit is None:
        if bound and bound in LOWER | UPPER | {"zwischen"} and max(values) >= MONEY_WITHOUT_UNIT:
            unit, unitless = "money", True
        else:
            return None
    start, end = match.start(), match.end()
    if unit != "money" and pre and pre not in _AREA_MARK | _RADIUS_MARK and not pre.startswith(("im ", "umkreis", "radius")):
        start = match.start("bound") if match.group("bound") else match.start("a")  # "Miete 3 Zimmer": Miete stays a word
    if post and ((unit != "radius" and post in _RADIUS_MARK | _PLACE_AFTER) or (unit not in {"money", "area"} and post in money_mark | _AREA_MARK)):
        end = match.start("post")
    if unit == "money":
        a_times = _times(match.group("am"), match.group("ac"))
        b_times = _times(match.group("bm"), match.group("bc")) if ranged else 1.0
        if ranged and a_times == 1.0 and b_times > 1.0 and values[0] <= values[1]:
            a_times = b_times  # "200-300 Tsd.": both in thousands
        values = [values[0] * a_times] + ([values[1] * b_times] if ranged else [])
    if ranged:
        low, high = sorted(values)
        how = "range"
    elif bound in LOWER or match.group("ap"):
        low, high, how = values[0], None, "lower"
    elif bound in UPPER:
        low, high, how = None, values[0], "upper"
    else:
        low, high, how = values[0], values[0], "bare"
    money = None
    if unit == "money":
        for kind, words in (("warm", _WARM), ("cold", _COLD), ("rent", _RENT), ("buy", _BUY)):
            if marks & words:
                money = kind
                break
    typed = match.string[start:end].strip()
    return Quantity(unit, low, high, how, typed, start, end, money, unitless)


def quantities(text: str) -> list[Quantity]:
    """Every quantity in `text`, in order, none overlapping (a range 'zwischen … und …' first)."""
    found: list[Quantity] = []
    taken: list[tuple[int, int]] = []
    for pattern in (_BETWEEN, _GENERAL):
        at = 0
        while (match := pattern.search(text, at)) is not None:
            at = match.end()
            if pattern is _BETWEEN and _norm(match.group("bound")) != "zwischen":
                at = match.start() + 1
                continue
            if _two_things(match):
                match = _SINGLE.match(text, match.start()) or match
                at = match.end()
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            quantity = _read(match)
            if quantity is not None:
                found.append(quantity)
                taken.append((quantity.start, quantity.end))
    return sorted(found, key=lambda q: q.start)
