"""Both MCP servers as OAuth resource servers: RFC 9728 metadata and the bearer-token middleware.

The middleware turns `Authorization: Bearer …` into a Principal under PRINCIPAL_SCOPE_KEY. A token
that is unknown, expired, revoked or issued for the other server (RFC 8707 audience) is answered with
401 and `error="invalid_token"`. Without a token, a server whose every tool needs a right answers 401
(that is how ChatGPT and Claude find the authorization server); the other passes the request on without
a principal, so its public tools keep working, but a call that needs a right gets 401 naming it in
`scope`, and a token without the right gets 403 `insufficient_scope` (shared.auth.challenge decides).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable
from typing import Protocol
from urllib.parse import urlsplit

import anyio.to_thread
from fastapi import APIRouter
from mcp.server.auth.handlers.metadata import ProtectedResourceMetadataHandler
from mcp.shared.auth import ProtectedResourceMetadata
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from contract.rights import ServerName
from shared.auth.challenge import NOTHING, RightsMap, challenge_header, peek_body
from shared.auth.card_hosts import CardHosts
from shared.auth.access import ACCESS_CHANGED, SERVER_TITLES, account_of_token, build_principal, server_scopes, watch_access_changes
from shared.auth.principal import PRINCIPAL_SCOPE_KEY, Principal
from shared.auth.tokens import DEVELOPMENT_CLIENT_ID, digest
from shared.db.models import utcnow
from shared.db.session import Database
from shared.matching.notify import subscribe
from shared.routing import HeadRoute
from shared.settings import Settings

log = logging.getLogger("athaus.oauth")


class TokenResolver(Protocol):
    async def principal(self, token: str, server: ServerName) -> Principal | None:
        """The caller a valid access token for `server` stands for; None for any token this server must refuse."""
        ...


class PrincipalCache:
    """Principals of valid access tokens for a few seconds (issue 21: every call with a token looked it up, a
    transaction of its own). An entry lives at most `seconds` and never past its token's expiry; `clear()` empties
    it, and a lookup that started before a clear is not stored (it may have read what the clear was about)."""

    MAX_ENTRIES = 10_000  # beyond, the cache starts afresh: memory stays bounded whatever the number of tokens

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._entries: dict[tuple[str, ServerName], tuple[Principal, float]] = {}
        self._generation = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, ServerName]) -> tuple[Principal | None, int]:
        """The cached principal (None if absent or stale) and the generation to `put` a fresh lookup under."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and entry[1] > time.monotonic():
                return entry[0], self._generation
            return None, self._generation

    def put(self, key: tuple[str, ServerName], principal: Principal, generation: int, seconds_left: float) -> None:
        with self._lock:
            if generation != self._generation or self.seconds <= 0:
                return
            if len(self._entries) >= self.MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (principal, time.monotonic() + min(self.seconds, seconds_left))

    def clear(self) -> None:
        with self._lock:
            self._generation += 1
            self._entries.clear()


class StoredTokenResolver:
    """Access tokens of the built-in authorization server, looked up by their digest.

    What a token stands for is kept for PRINCIPAL_SECONDS (PrincipalCache). A revocation, a rotated or replayed token, a
    password change, a left office or a deleted account empties the cache of this process at commit and, through
    the listing events' NOTIFY channel (shared.matching.notify), of every worker and instance on PostgreSQL; only while
    that listener is reconnecting can a revoked token still serve, for at most PRINCIPAL_SECONDS."""

    PRINCIPAL_SECONDS = 5.0

    def __init__(self, settings: Settings, db: Database, cache_seconds: float | None = None) -> None:
        self.settings = settings
        self.db = db
        self.cache = PrincipalCache(self.PRINCIPAL_SECONDS if cache_seconds is None else cache_seconds)
        self.card_hosts = CardHosts.listing(settings.card_hosts)
        watch_access_changes(db, self.cache.clear)
        subscribe(self._heard)

    def _heard(self, payload: dict[str, object]) -> None:
        if payload.get("event") == ACCESS_CHANGED:
            self.cache.clear()

    async def principal(self, token: str, server: ServerName) -> Principal | None:
        key = (digest(token), server)
        cached, generation = self.cache.get(key)
        if cached is not None:
            return cached
        return await anyio.to_thread.run_sync(self._resolve, token, server, key, generation)

    def _resolve(self, token: str, server: ServerName, key: tuple[str, ServerName], generation: int) -> Principal | None:
        resource = self.settings.resource_url(server.value)
        with self.db.read_only() as session:
            found = account_of_token(session, token)
        if found is None or found.access.resource != resource:
            return None
        access = found.access
        if access.client_id == DEVELOPMENT_CLIENT_ID and not self.settings.development:
            log.info(json.dumps({"event": "development_token_refused", "server": server.value}))
            return None
        card_host = self.card_hosts.recognises(access.client_id, found.redirect_uris)
        principal = build_principal(found.account, access.scopes, server, resource, access.client_id, card_host=card_host)
        self.cache.put(key, principal, generation, (found.expires_at - utcnow()).total_seconds())
        return principal


class BearerAuthentication:
    """ASGI middleware in front of one MCP endpoint: the caller from the token, and the HTTP challenge for a call
    that needs a right the caller does not hold (see shared.auth.challenge)."""

    def __init__(
        self, app: ASGIApp, *, server: ServerName, settings: Settings, resolver: TokenResolver, require_token: bool, rights: RightsMap
    ) -> None:
        self.app = app
        self.server = server
        self.resolver = resolver
        self.require_token = require_token
        self.rights = rights
        self.resource_metadata_url = settings.resource_metadata_url(server.value)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        needs = NOTHING
        if scope.get("method") == "POST":
            body, receive = await peek_body(receive)
            if body is not None:
                needs = self.rights.needs(body, headers.get("user-agent"))
        authorization = headers.get("authorization")
        if authorization is None:
            if self.require_token or (needs.scopes and not needs.in_result):
                message = f"{SERVER_TITLES[self.server]} braucht dafür eine Anmeldung: bitte das Athaus-Konto verbinden."
                await self._challenge(401, None, message, needs.scopes or self.rights.basic)(scope, receive, send)
            else:
                await self.app(scope, receive, send)
            return
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        principal = await self.resolver.principal(token, self.server) if scheme.lower() == "bearer" and token else None
        if principal is None:
            log.info(json.dumps({"event": "token_refused", "server": self.server.value}))
            message = "Das Zugangstoken ist ungültig, abgelaufen, widerrufen oder für einen anderen Server ausgestellt."
            await self._challenge(401, "invalid_token", message, needs.scopes or self.rights.basic)(scope, receive, send)
            return
        missing = [right for right in needs.scopes if right not in principal.scopes]
        if missing and not needs.in_result:
            log.info(json.dumps({"event": "insufficient_scope", "server": self.server.value, "missing": missing}))
            message = f"Dieser Verbindung fehlt das Recht {', '.join(missing)}: bitte den Zugriff erweitern."
            await self._challenge(403, "insufficient_scope", message, needs.scopes)(scope, receive, send)
            return
        await self.app({**scope, PRINCIPAL_SCOPE_KEY: principal}, receive, send)

    def _challenge(self, status: int, error: str | None, message: str, scopes: Iterable[str]) -> JSONResponse:
        body = {"error_description": message}
        if error:
            body = {"error": error, **body}
        header = challenge_header(self.resource_metadata_url, error=error, scopes=scopes)
        return JSONResponse(body, status_code=status, headers={"WWW-Authenticate": header})


def protected_resource_router(settings: Settings, servers: Iterable[ServerName]) -> tuple[APIRouter, dict[str, tuple[str, ...]]]:
    """RFC 9728 metadata of each MCP server, at the address its 401 challenge names; with the paths browser-based
    clients read across origins (GET, for shared.auth.cors.CrossOrigin)."""
    router = APIRouter(route_class=HeadRoute, tags=["OAuth"])
    cross_origin: dict[str, tuple[str, ...]] = {}
    for server in servers:
        metadata = ProtectedResourceMetadata.model_validate(
            {
                "resource": settings.resource_url(server.value),
                "authorization_servers": [settings.issuer],
                "scopes_supported": server_scopes(server),
                "bearer_methods_supported": ["header"],
                "resource_name": SERVER_TITLES[server],
            }
        )
        path = urlsplit(settings.resource_metadata_url(server.value)).path
        router.add_api_route(
            path,
            ProtectedResourceMetadataHandler(metadata).handle,
            methods=["GET"],
            response_model=ProtectedResourceMetadata,
            name=f"protected_resource_{server.value}",
            summary=f"Metadaten der geschützten Ressource {SERVER_TITLES[server]} (RFC 9728)",
        )
        cross_origin[path] = ("GET",)
    return router, cross_origin
