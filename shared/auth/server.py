"""The built-in OAuth 2.1 authorization server: RFC 8414 metadata, authorization requests, token, revocation,
registration.

From the SDK it takes the metadata model and handler, the dynamic client registration handler (RFC 7591)
and the wire models. Authorization, token and revocation are our own: they require the RFC 8707 `resource`
and bind everything to it, put RFC 9207 `iss` into every authorization response, accept Client ID
Metadata Documents, rotate refresh tokens with reuse detection, and accept public clients at
revocation, none of which the SDK handlers do.

What a browser sees is not here: `shared.web.consent` serves the authorization endpoint, the login and the
consent page on top of this module (`check_request`, `seal`/`unseal`, `respond`), so this layer knows
nothing of pages.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

import anyio.to_thread
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.handlers.register import RegistrationHandler
from mcp.server.auth.json_response import PydanticJSONResponse
from mcp.server.auth.provider import OAuthAuthorizationServerProvider, construct_redirect_uri
from mcp.server.auth.routes import build_metadata, validate_issuer_url
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from fastapi import APIRouter, Depends
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, OAuthToken
from pydantic import AnyHttpUrl, BaseModel
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from contract.rights import ServerName
from shared.auth import throttle, tokens
from shared.auth.cleanup import Housekeeping
from shared.auth.access import server_scopes
from shared.auth.clients import REGISTRATION_MAX_BYTES, Client, ClientRegistry
from shared.auth.signing import Signer
from shared.db.models import utcnow
from shared.db.session import Database
from shared.routing import Answer, FormModel, HeadRoute, bounded_body, read_form
from shared.settings import Settings

log = logging.getLogger("athaus.oauth")
T = TypeVar("T")

PENDING_TTL_SECONDS = 600  # time to sign in and decide on the consent page; each request is decided once
CODE_CHALLENGE = re.compile(r"^[A-Za-z0-9\-_]{43}$")  # base64url of a SHA-256 digest, unpadded
NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}
FORM_MAX_BYTES = 64 * 1024  # token and revocation requests are a few hundred bytes
# Registration may name the rights of both servers; which ones a token carries is decided per authorization.
REGISTRATION = ClientRegistrationOptions(enabled=True, valid_scopes=[scope for server in ServerName for scope in server_scopes(server)])
# Called by (possibly browser-based) clients: CORS for these paths and methods (shared.auth.cors.CrossOrigin).
CROSS_ORIGIN = {
    "/.well-known/oauth-authorization-server": ("GET",),
    "/token": ("POST",),
    "/revoke": ("POST",),
    "/register": ("POST",),
}


def canonical_resource(url: str) -> str:
    """RFC 8707 resource as compared here: scheme and host case-insensitive, no trailing slash."""
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}{parts.path.rstrip('/')}" + (f"?{parts.query}" if parts.query else "")


@dataclass(frozen=True)
class PendingAuthorization:
    """A validated authorization request, carried signed through login and consent."""

    client_id: str
    redirect_uri: str
    state: str | None
    code_challenge: str
    server: ServerName
    resource: str
    scopes: tuple[str, ...]
    redirect_uri_given: bool = True  # the request named redirect_uri, so the token request must too
    nonce: str = ""  # identifies the request for single use (shared.web.consent claims it on the decision)


@dataclass(frozen=True)
class ShownError:
    """A refused authorization request that must not go back to the client (unknown client, unregistered
    redirect URI): the browser shows it to the person instead, in German."""

    title: str
    message: str


class AuthorizationServer:
    def __init__(self, settings: Settings, db: Database, secret: str) -> None:
        self.settings = settings
        self.db = db
        self.issuer = settings.issuer
        validate_issuer_url(AnyHttpUrl(self.issuer))
        self.clients = ClientRegistry(db)
        self.housekeeping = Housekeeping(db)
        self.signer = Signer(secret, "oauth-authorization-request")
        self.servers = {canonical_resource(settings.resource_url(server.value)): server for server in ServerName}

    def server_for(self, resource: str | None) -> ServerName | None:
        return self.servers.get(canonical_resource(resource)) if resource else None

    def seal(self, pending: PendingAuthorization) -> str:
        return self.signer.dumps(
            {
                "client_id": pending.client_id,
                "redirect_uri": pending.redirect_uri,
                "state": pending.state,
                "code_challenge": pending.code_challenge,
                "server": pending.server.value,
                "scopes": list(pending.scopes),
                "given": pending.redirect_uri_given,
                "nonce": pending.nonce or secrets.token_urlsafe(24),
            },
            PENDING_TTL_SECONDS,
        )

    def unseal(self, token: str | None) -> PendingAuthorization | None:
        payload = self.signer.loads(token) if token else None
        if payload is None:
            return None
        server = ServerName(payload["server"])
        return PendingAuthorization(
            client_id=payload["client_id"],
            redirect_uri=payload["redirect_uri"],
            state=payload["state"],
            code_challenge=payload["code_challenge"],
            server=server,
            resource=self.settings.resource_url(server.value),
            scopes=tuple(payload["scopes"]),
            redirect_uri_given=bool(payload.get("given", True)),
            nonce=str(payload.get("nonce", "")),
        )

    def respond(self, redirect_uri: str, state: str | None, status_code: int = 302, **params: str) -> Response:
        """The authorization response at the client's redirect URI, always with `iss` (RFC 9207)."""
        url = construct_redirect_uri(redirect_uri, **params, state=state, iss=self.issuer)
        return RedirectResponse(url, status_code=status_code, headers={"Cache-Control": "no-store"})

    def metadata(self) -> OAuthMetadata:
        base = build_metadata(AnyHttpUrl(self.issuer), None, REGISTRATION, RevocationOptions(enabled=True))
        methods = ["none", "client_secret_post", "client_secret_basic"]
        return OAuthMetadata.model_validate(
            {
                **base.model_dump(mode="json", exclude_none=True),
                # As configured, not as a URL type renders it: clients compare the issuer as a plain string.
                "issuer": self.issuer,
                "token_endpoint_auth_methods_supported": methods,
                "revocation_endpoint_auth_methods_supported": methods,
                "client_id_metadata_document_supported": True,
                "authorization_response_iss_parameter_supported": True,
            }
        )

    async def check_request(self, params: Mapping[str, str]) -> PendingAuthorization | ShownError | Response:
        """An authorization request (code flow, PKCE S256, RFC 8707 resource) checked: the authorization to
        sign in and consent to, an error for the browser to show, or the error response at the client's
        registered redirect URI."""
        client_id = params.get("client_id")
        client = await self.clients.get(client_id) if client_id else None
        if client is None:
            return ShownError(
                "Unbekannte Anwendung",
                "Die Anwendung, die diese Anmeldung gestartet hat, ist bei Athaus nicht bekannt. Bitte die Verbindung in der Anwendung neu einrichten.",
            )
        redirect_uri = client.redirect_uri_for(params.get("redirect_uri"))
        if redirect_uri is None:
            # Never redirect to an address the client did not register: show the error here.
            return ShownError(
                "Ungültige Rücksprungadresse",
                "Die Anwendung hat eine Rücksprungadresse angegeben, die für sie nicht registriert ist. Die Anmeldung wurde abgebrochen.",
            )
        state = params.get("state")

        def refuse(error: str, description: str) -> Response:
            return self.respond(redirect_uri, state, error=error, error_description=description)

        if params.get("response_type") != "code":
            return refuse("unsupported_response_type", "Nur response_type=code wird unterstützt.")
        challenge = params.get("code_challenge", "")
        if params.get("code_challenge_method") != "S256" or not CODE_CHALLENGE.match(challenge):
            return refuse("invalid_request", "PKCE ist Pflicht: code_challenge mit code_challenge_method=S256.")
        server = self.server_for(params.get("resource"))
        if server is None:
            return refuse("invalid_target", "resource muss die Adresse eines Athaus-MCP-Servers sein (RFC 8707).")
        offered = server_scopes(server)
        # Consent offers (ticked) exactly what the client asked for; a client that names no right is offered the
        # server's reading right, the least that does anything, and widens later on a 403 insufficient_scope.
        requested = params.get("scope", "").split() or offered[:1]
        unknown = [scope for scope in requested if scope not in offered]
        if unknown:
            return refuse("invalid_scope", f"Unbekannte Rechte für diesen Server: {' '.join(unknown)}")
        return PendingAuthorization(
            client_id=client.client_id,
            redirect_uri=redirect_uri,
            state=state,
            code_challenge=challenge,
            server=server,
            resource=self.settings.resource_url(server.value),
            scopes=tuple(scope for scope in offered if scope in requested),
            redirect_uri_given=params.get("redirect_uri") is not None,
        )

    async def token(self, form: TokenRequest, client: Client) -> Response:
        await self.housekeeping.due()
        grant_type = form.grant_type or None
        if grant_type not in ("authorization_code", "refresh_token"):
            return _token_error("unsupported_grant_type", "Unterstützt: authorization_code und refresh_token.")
        if grant_type not in client.grant_types:
            return _token_error("unauthorized_client", f"Die Anwendung ist nicht für {grant_type} registriert.")
        # RFC 8707 at the token endpoint: optional, but if given it must name the resource the grant is bound to.
        requested = form.resource or None
        server = self.server_for(requested)
        if requested and server is None:
            return _token_error("invalid_target", "resource muss die Adresse eines Athaus-MCP-Servers sein (RFC 8707).")
        resource = self.settings.resource_url(server.value) if server else None
        if grant_type == "authorization_code":
            code, verifier = form.code or None, form.code_verifier or None
            if not code or not verifier:
                return _token_error("invalid_request", "code und code_verifier sind Pflicht.")
            outcome = await self._in_transaction(
                lambda session: tokens.redeem_code(
                    session,
                    code=code,
                    client_id=client.client_id,
                    redirect_uri=form.redirect_uri or None,
                    code_verifier=verifier,
                    resource=resource,
                )
            )
        else:
            refresh_token = form.refresh_token or None
            if not refresh_token:
                return _token_error("invalid_request", "refresh_token ist Pflicht.")
            scope = form.scope or None
            outcome = await self._in_transaction(
                lambda session: tokens.refresh(
                    session,
                    refresh_token=refresh_token,
                    client_id=client.client_id,
                    scopes=scope.split() if scope else None,
                    resource=resource,
                )
            )
        if isinstance(outcome, tokens.Refusal):
            log.info(json.dumps({"event": "token_refused", "client_id": client.client_id, "grant_type": grant_type, "error": outcome.error}))
            return _token_error(outcome.error, outcome.description)
        issued = OAuthToken(
            access_token=outcome.access_token,
            expires_in=outcome.expires_in,
            scope=" ".join(outcome.scopes),
            refresh_token=outcome.refresh_token,
        )
        return PydanticJSONResponse(content=issued, headers=NO_STORE)

    async def revoke(self, form: RevocationRequest, client: Client) -> Response:
        token = form.token or None
        if not token:
            return _token_error("invalid_request", "token ist Pflicht.")
        await self._in_transaction(lambda session: tokens.revoke(session, token=token, client_id=client.client_id))
        return Response(status_code=200, headers=NO_STORE)

    def router(self) -> APIRouter:
        """The OAuth endpoints as FastAPI routes: forms as pydantic models, the authenticated client a dependency.
        CORS for them is `CROSS_ORIGIN`, answered in front of the routes (shared.auth.cors.CrossOrigin)."""
        registration = RegistrationHandler(
            # The registration handler only calls register_client; the rest of the provider protocol is ours above.
            cast(OAuthAuthorizationServerProvider[Any, Any, Any], self.clients),
            REGISTRATION,
        )
        metadata = MetadataHandler(self.metadata())
        register = self._registering(registration)
        router = APIRouter(route_class=HeadRoute, tags=["OAuth"])

        async def oauth_form(request: Request) -> FormData:
            return await read_form(request, FORM_MAX_BYTES)

        async def authenticated(request: Request, form: FormData = Depends(oauth_form)) -> Client:
            client = await self.clients.authenticate(form, request.headers.get("authorization"))
            if client is None:
                raise Answer(_client_refused())
            return client

        @router.get("/.well-known/oauth-authorization-server", response_model=OAuthMetadata, summary="Metadaten (RFC 8414)")
        async def authorization_server_metadata(request: Request) -> Response:
            return await metadata.handle(request)

        @router.post("/token", response_model=OAuthToken, openapi_extra=TokenRequest.openapi_body(), summary="Token ausstellen")
        async def token(form: FormData = Depends(oauth_form), client: Client = Depends(authenticated)) -> Response:
            return await self.token(TokenRequest.of(form), client)

        @router.post("/revoke", openapi_extra=RevocationRequest.openapi_body(), summary="Token widerrufen (RFC 7009)")
        async def revoke(form: FormData = Depends(oauth_form), client: Client = Depends(authenticated)) -> Response:
            return await self.revoke(RevocationRequest.of(form), client)

        @router.post(
            "/register",
            response_model=OAuthClientInformationFull,
            status_code=201,
            openapi_extra=_json_body(OAuthClientMetadata),
            summary="Anwendung registrieren (RFC 7591)",
        )
        async def register_client(request: Request) -> Response:
            if await bounded_body(request, REGISTRATION_MAX_BYTES) is None:
                return Response("Request body too large", status_code=413)
            return await register(request)

        return router

    def _registering(self, registration: RegistrationHandler) -> Callable[[Request], Awaitable[Response]]:
        """Dynamic registration, at most `registrations_per_minute` per address; each one counts."""
        limit = throttle.registration_limit(self.settings.registrations_per_minute)

        async def register(request: Request) -> Response:
            await self.housekeeping.due()
            address = request.client.host if request.client else "unknown"

            def check_and_count() -> int | None:
                now = utcnow()
                with self.db.unit_of_work() as session:
                    return throttle.attempt(session, [(limit, address)], now)

            wait = await anyio.to_thread.run_sync(check_and_count)
            if wait is not None:
                log.info(json.dumps({"event": "registration_throttled", "retry_after": wait}))
                return JSONResponse(
                    {"error": "slow_down", "error_description": "Zu viele Registrierungen von dieser Adresse; bitte später erneut versuchen."},
                    status_code=429,
                    headers={"Retry-After": str(wait), **NO_STORE},
                )
            return await registration.handle(request)

        return register

    async def _in_transaction(self, work: Callable[[Session], T]) -> T:
        def run() -> T:
            with self.db.unit_of_work() as session:
                return work(session)

        return await anyio.to_thread.run_sync(run)


class AuthorizationQuery(BaseModel):
    """An authorization request (OAuth 2.1 code flow with PKCE S256, RFC 8707 `resource`), as the browser brings it."""

    response_type: str | None = None
    client_id: str | None = None
    redirect_uri: str | None = None
    code_challenge: str | None = None
    code_challenge_method: str | None = None
    resource: str | None = None
    scope: str | None = None
    state: str | None = None


class TokenRequest(FormModel):
    """A token request (RFC 6749 §4.1.3, §6; RFC 8707 `resource`); the client's credentials in the form or as Basic."""

    grant_type: str | None = None
    code: str | None = None
    code_verifier: str | None = None
    redirect_uri: str | None = None
    refresh_token: str | None = None
    scope: str | None = None
    resource: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


class RevocationRequest(FormModel):
    """A revocation request (RFC 7009); a public client names itself with client_id."""

    token: str | None = None
    token_type_hint: str | None = None
    client_id: str | None = None
    client_secret: str | None = None


def _json_body(model: type[BaseModel]) -> dict[str, Any]:
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": model.model_json_schema()}}}}


def _client_refused() -> Response:
    return _token_error("invalid_client", "Die Anwendung konnte nicht authentifiziert werden.", status=401)


def _token_error(error: str, description: str, status: int = 400) -> Response:
    headers = dict(NO_STORE)
    if status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="athaus"'
    return JSONResponse({"error": error, "error_description": description}, status_code=status, headers=headers)
