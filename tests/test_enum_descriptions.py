"""Every field description that names the values of its closed set explains each of them in German (issue 31: the
`frequency` of a search order read "instant (sofort), daily, weekly", and a model guessed what daily meant)."""

from __future__ import annotations

import re
from typing import Any

from contract.servers import SERVERS


def _described_enums(schema: Any, defs: dict[str, Any], found: list[tuple[list[str], str]]) -> None:
    if isinstance(schema, dict):
        description = schema.get("description")
        target = defs.get(schema["$ref"].split("/")[-1], {}) if "$ref" in schema else schema
        if description and "enum" in target:
            found.append(([str(v) for v in target["enum"]], description))
        for value in schema.values():
            _described_enums(value, defs, found)
    elif isinstance(schema, list):
        for value in schema:
            _described_enums(value, defs, found)


def _unexplained(values: list[str], description: str) -> list[str]:
    named = [v for v in values if re.search(rf"\b{re.escape(v)}\b", description)]
    if not named:
        return []  # the description speaks of something else; the values are the schema's
    return [v for v in values if not re.search(rf"\b{re.escape(v)}\b(?: \(|:)", description)]


def test_every_value_a_description_names_is_explained_in_german() -> None:
    gaps = []
    for server in SERVERS.values():
        for tool in server.tools:
            for model in (tool.input_model, tool.output_model):
                schema = model.model_json_schema()
                found: list[tuple[list[str], str]] = []
                _described_enums(schema, schema.get("$defs", {}), found)
                gaps += [f"{tool.name}: {description!r} ohne {missing}" for values, description in found if (missing := _unexplained(values, description))]
    assert sorted(set(gaps)) == []


def test_the_check_finds_a_value_left_unexplained() -> None:
    assert _unexplained(["instant", "daily", "weekly"], "instant (sofort), daily, weekly.") == ["daily", "weekly"]
    assert _unexplained(["a", "b"], "a (eins) oder b: zwei") == []
