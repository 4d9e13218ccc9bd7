"""The check of every structuredContent against its tool's outputSchema, compiled once per tool.

The compact output schemas (contract/wire.py) use a handful of keywords: `type`, `properties`, `required`, `items`,
`additionalProperties`, `$ref` into `$defs`. For those the check is compiled into the source of one plain Python
function per schema (and one per definition, which a `$ref` calls), with loops and `isinstance` tests inline: about ten
times cheaper than the general validator, which took a tenth of a search call's time, and a third of the closures
compiled before (issue 35: a list of 200 saved searches spent most of its result's time in them). A schema with any
other keyword is checked by `jsonschema` as before, and a result the compiled check refuses is checked by `jsonschema`
again, so the problem is named exactly as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import Draft202012Validator

Check = Callable[[Any], bool]
COMPILED_KEYWORDS = frozenset({"type", "properties", "required", "items", "additionalProperties", "$ref", "$defs"})
REF_PREFIX = "#/$defs/"
MAX_INLINE_DEPTH = 12

# The test of one JSON type on the value named `{v}`. An integer is any number without a fraction (1.0 too), never a
# boolean (JSON Schema).
TYPE_TESTS: dict[str, str] = {
    "string": "isinstance({v}, str)",
    "number": "(isinstance({v}, (int, float)) and not isinstance({v}, bool))",
    "integer": "((isinstance({v}, int) and not isinstance({v}, bool)) or (isinstance({v}, float) and {v}.is_integer()))",
    "boolean": "isinstance({v}, bool)",
    "null": "{v} is None",
    "object": "isinstance({v}, dict)",
    "array": "isinstance({v}, list)",
}


class Unsupported(Exception):
    """A keyword the compiled check does not know: the general validator checks this schema."""


class _Source:
    """The source of the check functions: one per schema root and per definition reached through `$ref`."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.functions: dict[str, str] = {}  # definition name -> its function's name
        self.lines: list[str] = []
        self.constants: dict[str, Any] = {}
        self.names = 0

    def fresh(self, stem: str) -> str:
        self.names += 1
        return f"{stem}{self.names}"

    def function(self, name: str, schema: Any) -> None:
        body: list[str] = []
        self.block(schema, "v", body, 1)
        self.lines += [f"def {name}(v):", *body, "    return True", ""]

    def definition(self, ref: Any) -> str:
        if not isinstance(ref, str) or not ref.startswith(REF_PREFIX) or ref[len(REF_PREFIX) :] not in self.root.get("$defs", {}):
            raise Unsupported(ref)
        name = ref[len(REF_PREFIX) :]
        if name not in self.functions:
            self.functions[name] = self.fresh("d")  # named first: a recursive definition calls itself
            self.function(self.functions[name], self.root["$defs"][name])
        return self.functions[name]

    def block(self, schema: Any, v: str, out: list[str], depth: int) -> None:
        """Lines that return False from the function when the value named `v` breaks `schema`."""
        pad = "    " * depth
        if schema is True:
            return
        if schema is False:
            out.append(f"{pad}return False")
            return
        if not isinstance(schema, dict) or not set(schema) <= COMPILED_KEYWORDS:
            raise Unsupported(schema)
        if depth > MAX_INLINE_DEPTH:  # a deep schema's inner parts in functions of their own: Python nests blocks only so deep
            inner = self.fresh("s")
            self.function(inner, schema)
            out.append(f"{pad}if not {inner}({v}): return False")
            return
        if "$ref" in schema:
            out.append(f"{pad}if not {self.definition(schema['$ref'])}({v}): return False")
        if "type" in schema:
            names = [schema["type"]] if isinstance(schema["type"], str) else list(schema["type"])
            if not all(isinstance(name, str) and name in TYPE_TESTS for name in names):
                raise Unsupported(schema)
            out.append(f"{pad}if not ({' or '.join(TYPE_TESTS[name].format(v=v) for name in names)}): return False")
        members = "properties" in schema or "additionalProperties" in schema
        if members or "required" in schema:
            inner: list[str] = []
            for name in schema.get("required", ()):
                inner.append(f"{pad}    if {name!r} not in {v}: return False")
            if members:
                self.members(schema, v, inner, depth + 1)
            if inner:
                out += [f"{pad}if isinstance({v}, dict):", *inner]
        if "items" in schema:
            item = self.fresh("i")
            inner = []
            self.block(schema["items"], item, inner, depth + 2)
            if inner:
                out += [f"{pad}if isinstance({v}, list):", f"{pad}    for {item} in {v}:", *inner]

    def members(self, schema: Mapping[str, Any], v: str, out: list[str], depth: int) -> None:
        pad = "    " * depth
        properties = schema.get("properties", {})
        if not isinstance(properties, dict):
            raise Unsupported(schema)
        for name, sub in properties.items():
            value = self.fresh("p")
            inner: list[str] = []
            self.block(sub, value, inner, depth + 1)
            if inner:
                out += [f"{pad}{value} = {v}.get({name!r}, MISSING)", f"{pad}if {value} is not MISSING:", *inner]
        if "additionalProperties" not in schema:
            return
        known = self.fresh("known")
        self.constants[known] = frozenset(properties)
        extra = schema["additionalProperties"]
        if extra is False:
            out.append(f"{pad}if not {v}.keys() <= {known}: return False")
            return
        key, value, inner = self.fresh("k"), self.fresh("x"), []
        self.block(extra, value, inner, depth + 2)
        if inner:
            out += [f"{pad}for {key}, {value} in {v}.items():", f"{pad}    if {key} not in {known}:", *inner]


MISSING = object()


def _compile(schema: Mapping[str, Any]) -> Check:
    source = _Source(schema)
    source.function("check", schema)
    namespace: dict[str, Any] = {"MISSING": MISSING, **source.constants}
    exec(compile("\n".join(source.lines), "<output check>", "exec"), namespace)  # noqa: S102 - our own schema's source
    return namespace["check"]


class OutputCheck:
    """`problem(value)`: None when `value` is valid against `schema`, else the first problem's message."""

    def __init__(self, schema: Mapping[str, Any]) -> None:
        self.validator = Draft202012Validator(schema)
        try:
            self.compiled: Check | None = _compile(schema)
        except Unsupported:
            self.compiled = None

    def problem(self, value: Any) -> str | None:
        if self.compiled is not None and self.compiled(value):
            return None
        problems = sorted(self.validator.iter_errors(value), key=str)
        return problems[0].message if problems else None
