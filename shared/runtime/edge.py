"""The edge of every HTTP request (ASGI middleware around the whole app): the host check (`HostCheck`, DNS rebinding
protection for every route), a bounded request body, a deadline for the database work done before MCP (token lookup),
and a database outage answered 503 with Retry-After instead of a bare 500 or a dropped connection."""

from __future__ import annotations

import json
import logging
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shared.db import deadline
from shared.runtime.failures import CONCURRENT_MESSAGE, concurrent_write, database_unreachable

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
            if concurrent_write(error):
                log.warning(json.dumps({"event": "concurrent_write", "path": scope.get("path"), "detail": str(error)[:300]}))
                if not started:
                    await self._answer(scope, send, 409, CONCURRENT_MESSAGE, None)
                return
            if not database_unreachable(error):
                raise
            log.warning(json.dumps({"event": "database_unavailable", "path": scope.get("path"), "detail": str(error)[:300]}))
            if not started:
                await self._answer(scope, send, 503, UNAVAILABLE, RETRY_AFTER_SECONDS)

    async def _answer(self, scope: Scope, send: Send, status: int, message: str, retry_after: int | None) -> None:
        """A German answer: a JSON-RPC error on the MCP endpoints (code in data like every other error), JSON elsewhere."""
        code = {503: "SOURCE_UNAVAILABLE", 409: "CONFLICT"}.get(status, "INVALID_ARGUMENT")
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


MISDIRECTED = "Diese Installation antwortet nur unter ihrer öffentlichen Adresse; bitte die Adresse aus der Einrichtung verwenden."
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


class AcceptedHosts:
    """The `Host` headers every route accepts (DNS rebinding protection): the public URL's host at its port, a loopback
    name at the port the request came in on (the bind's port), and the names of ATHAUS_ALLOWED_HOSTS (`name:*` = any
    port). A loopback name at another port is refused: another local service cannot be made to speak for this one."""

    def __init__(self, public_url: str, configured: list[str]) -> None:
        public = urlsplit(public_url)
        host = (public.hostname or "").lower()
        host = f"[{host}]" if ":" in host else host
        default = 443 if public.scheme == "https" else 80
        port = public.port or default
        self.exact = {f"{host}:{port}"} | ({host, f"{host}:{default}"} if port == default else set())
        self.any_port = set()
        for entry in configured:
            entry = entry.strip().lower()
            if entry.endswith(":*"):
                self.any_port.add(entry[:-2])
            else:
                self.exact.add(entry)

    def allows(self, header: str | None, bind_port: int) -> bool:
        value = (header or "").strip().lower()
        if not value:
            return False
        name, port = _split_host(value)
        if value in self.exact or name in self.any_port:
            return True
        return name in LOOPBACK_NAMES and (port or 80) == bind_port

    def for_the_sdk(self) -> list[str]:
        """What the MCP SDK's own host check is given: all this accepts (it sees only hosts that passed `HostCheck`)."""
        return sorted(self.exact | {f"{name}:*" for name in self.any_port} | {f"{name}:*" for name in LOOPBACK_NAMES} | {*LOOPBACK_NAMES, *self.any_port})


def _split_host(value: str) -> tuple[str, int | None]:
    if value.startswith("["):
        name, _, rest = value.partition("]")
        port = rest[1:] if rest.startswith(":") else ""
        name += "]"
    else:
        name, _, port = value.partition(":")
    return name, int(port) if port.isdigit() else None


class HostCheck:
    """ASGI middleware in front of every route (OAuth, sign-in pages, web app, health, docs, MCP): a request for a host
    this installation does not answer under is 421 Misdirected Request, before anything is read."""

    def __init__(self, app: ASGIApp, *, hosts: AcceptedHosts, bind_port: int) -> None:
        self.app = app
        self.hosts = hosts
        self.bind_port = bind_port

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        server = scope.get("server")
        # The port the connection came in on (uvicorn's socket); without one (a Unix socket), the configured bind.
        port = int(server[1]) if server and server[1] is not None else self.bind_port
        host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1")
        if self.hosts.allows(host, port):
            # Host names ignore case: passed on lower-cased, so the checks behind (the MCP SDK's compares exactly) agree
            headers = [(key, value.lower()) if key == b"host" else (key, value) for key, value in scope.get("headers") or []]
            await self.app({**scope, "headers": headers}, receive, send)
            return
        log.info(json.dumps({"event": "host_refused", "path": scope.get("path")}))
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        payload = MISDIRECTED.encode()
        await send(
            {
                "type": "http.response.start",
                "status": 421,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(payload)).encode())],
            }
        )
        await send({"type": "http.response.body", "body": payload})
