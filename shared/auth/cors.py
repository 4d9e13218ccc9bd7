"""CORS for the endpoints browser-based MCP clients call: both MCP endpoints, token, registration, revocation and
the metadata documents. Only origins of ATHAUS_ALLOWED_ORIGINS (`scheme://host:*` = any port) are granted; a foreign
origin gets no Access-Control header at all (its preflight is 403), so the browser keeps the response from it.

No credentials: clients send the bearer token in a header, never a cookie, so `Allow-Credentials` is not granted.

/authorize is not here: a browser navigates to it, scripts have no business calling it.

The headers a preflight grants are every one the Streamable HTTP clients of both eras send: 2026-07-28 mirrors the
method and name into `Mcp-Method` and `Mcp-Name` and a tool's `x-mcp-header` arguments into `Mcp-Param-{Name}` (a
family, so a requested `Mcp-Param-…` is granted by name); 2025-11-25 sends `Mcp-Session-Id` and `Last-Event-ID`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ALLOWED_HEADERS = ("Authorization", "Content-Type", "Accept", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name", "Mcp-Session-Id", "Last-Event-ID")
PARAM_HEADER_PREFIX = "mcp-param-"  # 2026-07-28: one header per `x-mcp-header` argument of a tool
EXPOSED_HEADERS = "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version, Retry-After"
PREFLIGHT_MAX_AGE = "600"


class OriginPolicy:
    """The allowed origins as patterns: exact, or `…:*` for any port of that scheme and host."""

    def __init__(self, origins: Iterable[str]) -> None:
        patterns = []
        for origin in origins:
            if origin.endswith(":*"):
                patterns.append(re.escape(origin[:-2]) + r"(:\d{1,5})?")
            else:
                patterns.append(re.escape(origin.rstrip("/")))
        self.pattern = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None

    def allows(self, origin: str | None) -> bool:
        return bool(origin and self.pattern and self.pattern.fullmatch(origin.lower()))


class Cors:
    """ASGI wrapper: answers preflights, refuses other methods with 405, adds the grant to allowed origins' responses."""

    def __init__(self, app: ASGIApp, policy: OriginPolicy, methods: Sequence[str]) -> None:
        self.app = app
        self.policy = policy
        self.methods = tuple(methods)
        self.allow = ", ".join(self.methods)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        granted = self.policy.allows(origin)
        method = scope["method"]
        if method == "OPTIONS":
            await self._preflight(headers, origin, granted)(scope, receive, send)
            return
        if method not in self.methods:
            response = Response(status_code=405, headers={"Allow": self.allow})
            if granted:
                response.headers.update(self._grant(origin))
            await response(scope, receive, send)
            return
        if not granted:
            await self.app(scope, receive, send)
            return

        async def granting(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).update(self._grant(origin))
            await send(message)

        await self.app(scope, receive, granting)

    def _preflight(self, headers: Headers, origin: str | None, granted: bool) -> Response:
        requested = headers.get("access-control-request-method")
        if origin is None or requested is None:  # a plain OPTIONS: what the endpoint takes
            return Response(status_code=204, headers={"Allow": f"{self.allow}, OPTIONS"})
        if not granted or requested.upper() not in self.methods:
            return Response(status_code=403, headers={"Vary": "Origin"})
        return Response(
            status_code=204,
            headers={
                **self._grant(origin),
                "Access-Control-Allow-Methods": f"{self.allow}, OPTIONS",
                "Access-Control-Allow-Headers": allowed_headers(headers.get("access-control-request-headers")),
                "Access-Control-Max-Age": PREFLIGHT_MAX_AGE,
                "Vary": "Origin, Access-Control-Request-Headers",
            },
        )

    @staticmethod
    def _grant(origin: str | None) -> dict[str, str]:
        return {"Access-Control-Allow-Origin": origin or "", "Access-Control-Expose-Headers": EXPOSED_HEADERS, "Vary": "Origin"}


class CrossOrigin:
    """ASGI middleware in front of the routes: `Cors` for each path of `paths` (path → the methods it takes), so a
    route of the app gets its preflight, its 405 and its grant exactly as a wrapped endpoint does."""

    def __init__(self, app: ASGIApp, *, policy: OriginPolicy, paths: Mapping[str, Sequence[str]]) -> None:
        self.app = app
        self.guarded = {path: Cors(app, policy, methods) for path, methods in paths.items()}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        guarded = self.guarded.get(route_path(scope)) if scope["type"] == "http" else None
        await (guarded or self.app)(scope, receive, send)


def route_path(scope: Scope) -> str:
    """The path the routes see: without the root path a proxy mounts the app under."""
    path, root = str(scope.get("path", "")), str(scope.get("root_path", ""))
    return path[len(root) :] if root and path.startswith(root) else path


def allowed_headers(requested: str | None) -> str:
    """The fixed list, and the `Mcp-Param-…` headers this preflight asks for (a family no list can name in advance)."""
    names = list(ALLOWED_HEADERS)
    for name in (requested or "").split(","):
        name = name.strip()
        if name.lower().startswith(PARAM_HEADER_PREFIX) and re.fullmatch(r"[A-Za-z0-9-]{1,100}", name):
            names.append(name)
    return ", ".join(names)
