"""What goes over the wire: compact JSON schemas and the compact form of a result.

A model reads every schema in `tools/list` and every result, so both are budgeted (SPEC section 10). The
pydantic models stay the single description of a tool's data (the docs show them whole); this module derives
what is sent, in one place:

- Schemas carry no generated titles and no `default: null`. An output schema gives the shape and the types of
  the result, nested objects included: every value its JSON type (a nullable one as one `type` list), an object
  by its properties, a list by its items, a map by its values; every object lists under `required` each field the
  wire always sends (all but an absent value, which it leaves out, `absent` saying why). Compactly: the always-sent
  fields of an object's most frequent plain type are named only in `required` and typed by `additionalProperties`,
  and such an object then declares the keys the wire may add to it (`absent`; at the root `absence_notes` and
  `not_collected`). A report's tagged sections are objects typed by their tag (each kind is in the docs). Field
  descriptions and value sets are left to the docs and the input schemas (the tools/list budget, SPEC section 10).
  An object written more than once is one shared definition.
- An absent value is left out of its object on the wire. Why it is absent stays three-valued (rule 12): an
  object with absent values carries `absent: {field: reason}` for `empty_in_source` and `withheld`, and the note that explains a
  (field, reason) is declared once per result, `absence_notes: {field: {reason: note}}`; an object whose note
  differs from the declared one carries it itself, `absent: {field: {reason, note}}`. What this call did not
  collect is declared once per result, `not_collected: {field: how to get it}`, and left out of the items.
- An amount of money is a number in EUR.
- A German label of a sibling value (`status_label` beside `status`) is for the text only.
"""

from __future__ import annotations

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

_DROPPED_EVERYWHERE = ("title",)


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
    """An input schema without generated titles and `default: null`."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.absent_refs = _definition_refs(schema, ("Absent",))
        self.money_refs = _definition_refs(schema, ("Money",))

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
            if key == "default" and value is None:
                continue
            if key == "additionalProperties" and value is False:
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
            else:
                kept.append(member)
        if not nullable:
            return node
        rest = {k: v for k, v in node.items() if k != "anyOf"}
        if node.get("default", "unset") in (None, "unset"):
            # An input that may be null means "left out": the schema says the value's type, nothing more.
            if len(kept) == 1:
                return {**kept[0], **rest}
            return {"anyOf": kept, **rest}
        if len(kept) == 1 and set(kept[0]) <= {"type"} and isinstance(kept[0].get("type"), str):
            return {"type": [kept[0]["type"], "null"], **rest}
        return {"anyOf": [*kept, {"type": "null"}], **rest}


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
    if output:
        return _output_schema(model)
    raw = model.model_json_schema(mode="validation")
    compactor = _Compactor(raw)
    root = compactor.node(raw)
    defs = {name: compactor.node(definition) for name, definition in raw.get("$defs", {}).items()}
    # Definitions referenced more than once stay shared (recursively referenced ones, too); the rest are inlined.
    counts: dict[str, int] = {}
    _count_refs([root, defs], counts)
    # A definition as short as a reference to it (a bare type) is always written in place.
    keep = {name for name, n in counts.items() if n > 1 and len(json.dumps(defs.get(name, {}))) > 40}
    root = _inline(root, defs, keep)
    kept_defs = {name: _inline(defs[name], defs, keep) for name in sorted(keep) if name in defs}
    if kept_defs:
        root["$defs"] = kept_defs
    return root


_ABSENT = "__absent"  # marks, while an output schema is typed, where the wire may leave a value out
_NAME = "__name"  # the model a resolved definition came from, to name it if it is shared


def _resolved(node: Any, defs: dict[str, Any]) -> Any:
    """`node` with every reference written in place: Money as a number, Absent as a marker."""
    if isinstance(node, list):
        return [_resolved(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.removeprefix("#/$defs/")
        if name == "Money":
            return {"type": "number"}  # an amount of money is a number in EUR
        if name == "Absent":
            return {_ABSENT: True}
        return {**_resolved(defs[name], defs), _NAME: name}
    return {key: _resolved(value, defs) for key, value in node.items() if key != "$defs"}


def _may_be_left_out(node: Any) -> bool:
    """True if the wire may leave this value out of its object (an absent value: its reason is under `absent`)."""
    return isinstance(node, dict) and any(isinstance(m, dict) and _ABSENT in m for m in node.get("anyOf", []))


_ANY_JSON = ["string", "number", "integer", "boolean", "object", "array", "null"]
_OBJECT_OF_ANY = {"type": "object"}  # a map the wire writes as it is (the request, a suggestion's arguments)


def _typed(node: dict[str, Any]) -> dict[str, Any]:
    """The typed output schema of `node`: every value its JSON type (a nullable one as a type list), every list its
    items, every object its fields typed and, under `required`, every field the wire always sends (all but an absent value, which the wire leaves out of its object and names
    under `absent`), written compactly (`_compact`). A value the wire may leave out has the type it has when present."""
    if "anyOf" in node:
        return _union([_typed(m) for m in node["anyOf"] if _ABSENT not in m])
    if "oneOf" in node:
        # A tagged union (the sections of a report): objects whose tag names their kind; each kind is in the docs.
        tag = (node.get("discriminator") or {}).get("propertyName")
        return {"properties": {tag: {"type": "string"}}, "required": [tag]} if tag else dict(_OBJECT_OF_ANY)
    if "items" in node:
        return {"items": _typed(node["items"])}
    if "properties" in node:
        fields = node["properties"]
        kept = {name: prop for name, prop in fields.items() if not _is_label_sibling(name, fields)}
        typed = _compact(
            {name: _typed(prop) for name, prop in kept.items()},
            [name for name, prop in kept.items() if not _may_be_left_out(prop)],
            may_carry=[ABSENT_KEY] if any(_may_be_left_out(prop) for prop in kept.values()) else [],
        )
        return {_NAME: node[_NAME], **typed} if _NAME in node else typed
    if isinstance(node.get("additionalProperties"), dict):
        return {"additionalProperties": _typed(node["additionalProperties"])}
    if "type" in node:
        return {"type": node["type"]}
    return {"type": list(_ANY_JSON)}


def _compact(properties: dict[str, Any], required: list[str], *, may_carry: list[str]) -> dict[str, Any]:
    """An object schema with `required`, written compactly: the always-sent fields of the object's most frequent
    plain type are named only in `required` and typed by `additionalProperties` (exactly as strict: a required field
    must be there, and every field not under `properties` has that type). Then every key the wire may add to the
    object (`may_carry`: `absent`; at the root also `absence_notes` and `not_collected`) is under `properties`, so it
    is not read as such a field. Only where it is shorter than writing each field out."""
    plain = [name for name in required if set(properties[name]) == {"type"}]
    shapes = Counter(json.dumps(properties[name], separators=(",", ":")) for name in plain)
    written = {"properties": properties, **({"required": required} if required else {})}
    if not shapes:
        return written
    shape, _ = shapes.most_common(1)[0]
    moved = [name for name in plain if json.dumps(properties[name], separators=(",", ":")) == shape]
    carried = {key: dict(_OBJECT_OF_ANY) for key in may_carry}
    saved = sum(len(json.dumps({name: properties[name]}, separators=(",", ":"))) - 1 for name in moved)
    cost = len('"additionalProperties":,') + len(shape) + sum(len(json.dumps({key: carried[key]}, separators=(",", ":"))) for key in carried)
    if saved <= cost:
        return written
    kept = {name: prop for name, prop in properties.items() if name not in moved}
    return {"properties": {**kept, **carried}, "required": required, "additionalProperties": json.loads(shape)}


def _union(members: list[dict[str, Any]]) -> dict[str, Any]:
    nullable = {"type": "null"} in members
    kept = [m for m in members if m != {"type": "null"}]
    if len(kept) == 1 and not nullable:
        return kept[0]
    if all(set(m) == {"type"} and isinstance(m["type"], str) for m in kept):
        return {"type": [*(m["type"] for m in kept), *(["null"] if nullable else [])]}
    if len(kept) == 1:
        # a nullable object or array: its type list says both, its items or properties the rest
        only = kept[0]
        kind = "array" if "items" in only else "object" if "properties" in only or "additionalProperties" in only else only.get("type")
        if isinstance(kind, str):
            return {**only, "type": [kind, "null"]}
    return {"anyOf": [*kept, *([{"type": "null"}] if nullable else [])]}


def _without_names(node: Any) -> Any:
    if isinstance(node, list):
        return [_without_names(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {key: _without_names(value) for key, value in node.items() if key != _NAME}


def _shared(root: dict[str, Any]) -> dict[str, Any]:
    """An object that occurs more than once (same fields, same types) is written once, under `$defs`."""
    counts: Counter[str] = Counter()
    names: dict[str, set[str]] = {}

    def visit(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                visit(item)
        elif isinstance(node, dict):
            if "properties" in node:
                key = json.dumps(_without_names(node), separators=(",", ":"))
                counts[key] += 1
                names.setdefault(key, set()).add(node.get(_NAME, ""))
            for value in node.values():
                visit(value)

    visit(root)
    # Worth it only where the object is longer than the references to it. Named after its model; where several
    # models have this shape, after its fields ("code_message"); a name taken already gets a number.
    shared: dict[str, str] = {}
    for key in sorted(counts):
        if counts[key] > 1 and len(key) > 60:
            shape = json.loads(key)
            fields = [*shape["properties"], *(f for f in shape.get("required", []) if f not in shape["properties"])]
            name = next(iter(names[key])) if len(names[key]) == 1 and "" not in names[key] else "_".join(fields)
            taken = set(shared.values())
            shared[key] = name if name not in taken else next(f"{name}{n}" for n in range(2, len(counts) + 2) if f"{name}{n}" not in taken)

    def replace(node: Any, top: bool = False) -> Any:
        if isinstance(node, list):
            return [replace(item) for item in node]
        if not isinstance(node, dict):
            return node
        if not top and "properties" in node:
            key = json.dumps(_without_names(node), separators=(",", ":"))
            if key in shared:
                return {"$ref": f"#/$defs/{shared[key]}"}
        return {key: replace(value) for key, value in node.items() if key != _NAME}

    typed = replace(root, top=True)
    if shared:
        typed["$defs"] = {name: replace(json.loads(key), top=True) for key, name in sorted(shared.items(), key=lambda item: item[1])}
    return typed


def _output_schema(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema(mode="serialization")
    root = _typed(_resolved({k: v for k, v in raw.items() if k != "$defs"}, raw.get("$defs", {})))
    if "additionalProperties" in root and "Absent" in raw.get("$defs", {}):
        # the keys the wire adds to the root when a value anywhere is absent (declared once per result)
        root["properties"].update({key: dict(_OBJECT_OF_ANY) for key in (NOTES_KEY, NOT_COLLECTED_KEY) if key not in root["properties"]})
    root = _shared(root)
    return {"type": "object", **root}  # the 2025-11-25 schema requires it of an output schema


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
    """The structuredContent of `result`: valid against `compact_schema(type(result), output=True)`.

    One walk over the dumped result (it runs on every call that is not answered from a cache): an absence is counted
    where it is met and its entry filled in once the declared note of its (field, reason), the most common one, is known."""
    dumped = result.model_dump(mode="json")
    counted: dict[tuple[str, str], Counter[str]] = {}
    pending: list[tuple[dict[str, Any], str, str, str]] = []  # (its object's `absent`, field, reason, note)
    not_collected: dict[str, str] = {}
    not_collected_reason = AbsenceReason.not_collected.value

    def walk(value: dict[str, Any]) -> Any:
        if len(value) == 2 and "amount" in value and "currency" in value:  # _is_money_value
            return value["amount"]
        out: dict[str, Any] = {}
        absent: dict[str, Any] = {}
        for key, item in value.items():
            if key.endswith(("_label", "_labels")) and _is_label_sibling(key, value):
                _absences(item, counted)  # left out, but counted as before
                continue
            if type(item) is dict:
                if len(item) == 3 and item.get(ABSENT_KEY) is True and "reason" in item and "note" in item:  # _is_absent_value
                    reason, note = item["reason"], item["note"]
                    if reason == not_collected_reason:
                        not_collected.setdefault(key, note)
                    else:
                        counted.setdefault((key, reason), Counter())[note] += 1
                        absent[key] = None  # filled in below: its place in the order is kept
                        pending.append((absent, key, reason, note))
                else:
                    out[key] = walk(item)
            elif type(item) is list:
                out[key] = [walk(element) if type(element) is dict else (walk_list(element) if type(element) is list else element) for element in item]
            else:
                out[key] = item
        if absent:
            out[ABSENT_KEY] = absent
        return out

    def walk_list(values: list[Any]) -> list[Any]:
        return [walk(element) if type(element) is dict else (walk_list(element) if type(element) is list else element) for element in values]

    compact = walk(dumped)
    declared = {key: notes.most_common(1)[0][0] for key, notes in counted.items()}
    for absent, key, reason, note in pending:
        absent[key] = reason if declared[(key, reason)] == note else {"reason": reason, "note": note}
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
