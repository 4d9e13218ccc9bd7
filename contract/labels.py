"""The German label a result text shows for a field, declared on the field itself, with how it is written:

    living_area: Annotated[float | Absent, Label("Wohnfläche", unit="m²")] = Field(description=...)

`NOT_IN_TEXT` keeps a field out of the text (it stays in structuredContent). The label is metadata only: it
never changes a JSON schema. `unlabelled_fields` names every field a text would show without a label; the
contract refuses such a tool when it is declared. Input fields carry labels too: the text names the request
as executed in German.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo


class Style(StrEnum):
    """How a number is written: German notation by default; a year without separator ("1913"); a duration in
    hours as hours up to two days and as days beyond ("10 Tage"); a whole number from 100 on ("3.396 €/m²", but
    "8,77 €/m²")."""

    number = "number"
    year = "year"
    hours = "hours"
    whole = "whole"


@dataclass(frozen=True)
class Label:
    text: str | None  # None: the field is not shown in the text
    unit: str | None = None  # written after the value: "68,9 m²"; in a list line the unit stands for the label
    bare: bool = False  # in a list line the value stands alone (a number, a title, a place)
    brief: bool = True  # False: left out of list lines, shown in the details only
    style: Style = Style.number
    # Text someone else wrote (a seeker's message, a listing description from an office or its feed): the text shows it
    # as quoted data, with this German origin ("vom Anbieter"), never as the server's own words (shared/runtime/render.py)
    quoted: str | None = None
    # With `quoted`: a list line shows only the frame « » without the head (a title: on every line of a 10-hit page,
    # where a head per line would not fit the budget); the server's instructions say what « » means.
    frame_only: bool = False
    # With `quoted`: the sibling field that completes the origin with who wrote this one ("geschrieben" + "von dir").
    origin_field: str | None = None


NOT_IN_TEXT = Label(None)
# Where a listing's own texts come from (its title, its description): the office that offers it, or its feed.
FROM_PROVIDER = "vom Anbieter oder seinem Feed"


def title_label(text: str = "Titel", bare: bool = True) -> Label:
    """A listing's title, wherever a result shows it: someone else's text, framed « » on a list line."""
    return Label(text, bare=bare, quoted=FROM_PROVIDER, frame_only=True)

# Echoed scopes that are no input of the tool: what the login or the tool itself fixed.
SCOPE_LABELS: dict[str, str] = {"office": "Büro", "account": "Konto", "status": "Status", "as_of": "Stand", "search_orders": "Suchaufträge"}

# What the text of a list or count shows from its envelope by fixed rules, never by field labels.
ENVELOPE_FIELDS = frozenset(
    {"status", "completeness", "match_type", "request", "request_sources", "warnings", "freshness", "hint", "suggestions"}
)
LIST_HEAD_FIELDS = frozenset({"returned", "total", "sort_key", "sort_key_label", "items"})


def label_of(info: FieldInfo) -> Label | None:
    return next((m for m in info.metadata if isinstance(m, Label)), None)


def is_text_leaf(model: type[BaseModel]) -> bool:
    """Models the text shows as one value (an amount of money, an absence), not field by field."""
    return bool(getattr(model, "text_leaf", False))


def has_envelope(model: type[BaseModel]) -> bool:
    return "completeness" in model.model_fields


def is_list_result(model: type[BaseModel]) -> bool:
    return {"items", "returned", "completeness"} <= set(model.model_fields)


def shown_fields(model: type[BaseModel]) -> list[str]:
    """The fields of `model` that a text shows under their own label, in declaration order: not the envelope,
    and not `<name>_label`, which is shown as the value of `<name>`."""
    fields = model.model_fields
    shown = []
    for name, info in fields.items():
        if has_envelope(model) and name in ENVELOPE_FIELDS:
            continue
        if is_list_result(model) and name in LIST_HEAD_FIELDS:
            continue
        if name.endswith("_label") and name.removesuffix("_label") in fields:
            continue
        label = label_of(info)
        if label is not None and label.text is None:
            continue
        shown.append(name)
    return shown


def nested_models(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for argument in typing.get_args(annotation) for model in nested_models(argument)]


def unlabelled_fields(model: type[BaseModel]) -> list[str]:
    """`Model.field` for every field reachable from `model` that a text would show without a German label."""
    missing: list[str] = []
    seen: set[type[BaseModel]] = set()

    def visit(current: type[BaseModel]) -> None:
        if current in seen or is_text_leaf(current):
            return
        seen.add(current)
        for name in shown_fields(current):
            info = current.model_fields[name]
            if label_of(info) is None:
                missing.append(f"{current.__name__}.{name}")
            for nested in nested_models(info.annotation):
                visit(nested)
        if is_list_result(current):
            for nested in nested_models(current.model_fields["items"].annotation):
                visit(nested)

    visit(model)
    return missing


def unlabelled_inputs(model: type[BaseModel]) -> list[str]:
    """`Model.field` for every input field (nested ones too) without a German label: the text names the request
    as executed, and a suggestion names what to change, in German."""
    missing: list[str] = []
    seen: set[type[BaseModel]] = set()

    def visit(current: type[BaseModel]) -> None:
        if current in seen:
            return
        seen.add(current)
        for name, info in current.model_fields.items():
            label = label_of(info)
            if label is None or label.text is None:
                missing.append(f"{current.__name__}.{name}")
            for nested in nested_models(info.annotation):
                visit(nested)

    visit(model)
    return missing
