"""A server as the runtime serves it: its contract declaration with handlers, resource readers, prompt
renderers and completers bound by name. Every tool family binds the same way: its module exports
`HANDLERS = {tool name: handler}`, and the server's definition merges the families with `bind`."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from contract.envelope import Page, Tally, WithMeta
from contract.primitives import ResourceTemplateSpec
from contract.server import ServerSpec
from shared.runtime.context import ToolContext

if TYPE_CHECKING:
    from shared.catalog.search import Snapshot

Handler = Callable[[Any, ToolContext], BaseModel | Page[Any] | Tally | WithMeta]
ResourceReader = Callable[[Mapping[str, str], ToolContext], BaseModel]
PromptRenderer = Callable[[Mapping[str, str], ToolContext], str]
# A completer returns at most `limit` values that start with the prefix, in a stable order.
Completer = Callable[[str, ToolContext, int], list[str]]

COMPLETION_SHOWN = 20  # values one completion shows; the SDK allows 100, a person reads far fewer


def bind(*families: Mapping[str, Handler]) -> dict[str, Handler]:
    """The handlers of several tool families as one mapping; a tool bound twice is an error."""
    bound: dict[str, Handler] = {}
    for family in families:
        twice = set(bound) & set(family)
        if twice:
            raise ValueError(f"handlers bound twice: {sorted(twice)}")
        bound.update(family)
    return bound


def template_variables(spec: ResourceTemplateSpec, uri: str) -> dict[str, str] | None:
    """The variables of `uri` under `spec`'s template (simple {name} segments), or None if it is not its URI."""
    pattern = re.escape(spec.uri_template).replace(r"\{", "{").replace(r"\}", "}")
    pattern = re.sub(r"{(\w+)}", r"(?P<\1>[^/]+)", pattern)
    found = re.fullmatch(pattern, uri)
    return found.groupdict() if found else None


@dataclass(frozen=True)
class ServerDefinition:
    spec: ServerSpec
    handlers: Mapping[str, Handler]
    readers: Mapping[str, ResourceReader] = field(default_factory=dict)  # resource template name → reader
    prompts: Mapping[str, PromptRenderer] = field(default_factory=dict)  # prompt name → renderer
    # completion source → completer; a source is a prompt argument's `completes_from`, or
    # "<resource template name>.<variable>" for a template variable
    completers: Mapping[str, Completer] = field(default_factory=dict)
    # ui:// resource URI (the spec's `apps`) → its HTML
    app_html: Mapping[str, Callable[[], str]] = field(default_factory=dict)
    # Tools whose answer depends only on their arguments, the catalog and the day (no right, no caller): the runtime
    # keeps their answers per catalog revision (shared/runtime/read_cache.py), read with `catalog_revision`; the
    # handler of an answer not kept gets what it read as `ToolContext.catalog`.
    public_reads: frozenset[str] = frozenset()
    catalog_revision: Callable[[ToolContext], Snapshot] | None = None

    def __post_init__(self) -> None:
        name = self.spec.name.value
        for kind, declared, bound in (
            ("tool", {t.name for t in self.spec.tools}, set(self.handlers)),
            ("resource", {r.name for r in self.spec.resources}, set(self.readers)),
            ("prompt", {p.name for p in self.spec.prompts}, set(self.prompts)),
            ("app resource", {a.uri for a in self.spec.apps}, set(self.app_html)),
        ):
            if declared != bound:
                raise ValueError(
                    f"{name}: {kind} declared without binding {sorted(declared - bound)}, bound without declaration {sorted(bound - declared)}"
                )
        public = {t.name for t in self.spec.tools if t.right.scope is None}
        if self.public_reads - public:
            raise ValueError(f"{name}: public reads that are no public tools: {sorted(self.public_reads - public)}")
        if self.public_reads and self.catalog_revision is None:
            raise ValueError(f"{name}: public reads are kept per catalog revision, which needs catalog_revision")
        sources = {a.completes_from for p in self.spec.prompts for a in p.arguments if a.completes_from}
        sources |= {f"{r.name}.{v}" for r in self.spec.resources for v in re.findall(r"{(\w+)}", r.uri_template)}
        if set(self.completers) - sources:
            raise ValueError(f"{name}: completers for nothing declared: {sorted(set(self.completers) - sources)}")
