"""The ASGI application, a FastAPI app: both MCP endpoints (stateless Streamable HTTP) as OAuth resource servers, the built-in
authorization server with its sign-in pages (unless an external one is configured), the web app of pending
confirmations at /app/, /healthz and the docs site at /docs/ in one process."""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import hmac
import logging
import os
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.to_thread
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from fastapi import APIRouter, FastAPI
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles

from athaus.dispatch import McpPaths
from athaus.draining import CloseWhileDraining, Drain
from athaus.docs.site import SITE_DIR
from athaus.health import HEALTH_DEADLINE_SECONDS, health_router
from athaus.record_pages import record_router
from athaus.servers import DEFINITIONS
from athaus.transport import ProgressAwareTransport
from shared.auth.challenge import RightsMap
from contract.rights import ServerName
from shared.auth.cors import WRONG_ORIGIN, Cors, CrossOrigin, OriginPolicy, SameOrigin
from shared.auth.external import JwksKeys, JwtTokenResolver
from shared.auth.resource import BearerAuthentication, StoredTokenResolver, TokenResolver, protected_resource_router
from shared.auth.server import CROSS_ORIGIN, AuthorizationServer
from shared.catalog.places import gazetteer
from shared.db.session import Database
from shared.images import FolderStore
from shared.images.web import image_router
from shared.logging import configure, console_wanted
from shared.matching.notify import Listener, deliver
from shared.outbox.alerts import queue_alerts
from shared.outbox.worker import SmtpMailer, deliver_due, outbox_counts
from shared.identity import announce, version
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import build_server
from shared.runtime.context import ToolContext
from shared.runtime.edge import AcceptedHosts, Edge, HostCheck
from shared.runtime.failures import in_worker
from shared.runtime.sessions import DeclaredSessions
from shared.runtime.response_headers import EveryResponseHeaders
from shared.routing import EXCEPTION_HANDLERS, HeadRoute, allowed_methods, openapi_document
from shared.secrets import ensure_secret, load_secret
from shared.settings import Settings
from shared.web.accounts import AccountPages
from shared.telemetry import tracing
from shared.telemetry.asgi import Telemetry
from shared.telemetry.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from shared.telemetry.metrics import exposition, operator_may_read
from shared.telemetry.processes import register as register_process
from shared.web.consent import SignInPages
from shared.web.pages import error_page
from shared.webapp.app import WebApp
from shared.webapp.people import PeoplePages
from shared.webapp.office import OfficePages

log = logging.getLogger("athaus.app")


def tool_context(settings: Settings, db: Database) -> ToolContext:
    secret = settings.secret_key
    if secret is None:
        with db.unit_of_work() as session:
            secret = load_secret(session, "cursor", dt.datetime.now(dt.UTC))
    previous = [(value.encode(), retires) for value, retires in getattr(secret, "previous", ())]
    return ToolContext(
        db=db, settings=settings, cursors=CursorCodec(secret.encode(), dt.timedelta(seconds=settings.cursor_ttl_seconds), previous=previous)
    )


def auth_secret(settings: Settings, db: Database) -> str:
    """Signs pending authorization requests, login sessions, CSRF tokens and MCP session ids; shared by all instances."""
    if settings.secret_key is not None:
        return settings.secret_key
    with db.unit_of_work() as session:
        return load_secret(session, "oauth", dt.datetime.now(dt.UTC))


def token_resolver(settings: Settings, db: Database) -> TokenResolver:
    if settings.oauth_issuer and settings.oauth_jwks_url:
        return JwtTokenResolver(settings, db, JwksKeys(settings.oauth_jwks_url))
    return StoredTokenResolver(settings, db)


async def deliver_outbox(settings: Settings, db: Database, mailer: SmtpMailer, now: Callable[[], dt.datetime]) -> None:
    """The outbox worker inside the app (ATHAUS_OUTBOX_WORKER): every few seconds, in a thread, the due alerts of saved
    searches are queued and the due e-mails delivered."""
    while True:
        try:
            await anyio.to_thread.run_sync(queue_alerts, db, now())
            await anyio.to_thread.run_sync(deliver_due, db, settings, mailer, now())
        except Exception:
            log.exception("outbox round failed")
        await anyio.sleep(settings.outbox_poll_seconds)


def _on_listing_event(payload: dict[str, object]) -> None:
    # the channel also carries access changes ({"event": ...}, no listing): logged under their own name
    if "event" in payload:  # plumbing heard by every worker (the change itself is logged once, where it is written)
        log.debug('{"event": "notification", "kind": "%s"}', payload.get("event"))
    else:
        log.info('{"event": "listing_event", "kind": "%s", "listing": "%s"}', payload.get("kind"), payload.get("listing"))
    deliver(payload)


SERVE_ONLY_ENV = "ATHAUS_SERVE_ONLY"  # set by `athaus serve makler|suche` for its worker processes


def app_from_environment() -> FastAPI:
    """The app of one worker process of `athaus serve --workers N` (uvicorn factory): settings from the environment,
    its own connection pool; every secret (cursor key, sign-in key) comes from the database, so all workers and all
    instances on one database answer alike."""
    settings = Settings()
    configure(settings.log_level, console_wanted(settings.log_format, settings.development))
    register_process("worker")  # its process metrics at every scrape (shared/telemetry/processes.py)
    workers = max(1, int(os.environ.get(WORKERS_ENV, "1")))
    # the database's connections are shared by the workers: each gets its part (two workers: 10 + 20 each, as one
    # process alone has), never less than a handful, so N workers need about 60 connections at most in all
    db = Database.from_url(settings.database_url, pool_size=max(4, 20 // workers), max_overflow=max(8, 40 // workers))
    return create_app(settings, db, only=os.environ.get(SERVE_ONLY_ENV) or None)


WORKERS_ENV = "ATHAUS_SERVE_WORKERS"


def create_app(settings: Settings, db: Database, only: str | None = None) -> FastAPI:
    """One FastAPI app: the HTTP routes of the rooms (OAuth, sign-in pages, web app, health) with their OpenAPI
    document, the MCP endpoints and the docs site mounted on it."""
    announce(settings.public_url)  # outbound requests name this deployment (shared/identity.py)
    tracing.configure(configured_endpoint=settings.otlp_endpoint, pseudonym_key=pseudonym_key(settings, db))
    context = tool_context(settings, db)
    hosts = AcceptedHosts(settings.public_url, settings.allowed_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts.for_the_sdk(), allowed_origins=settings.allowed_origins
    )
    resolver = token_resolver(settings, db)
    drain = Drain(settings.drain_seconds)  # SIGTERM: readiness 503, then stop (athaus/draining.py)
    origins = OriginPolicy(settings.allowed_origins)
    managers: list[StreamableHTTPSessionManager] = []
    secret = auth_secret(settings, db)  # signs sign-in state and the 2025-11-25 session ids alike (one key per purpose)
    mcp_endpoints: dict[str, Cors] = {}
    routers: list[APIRouter] = []
    cross_origin: dict[str, tuple[str, ...]] = {}
    served: list[str] = []
    names: list[ServerName] = []
    for name, definition in DEFINITIONS.items():
        if only and name.value != only:
            continue
        server = build_server(definition, context, version())
        # One low-level server, two answer forms (athaus/transport.py): JSON, or a stream when progress is asked for.
        as_json, as_stream = (
            StreamableHTTPSessionManager(app=server, stateless=True, json_response=json_form, security_settings=security)
            for json_form in (not settings.stream_responses, False)
        )
        managers += [as_json, as_stream]
        # What a 2025-11-25 client declared at initialize travels in its signed session id (shared/runtime/sessions.py).
        transport = ProgressAwareTransport(StreamableHTTPASGIApp(as_json), StreamableHTTPASGIApp(as_stream))
        endpoint = BearerAuthentication(
            DeclaredSessions(transport, server=name.value, secret=secret),
            server=name,
            settings=settings,
            resolver=resolver,
            # A server without public tools has nothing to offer anonymously; its 401 starts the client's sign-in.
            require_token=all(spec.right.scope for spec in definition.spec.tools),
            rights=RightsMap(definition.spec),
        )
        served.append(definition.spec.path)
        names.append(name)
        # Stateless JSON responses: POST only. A GET (an event stream that would only ping) is 405 with Allow: POST.
        mcp_endpoints[served[-1]] = Cors(endpoint, origins, ["POST"])
    resource_metadata, resource_paths = protected_resource_router(settings, names)
    routers.append(resource_metadata)
    cross_origin.update(resource_paths)
    if settings.oauth_issuer is None:
        authorization_server = AuthorizationServer(settings, db, secret)
        sign_in_pages = SignInPages(authorization_server, secret)
        # Sign-up, reset and invitations only with the built-in server: an external one owns its accounts' passwords.
        routers += [authorization_server.router(), sign_in_pages.router(), AccountPages(sign_in_pages).router()]
        cross_origin.update(CROSS_ORIGIN)
    # The web app: the same accounts confirm there what waits for their click (SPEC section 7).
    webapp = WebApp(settings, db, secret, now=context.now)
    routers += [webapp.router(), PeoplePages(webapp).router(), OfficePages(webapp).router()]  # the owner's staff list and office, everyone's "Meine Daten"
    # What a record's link opens (the connector tools hand them out): the public exposé, the office's records.
    routers.append(record_router(context, webapp))
    routers.append(health_router(db, served, drain))

    async def office_of(request: Request) -> int | None:  # a draft's photos: for the signed-in people of its office
        account = await webapp.account(request)
        return account.office_id if account is not None else None

    routers.append(image_router(FolderStore(settings.images_dir), db, office_of))  # the photos imported listings show
    routers.append(metrics_router(settings, db))
    # The built docs site ships inside the package (athaus/docs/site/, package data), so every install serves it.
    docs_site = (SITE_DIR / "index.html").is_file()
    if docs_site:
        routers.append(docs_router())
    else:
        log.warning('{"event": "docs_site_missing", "path": "%s"}', SITE_DIR)

    mailer = SmtpMailer.from_settings(settings) if settings.outbox_worker else None

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Before the first request is taken (uvicorn binds after this): the place index search and write tools resolve
        # against, read from the shipped file in about a second, which no caller should wait for.
        await anyio.to_thread.run_sync(gazetteer)
        drain.install()  # uvicorn's SIGTERM handler is in place by now (main thread only)
        async with contextlib.AsyncExitStack() as stack:
            # said last, once the requests, the outbox worker and the listener have stopped
            stack.callback(log.info, '{"event": "stopped", "text": "Athaus beendet: Anfragen abgeschlossen, Postausgang und Listener angehalten."}')
            # the spans of the last requests: uvicorn ends the process by re-raising SIGTERM, so no atexit hook runs
            stack.callback(tracing.flush)
            for manager in managers:
                await stack.enter_async_context(manager.run())
            if db.engine.dialect.name == "postgresql":
                # Listing events of every instance on this database (shared/matching/notify.py): logged, and handed
                # to this instance's subscribers.
                listener = Listener(db.engine.url.render_as_string(hide_password=False), _on_listing_event)
                stack.callback(listener.stop)
            tasks = await stack.enter_async_context(anyio.create_task_group())
            if mailer is not None:
                tasks.start_soon(deliver_outbox, settings, db, mailer, context.now)
            yield
            tasks.cancel_scope.cancel()  # the outbox round in flight (a thread) ends its transaction first

    app = FastAPI(
        title="Athaus",
        version=version(),
        description=OPENAPI_DESCRIPTION,
        lifespan=lifespan,
        middleware=[
            Middleware(CloseWhileDraining, drain=drain),  # draining: each answer closes its connection
            Middleware(Telemetry),  # outermost: the request id and span cover the edge's own answers (413, 503) too
            Middleware(EveryResponseHeaders),  # nosniff on every response, the host check's and the edge's own too
            Middleware(HostCheck, hosts=hosts, bind_port=settings.port),
            # every state-changing request from another site: 403 before its body is read (the MCP endpoints: the SDK)
            Middleware(
                SameOrigin, public_url=settings.public_url, policy=origins, cross_origin=cross_origin, skip=mcp_endpoints, refusal=wrong_origin
            ),
            Middleware(Edge, max_body_bytes=settings.max_request_bytes, deadline_seconds=settings.call_deadline_seconds),
            Middleware(CrossOrigin, policy=origins, paths=cross_origin),
            Middleware(McpPaths, endpoints=mcp_endpoints),  # innermost: an MCP call skips FastAPI's routing (athaus/dispatch.py)
        ],
        exception_handlers=EXCEPTION_HANDLERS,
        openapi_url=OPENAPI_PATH if settings.serves_openapi else None,
        docs_url=None,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    for router in routers:
        app.include_router(router)
    app.state.allowed_methods = allowed_methods(routers)
    # The MCP endpoints: ASGI apps of their own at their exact paths, outside the OpenAPI document (reached through
    # McpPaths; registered as routes as well, so the router knows every path the app serves).
    for path, mcp_endpoint in mcp_endpoints.items():
        app.add_route(path, mcp_endpoint, include_in_schema=False)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = openapi_document(app.title, app.version, app.description, app.routes)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    if docs_site:
        app.mount("/docs", StaticFiles(directory=SITE_DIR, html=True), name="docs")
    return app


def wrong_origin(to_an_endpoint: bool) -> Response:
    """The refusal of a request from another site: the OAuth error form at an endpoint, a page at a form."""
    if to_an_endpoint:
        return JSONResponse({"error": "invalid_request", "error_description": WRONG_ORIGIN}, status_code=403)
    return error_page("Anfrage abgelehnt", WRONG_ORIGIN, 403)


OPENAPI_PATH = "/openapi.json"
OPENAPI_DESCRIPTION = (
    "Die HTTP-Endpunkte von Athaus: OAuth-Autorisierungsserver, Anmeldeseiten, Web-App und Zustand. "
    "Die beiden MCP-Server (/makler/mcp, /suche/mcp) sprechen MCP und stehen nicht in diesem Dokument; "
    "ihre Werkzeuge beschreibt die Dokumentation unter /docs/."
)


def pseudonym_key(settings: Settings, db: Database) -> bytes:
    """The key of the pseudonyms in spans and logs: the same on every instance of one database."""
    if settings.secret_key is not None:
        return hmac.new(settings.secret_key.encode(), b"pseudonym", hashlib.sha256).digest()
    with db.unit_of_work() as session:
        return ensure_secret(session, "pseudonym").encode()


def metrics_router(settings: Settings, db: Database) -> APIRouter:
    """/metrics for the operator only: 404 unless ATHAUS_METRICS_TOKEN is set, 401 without that bearer token."""
    router = APIRouter(route_class=HeadRoute, tags=["Betrieb"])
    gauges = {
        "athaus_outbox_backlog": ("E-mails waiting to be sent (queued or being sent)", lambda: outbox_counts(db)["backlog"]),
        "athaus_outbox_failed": ("E-mails given up after their last attempt", lambda: outbox_counts(db)["failed"]),
    }

    @router.get("/metrics", summary="Kennzahlen (Prometheus), nur mit ATHAUS_METRICS_TOKEN")
    async def metrics(request: Request) -> Response:
        allowed = operator_may_read(settings.metrics_token, request.headers.get("authorization"))
        if allowed is None:
            return PlainTextResponse("Nicht gefunden.", status_code=404)
        if not allowed:
            return PlainTextResponse(
                "Die Kennzahlen brauchen das Token aus ATHAUS_METRICS_TOKEN.", status_code=401, headers={"WWW-Authenticate": "Bearer"}
            )
        body = await in_worker(HEALTH_DEADLINE_SECONDS, exposition, gauges)
        return Response(body, media_type=METRICS_CONTENT_TYPE)

    return router


def docs_router() -> APIRouter:
    router = APIRouter(route_class=HeadRoute)

    @router.get("/docs", include_in_schema=False)
    async def docs_root() -> RedirectResponse:
        return RedirectResponse("/docs/", status_code=308)

    return router
