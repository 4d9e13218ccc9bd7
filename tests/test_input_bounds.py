"""Every input has an upper bound in its schema (issue 30, item 6): each number a maximum, each text a maximum length
(or a value set, a date format, or a pattern that fixes its length), nested objects and list items included; a value
past any bound is INVALID_ARGUMENT with the German sentence every other bad argument gets (shared/runtime/validation.py).

The cases come from the schemas `tools/list` serves, so a new field without a bound fails here, and so does a bound
the model does not enforce."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import ValidationError

from contract.broker import SERVER as BROKER
from contract.search import SERVER as SEARCH
from contract.tool import ToolSpec
from shared.german import decimal
from shared.runtime.validation import problems_of
from tests.conftest import LiveServer
from tests.test_finite_numbers import _call

TOOLS = [spec for server in (SEARCH, BROKER) for spec in server.tools]
# a pattern whose every repetition has an upper bound, anchored at both ends: it fixes the longest value itself
UNBOUNDED_REPEAT = re.compile(r"(?<!\\)[*+]|\{\d+,\}")


def leaves(node: dict[str, Any], defs: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """(path, schema) of every value an input schema takes: properties of objects, items of lists, members of unions."""
    if "$ref" in node:
        node = defs[node["$ref"].removeprefix("#/$defs/")]
    for member in node.get("anyOf", []):
        yield from leaves(member, defs, path)
    kinds = node.get("type")
    kinds = set(kinds) if isinstance(kinds, list) else {kinds}
    if kinds & {"number", "integer", "string"}:
        yield path, node
    for name, prop in node.get("properties", {}).items():
        yield from leaves(prop, defs, (*path, name))
    if isinstance(node.get("items"), dict):
        yield from leaves(node["items"], defs, (*path, "0"))


def cases(spec: ToolSpec) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    schema = spec.input_schema()
    return list(leaves(schema, schema.get("$defs", {})))


def bounded_text(node: dict[str, Any]) -> bool:
    if "maxLength" in node or "enum" in node or "const" in node or node.get("format") in {"date", "date-time"}:
        return True
    pattern = node.get("pattern", "")
    return pattern.startswith("^") and pattern.endswith("$") and not UNBOUNDED_REPEAT.search(pattern)


def nested(path: tuple[str, ...], value: Any) -> Any:
    head, rest = path[0], path[1:]
    inner = nested(rest, value) if rest else value
    return [inner] if head.isdigit() else {head: inner}


def dotted(path: tuple[str, ...]) -> str:
    return "".join(f"[{part}]" if part.isdigit() else (f".{part}" if i else part) for i, part in enumerate(path))


ALL = [(spec, path, node) for spec in TOOLS for path, node in cases(spec)]
NUMBERS = [(s, p, n) for s, p, n in ALL if {"number", "integer"} & ({n["type"]} if isinstance(n["type"], str) else set(n["type"]))]
TEXTS = [(s, p, n) for s, p, n in ALL if "maxLength" in n]


def test_the_walk_finds_what_the_issue_names() -> None:
    """A walk that found nothing would make the tests below vacuous."""
    numbers = {(spec.name, dotted(path)) for spec, path, _ in NUMBERS}
    texts = {(spec.name, dotted(path)) for spec, path, _ in TEXTS}
    assert {("search_listings", "max_rooms"), ("save_search_order", "criteria.max_rooms"), ("save_listing", "fields.floor")} <= numbers
    assert {("search_listings", "cursor"), ("search_listings", "near.place"), ("count_listings", "near.place"), ("search_listings", "query")} <= texts
    assert len(numbers) >= 49


@pytest.mark.parametrize(("spec", "path", "node"), ALL, ids=[f"{s.name}-{dotted(p)}" for s, p, _ in ALL])
def test_every_input_declares_its_upper_bound(spec: ToolSpec, path: tuple[str, ...], node: dict[str, Any]) -> None:
    kinds = {node["type"]} if isinstance(node["type"], str) else set(node["type"])
    if kinds & {"number", "integer"}:
        assert "maximum" in node or "exclusiveMaximum" in node, node
    else:
        assert bounded_text(node), node


@pytest.mark.parametrize(("spec", "path", "node"), NUMBERS, ids=[f"{s.name}-{dotted(p)}" for s, p, _ in NUMBERS])
def test_a_number_past_its_bound_is_refused_in_german(spec: ToolSpec, path: tuple[str, ...], node: dict[str, Any]) -> None:
    bound = node.get("maximum", node.get("exclusiveMaximum"))
    # JSON's 1e30 is a float; for an integer argument it is too large to read at all, so the bound is not named
    far = "ist zu groß" if node["type"] == "integer" or "integer" in node["type"] else f"ist zu groß (höchstens {decimal(bound)})"
    for value, problem in ((bound + 1, f"ist zu groß (höchstens {decimal(bound)})"), (1e30, far)):
        with pytest.raises(ValidationError) as refused:
            spec.input_model.model_validate(nested(path, value))
        assert (dotted(path), problem) in problems_of(refused.value), problems_of(refused.value)


@pytest.mark.parametrize(("spec", "path", "node"), TEXTS, ids=[f"{s.name}-{dotted(p)}" for s, p, _ in TEXTS])
def test_a_text_past_its_length_is_refused_in_german(spec: ToolSpec, path: tuple[str, ...], node: dict[str, Any]) -> None:
    with pytest.raises(ValidationError) as refused:
        spec.input_model.model_validate(nested(path, "x" * (node["maxLength"] + 1)))
    assert (dotted(path), f"ist zu lang (höchstens {node['maxLength']} Zeichen)") in problems_of(refused.value), problems_of(refused.value)


def test_the_issue_cases_over_http(live_server: LiveServer) -> None:
    """`max_rooms: 1e30`, a cursor and a place past their lengths, sent as raw JSON: one German sentence each."""
    expected = {
        '{"max_rooms":1e30}': "Das Argument max_rooms ist zu groß (höchstens 1.000)",
        json.dumps({"cursor": "c" * 1001}): "Das Argument cursor ist zu lang (höchstens 1000 Zeichen)",
        json.dumps({"near": {"place": "L" * 101}}): "Das Argument near.place ist zu lang (höchstens 100 Zeichen)",
    }
    for arguments, sentence in expected.items():
        result = _call(live_server, SEARCH, None, "search_listings", arguments)
        assert (result["isError"], result["_meta"]["athaus/code"], result["content"][0]["text"]) == (
            True, "INVALID_ARGUMENT", f"{sentence}: bitte korrigieren und das Werkzeug erneut aufrufen."
        )
