"""German number format for the demo texts (titles, descriptions, letters, valuations)."""

from __future__ import annotations

_GERMAN_SEPARATORS = str.maketrans(",.", ".,")


def de_number(value: float) -> str:
    """German number format: 1234.5 → '1.234,5', 92.0 → '92'."""
    return f"{value:,.1f}".removesuffix(".0").translate(_GERMAN_SEPARATORS)
