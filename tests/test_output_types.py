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

from athaus.docs.examples import ExampleCalls
from contract.servers import SERVERS

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
        return [p for key, item in value.items() if key in node["properties"] for p in _typed_places(item, node["properties"][key], defs, (*path, key))]
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
