"""Numbers as feeds write them (data-fidelity rule 14): parsed where unambiguous, otherwise excluded with a reason.

A numeric OpenImmo field is `xsd:decimal`, but exports carry what the broker typed: "85,5 m²", "1.250.000",
"ca. 85", "auf Anfrage", "VB". A value is only ever stored as the number it is. "85,5 m²" is 85.5 and
"1.250.000" is 1250000; "ca. 85" is not 85 (it is an estimate), "auf Anfrage" is no number at all, and "1.250"
could be 1.25 or 1250: each of these is excluded and declared with its reason, never stored as a guess.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple

from contract.vocabulary import ValueExclusion

# Why a value was not stored: the contract's closed set, with its German labels there.
Excluded = ValueExclusion


class Parsed(NamedTuple):  # immutable as a frozen dataclass, made several times faster (a dozen per object)
    value: float | None
    reason: Excluded | None = None


_ON_REQUEST = re.compile(r"^(auf\s*anfrage|a\.?\s*a\.?|vb|verhandlungsbasis|k\.?\s*a\.?|keine\s+angabe|n\.?\s*a\.?|-+)$", re.I)
_APPROXIMATE = re.compile(
    r"^(ca\.?|circa|zirka|etwa|ungef(ä|ae)hr|ab|bis|rund|~|≈|>|<|mind\.?|mindestens|max\.?)\s*(?=[\d.,]|€)", re.I
)
_UNIT = re.compile(r"\s*(m²|m2|qm|quadratmeter|kwh/\(m²\s*[·*]?\s*a\)|kwh/m²a|kwh|%)\.?\s*$", re.I)
_MONEY = re.compile(r"\s*(€|eur|euro|,-+)\.?\s*$", re.I)
_PLAIN = re.compile(r"^\d+$")
_DECIMAL_COMMA = re.compile(r"^\d+,\d+$")
_DECIMAL_POINT = re.compile(r"^\d+\.\d+$")
_GERMAN_GROUPS = re.compile(r"^\d{1,3}(\.\d{3})+(,\d+)?$")  # 1.250.000 or 1.250.000,50
_ENGLISH_GROUPS = re.compile(r"^\d{1,3}(,\d{3})+(\.\d+)?$")  # 1,250,000 or 1,250,000.50


# xsd:decimal as most exports write it ("85", "85.5", "420000.00"): read at once. Three decimals ("1.250") are not
# here: they could be German thousands, and take the long way.
_SCHEMA_DECIMAL = re.compile(r"\d+(?:\.(?:\d\d?|\d{4,}))?")


def parse_number(raw: str, *, whole: bool = False, signed: bool = False) -> Parsed:
    """One value of a numeric field: the number, or None with the reason it was excluded. `signed`: a field where a
    negative number is real (the floor of a basement flat is -1); elsewhere it is out of range."""
    return _parse_number(raw, whole, signed)


@lru_cache(maxsize=8192)  # feeds repeat their values (years, floors, rooms, costs); the result is immutable
def _parse_number(raw: str, whole: bool, signed: bool) -> Parsed:
    if _SCHEMA_DECIMAL.fullmatch(raw):
        value = float(raw)
        return Parsed(None, Excluded.out_of_range) if whole and value != int(value) else Parsed(value)
    text = raw.strip().replace("\u00a0", " ")
    if _ON_REQUEST.match(text):
        return Parsed(None, Excluded.on_request)
    if _APPROXIMATE.match(text):
        return Parsed(None, Excluded.approximate)
    money = text.startswith("€")
    text = text.lstrip("€ ").strip()
    while True:  # "85,5 m²", "350.000 €", "350.000,- EUR"
        stripped = _UNIT.sub("", text)
        money = money or _MONEY.search(stripped) is not None
        stripped = _MONEY.sub("", stripped).strip()
        if stripped == text:
            break
        text = stripped
    text = text.replace(" ", "")
    negative = text.startswith("-")
    digits = text.removeprefix("-")
    value = _value(digits, money=money)
    if isinstance(value, Excluded):
        return Parsed(None, value)
    if (negative and not signed) or (whole and value != int(value)):
        return Parsed(None, Excluded.out_of_range)
    return Parsed(-value if negative else value)


# A coordinate in decimal degrees has no thousands: its one separator is the decimal one, whatever the digits after it.
_COORDINATE = re.compile(r"-?\d{1,3}(?:[.,]\d+)?")


def parse_coordinate(raw: str) -> Parsed:
    """A latitude or longitude as feeds write it: "51.340" and "51,340" are 51.34 (the three-decimal reading as German
    thousands, 51340, is no coordinate); anything else is excluded with its reason like any number."""
    text = raw.strip()
    if _COORDINATE.fullmatch(text):
        return Parsed(float(text.replace(",", ".")))
    parsed = _parse_number(text, False, True)
    return Parsed(None, Excluded.not_a_number) if parsed.value is not None else parsed


def _value(text: str, *, money: bool) -> float | Excluded:
    if _PLAIN.match(text):
        return float(text)
    if _DECIMAL_COMMA.match(text):
        whole, fraction = text.split(",")
        if len(fraction) == 3 and whole != "0":  # "1,250": German 1.25 or English 1250
            return Excluded.ambiguous
        return float(f"{whole}.{fraction}")
    if _DECIMAL_POINT.match(text):
        whole, fraction = text.split(".")
        if len(fraction) == 3 and whole != "0":  # "1.250": German 1250 or xsd:decimal 1.25
            return float(whole + fraction) if money else Excluded.ambiguous  # no price has three decimals
        return float(text)
    if _GERMAN_GROUPS.match(text):
        return float(text.replace(".", "").replace(",", "."))
    if _ENGLISH_GROUPS.match(text) and text.count(",") >= 1 and "." in text:
        return float(text.replace(",", ""))
    if _ENGLISH_GROUPS.match(text):  # "1,250,000": two groups leave no German reading
        return float(text.replace(",", "")) if text.count(",") > 1 else Excluded.ambiguous
    return Excluded.not_a_number
