"""Numbers, amounts, ranges, dates and counted nouns written the German way, for the sentences the domain writes.

The domain modules of `shared/` may not use the runtime's text renderer, so the notation they share with it
lives here.
"""

from __future__ import annotations

import datetime as dt


def number(value: float, digits: int | None = None) -> str:
    """A number in German notation (`1.234,5`): with `digits` decimals; by default none for a whole number and
    two otherwise."""
    if digits is None:
        digits = 2 if value % 1 else 0
    text = f"{value:,.{digits}f}"
    return text.replace(",", "\u2009").replace(".", ",").replace("\u2009", ".")


def euro(amount: float) -> str:
    return f"{number(amount)} €"


def span(
    low: float | None, high: float | None, unit: str, *, digits: int | None = None, to: str = "–", as_sent: bool = False
) -> str | None:
    """A range in German (`200.000–400.000 €`, `ab 50 m²`, `bis 3 Zimmer`); None when neither bound is given.
    `as_sent`: each bound with the digits it has (`3–3,5 Zimmer`, never `3,50`)."""

    def shown(value: float) -> str:
        return decimal(value) if as_sent else number(value, digits)

    if low is not None and high is not None:
        return f"{shown(low)}{to}{shown(high)}{unit}"
    if low is not None:
        return f"ab {shown(low)}{unit}"
    if high is not None:
        return f"bis {shown(high)}{unit}"
    return None


def date_text(value: dt.date) -> str:
    return value.strftime("%d.%m.%Y")


def plural(n: int, one: str, many: str) -> str:
    """`n` with the noun in the number it needs: `1 Foto`, `3 Fotos`."""
    return f"{n} {one if n == 1 else many}"


def decimal(value: float) -> str:
    """A number as sent, in German notation, no digit rounded away: 0,001 km stays 0,001 (for echoes of input)."""
    if isinstance(value, int) or not value % 1:
        return number(value, 0)
    return number(value, 6).rstrip("0").rstrip(",")


def coordinates(latitude: float, longitude: float) -> str:
    """A point in German: '52,5° N, 13,4° O' (decimal degrees; the comma of the notation needs the letters)."""
    return f"{decimal(latitude)}° N, {decimal(longitude)}° O"


def whole_days(hours: float) -> int:
    """Whole days in a span of hours, counted like every 'Tage' the servers say (38,6 days waited are 38 days)."""
    return int(hours // 24)
