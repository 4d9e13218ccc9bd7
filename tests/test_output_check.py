"""The compiled check of structuredContent (shared/runtime/output_check.py) decides exactly as the general validator:
on the real result of every tool of both servers, and on each of them with a value of the wrong type at every place
the schema types; a schema it does not compile is checked by the general validator."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from athaus.docs.examples import ExampleCalls
from contract.servers import SERVERS
from shared.runtime.output_check import OutputCheck
from tests.test_output_types import _results, _typed_places, _with


def test_every_served_output_schema_is_compiled() -> None:
    schemas = {f"{name.value}/{spec.name}": spec.output_schema() for name, server in SERVERS.items() for spec in server.tools}
    assert [name for name, schema in schemas.items() if OutputCheck(schema).compiled is None] == []


def test_the_compiled_check_agrees_with_the_general_validator_on_every_real_result_and_every_wrong_type(docs_calls: ExampleCalls) -> None:
    disagreements = []
    checked = 0
    for name, schema, structured in _results(docs_calls):
        check, general = OutputCheck(schema), Draft202012Validator(schema)
        assert check.compiled is not None and check.compiled(structured), name
        for path, wrong in _typed_places(structured, schema, schema.get("$defs", {}), ()):
            changed = _with(structured, path, wrong)
            checked += 1
            if check.compiled(changed) != general.is_valid(changed):
                disagreements.append(f"{name}: {'/'.join(map(str, path))} = {wrong!r}")
    assert disagreements == []
    assert checked > 500, checked


SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "x": {"type": ["number", "null"]}, "tree": {"$ref": "#/$defs/Node"}},
    "additionalProperties": False,
    "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}, "required": ["children"]}},
}


@pytest.mark.parametrize(
    "value",
    [
        {"n": 1}, {"n": 1.0}, {"n": 1.5}, {"n": True}, {"x": None}, {"x": 2}, {"x": "2"}, {"y": 1}, [],
        {"tree": {"children": [{"children": []}, {"children": [{"children": "nein"}]}]}}, {"tree": {"children": [{}]}},
        {"tree": {"children": [{"children": []}]}}, {"tree": {}}, {"tree": []},
    ],
)
def test_integers_unions_closed_objects_required_fields_and_recursive_definitions_decide_as_the_general_validator(value: Any) -> None:
    check = OutputCheck(SCHEMA)
    assert check.compiled is not None
    assert check.compiled(value) == Draft202012Validator(SCHEMA).is_valid(value)
    assert (check.problem(value) is None) == Draft202012Validator(SCHEMA).is_valid(value)


def test_a_schema_with_another_keyword_is_checked_by_the_general_validator_and_a_problem_is_named_as_before() -> None:
    schema = {"type": "object", "properties": {"status": {"type": "string", "enum": ["a"]}}}
    check = OutputCheck(schema)
    assert check.compiled is None
    assert check.problem({"status": "a"}) is None
    assert check.problem({"status": "b"}) == "'b' is not one of ['a']"
    assert OutputCheck(SCHEMA).problem({"n": "eins"}) == "'eins' is not of type 'integer'"
