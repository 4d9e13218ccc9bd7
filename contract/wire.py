"""What goes over the wire: compact JSON schemas and the compact form of a result.

A model reads every schema in `tools/list` and every result, so both are budgeted (SPEC section 10). The
pydantic models stay the single description of a tool's data (the docs show them whole); this module derives
what is sent, in one place:

- Schemas carry no generated titles and no `default: null`. An output schema gives the shape of the result:
  its objects, their property names and its arrays; each value speaks for its own type, and field descriptions
  and value sets are in the docs and the input schemas
  and a nullable simple type is one `type` list. A definition used once is written where it is used.
- An absent value is left out of its object on the wire. Why it is absent stays three-valued (rule 12): an
  object with absent values carries `absent: {field: reason}` for `empty_in_source` and `withheld`, and the note that explains a
  (field, reason) is declared once per result, `absence_notes: {field: {reason: note}}`; an object whose note
  differs from the declared one carries it itself, `absent: {field: {reason, note}}`. What this call did not
  collect is declared once per result, `not_collected: {field: how to get it}`, and left out of the items.
- An amount of money is a number in EUR.
- A German label of a sibling value (`status_label` beside `status`) is for the text only.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from typing import Any

from pydantic import BaseModel

from contract.envelope import AbsenceReason
from contract.labels import nested_models

ABSENT_KEY = "absent"
NOTES_KEY = "absence_notes"
NOT_COLLECTED_KEY = "not_collected"
RESERVED_KEYS = (ABSENT_KEY, NOTES_KEY, NOT_COLLECTED_KEY)

_NOTES_SCHEMA: dict[str, Any] = {"additionalProperties": {"additionalProperties": {}}}
_NOT_COLLECTED_SCHEMA: dict[str, Any] = {"additionalProperties": {}}
_DROPPED_EVERYWHERE = ("title",)
# Outputs describe shape and types; value sets are in the input schemas and the docs, values speak for themselves.
_DROPPED_IN_OUTPUT = ("description", "default", "required", "examples", "additionalProperties", "format", "const")


def _is_label_sibling(name: str, fields: Any) -> bool:
    """`x_label` beside `x` (or `xs_labels` beside `xs`): the German label of a value, shown in the text only."""
    return (name.endswith("_label") and name.removesuffix("_label") in fields) or (
        name.endswith("_labels") and name.removesuffix("_labels") + "s" in fields
    )


def _is_absent_ref(node: Any, absent_refs: set[str]) -> bool:
    return isinstance(node, dict) and node.get("$ref") in absent_refs


def _definition_refs(schema: dict[str, Any], model_names: tuple[str, ...]) -> set[str]:
    return {f"#/$defs/{name}" for name in schema.get("$defs", {}) if name in model_names}


class _Compactor:
    def __init__(self, schema: dict[str, Any], *, output: bool) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.output = output
        self.absent_refs = _definition_refs(schema, ("Absent",))
        self.money_refs = _definition_refs(schema, ("Money",))
        self.saw_absent = False

    def node(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.node(item) for item in node]
        if not isinstance(node, dict):
            return node
        if node.get("$ref") in self.money_refs:
            return {"type": "number"}
        result: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED_EVERYWHERE and not isinstance(value, dict):
                continue
            if self.output and key in _DROPPED_IN_OUTPUT and not (key == "additionalProperties" and isinstance(value, dict)):
                continue
            if self.output and key == "enum":
                continue
            if not self.output and key == "default" and value is None:
                continue
            if not self.output and key == "additionalProperties" and value is False:
                continue  # unknown arguments are refused with a German error naming them; the schema need not say it
            if key == "properties":
                result[key] = {name: self.node(prop) for name, prop in value.items() if not _is_label_sibling(name, value)}

            elif key == "$defs":
                continue
            else:
                result[key] = self.node(value)
        return self._simplify(result)

    def _simplify(self, node: dict[str, Any]) -> dict[str, Any]:
        members = node.get("anyOf")
        if not isinstance(members, list):
            return node
        kept = []
        nullable = False
        for member in members:
            if member == {"type": "null"} or _is_absent_ref(member, self.absent_refs):
                nullable = True
                self.saw_absent |= _is_absent_ref(member, self.absent_refs)
            else:
                kept.append(member)
        if not nullable:
            return node
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if not self.output and node.get("default", "unset") in (None, "unset"):
            # An input that may be null means "left out": the schema says the value's type, nothing more.
            if len(kept) == 1:
                return {**kept[0], **rest}
            return {"anyOf": kept, **rest}
        if len(kept) == 1 and set(kept[0]) <= {"type"} and isinstance(kept[0].get("type"), str):
            return {"type": [kept[0]["type"], "null"], **rest}
        return {"anyOf": [*kept, {"type": "null"}], **rest}


_SHAPE_KEYS = ("properties", "items", "additionalProperties", "anyOf", "$ref", "$defs")


def _shape(node: Any) -> Any:
    """Only the structure of an output schema: objects with their properties, arrays with their items."""
    if not isinstance(node, dict):
        return node
    kept: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            kept[key] = {name: _shape(prop) for name, prop in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            shaped = _shape(value)
            if shaped:
                kept[key] = shaped
        elif key == "anyOf":
            members = [m for m in (_shape(member) for member in value) if m]
            if len(members) == 1:
                kept.update(members[0])
            elif members:
                kept[key] = members
        elif key == "$ref":
            kept[key] = value
        elif key == "$defs":
            kept[key] = {name: _shape(d) for name, d in value.items()}
    return kept


def _collapse(node: Any, keep: bool = False) -> Any:
    """Objects that are list items (and the root) keep their field names; any other object made only of plain
    values is written as {}: the value shows its fields, and the docs describe them."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":
            out[key] = {name: _collapse(prop) for name, prop in value.items()}
        elif key == "items":
            out[key] = _collapse(value, keep=True)
        elif key == "anyOf":
            out[key] = [_collapse(member, keep) for member in value]
        elif key in ("additionalProperties", "$defs") and isinstance(value, dict):
            out[key] = {n: _collapse(d) for n, d in value.items()} if key == "$defs" else _collapse(value)
        else:
            out[key] = value
    if not keep and "properties" in out and all(prop == {} for prop in out["properties"].values()):
        return {}
    return out


def _count_refs(node: Any, counts: dict[str, int]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            counts[ref.removeprefix("#/$defs/")] = counts.get(ref.removeprefix("#/$defs/"), 0) + 1
        for value in node.values():
            _count_refs(value, counts)
    elif isinstance(node, list):
        for item in node:
            _count_refs(item, counts)


def _inline(node: Any, defs: dict[str, Any], keep: set[str]) -> Any:
    """Write each definition not in `keep` where it is referenced."""
    if isinstance(node, list):
        return [_inline(item, defs, keep) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") not in keep:
        target = _inline(defs[ref.removeprefix("#/$defs/")], defs, keep)
        rest = {k: _inline(v, defs, keep) for k, v in node.items() if k != "$ref"}
        return {**target, **rest}
    return {k: _inline(v, defs, keep) for k, v in node.items()}


def compact_schema(model: type[BaseModel], *, output: bool) -> dict[str, Any]:
    """The schema of `model` as sent in `tools/list` (see the module docstring)."""
    raw = model.model_json_schema(mode="serialization" if output else "validation")
    compactor = _Compactor(raw, output=output)
    root = compactor.node(raw)
    defs = {name: compactor.node(definition) for name, definition in raw.get("$defs", {}).items()}
    defs = {name: d for name, d in defs.items() if f"#/$defs/{name}" not in compactor.absent_refs | compactor.money_refs}
    if output and compactor.saw_absent:
        # Where a value may be absent, the result declares why once; the objects' own `absent` maps are explained
        # in the server's instructions rather than repeated in every shape.
        root.setdefault("properties", {})[NOTES_KEY] = copy.deepcopy(_NOTES_SCHEMA)
        root["properties"][NOT_COLLECTED_KEY] = copy.deepcopy(_NOT_COLLECTED_SCHEMA)
    if output:
        root, defs = _shape(root), {name: _shape(d) for name, d in defs.items()}
    # Definitions referenced more than once stay shared (recursively referenced ones, too); the rest are inlined.
    counts: dict[str, int] = {}
    _count_refs([root, defs], counts)
    # A definition as short as a reference to it (a bare type) is always written in place.
    keep = {name for name, n in counts.items() if n > 1 and len(json.dumps(defs.get(name, {}))) > 40}
    root = _inline(root, defs, keep)
    kept_defs = {name: _inline(defs[name], defs, keep) for name in sorted(keep) if name in defs}
    if output:  # an inlined definition may have left an empty shape behind
        root = _collapse(_shape(root), keep=True)
        kept_defs = {name: _collapse(_shape(d)) for name, d in kept_defs.items()}
        empty = {name for name, d in kept_defs.items() if d == {}}
        root = _inline(root, {name: {} for name in empty}, set(kept_defs) - empty)
        kept_defs = {name: d for name, d in kept_defs.items() if name not in empty}
        root = {"type": "object", **root}  # the 2025-11-25 schema requires it of an output schema
    if kept_defs:
        root["$defs"] = kept_defs
    return root


def _is_absent_value(value: Any) -> bool:
    return isinstance(value, dict) and value.get(ABSENT_KEY) is True and set(value) == {ABSENT_KEY, "reason", "note"}


def _is_money_value(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"amount", "currency"}


def _absences(value: Any, found: dict[tuple[str, str], Counter[str]]) -> None:
    """Count the notes of every (field, reason) of an absence that is not 'not collected'."""
    if isinstance(value, list):
        for item in value:
            _absences(item, found)
    elif isinstance(value, dict):
        for key, item in value.items():
            if _is_absent_value(item):
                if item["reason"] != AbsenceReason.not_collected.value:
                    found.setdefault((key, item["reason"]), Counter())[item["note"]] += 1
            else:
                _absences(item, found)


def compact_value(result: BaseModel) -> dict[str, Any]:
    """The structuredContent of `result`: valid against `compact_schema(type(result), output=True)`."""
    dumped = result.model_dump(mode="json")
    counted: dict[tuple[str, str], Counter[str]] = {}
    _absences(dumped, counted)
    declared = {key: notes.most_common(1)[0][0] for key, notes in counted.items()}
    not_collected: dict[str, str] = {}

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(item) for item in value]
        if not isinstance(value, dict):
            return value
        if _is_money_value(value):
            return value["amount"]
        out: dict[str, Any] = {}
        absent: dict[str, Any] = {}
        for key, item in value.items():
            if _is_label_sibling(key, value):
                continue
            if not _is_absent_value(item):
                out[key] = walk(item)
            elif item["reason"] == AbsenceReason.not_collected.value:
                not_collected.setdefault(key, item["note"])
            else:
                same = declared[(key, item["reason"])] == item["note"]
                absent[key] = item["reason"] if same else {"reason": item["reason"], "note": item["note"]}
        if absent:
            out[ABSENT_KEY] = absent
        return out

    compact = walk(dumped)
    if declared:
        notes: dict[str, dict[str, str]] = {}
        for (field, reason), note in sorted(declared.items()):
            notes.setdefault(field, {})[reason] = note
        compact[NOTES_KEY] = notes
    if not_collected:
        compact[NOT_COLLECTED_KEY] = not_collected
    return compact


def reserved_field_names(model: type[BaseModel]) -> list[str]:
    """`Model.field` for every field reachable from `model` that is named like a key the wire adds itself."""
    found: list[str] = []
    seen: set[type[BaseModel]] = set()

    def visit(current: type[BaseModel]) -> None:
        if current in seen:
            return
        seen.add(current)
        for name, info in current.model_fields.items():
            if name in RESERVED_KEYS and current.__name__ != "Absent":
                found.append(f"{current.__name__}.{name}")
            for nested in nested_models(info.annotation):
                visit(nested)

    visit(model)
    return found
