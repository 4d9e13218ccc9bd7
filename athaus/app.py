"""The ASGI application: both MCP endpoints (stateless Streamable HTTP) as OAuth resource servers, the built-in
authorization server with its sign-in pages (unless an external one is configured), /healthz and the docs site at /docs/ in one process."""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata
import logging
from collections.abc import AsyncIterator

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from athaus.docs.site import SITE_DIR
from athaus.servers import DEFINITIONS
from shared.auth.external import JwksKeys, JwtTokenResolver
from shared.auth.resource import BearerAuthentication, StoredTokenResolver, TokenResolver, protected_resource_route
from shared.auth.server import AuthorizationServer
from shared.db.session import Database
from shared.matching.notify import Listener, deliver
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import build_server
from shared.runtime.context import ToolContext
from shared.secrets import ensure_secret
from shared.settings import Settings
from shared.web.consent import SignInPages

log = logging.getLogger("athaus.app")


def version() -> str:
    try:
        return importlib.metadata.version("athaus-mcp")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


def tool_context(settings: Settings, db: Database) -> ToolContext:
    secret = settings.secret_key
    if secret is None:
        with db.unit_of_work() as session:
            secret = ensure_secret(session, "cursor")
    return ToolContext(db=db, settings=settings, cursors=CursorCodec(secret.encode(), dt.timedelta(seconds=settings.cursor_ttl_seconds)))


def auth_secret(settings: Settings, db: Database) -> str:
    """Signs pending authorization requests, login sessions and CSRF tokens; shared by all instances."""
    if settings.secret_key is not None:
        return settings.secret_key
    with db.unit_of_work() as session:
        return ensure_secret(session, "oauth")


def token_resolver(settings: Settings, db: Database) -> TokenResolver:
    if settings.oauth_issuer and settings.oauth_jwks_url:
        return JwtTokenResolver(settings, db, JwksKeys(settings.oauth_jwks_url))
    return StoredTokenResolver(settings, db)


def _on_listing_event(payload: dict[str, object]) -> None:
    log.info('{"event": "listing_event", "kind": "%s", "listing": "%s"}', payload.get("kind"), payload.get("listing"))
    deliver(payload)


def create_app(settings: Settings, db: Database, only: str | None = None) -> Starlette:
    context = tool_context(settings, db)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=settings.allowed_hosts, allowed_origins=settings.allowed_origins
    )
    resolver = token_resolver(settings, db)
    managers: list[StreamableHTTPSessionManager] = []
    routes: list[BaseRoute] = []
    served: list[str] = []
    for name, definition in DEFINITIONS.items():
        if only and name.value != only:
            continue
        manager = StreamableHTTPSessionManager(
            app=build_server(definition, context, version()), stateless=True,
            json_response=not settings.stream_responses,
            security_settings=security,
        )
        managers.append(manager)
        endpoint = BearerAuthentication(
            StreamableHTTPASGIApp(manager),
            server=name,
            settings=settings,
            resolver=resolver,
            # A server without public tools has nothing to offer anonymously; its 401 starts the client's sign-in.
            require_token=all(spec.right.scope for spec in definition.spec.tools),
        )
        served.append(definition.spec.path)
        routes.append(Route(served[-1], endpoint=endpoint, methods=["GET", "POST", "DELETE"]))
        routes.append(protected_resource_route(settings, name))
    if settings.oauth_issuer is None:
        secret = auth_secret(settings, db)
        authorization_server = AuthorizationServer(settings, db, secret)
        routes += [*authorization_server.routes(), *SignInPages(authorization_server, secret).routes()]

    async def healthz(request: Request) -> JSONResponse:
        try:
            with db.read_only() as session:
                session.execute(text("SELECT 1"))
        except Exception:
            log.exception("health check failed")
            return JSONResponse({"status": "unavailable", "database": "unreachable"}, status_code=503)
        return JSONResponse({"status": "ok", "version": version(), "servers": served})

    async def docs_root(request: Request) -> RedirectResponse:
        return RedirectResponse("/docs/", status_code=308)

    routes.append(Route("/healthz", endpoint=healthz))
    # The built docs site ships inside the package (athaus/docs/site/, package data), so every install serves it.
    if (SITE_DIR / "index.html").is_file():
        routes.append(Route("/docs", endpoint=docs_root))
        routes.append(Mount("/docs", app=StaticFiles(directory=SITE_DIR, html=True), name="docs"))
    else:
        log.warning('{"event": "docs_site_missing", "path": "%s"}', SITE_DIR)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            if db.engine.dialect.name == "postgresql":
                # Listing events of every instance on this database (shared/matching/notify.py): logged, and handed
                # to this instance's subscribers.
                listener = Listener(db.engine.url.render_as_string(hide_password=False), _on_listing_event)
                stack.callback(listener.stop)
            yield

    return Starlette(routes=routes, lifespan=lifespan)
