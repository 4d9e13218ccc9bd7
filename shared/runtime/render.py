"""German text of every result, made from the structured result alone (a host that shows a card gives its
model only this text, so it must be complete on its own)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from contract.envelope import AbsenceReason, Absent, ListResult, Suggestion
from contract.labels import has_envelope, is_text_leaf, label_of, shown_fields
from contract.vocabulary import LABELS
from shared.german import date_text, euro, number

ABSENCE = {
    AbsenceReason.not_collected: "nicht abgefragt",
    AbsenceReason.empty_in_source: "keine Angabe",
    AbsenceReason.withheld: "zurückgehalten",
}


def value_text(value: Any) -> str:
    if isinstance(value, Absent):
        return f"– ({ABSENCE[value.reason]}: {value.note})"
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, StrEnum):
        return LABELS.get(value, value.value)
    if isinstance(value, int | float):
        return number(value)
    if isinstance(value, dt.datetime):
        return value.strftime("%d.%m.%Y %H:%M UTC")
    if isinstance(value, dt.date):
        return date_text(value)
    if isinstance(value, BaseModel) and {"amount", "currency"} <= set(type(value).model_fields):
        return euro(value.amount)
    if isinstance(value, list):
        return ", ".join(value_text(v) for v in value) if value else "–"
    return str(value)


def _label(model: BaseModel, name: str) -> str:
    """The German label declared on the field (the contract refuses a shown field without one)."""
    label = label_of(type(model).model_fields[name])
    if label is None or label.text is None:
        raise LookupError(f"{type(model).__name__}.{name} is shown without a German label")
    return label.text


def _is_leaf(value: Any) -> bool:
    return not isinstance(value, BaseModel) or is_text_leaf(type(value))


def _labelled(model: BaseModel, name: str) -> Any:
    """A field's value, or its German `<name>_label` sibling where the model carries one."""
    label_field = f"{name}_label"
    return getattr(model, label_field) if label_field in type(model).model_fields else getattr(model, name)


def render_object(model: BaseModel, indent: str = "") -> list[str]:
    lines: list[str] = []
    for name in shown_fields(type(model)):
        value = _labelled(model, name)
        if value is None:
            continue
        if _is_leaf(value) and not (isinstance(value, list) and value and isinstance(value[0], BaseModel)):
            lines.append(f"{indent}{_label(model, name)}: {value_text(value)}")
        elif isinstance(value, list):
            lines.append(f"{indent}{_label(model, name)}:")
            for item in value:
                lines.append(f"{indent}  - " + item_line(item))
        else:
            lines.append(f"{indent}{_label(model, name)}:")
            lines.extend(render_object(value, indent + "  "))
    return lines


def item_line(item: BaseModel) -> str:
    """One line per list item: its present scalar fields, labelled where a bare value would be unclear."""
    parts: list[str] = []
    for name in shown_fields(type(item)):
        value = _labelled(item, name)
        if value is None or isinstance(value, Absent) or (isinstance(value, list) and not value):
            continue
        if isinstance(value, BaseModel) and not _is_leaf(value):
            continue
        if isinstance(value, list) and isinstance(value[0], BaseModel):
            continue
        text = value_text(value)
        parts.append(text if name in {"listing_id", "title", "city", "postal_code", "value", "label"} else f"{_label(item, name)} {text}")
    return " · ".join(parts)


def _suggestion_line(suggestion: Suggestion) -> str:
    args = ", ".join(f"{k}={v!r}" for k, v in suggestion.arguments.items())
    return f"- {suggestion.reason} ({args})"


def _envelope_lines(result: BaseModel) -> list[str]:
    data = result
    lines: list[str] = []
    completeness = data.completeness  # type: ignore[attr-defined]
    if completeness.complete:
        lines.append("Vollständig: ja, die Antwort deckt die ganze Anfrage ab.")
    else:
        reasons = "; ".join(f"{r.code.value}: {r.message}" for r in completeness.reasons)
        lines.append(f"Vollständig: nein ({reasons})")
    if completeness.next_cursor:
        lines.append(f"Nächste Seite: cursor = {completeness.next_cursor}")
    for warning in data.warnings:  # type: ignore[attr-defined]
        lines.append(f"Warnung {warning.code.value}: {warning.message}")
    request = ", ".join(
        f"{name}={_request_value(v.value)}"
        + (" (Standard)" if v.source.value == "default" else "")
        for name, v in data.request.items()  # type: ignore[attr-defined]
    )
    lines.append(f"Ausgeführte Anfrage: {request}")
    if data.hint:  # type: ignore[attr-defined]
        lines.append(data.hint)  # type: ignore[attr-defined]
    for suggestion in data.suggestions or []:  # type: ignore[attr-defined]
        lines.append(_suggestion_line(suggestion))
    lines.append(f"Datenstand: {value_text(data.freshness.data_as_of)}")  # type: ignore[attr-defined]
    return lines


def _request_value(value: Any) -> str:
    if value is None:
        return "keine Einschränkung"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_request_value(v)}" for k, v in value.items() if v is not None) + "}"
    return value_text(value)


def render(result: BaseModel) -> str:
    if isinstance(result, ListResult):
        head = (
            f"{result.returned} Einträge auf dieser Seite, {result.total} insgesamt (Reihenfolge: {result.sort_key})."
            if result.total is not None
            else f"{result.returned} Einträge auf dieser Seite (Reihenfolge: {result.sort_key})."
        )
        lines = [head, *(f"- {item_line(item)}" for item in result.items), *_envelope_lines(result)]
        return "\n".join(lines)
    if has_envelope(type(result)):
        lines = [line for name in shown_fields(type(result)) for line in _field_lines(result, name)]
        return "\n".join([*lines, *_envelope_lines(result)])
    return "\n".join(render_object(result))


def _field_lines(result: BaseModel, name: str) -> list[str]:
    value = getattr(result, name)
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        lines = [f"{_label(result, name)}:"]
        for item in value:
            lines.extend(render_object(item, "  "))
        return lines
    return [f"{_label(result, name)}: {value_text(value)}"]
