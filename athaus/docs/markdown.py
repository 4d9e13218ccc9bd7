"""Markdown helpers and JSON Schema rendered as German tables."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from athaus.docs.meanings import ENVELOPE_FIELDS
from contract import envelope as envelope_models
from contract.envelope import Absent, ListResult
from contract.tool import ToolSpec

HEADER = (
    "<!-- Erzeugt mit `athaus docs build` aus contract/. Nicht von Hand bearbeiten: "
    "Änderungen gehören in den Vertrag (contract/) oder in athaus/docs/. -->"
)
HINT_NAMES = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
# The envelope's own objects (Completeness, Freshness, Absent, …): explained once on the Werkzeuge page.
ENVELOPE_MODELS = frozenset(
    name for name, value in vars(envelope_models).items() if isinstance(value, type) and issubclass(value, BaseModel)
)


# --- Markdown helpers -------------------------------------------------------------------------------------


def cell(text: str) -> str:
    return text.replace("\n", " ").replace("|", "\\|")


def prose(text: str) -> str:
    """Free text from the contract, made safe for Markdown (a prefix star like Balk* is not emphasis)."""
    return text.replace("*", "\\*")


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return [*lines, ""]


def mono(value: str) -> str:
    return f"`{value}`"


def flag(value: bool) -> str:
    return mono("true" if value else "false")


def yes(value: bool) -> str:
    return "ja" if value else "nein"


def german_count(value: int) -> str:
    """2400 → 2.400"""
    return f"{value:,}".replace(",", ".")


def number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def literal(value: Any) -> str:
    if isinstance(value, bool):
        return flag(value)
    if isinstance(value, int | float):
        return mono(number(value))
    if isinstance(value, str):
        return mono(value)
    return mono(json.dumps(value, ensure_ascii=False, sort_keys=True))


def fenced(text: str, language: str = "", indent: str = "") -> list[str]:
    """A fenced code block whose fence is longer than any run of backticks in `text`."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", text)), default=0))
    return [indent + line if line else line for line in [f"{fence}{language}", *text.splitlines(), fence]]


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def page(lines: list[str]) -> str:
    return "\n".join([HEADER, "", *lines]).rstrip("\n") + "\n"


# --- JSON Schema to German Markdown -----------------------------------------------------------------------

_BASE_TYPES = {"string": "Text", "integer": "Ganzzahl", "number": "Zahl", "boolean": "Wahrheitswert", "null": "null"}
_FORMATS = {"date": "Datum", "date-time": "Zeitpunkt"}
ABSENT_TYPE = f"Objekt {mono(Absent.__name__)}"
_BOUNDS = (("minimum", "≥"), ("exclusiveMinimum", ">"), ("maximum", "≤"), ("exclusiveMaximum", "<"))


class _Schema:
    """Renders the types of one JSON schema; `objects` collects the named objects met, in order."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = schema.get("$defs", {})
        self.objects: list[str] = []

    def resolve(self, node: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            return name, self.defs[name]
        return None, node

    def type_of(self, node: dict[str, Any]) -> str:
        name, target = self.resolve(node)
        if name is not None and "properties" in target:
            if name not in self.objects:
                self.objects.append(name)
            return f"Objekt {mono(name)}"
        if "anyOf" in target:
            branches = [b for b in target["anyOf"] if b.get("type") != "null"]
            return " oder ".join(self.type_of(branch) for branch in branches)
        if "enum" in target:
            return " | ".join(mono(str(value)) for value in target["enum"])
        kind = target.get("type")
        if kind == "array":
            item = self.type_of(target.get("items", {}))
            return f"Liste von ({item})" if " | " in item or " oder " in item else f"Liste von {item}"
        if kind == "object":
            values = target.get("additionalProperties")
            return f"Zuordnung Name → {self.type_of(values)}" if isinstance(values, dict) else "Objekt"
        if kind is None:
            return "beliebig"
        base = _FORMATS.get(target.get("format", ""), _BASE_TYPES[kind])
        limits = [f"{symbol} {number(target[key])}" for key, symbol in _BOUNDS if key in target]
        if "minLength" in target:
            limits.append(f"mindestens {target['minLength']} Zeichen")
        if "maxLength" in target:
            limits.append(f"höchstens {target['maxLength']} Zeichen")
        if "pattern" in target:
            limits.append(f"Muster {mono(target['pattern'])}")
        return f"{base} ({', '.join(limits)})" if limits else base

    def properties(self, node: dict[str, Any]) -> dict[str, Any]:
        return self.resolve(node)[1].get("properties", {})


def _nullable(node: dict[str, Any]) -> bool:
    return any(branch.get("type") == "null" for branch in node.get("anyOf", ()))


def _input_rows(schema: _Schema, node: dict[str, Any]) -> list[list[str]]:
    required = set(schema.resolve(node)[1].get("required", ()))
    rows = []
    for name, prop in schema.properties(node).items():
        default = prop.get("default")
        rows.append(
            [
                mono(name),
                schema.type_of(prop),
                yes(name in required),
                "—" if default is None else literal(default),
                prose(prop.get("description", "—")),
            ]
        )
    return rows


def inputs_table(spec: ToolSpec, heading: str = "**Eingaben**") -> list[str]:
    root = spec.documented_input_schema()
    schema = _Schema(root)
    if not root.get("properties"):
        return [heading, "", "Keine.", ""]
    header = ["Argument", "Typ", "Pflicht", "Standard", "Beschreibung"]
    lines = [heading, "", *table(header, _input_rows(schema, root))]
    done = 0
    while done < len(schema.objects):  # nested objects, each once, in the order they are met
        name = schema.objects[done]
        rows = _input_rows(schema, {"$ref": f"#/$defs/{name}"})
        lines += [f"Objekt {mono(name)}:", "", *table(["Feld", *header[1:]], rows)]
        done += 1
    return lines


def _output_rows(schema: _Schema, node: dict[str, Any], envelope: bool) -> list[list[str]]:
    rows = []
    for name, prop in schema.properties(node).items():
        description = ENVELOPE_FIELDS[name] if envelope and name in ENVELOPE_FIELDS else prose(prop.get("description", "—"))
        rows.append([mono(name), schema.type_of(prop), yes(_nullable(prop)), description])
    return rows


def outputs_table(
    spec: ToolSpec,
    up: str = "",
    heading: str = "**Rückgabe** (`structuredContent`)",
    items_heading: str = "**Felder je Treffer**",
    objects: bool = False,
) -> list[str]:
    """The output model as tables; `up` leads from the page to the docs root (`../` for a tool page). With `objects`,
    every nested object of the tool's own models follows in a table of its own (the envelope's are on the Werkzeuge page)."""
    root = spec.documented_output_schema()
    schema = _Schema(root)
    envelope = "completeness" in root.get("properties", {})
    header = ["Feld", "Typ", "kann null sein", "Beschreibung"]
    rows = _output_rows(schema, root, envelope)
    lines = [heading, "", *table(header, rows)]
    shown = set(ENVELOPE_MODELS)
    if issubclass(spec.output_model, ListResult):
        item = root["properties"]["items"]["items"]
        shown.add(schema.resolve(item)[0] or "")
        item_rows = _output_rows(schema, item, envelope=False)
        lines += [items_heading, "", *table(header, item_rows)]
        rows += item_rows
    done = 0
    while objects and done < len(schema.objects):  # nested objects, each once, in the order they are met
        name = schema.objects[done]
        done += 1
        if name not in shown:
            object_rows = _output_rows(schema, {"$ref": f"#/$defs/{name}"}, envelope=False)
            lines += [f"Objekt {mono(name)}:", "", *table(header, object_rows)]
            rows += object_rows
    notes = []
    if envelope:
        notes.append(f"Die Felder des Listen-Umschlags erklärt die Seite [Werkzeuge]({up}werkzeuge.md#listen-und-suchen).")
    if any(ABSENT_TYPE in row[1] for row in rows):
        notes.append(f"`Absent` steht für einen fehlenden Wert und sagt, warum er fehlt (siehe [Werkzeuge]({up}werkzeuge.md#fehlende-werte)).")
    return [*lines, *([" ".join(notes), ""] if notes else [])]
