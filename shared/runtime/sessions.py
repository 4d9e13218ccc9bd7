"""What a 2025-11-25 client declared at `initialize`, kept by the client, so the stateless servers can read it on every
later request at any instance (docs/engineering.md, "The click boundary").

A 2026-07-28 client sends its capabilities with every request (`_meta["io.modelcontextprotocol/clientCapabilities"]`);
a 2025-11-25 client declares them once, at `initialize`, and a stateless server keeps nothing. So an `initialize` that
declares the MCP Apps extension (`capabilities.extensions["io.modelcontextprotocol/ui"]`) is answered with an
`Mcp-Session-Id` that carries the declaration: HMAC-signed with a key derived from the deployment's secret (the one
every instance reads from the database or ATHAUS_SECRET_KEY), bound to the server it was issued by, expiring after
SESSION_SECONDS. The client sends it with every request of the session (the revision requires that), and any instance
verifies it without storage and hands the declared extensions to the runtime (DECLARED_SCOPE_KEY in the ASGI scope).

A session id that does not verify (altered, expired, another server's, signed with a rotated secret) is a session this
server does not know: HTTP 404, after which the revision has the client initialize afresh. An `initialize` that
declares nothing gets no session id; nothing changes for such a client. The id says only what the client claimed about
itself: whether a client is a host that shows the card is its OAuth registration's to say (shared/auth/card_hosts.py).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping
from typing import Any

import pydantic_core
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contract.confirmations import UI_EXTENSION
from shared.auth.challenge import peek_body
from shared.auth.signing import Signer

SESSION_HEADER = "mcp-session-id"
DECLARED_SCOPE_KEY = "athaus.declared_extensions"  # frozenset of extension identifiers, for the runtime (hosts.py)
SESSION_SECONDS = 24 * 3600  # a day of a conversation; after it the client initializes again (404)
CARRIED = (UI_EXTENSION,)  # the extensions whose declaration the servers act on
PEEK_LIMIT = 64 * 1024  # an initialize is small; a larger body is not one worth reading here
UNKNOWN_SESSION = (
    "Diese Sitzung kennt der Server nicht (abgelaufen oder ungültig): bitte die Verbindung neu aufbauen "
    "(initialize ohne Mcp-Session-Id)."
)


def declared_at_initialize(body: bytes) -> frozenset[str] | None:
    """The carried extensions an `initialize` request declares in its client capabilities; None if `body` is not an
    initialize request."""
    if b'"initialize"' not in body:
        return None
    try:
        message: Any = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    if not isinstance(extensions, dict):
        return frozenset()
    return frozenset(name for name in CARRIED if isinstance(extensions.get(name), Mapping))


class DeclaredSessions:
    """ASGI wrapper in front of one MCP endpoint: issues the session id at `initialize`, verifies it afterwards."""

    def __init__(self, app: ASGIApp, *, server: str, secret: str) -> None:
        self.app = app
        self.server = server
        self.signer = Signer(secret, "mcp-session")

    def issue(self, declared: frozenset[str]) -> str:
        # the nonce makes every session's id its own (the revision wants them unique)
        return self.signer.dumps({"srv": self.server, "ext": sorted(declared), "n": secrets.token_hex(8)}, SESSION_SECONDS)

    def verify(self, session_id: str) -> frozenset[str] | None:
        """The extensions a session id of this server carries; None if it does not verify."""
        payload = self.signer.loads(session_id)
        if payload is None or payload.get("srv") != self.server or not isinstance(payload.get("ext"), list):
            return None
        return frozenset(name for name in payload["ext"] if name in CARRIED)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        presented = Headers(scope=scope).get(SESSION_HEADER)
        body, receive = await peek_body(receive, PEEK_LIMIT)
        declared = declared_at_initialize(body) if body is not None else None
        if declared is None and presented is not None:
            carried = self.verify(presented)
            if carried is None:
                await _unknown_session()(scope, receive, send)
                return
            await self.app({**scope, DECLARED_SCOPE_KEY: carried}, receive, send)
            return
        if not declared:  # not an initialize, or one that declares nothing carried: no session
            await self.app(scope, receive, send)
            return
        session_id = self.issue(declared)

        async def with_session(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                MutableHeaders(scope=message)[SESSION_HEADER] = session_id
            await send(message)

        await self.app({**scope, DECLARED_SCOPE_KEY: declared}, receive, with_session)


def _unknown_session() -> Response:
    body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": UNKNOWN_SESSION}}
    return Response(json.dumps(body, ensure_ascii=False), status_code=404, media_type="application/json")
