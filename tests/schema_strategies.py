"""Hypothesis strategies from the JSON Schemas the contract emits (the subset pydantic produces)."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def from_schema(schema: dict[str, Any], defs: dict[str, Any] | None = None) -> st.SearchStrategy[Any]:
    defs = defs if defs is not None else schema.get("$defs", {})
    if "$ref" in schema:
        return from_schema(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    if "anyOf" in schema:
        return st.one_of([from_schema(option, defs) for option in schema["anyOf"]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "null":
        return st.none()
    if kind == "boolean":
        return st.booleans()
    if kind == "integer":
        return st.integers(min_value=schema.get("minimum", -5), max_value=schema.get("maximum", 10_000))
    if kind == "number":
        low = schema.get("minimum", schema.get("exclusiveMinimum", -5))
        return st.floats(min_value=low, max_value=schema.get("maximum", 2_000_000), allow_nan=False, exclude_min="exclusiveMinimum" in schema)
    if kind == "string":
        if "pattern" in schema or schema.get("format") in {"date", "date-time"}:
            return st.sampled_from(["2026-10-01", "2026-11-01T09:00:00Z", "A-0000001", "80", "10115", "x"])
        return st.text(max_size=schema.get("maxLength", 30))
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {}), defs), max_size=3)
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: from_schema(v, defs) for k, v in properties.items() if k in required},
            optional={k: from_schema(v, defs) for k, v in properties.items() if k not in required},
        )
    return st.none()
