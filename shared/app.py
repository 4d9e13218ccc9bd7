"""The ASGI application: both MCP endpoints (stateless Streamable HTTP), /healthz and /docs in one process."""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib.metadata
import logging
from collections.abc import AsyncIterator
from pathlib import Path

from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from sqlalchemy import text
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from shared.catalog.cursor import CursorCodec
from shared.db.session import Database
from shared.runtime.adapter import ServerDefinition, build_server
from shared.runtime.context import ToolContext
from shared.secrets import ensure_secret
from shared.settings import Settings

log = logging.getLogger("athaus.app")
DOCS_DIR = Path(__file__).resolve().parent.parent / "docs"


def version() -> str:
    try:
        return importlib.metadata.version("athaus-mcp")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


def server_definitions() -> dict[str, ServerDefinition]:
    """Path segment → server; `athaus serve makler|suche` picks one, the default serves all."""
    from broker_server.server import DEFINITION as broker
    from search_server.server import DEFINITION as search

    return {"makler": broker, "suche": search}


def tool_context(settings: Settings, db: Database) -> ToolContext:
    secret = settings.secret_key
    if secret is None:
        with db.unit_of_work() as session:
            secret = ensure_secret(session, "cursor")
    return ToolContext(db=db, settings=settings, cursors=CursorCodec(secret.encode(), dt.timedelta(seconds=settings.cursor_ttl_seconds)))


def create_app(settings: Settings, db: Database, only: str | None = None) -> Starlette:
    context = tool_context(settings, db)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=settings.allowed_hosts, allowed_origins=settings.allowed_origins
    )
    managers: list[StreamableHTTPSessionManager] = []
    routes: list[BaseRoute] = []
    for path, definition in server_definitions().items():
        if only and path != only:
            continue
        manager = StreamableHTTPSessionManager(
            app=build_server(definition, context, version()), stateless=True, json_response=True, security_settings=security
        )
        managers.append(manager)
        routes.append(Route(f"/{path}/mcp", endpoint=StreamableHTTPASGIApp(manager), methods=["GET", "POST", "DELETE"]))

    served = [route.path for route in routes if isinstance(route, Route)]

    async def healthz(request: Request) -> JSONResponse:
        try:
            with db.read_only() as session:
                session.execute(text("SELECT 1"))
        except Exception:
            log.exception("health check failed")
            return JSONResponse({"status": "unavailable", "database": "unreachable"}, status_code=503)
        return JSONResponse({"status": "ok", "version": version(), "servers": served})

    async def docs_root(request: Request) -> RedirectResponse:
        return RedirectResponse("/docs/index.md")

    routes.append(Route("/healthz", endpoint=healthz))
    if DOCS_DIR.is_dir():
        routes.append(Route("/docs", endpoint=docs_root))
        routes.append(Mount("/docs", app=StaticFiles(directory=DOCS_DIR), name="docs"))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    return Starlette(routes=routes, lifespan=lifespan)
