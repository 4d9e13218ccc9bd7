"""Around every HTTP request: its request id (`X-Request-Id` taken when well-formed, else made; sent back, on every
log line of the request), a server span (continuing an incoming W3C `traceparent`) and its latency by route group."""

from __future__ import annotations

import contextlib
import os
import re
import time
from typing import Any

from opentelemetry.propagate import extract
from opentelemetry.trace import SpanKind

from shared.logging import REQUEST_ID
from shared.telemetry.metrics import HTTP_SECONDS
from shared.telemetry.tracing import tracer, tracing_on

REQUEST_ID_HEADER = b"x-request-id"
WELL_FORMED = re.compile(r"[A-Za-z0-9._:-]{1,64}")
ROUTE_GROUPS = ("/makler/mcp", "/suche/mcp", "/oauth", "/token", "/register", "/revoke", "/authorize", "/app", "/docs",
                "/.well-known", "/healthz", "/metrics")


def route_group(path: str) -> str:
    """A bounded label for a path (never the path itself: ids and tokens would make every request its own series)."""
    for group in ROUTE_GROUPS:
        if path == group or path.startswith(group + "/") or path.startswith(group + "?"):
            return group
    return "other"


class Telemetry:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw_headers = scope.get("headers", [])
        incoming = next((value for name, value in raw_headers if name == REQUEST_ID_HEADER), b"").decode("latin-1")
        request_id = incoming if WELL_FORMED.fullmatch(incoming) else os.urandom(16).hex()
        token = REQUEST_ID.set(request_id)
        method, route = scope.get("method", "GET"), route_group(scope.get("path", ""))
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message = {**message, "headers": [*message.get("headers", []), (REQUEST_ID_HEADER, request_id.encode())]}
            await send(message)

        # Without a tracer provider every span is a no-op: the incoming trace context is then not even read (issue 21).
        span_of = (
            tracer.start_as_current_span(
                f"{method} {route}", kind=SpanKind.SERVER,
                context=extract({name.decode("latin-1"): value.decode("latin-1") for name, value in raw_headers}),
                attributes={"http.request.method": method, "http.route": route, "athaus.request_id": request_id},
            )
            if tracing_on()
            else contextlib.nullcontext(None)
        )
        with span_of as span:
            try:
                await self.app(scope, receive, send_with_id)
            finally:
                if span is not None:
                    span.set_attribute("http.response.status_code", status)
                HTTP_SECONDS.labels(route, method, str(status)).observe(time.perf_counter() - started)
                REQUEST_ID.reset(token)
