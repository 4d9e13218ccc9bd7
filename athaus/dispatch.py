"""The MCP endpoints reached without FastAPI's router (issue 21: throughput).

Every MCP call is one HTTP request to one of two exact paths. Behind the app's own middlewares (telemetry, host check,
edge, cross-origin) `McpPaths` hands a request for exactly such a path straight to its endpoint; FastAPI's exception
middleware, exit stack and route matching (which walks every included router and was about a seventh of a cached
call's CPU) are left out for it: an MCP endpoint is a plain ASGI app that answers every method and error itself. Every
other path (a trailing slash, OAuth, web app, docs) goes on to the router as before, and the endpoints stay registered
there too."""

from __future__ import annotations

from collections.abc import Mapping

from starlette._utils import get_route_path
from starlette.types import ASGIApp, Receive, Scope, Send


class McpPaths:
    def __init__(self, app: ASGIApp, *, endpoints: Mapping[str, ASGIApp]) -> None:
        self.app = app
        self.endpoints = dict(endpoints)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the path as the router matches it (without a proxy's root_path)
        endpoint = self.endpoints.get(get_route_path(scope)) if scope["type"] == "http" else None
        await (endpoint or self.app)(scope, receive, send)
