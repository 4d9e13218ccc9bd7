"""The edge of every HTTP request (one ASGI middleware around the whole app): a bounded request body, a deadline for
the database work done before MCP (token lookup), and a database outage answered 503 with Retry-After instead of a
bare 500 or a dropped connection."""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shared.db import deadline
from shared.runtime.failures import database_unreachable

log = logging.getLogger("athaus.edge")

RETRY_AFTER_SECONDS = 30
UNAVAILABLE = "Die Datenbank ist gerade nicht erreichbar; bitte in einer Minute erneut versuchen."
TOO_LARGE = "Die Anfrage ist mit mehr als {limit} Bytes zu groß: bitte kleinere Anfragen senden (etwa weniger oder kürzere Argumente)."


def _is_mcp(scope: Scope) -> bool:
    return str(scope.get("path", "")).rstrip("/").endswith("/mcp")


class Edge:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, deadline_seconds: float) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.deadline_seconds = deadline_seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes:
            await self._answer(scope, send, 413, TOO_LARGE.format(limit=self.max_body_bytes), None)
            return
        # The body is read here, up to the limit, and handed on whole: nothing behind this reads more than the limit.
        chunks: list[bytes] = []
        received = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            received += len(chunks[-1])
            more = bool(message.get("more_body"))
            if received > self.max_body_bytes:
                await self._answer(scope, send, 413, TOO_LARGE.format(limit=self.max_body_bytes), None)
                return
        body = b"".join(chunks)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: only the disconnect

        started = False

        async def watched_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            # its own deadline: never one inherited from an earlier request (athaus/connections.py)
            with deadline.within(self.deadline_seconds, own=True):
                await self.app(scope, replay, watched_send)
        except Exception as error:
            if not database_unreachable(error):
                raise
            log.warning(json.dumps({"event": "database_unavailable", "path": scope.get("path"), "detail": str(error)[:300]}))
            if not started:
                await self._answer(scope, send, 503, UNAVAILABLE, RETRY_AFTER_SECONDS)

    async def _answer(self, scope: Scope, send: Send, status: int, message: str, retry_after: int | None) -> None:
        """A German answer: a JSON-RPC error on the MCP endpoints (code in data like every other error), JSON elsewhere."""
        code = "SOURCE_UNAVAILABLE" if status == 503 else "INVALID_ARGUMENT"
        body: dict[str, Any]
        if _is_mcp(scope):
            body = {"jsonrpc": "2.0", "id": None, "error": {"code": -32600 if status == 413 else -32603, "message": message, "data": {"athaus/code": code}}}
        else:
            body = {"error": code, "message": message}
        payload = json.dumps(body, ensure_ascii=False).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        if retry_after is not None:
            headers.append((b"retry-after", str(retry_after).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})
