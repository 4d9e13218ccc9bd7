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
from collections.abc import Callable, Iterable, Mapping, Sequence
from urllib.parse import urlsplit

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


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
WRONG_ORIGIN = (
    "Diese Anfrage kam von einer fremden Seite (Origin) und wurde nicht ausgeführt. Bitte das Formular auf der "
    "Athaus-Seite selbst öffnen und dort absenden."
)


def _origin_parts(url: str) -> tuple[str, int] | None:
    """(host, port) of an origin or a URL, the port defaulted by scheme; None when it is not one (`null`)."""
    try:
        parts = urlsplit(url)
        host, port = (parts.hostname or "").lower(), parts.port
    except ValueError:
        return None
    if not host or parts.scheme not in ("http", "https"):
        return None
    return host, port or (443 if parts.scheme == "https" else 80)


class SameOrigin:
    """ASGI middleware: every state-changing request (any method but GET, HEAD, OPTIONS) that names an `Origin` must
    come from this deployment, or else it is 403 before its body is read (README: "other origins get 403").

    This deployment is the public URL's origin and the host the request was sent to (the `Host` header, which the
    host check in front has already accepted; compared by host and port, since a proxy may end TLS before it). The
    paths of `cross_origin` (token, registration, revocation: browser-based MCP clients call them with fetch) also
    accept the origins of ATHAUS_ALLOWED_ORIGINS, as their CORS grant does. The MCP endpoints (`skip`) are checked by
    the MCP SDK with the same list.

    A request without `Origin` passes: the token endpoint, registration and revocation are called by servers and
    native clients that send none, and a browser sends one with every POST (a form of another site cannot leave it
    out). `Origin: null` (a sandboxed frame, a data: URL, a redirect across origins) is not this deployment and is
    refused; the pages say `Referrer-Policy: same-origin`, under which a browser names the real origin on their own
    forms (under `no-referrer` it would send `null`)."""

    def __init__(
        self, app: ASGIApp, *, public_url: str, policy: OriginPolicy, cross_origin: Iterable[str], skip: Iterable[str], refusal: Callable[[bool], Response]
    ) -> None:
        self.app = app
        self.public = _origin_parts(public_url)
        self.policy = policy
        self.cross_origin = frozenset(cross_origin)
        self.skip = frozenset(skip)
        self.refusal = refusal  # the answer (True: to a JSON endpoint of cross_origin, False: to a page's form)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        path = route_path(scope)
        if origin is None or path in self.skip or self._own(origin, headers.get("host", "")):
            await self.app(scope, receive, send)
            return
        if path in self.cross_origin and self.policy.allows(origin):
            await self.app(scope, receive, send)
            return
        await self.refusal(path in self.cross_origin)(scope, receive, send)

    def _own(self, origin: str, host: str) -> bool:
        parts = _origin_parts(origin)
        if parts is None:
            return False
        if parts == self.public:
            return True
        # the host the request was sent to, its port defaulted by the origin's scheme
        return bool(host) and parts == _origin_parts(f"{urlsplit(origin).scheme}://{host}")
