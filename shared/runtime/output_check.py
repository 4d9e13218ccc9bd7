"""The check of every structuredContent against its tool's outputSchema, compiled once per tool.

The compact output schemas (contract/wire.py) use a handful of keywords: `type`, `properties`, `required`, `items`,
`additionalProperties`, `$ref` into `$defs`. For those the check is compiled into plain Python functions, about ten
times cheaper than the general validator, which took a tenth of a search call's time. A schema with any other keyword
is checked by `jsonschema` as before, and a result the compiled check refuses is checked by `jsonschema` again, so
the problem is named exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import Draft202012Validator

Check = Callable[[Any], bool]
COMPILED_KEYWORDS = frozenset({"type", "properties", "required", "items", "additionalProperties", "$ref", "$defs"})


def _is_integer(value: Any) -> bool:
    # JSON Schema: an integer is any number without a fraction (1.0 too), never a boolean
    return (isinstance(value, int) and not isinstance(value, bool)) or (isinstance(value, float) and value.is_integer())


TYPES: dict[str, Check] = {
    "string": lambda value: isinstance(value, str),
    "number": lambda value: isinstance(value, int | float) and not isinstance(value, bool),
    "integer": _is_integer,
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
}


class Unsupported(Exception):
    """A keyword the compiled check does not know: the general validator checks this schema."""


def _compile(schema: Any, root: Mapping[str, Any], defs: dict[str, Check]) -> Check:
    if schema is True:
        return lambda value: True
    if schema is False:
        return lambda value: False
    if not isinstance(schema, dict) or not set(schema) <= COMPILED_KEYWORDS:
        raise Unsupported(schema)
    checks: list[Check] = []
    if "$ref" in schema:
        checks.append(_reference(schema["$ref"], root, defs))
    if "type" in schema:
        names = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
        if not all(name in TYPES for name in names):
            raise Unsupported(schema)
        kinds = [TYPES[name] for name in names]
        checks.append(kinds[0] if len(kinds) == 1 else lambda value: any(kind(value) for kind in kinds))
    if "properties" in schema or "additionalProperties" in schema:
        properties = {name: _compile(sub, root, defs) for name, sub in schema.get("properties", {}).items()}
        extra = _compile(schema["additionalProperties"], root, defs) if "additionalProperties" in schema else None

        def members(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key, item in value.items():
                check = properties.get(key, extra)
                if check is not None and not check(item):
                    return False
            return True

        checks.append(members)
    if "required" in schema:
        required = tuple(schema["required"])
        checks.append(lambda value: not isinstance(value, dict) or all(name in value for name in required))
    if "items" in schema:
        each = _compile(schema["items"], root, defs)
        checks.append(lambda value: not isinstance(value, list) or all(each(item) for item in value))
    if len(checks) == 1:
        return checks[0]
    return lambda value: all(check(value) for check in checks)


def _reference(ref: Any, root: Mapping[str, Any], defs: dict[str, Check]) -> Check:
    prefix = "#/$defs/"
    if not isinstance(ref, str) or not ref.startswith(prefix) or ref[len(prefix) :] not in root.get("$defs", {}):
        raise Unsupported(ref)
    name = ref[len(prefix) :]
    if name not in defs:
        defs[name] = lambda value: True  # a recursive definition resolves through the table once it is filled
        compiled = _compile(root["$defs"][name], root, defs)
        defs[name] = compiled
    return lambda value: defs[name](value)


class OutputCheck:
    """`problem(value)`: None when `value` is valid against `schema`, else the first problem's message."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.validator = Draft202012Validator(schema)
        try:
            self.compiled: Check | None = _compile(dict(schema), schema, {})
        except Unsupported:
            self.compiled = None

    def problem(self, value: Any) -> str | None:
        if self.compiled is not None and self.compiled(value):
            return None
        problems = sorted(self.validator.iter_errors(value), key=str)
        return problems[0].message if problems else None
