"""A server is one declared object too: its path, German title, summary and instructions, tools, resource
templates, prompts and rights. The app, the docs, the authorization layer and the tests all read this one
declaration; the server packages only bind handlers to it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from contract.confirmations import AppResourceSpec
from contract.primitives import PromptSpec, ResourceTemplateSpec
from contract.rights import RIGHTS, Right, ServerName
from contract.tool import ContractError, ToolSpec, declare_tools


@dataclass(frozen=True)
class ServerSpec:
    name: ServerName  # also the path segment: /{name}/mcp
    title: str  # German
    summary: str  # German, one line for overviews
    instructions: str  # German, sent to the model in the handshake
    tools: tuple[ToolSpec, ...]  # in tools/list order (declare_tools)
    resources: tuple[ResourceTemplateSpec, ...]
    prompts: tuple[PromptSpec, ...]
    docs_page: str  # its page under docs/
    apps: tuple[AppResourceSpec, ...] = ()  # ui:// resources the host shows (the confirmation card)

    @property
    def path(self) -> str:
        return f"/{self.name.value}/mcp"

    @property
    def rights(self) -> tuple[Right, ...]:
        """Every right of this server in the order of the rights table, public access included."""
        return RIGHTS[self.name]

    @property
    def scopes(self) -> list[str]:
        """The OAuth scopes a token for this server can carry, in the order of the rights table."""
        return [right.scope for right in self.rights if right.scope is not None]

    def tool(self, name: str) -> ToolSpec:
        return next(spec for spec in self.tools if spec.name == name)


def _unique(server: ServerName, kind: str, names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ContractError(f"{kind} {name!r} ({server.value}): declared twice")
        seen.add(name)


def declare_server(
    name: ServerName,
    *,
    title: str,
    summary: str,
    instructions: str,
    tools: list[ToolSpec],
    resources: tuple[ResourceTemplateSpec, ...],
    prompts: tuple[PromptSpec, ...],
    docs_page: str,
    apps: tuple[AppResourceSpec, ...] = (),
) -> ServerSpec:
    """Check the server's parts against the rules of SPEC section 3 and return its one declaration."""
    for resource in resources:
        if resource.right.server is not name:
            raise ContractError(f"resource {resource.name!r} ({name.value}): right {resource.right.key!r} belongs to another server")
        if not resource.uri_template.startswith(f"athaus://{name.value}/"):
            raise ContractError(f"resource {resource.name!r} ({name.value}): its URI must start with athaus://{name.value}/")
    _unique(name, "resource", (r.name for r in resources))
    _unique(name, "prompt", (p.name for p in prompts))
    return ServerSpec(name, title, summary, instructions, declare_tools(name, tools), resources, prompts, docs_page, apps)
