"""Headers every response carries, whoever answered it (a route, the docs site, an MCP endpoint, the host check's 421,
the edge's 413/503, a 404/405): one ASGI middleware outside all of them.

`X-Content-Type-Options: nosniff`: a browser takes each response for the type it declares, never sniffs a JSON error
or a text/plain answer into a script or a page (issue 30: it was set on the sign-in pages only)."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

EVERY_RESPONSE = ((b"x-content-type-options", b"nosniff"),)


class EveryResponseHeaders:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers") or [])
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in EVERY_RESPONSE if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
