"""Which rights an MCP request needs, read from its JSON-RPC body before the MCP layer sees it.

The resource-server middleware answers a call that needs a right the caller does not hold at the HTTP level
(401 without a token, 403 `insufficient_scope` with one, both naming the scope), because that is what standard
clients (the official SDKs, the MCP Inspector, Claude) start or widen their sign-in on. Only this module knows how
a request maps to rights: `tools/call` by the tool's declared right, `resources/read` by the template the URI falls
under; everything else (initialize, lists, completions, prompts) needs none here.

ChatGPT-style hosts are different: they call tools of a mixed server anonymously and expect the tool result to
carry the challenge in `_meta["mcp/www_authenticate"]` (Apps SDK), which the runtime always puts there. A request
from such a host (a `tools/call` whose `_meta` carries `openai/…` keys, or ChatGPT's `openai-mcp` user agent) is
therefore passed through to get that result instead of an HTTP error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pydantic_core
from starlette.types import Message, Receive

from contract.server import ServerSpec

# A tool call is a few kilobytes; a body beyond this is not peeked at (the MCP layer's own limit applies to it and
# the runtime's MISSING_RIGHT result still guards it).
PEEK_LIMIT = 256 * 1024
HOST_META_PREFIX = "openai/"
HOST_USER_AGENT_PREFIX = "openai-mcp"


@dataclass(frozen=True)
class Needs:
    scopes: tuple[str, ...]  # every right the request's calls need, in declaration order
    in_result: bool  # the host reads the challenge from the tool result (ChatGPT-style): no HTTP challenge


NOTHING = Needs((), False)


class RightsMap:
    """One server's tools and resource templates with the right each needs."""

    def __init__(self, spec: ServerSpec) -> None:
        self.order = [right.scope for right in spec.rights if right.scope]
        self.tools = {tool.name: tool.right.scope for tool in spec.tools}
        self.resources = [(_template_pattern(resource.uri_template), resource.right.scope) for resource in spec.resources]
        # The least a token for this server must hold to do anything: asked for when the request names no right.
        self.basic = self.order[:1]

    def needs(self, body: bytes, user_agent: str | None) -> Needs:
        try:
            payload = pydantic_core.from_json(body)  # nesting bounded as the SDK bounds it: deeper is a ValueError
        except ValueError:
            return NOTHING
        messages = payload if isinstance(payload, list) else [payload]
        scopes: set[str] = set()
        in_result = (user_agent or "").lower().startswith(HOST_USER_AGENT_PREFIX)
        for message in messages:
            if not isinstance(message, dict) or not isinstance(params := message.get("params"), dict):
                continue
            scope = self._scope_of(message.get("method"), params)
            if scope:
                scopes.add(scope)
                meta = params.get("_meta")
                in_result = in_result or (isinstance(meta, dict) and any(str(key).startswith(HOST_META_PREFIX) for key in meta))
        return Needs(tuple(scope for scope in self.order if scope in scopes), in_result)

    def _scope_of(self, method: Any, params: dict[str, Any]) -> str | None:
        if method == "tools/call" and isinstance(name := params.get("name"), str):
            return self.tools.get(name)
        if method == "resources/read" and isinstance(uri := params.get("uri"), str):
            for pattern, scope in self.resources:
                if pattern.fullmatch(uri):
                    return scope
        return None


def _template_pattern(template: str) -> re.Pattern[str]:
    parts = re.split(r"{\w+}", template)
    return re.compile("[^/]+".join(re.escape(part) for part in parts))


async def peek_body(receive: Receive, limit: int = PEEK_LIMIT) -> tuple[bytes | None, Receive]:
    """The request body if it is complete within `limit` bytes (else None), and a receive that replays what was read."""
    read: list[Message] = []
    body = bytearray()
    complete = False
    while True:
        message = await receive()
        read.append(message)
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if not message.get("more_body", False):
            complete = True
            break
        if len(body) > limit:
            break

    async def replay() -> Message:
        return read.pop(0) if read else await receive()

    return (bytes(body) if complete and len(body) <= limit else None), replay


def challenge_header(resource_metadata_url: str, *, error: str | None = None, scopes: Iterable[str] = ()) -> str:
    """An RFC 6750 §3 challenge with the RFC 9728 resource_metadata parameter."""
    header = f'Bearer resource_metadata="{resource_metadata_url}"'
    wanted = " ".join(scopes)
    if wanted:
        header += f', scope="{wanted}"'
    if error:
        header += f', error="{error}"'
    return header


