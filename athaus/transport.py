"""Which answer form an MCP request gets: one JSON response, or an event stream when the caller asked for progress.

Stateless Streamable HTTP may answer a request either way; clients must accept both. JSON is the default (cheaper,
and what simple clients and proxies handle best). A `tools/call` that carries `_meta.progressToken` from a client
that accepts `text/event-stream` is answered as a stream, so the progress notifications of a long call
(`import_listings`) reach it while it runs. ATHAUS_STREAM_RESPONSES=true streams every answer.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

PEEK_LIMIT = 2 * 1024 * 1024  # the edge bounds bodies already; this only guards a direct mount


class ProgressAwareTransport:
    def __init__(self, json_app: ASGIApp, stream_app: ASGIApp) -> None:
        self.json_app = json_app
        self.stream_app = stream_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.json_app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = bool(message.get("more_body")) and size <= PEEK_LIMIT
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        accept = dict(scope.get("headers") or []).get(b"accept", b"").decode("latin-1")
        wants_stream = "text/event-stream" in accept and asks_for_progress(body)
        await (self.stream_app if wants_stream else self.json_app)(scope, replay, send)


def asks_for_progress(body: bytes) -> bool:
    """Whether a JSON-RPC body (one message or a batch) carries a progress token in a request's `_meta`."""
    try:
        payload: Any = json.loads(body)
    except ValueError:
        return False
    for message in payload if isinstance(payload, list) else [payload]:
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and meta.get("progressToken") is not None:
            return True
    return False
