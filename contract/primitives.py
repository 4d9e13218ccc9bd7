"""Resource templates and prompts, declared as data like the tools."""

from __future__ import annotations

from dataclasses import dataclass

from contract.rights import Right


@dataclass(frozen=True)
class ResourceTemplateSpec:
    name: str
    uri_template: str  # stable domain URI, athaus://…; never a file path
    title: str
    description: str
    mime_type: str
    right: Right  # as for tools: checked by the runtime; anything but public is cached privately


@dataclass(frozen=True)
class PromptArgumentSpec:
    name: str
    description: str
    required: bool
    completes_from: str | None = None  # name of a completion source the server binds (e.g. "places")


@dataclass(frozen=True)
class PromptSpec:
    name: str
    title: str
    description: str
    arguments: tuple[PromptArgumentSpec, ...]
