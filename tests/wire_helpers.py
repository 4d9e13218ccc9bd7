"""Reading structured results in tests independently of how compactly they travel (contract/wire.py)."""

from __future__ import annotations

from typing import Any


def absence(result: dict[str, Any], obj: dict[str, Any], field: str) -> str | None:
    """Why `obj[field]` is absent ('not_collected', 'empty_in_source', 'withheld'), or None when it is present.

    `result` is the whole structuredContent (what a call did not collect is declared there once)."""
    value = obj.get(field)
    if isinstance(value, dict) and value.get("absent") is True:
        return str(value["reason"])
    if value is None:  # left out (or null in an older form): the object or the result says why
        marked = (obj.get("absent") or {}).get(field)
        if marked is not None:
            return str(marked if isinstance(marked, str) else marked["reason"])
        if field in (result.get("not_collected") or {}):
            return "not_collected"
    return None


def absence_note(result: dict[str, Any], obj: dict[str, Any], field: str) -> str | None:
    value = obj.get(field)
    if isinstance(value, dict) and value.get("absent") is True:
        return str(value["note"])
    if value is None:
        marked = (obj.get("absent") or {}).get(field)
        if isinstance(marked, dict):
            return str(marked["note"])
        if isinstance(marked, str):
            return str(result["absence_notes"][field][marked])
        return (result.get("not_collected") or {}).get(field)
    return None


def amount(value: Any) -> float | None:
    """An amount of money in EUR, whether sent as a number or as {amount, currency}; None when absent."""
    if isinstance(value, dict):
        return None if value.get("absent") is True else float(value["amount"])
    return None if value is None else float(value)


def echoed(result: dict[str, Any], name: str) -> dict[str, Any]:
    """One input as the result echoes it: {"value": …, "source": …} (the source is "default" unless named)."""
    value = result["request"][name]
    if isinstance(value, dict) and set(value) == {"value", "source"}:
        return value
    return {"value": value, "source": (result.get("request_sources") or {}).get(name, "default")}
