"""Which answer form an MCP request gets: one JSON response, or an event stream when the caller asked for progress.

Stateless Streamable HTTP may answer a request either way; clients must accept both. JSON is the default (cheaper,
and what simple clients and proxies handle best). A `tools/call` that carries `_meta.progressToken` from a client
that accepts `text/event-stream` is answered as a stream, so the progress notifications of a long call
(`import_listings`) reach it while it runs. ATHAUS_STREAM_RESPONSES=true streams every answer.
"""

from __future__ import annotations

import pydantic_core
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from shared.auth.challenge import peek_body

# The edge bounds every body (ATHAUS_MAX_REQUEST_BYTES); an import with its transfer inline is read whole here too.
PEEK_LIMIT = 2 * 1024 * 1024


class ProgressAwareTransport:
    def __init__(self, json_app: ASGIApp, stream_app: ASGIApp) -> None:
        self.json_app = json_app
        self.stream_app = stream_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.json_app(scope, receive, send)
            return
        body, replay = await peek_body(receive, PEEK_LIMIT)
        accept = dict(scope.get("headers") or []).get(b"accept", b"").decode("latin-1")
        wants_stream = body is not None and "text/event-stream" in accept and asks_for_progress(body)
        await (self.stream_app if wants_stream else self.json_app)(scope, replay, send)


def asks_for_progress(body: bytes) -> bool:
    """Whether a JSON-RPC body (one message or a batch) carries a progress token in a request's `_meta`."""
    try:
        payload: Any = pydantic_core.from_json(body)  # nesting bounded (a RecursionError escaped json.loads)
    except ValueError:
        return False
    for message in payload if isinstance(payload, list) else [payload]:
        params = message.get("params") if isinstance(message, dict) else None
        meta = params.get("_meta") if isinstance(params, dict) else None
        if isinstance(meta, dict) and meta.get("progressToken") is not None:
            return True
    return False
