"""A tool is one declared object: name, German title and description, input and output models, effect, right.

Everything else is derived from it: the annotations (from the effect, corrected per tool where the effect alone
does not say it: `destructive`/`idempotent` with the German reason in `hints_because`), the JSON schemas (from the
models), the order of tools/list (by right, then name), the docs tables. `declare_tools` checks the
rules of SPEC section 3 when the contract is imported and names the tool that breaks one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel

from contract.labels import unlabelled_fields, unlabelled_inputs
from contract.rights import Right, ServerName, right_rank
from contract.wire import compact_schema, reserved_field_names


class Effect(StrEnum):
    read = "read"
    save = "save"
    update = "update"
    draft = "draft"
    outbound = "outbound"


VERB_EFFECTS: dict[str, Effect] = {
    **dict.fromkeys(["search", "list", "get", "check", "estimate", "count", "calculate", "show"], Effect.read),
    "save": Effect.save,
    "import": Effect.save,  # creates or changes listings; the same transfer twice changes nothing
    "update": Effect.update,
    "draft": Effect.draft,
    "send": Effect.outbound,
    "decide": Effect.outbound,
}

# (readOnly, destructive, idempotent, openWorld) per effect; openWorld may be raised by `open_world`, destructive and
# idempotent set per tool (`ToolSpec.destructive`, `ToolSpec.idempotent`, with the reason in `hints_because`).
# A tool is destructive when it sends, withdraws, ends, clears or overwrites what a person set; idempotent only when
# the same call twice changes nothing more than once. Saving and drafting create, so each such tool requires its
# idempotency key (`request_id`, checked by `_check`): a repeat returns the first result, never a second record.
EFFECT_HINTS: dict[Effect, tuple[bool, bool, bool, bool]] = {
    Effect.read: (True, False, True, False),
    Effect.save: (False, False, True, False),
    Effect.update: (False, False, True, False),
    Effect.draft: (False, False, True, False),
    Effect.outbound: (False, True, True, True),
}

# The one exception to the verb_object rule: ChatGPT's research and company-knowledge connectors accept a server only
# if it offers tools named exactly `search` and `fetch` (contract/connectors.py names OpenAI's document). Both read.
CONNECTOR_TOOLS: dict[str, Effect] = {"search": Effect.read, "fetch": Effect.read}

REQUEST_ID = "request_id"  # the idempotency key of a creating tool (contract/fields.py: request_id_field)
_NAME = re.compile(r"^[a-z]+(_[a-z]+)+$")
_COMBINATORS = ("anyOf", "oneOf", "allOf")


class ContractError(ValueError):
    """The contract breaks one of its own rules; raised at import, naming the tool."""


@dataclass(frozen=True)
class Annotations:
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool

    def as_mcp(self) -> dict[str, bool]:
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    effect: Effect
    right: Right
    open_world: bool = False  # true only where the tool asks a foreign service
    extra_meta: dict[str, Any] = field(default_factory=dict)
    # seconds this tool may run; None: the server's call deadline. Only work that grows with its input (an import)
    # gets longer, so a slow search can never hold the database.
    time_budget_seconds: float | None = None
    # Where the effect alone does not say it (a save that clears, an update that withdraws or ends, a save whose key
    # is required): the hint, and in `hints_because` why (German; the tool's docs page shows it).
    destructive: bool | None = None
    idempotent: bool | None = None
    hints_because: str = ""
    # True only for the connector tools: their one text content is the structured result as JSON, the shape
    # ChatGPT's connectors parse, instead of the German text rendering.
    json_text: bool = False

    @property
    def verb(self) -> str:
        return self.name.split("_", 1)[0]

    @property
    def annotations(self) -> Annotations:
        read_only, destructive, idempotent, open_world = EFFECT_HINTS[self.effect]
        destructive = destructive if self.destructive is None else self.destructive
        idempotent = idempotent if self.idempotent is None else self.idempotent
        return Annotations(read_only, destructive, idempotent, open_world or self.open_world)

    def input_schema(self) -> dict[str, Any]:
        """The input schema as `tools/list` sends it (contract/wire.py)."""
        return compact_schema(self.input_model, output=False)

    def output_schema(self) -> dict[str, Any]:
        """The output schema as `tools/list` sends it: the shape of structuredContent (contract/wire.py)."""
        return compact_schema(self.output_model, output=True)

    def documented_input_schema(self) -> dict[str, Any]:
        """The input model's full schema, nested objects as definitions, for the docs."""
        return self.input_model.model_json_schema(mode="validation")

    def documented_output_schema(self) -> dict[str, Any]:
        """The output model's full schema, field descriptions included, for the docs."""
        return self.output_model.model_json_schema(mode="serialization")

    def security_schemes(self) -> list[dict[str, Any]]:
        if self.right.scope is None:
            return [{"type": "noauth"}]
        return [{"type": "oauth2", "scopes": [self.right.scope]}]


def _check(spec: ToolSpec, server: ServerName) -> None:
    def fail(problem: str) -> None:
        raise ContractError(f"tool {spec.name!r} ({server.value}): {problem}")

    if spec.name in CONNECTOR_TOOLS:
        if spec.effect is not CONNECTOR_TOOLS[spec.name]:
            fail(f"the connector tool {spec.name!r} only reads")
        if not spec.json_text:
            fail(f"the connector tool {spec.name!r} answers in ChatGPT's JSON shape (json_text=True)")
    elif spec.json_text:
        fail("only the connector tools search and fetch answer with JSON text")
    elif not _NAME.match(spec.name):
        fail("name must be snake_case with a verb first, e.g. search_listings")
    elif spec.verb not in VERB_EFFECTS:
        fail(f"verb {spec.verb!r} is not one of {sorted(VERB_EFFECTS)}")
    elif VERB_EFFECTS[spec.verb] is not spec.effect:
        fail(f"verb {spec.verb!r} means effect {VERB_EFFECTS[spec.verb].value!r}, declared {spec.effect.value!r}")
    if spec.open_world and spec.effect is Effect.draft:
        fail("a draft never reaches a foreign service")
    if (spec.destructive is not None or spec.idempotent is not None) != bool(spec.hints_because):
        fail("a hint set per tool (destructive, idempotent) needs its reason in hints_because, and only then")
    if spec.effect is Effect.read and (spec.destructive or spec.idempotent is False):
        fail("a reading tool is never destructive and always idempotent")
    if spec.effect is Effect.outbound and spec.destructive is False:
        fail("what goes out cannot be taken back: an outbound tool is destructive")
    key = spec.input_model.model_fields.get(REQUEST_ID)
    if spec.effect in (Effect.save, Effect.draft) and key is not None and not key.is_required():
        fail("a creating tool requires its request_id (a retry after a timeout must not create a second record)")
    if spec.right.server is not server:
        fail(f"right {spec.right.key!r} belongs to server {spec.right.server.value!r}")
    if not spec.title or not spec.description:
        fail("title and description are required (German)")
    reserved = reserved_field_names(spec.output_model)
    if reserved:
        fail(f"output fields named like the wire's own keys: {', '.join(reserved)} (see contract/wire.py)")
    unlabelled = unlabelled_fields(spec.output_model)
    if unlabelled:
        fail(f"output fields shown in the text without a German label: {', '.join(unlabelled)} (see contract/labels.py)")
    unlabelled_input = unlabelled_inputs(spec.input_model)
    if unlabelled_input:
        fail(f"input fields without a German label: {', '.join(unlabelled_input)} (see contract/labels.py)")
    schema = spec.input_schema()
    if schema.get("type") != "object":
        fail("input schema must be a JSON object schema")
    for combinator in _COMBINATORS:
        if combinator in schema:
            fail(f"input schema must not use top-level {combinator}")


def declare_tools(server: ServerName, specs: list[ToolSpec]) -> tuple[ToolSpec, ...]:
    """Check every spec and return them in tools/list order: by right (SPEC section 4), then by name."""
    seen: set[str] = set()
    for spec in specs:
        _check(spec, server)
        if spec.name in seen:
            raise ContractError(f"tool {spec.name!r} ({server.value}): declared twice")
        seen.add(spec.name)
    return tuple(sorted(specs, key=lambda s: (right_rank(s.right), s.name)))
