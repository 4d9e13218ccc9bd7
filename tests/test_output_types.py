"""The output schemas are typed, and exactly: the structuredContent of a real call of every tool of both servers
(the docs examples, made through the runner the HTTP servers use) validates against the outputSchema that
`tools/list` serves, and a value of the wrong type at any place the schema types does not.

The official SDK client validates structuredContent against outputSchema, so a type that is wrong there breaks a
real client. Both protocol eras serve the same outputSchema (tests/test_http.py compares what each era lists with
the contract), so one check covers both.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from athaus.docs.examples import ExampleCalls
from contract.catalog import Money
from contract.envelope import Absent
from contract.labels import nested_models
from contract.servers import SERVERS
from shared.runtime.output_check import OutputCheck

JSON_TYPES: dict[str, tuple[Any, ...]] = {
    "string": ("x",),
    "number": (0.5,),
    "integer": (1,),
    "boolean": (True,),
    "null": (None,),
    "object": ({},),
    "array": ([],),
}


def _allowed(node: dict[str, Any]) -> set[str]:
    kinds = node["type"]
    allowed = {kinds} if isinstance(kinds, str) else set(kinds)
    return allowed | ({"integer"} if "number" in allowed else set())


def _wrong_value(node: dict[str, Any]) -> Any:
    return next(values[0] for kind, values in JSON_TYPES.items() if kind not in _allowed(node))


def _typed_places(value: Any, node: dict[str, Any], defs: dict[str, Any], path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], Any]]:
    """(path, wrong value) for every value of the instance that sits where the schema types it: each present field of
    an object the schema lists, the first item of every list."""
    if "$ref" in node:
        node = defs[node["$ref"].removeprefix("#/$defs/")]
    if isinstance(value, dict) and "properties" in node:
        # a field not under properties is typed by additionalProperties (the compact form, contract/wire.py)
        extra = node.get("additionalProperties")
        return [
            p
            for key, item in value.items()
            if key in node["properties"] or isinstance(extra, dict)
            for p in _typed_places(item, node["properties"].get(key, extra), defs, (*path, key))
        ]
    if isinstance(value, dict) and isinstance(node.get("additionalProperties"), dict):
        return [p for key, item in value.items() for p in _typed_places(item, node["additionalProperties"], defs, (*path, key))]
    if isinstance(value, list) and "items" in node:
        return _typed_places(value[0], node["items"], defs, (*path, 0)) if value else []
    assert "type" in node, f"untyped value at {'/'.join(map(str, path))}: {node}"
    return [(path, _wrong_value(node))]


def _with(instance: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(instance)
    target: Any = changed
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return changed


def _results(calls: ExampleCalls) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    served = {name.value: {spec.name: spec.output_schema() for spec in server.tools} for name, server in SERVERS.items()}
    return [(f"{c.server.value}/{c.tool}", served[c.server.value][c.tool], c.structured) for c in calls.values()]


def test_every_tool_of_both_servers_has_a_real_call_here(docs_calls: ExampleCalls) -> None:
    assert {(c.server.value, c.tool) for c in docs_calls.values()} == {(n.value, t.name) for n, s in SERVERS.items() for t in s.tools}


def test_every_structured_result_validates_against_the_served_output_schema(docs_calls: ExampleCalls) -> None:
    problems = {
        name: [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in Draft202012Validator(schema).iter_errors(structured)]
        for name, schema, structured in _results(docs_calls)
    }
    assert {name: found for name, found in problems.items() if found} == {}


@pytest.mark.parametrize("kind", ["number", "integer", "string", "boolean"])
def test_the_schemas_type_leaves_with_json_types(kind: str) -> None:
    """Every JSON type the results use is written somewhere (not only objects and `{}`)."""
    text = str([spec.output_schema() for server in SERVERS.values() for spec in server.tools])
    assert f"'type': '{kind}'" in text or f"'{kind}', 'null'" in text


def test_a_value_of_the_wrong_type_anywhere_the_schema_types_fails_validation(docs_calls: ExampleCalls) -> None:
    """Each typed place of every real result, changed to a value of another JSON type, breaks validation: the schema
    says every leaf's type (and no leaf is `{}`)."""
    accepted = []
    checked = 0
    for name, schema, structured in _results(docs_calls):
        validator = Draft202012Validator(schema)
        for path, wrong in _typed_places(structured, schema, schema.get("$defs", {}), ()):
            checked += 1
            if validator.is_valid(_with(structured, path, wrong)):
                accepted.append(f"{name}: {'/'.join(map(str, path))} = {wrong!r}")
    assert accepted == []
    assert checked > 500, checked


# --- every value typed, every always-sent field required (issue 30, item 7) ------------------------------------------


def _is_label_sibling(name: str, fields: Any) -> bool:
    """`x_label` beside `x`: the German label of a value, for the text only; the wire leaves it out."""
    return (name.endswith("_label") and name.removesuffix("_label") in fields) or (
        name.endswith("_labels") and name.removesuffix("_labels") + "s" in fields
    )


def _shape_problems(node: dict[str, Any], model: type[BaseModel] | None, defs: dict[str, Any], path: str, root: bool = False) -> list[str]:
    """Where the output schema `node` (for values of `model`, if it is an object of a model) fails the rule: every value
    has its JSON type (an object or list by its properties or items, a nullable one by its type list); every object of
    a model names each field the wire sends, types it (under `properties`, or by `additionalProperties` if it is named
    in `required` only) and requires each it always sends (all but a label and an absent value)."""
    if "$ref" in node:
        node = defs[node["$ref"].removeprefix("#/$defs/")]
    if "items" in node:
        return _shape_problems(node["items"], model, defs, f"{path}[]")
    if "properties" not in node:
        extra = node.get("additionalProperties")
        if isinstance(extra, dict):  # a map: an object by the type of its values
            return _shape_problems(extra, None, defs, f"{path}{{}}")
        return [] if node.get("type") else [f"{path}: no type"]
    properties, required, extra = node["properties"], node.get("required", []), node.get("additionalProperties")
    problems = [p for name, prop in properties.items() for p in ([] if model else _shape_problems(prop, None, defs, f"{path}.{name}"))]
    if model is None:
        return problems
    fields = model.model_fields
    sent = [name for name in fields if not _is_label_sibling(name, fields)]
    always = [name for name in sent if Absent not in nested_models(fields[name].annotation)]
    wire_keys = {"absent", *(("absence_notes", "not_collected") if root else ())}
    named = [name for name in properties if name not in wire_keys or name in fields] + [name for name in required if name not in properties]
    if sorted(named) != sorted(sent):
        problems.append(f"{path}: names {sorted(named)}, the wire sends {sorted(sent)}")
    if sorted(required) != sorted(always):
        problems.append(f"{path}: requires {sorted(required)}, the wire always sends {sorted(always)}")
    if any(name not in properties for name in required) and not (isinstance(extra, dict) and extra.get("type")):
        problems.append(f"{path}: fields named only in required without a type from additionalProperties")
    if isinstance(extra, dict) and any(Absent in nested_models(fields[name].annotation) for name in sent) and "absent" not in properties:
        problems.append(f"{path}: may carry absent, which additionalProperties would type as a field")
    for name, prop in properties.items():
        inner = [m for m in nested_models(fields[name].annotation) if m not in (Absent, Money)] if name in fields else []
        problems += _shape_problems(prop, inner[0] if len(inner) == 1 else None, defs, f"{path}.{name}")
    return problems


def test_every_output_value_has_its_type_and_every_object_requires_what_is_always_sent() -> None:
    """Walked beside the output model: a leaf without a type, a list or object that does not say so, or an object whose
    `required` misses a field the wire always sends (or names one it may leave out as absent) is named."""
    problems = {
        f"{name.value}/{spec.name}": found
        for name, server in SERVERS.items()
        for spec in server.tools
        if (found := _shape_problems(schema := spec.output_schema(), spec.output_model, schema.get("$defs", {}), "", root=True))
    }
    assert problems == {}
    objects = str([spec.output_schema() for server in SERVERS.values() for spec in server.tools]).count("'required'")
    assert objects > 100, objects  # the walk met the objects (a walk that met none would pass vacuously)


def _required_places(value: Any, node: dict[str, Any], defs: dict[str, Any], path: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], str]]:
    """(path of an object, a field its schema requires) for every object of the instance the schema lists."""
    if "$ref" in node:
        node = defs[node["$ref"].removeprefix("#/$defs/")]
    if isinstance(value, list) and "items" in node:
        return [p for i, item in enumerate(value[:2]) for p in _required_places(item, node["items"], defs, (*path, i))]
    if not isinstance(value, dict) or "properties" not in node:
        return []
    own = [(path, name) for name in node.get("required", [])]
    return own + [p for key, item in value.items() if key in node["properties"] for p in _required_places(item, node["properties"][key], defs, (*path, key))]


def test_a_result_without_a_field_it_always_has_fails_validation(docs_calls: ExampleCalls) -> None:
    """The required fields are really always there (every real result validates, above), and leaving any one out of
    any object of a real result breaks validation, in jsonschema and in the server's compiled check alike."""
    accepted = []
    checked = 0
    for name, schema, structured in _results(docs_calls):
        validator, compiled = Draft202012Validator(schema), OutputCheck(schema).compiled
        assert compiled is not None, name
        for path, field in _required_places(structured, schema, schema.get("$defs", {}), ()):
            changed = copy.deepcopy(structured)
            target: Any = changed
            for step in path:
                target = target[step]
            del target[field]
            checked += 1
            if validator.is_valid(changed) or compiled(changed):
                accepted.append(f"{name}: {'/'.join(map(str, (*path, field)))}")
    assert accepted == []
    assert checked > 500, checked
