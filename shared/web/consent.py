"""The browser side of the built-in authorization server: its authorization endpoint, login and consent, as
German server-rendered pages.

The pending authorization request travels signed in the `anfrage` parameter; the login is a server-side session
(`shared.auth.sessions`, the cookie carries a random token), so a new password or a removal ends it at once. Every form carries a CSRF token bound to a cookie nonce (signed
double submit); a POST without it is refused with 403.
"""

from __future__ import annotations

import datetime as dt
import functools
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

import anyio.to_thread
from mcp.server.auth.routes import AUTHORIZATION_PATH
from sqlalchemy.exc import IntegrityError
from starlette.datastructures import FormData
from fastapi import APIRouter, Depends
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from contract.rights import ServerName
from shared.auth import tokens
from shared.auth.passwords import hashing
from shared.auth.devices import KnownDevices
from shared.auth.sessions import CookiePolicy, open_session, session_user
from shared.auth.access import SERVER_TITLES, Account, account_of, allowed_scopes, server_rights, sign_in
from shared.auth.clients import LOOPBACK_HOSTS
from shared.auth.models import UsedAuthorizationRequest
from shared.auth.server import PENDING_TTL_SECONDS, AuthorizationQuery, AuthorizationServer, PendingAuthorization, ShownError
from shared.auth.signing import Signer
from shared.db.models import User, utcnow
from shared.routing import Answer, FormModel, HeadRoute
from shared.web.pages import (
    CONSENT_PATH,
    LOGIN_PATH,
    carrying,
    consent_page,
    error_page,
    login_page,
    refusal_page,
    secured,
    see_other,
    too_many_attempts,
)

SESSION_COOKIE = "athaus_sitzung"  # names before the prefix (shared.auth.sessions.CookiePolicy)
CSRF_COOKIE = "athaus_csrf"
SESSION_TTL_SECONDS = 12 * 3600
FORM_MAX_BYTES = 16 * 1024

USED = (
    "Anmeldung bereits abgeschlossen",
    "Über diese Anmeldung wurde schon entschieden. Bitte die Verbindung in der Anwendung erneut starten.",
)
EXPIRED = (
    "Anmeldung abgelaufen",
    "Diese Anmeldung ist abgelaufen oder unvollständig. Bitte die Verbindung in der Anwendung erneut starten.",
)


@dataclass(frozen=True)
class _Visit:
    """A request to the login or consent page: its form (None for GET) and the authorization it works on."""

    form: FormData | None
    request_token: str
    pending: PendingAuthorization


class SignInPages:
    def __init__(self, server: AuthorizationServer, secret: str) -> None:
        self.server = server
        self.csrf = Signer(secret, "web-csrf")
        self.cookies = CookiePolicy.of(server.settings.public_url, server.settings.development)
        self.devices = KnownDevices(secret, self.cookies)

    def router(self) -> APIRouter:
        """The authorization endpoint, login and consent as FastAPI routes: the pending request, the CSRF check and
        the signed-in account are dependencies, each form a pydantic model."""
        router = APIRouter(route_class=HeadRoute, tags=["Anmeldung"], default_response_class=HTMLResponse)

        async def visit(request: Request) -> _Visit:
            checked = await self._visit(request)
            if isinstance(checked, Response):
                raise Answer(checked)
            return checked

        async def signed_in(request: Request) -> Account | None:
            """The account of the sign-in session cookie, if it is valid and the account still exists."""
            return await anyio.to_thread.run_sync(self._account, self.cookies.read(request, SESSION_COOKIE))

        # No CORS on the authorization endpoint: a browser navigates there, scripts have no business calling it.
        @router.get(AUTHORIZATION_PATH, summary="Autorisierungsanfrage (OAuth 2.1, PKCE, RFC 8707)")
        async def authorize(query: AuthorizationQuery = Depends()) -> Response:
            return await self.authorize(query)

        @router.get(LOGIN_PATH, summary="Anmeldeseite")
        async def show_login(request: Request, visit: _Visit = Depends(visit)) -> Response:
            return await self.login(request, visit)

        @router.post(LOGIN_PATH, openapi_extra=LoginForm.openapi_body(), summary="Anmelden")
        async def submit_login(request: Request, visit: _Visit = Depends(visit)) -> Response:
            return await self.login(request, visit)

        @router.get(CONSENT_PATH, summary="Zustimmungsseite")
        async def show_consent(
            request: Request, visit: _Visit = Depends(visit), account: Account | None = Depends(signed_in)
        ) -> Response:
            return await self.consent(request, visit, account)

        @router.post(CONSENT_PATH, openapi_extra=ConsentForm.openapi_body(), summary="Zustimmen oder ablehnen")
        async def submit_consent(
            request: Request, visit: _Visit = Depends(visit), account: Account | None = Depends(signed_in)
        ) -> Response:
            return await self.consent(request, visit, account)

        return router

    async def authorize(self, query: AuthorizationQuery) -> Response:
        """Where the client sends the browser: on to login and consent, or the refusal."""
        checked = await self.server.check_request(query.model_dump(exclude_none=True))
        if isinstance(checked, ShownError):
            return error_page(checked.title, checked.message)
        if isinstance(checked, PendingAuthorization):
            return RedirectResponse(
                carrying(CONSENT_PATH, self.server.seal(checked)), status_code=303, headers={"Cache-Control": "no-store"}
            )
        return checked

    async def login(self, request: Request, visit: _Visit) -> Response:
        form, request_token, pending = visit.form, visit.request_token, visit.pending
        client = await self.server.clients.get(pending.client_id)
        if client is None:
            return error_page(*EXPIRED)
        nonce, csrf_token = self._csrf_pair(request)
        page = functools.partial(
            login_page,
            client_name=client.display_name,
            server_title=SERVER_TITLES[pending.server],
            request_token=request_token,
            csrf_token=csrf_token,
        )
        if form is None:
            return self._with_csrf_cookie(page(), nonce)
        entered = LoginForm.of(form)
        email = entered.email or ""
        address = request.client.host if request.client else "unknown"
        # Counted before the password hash (a 32 MiB scrypt), the hash work bounded per process.
        known = self.devices.knows(request, email)
        outcome = await hashing(sign_in, self.server.db, email, entered.password or "", address, known)
        if outcome.retry_after is not None:
            return too_many_attempts(outcome.retry_after)
        user_id = outcome.user_id
        if user_id is None:
            return self._with_csrf_cookie(page(email=email, failed=True), nonce)
        response = await self.signed_in_to(carrying(CONSENT_PATH, request_token), user_id)
        self.devices.remember(response, email)
        return response

    async def signed_in_to(self, url: str, user_id: int) -> Response:
        """On to `url` with a new server-side session of the account."""
        token = await anyio.to_thread.run_sync(self._open_session, user_id)
        response = see_other(url)
        self._set_cookie(response, SESSION_COOKIE, token, SESSION_TTL_SECONDS)
        return response

    async def consent(self, request: Request, visit: _Visit, account: Account | None) -> Response:
        form, request_token, pending = visit.form, visit.request_token, visit.pending
        if account is None:
            return see_other(carrying(LOGIN_PATH, request_token))
        allowed = allowed_scopes(account, pending.server)
        if form is not None:
            decision = ConsentForm.of(form)
            return await self._decide(pending, account, list(decision.scope), allowed, decision.entscheidung)
        client = await self.server.clients.get(pending.client_id)
        if client is None:
            return error_page(*EXPIRED)
        nonce, csrf_token = self._csrf_pair(request)
        rights = [right for right in server_rights(pending.server) if right.scope in pending.scopes and right.scope in allowed]
        if not rights:
            page = refusal_page(
                message=_why_not(account, pending.server), user_name=account.name, request_token=request_token, csrf_token=csrf_token
            )
            return self._with_csrf_cookie(page, nonce)
        redirect = urlsplit(pending.redirect_uri)
        page = consent_page(
            client_name=client.display_name,
            server_title=SERVER_TITLES[pending.server],
            user_name=account.name,
            user_email=account.email,
            redirect_host=redirect.netloc,
            loopback=redirect.hostname in LOOPBACK_HOSTS,
            rights=rights,
            request_token=request_token,
            csrf_token=csrf_token,
        )
        return self._with_csrf_cookie(page, nonce)

    async def _visit(self, request: Request) -> _Visit | Response:
        """A POST must carry a valid CSRF token; both methods a pending authorization that is still valid.

        A POST without the CSRF cookie is refused before its body is read, and the body is read only up to
        FORM_MAX_BYTES: these forms are a few hundred bytes."""
        form = None
        if request.method == "POST":
            if not self.cookies.read(request, CSRF_COOKIE):
                return _csrf_refused()
            form = await _bounded_form(request)
            if form is None:
                return error_page("Formular zu groß", "Das Formular war zu groß. Bitte die Seite neu laden und es erneut versuchen.", status=413)
        if form is not None and not self._csrf_valid(request, form):
            return _csrf_refused()
        request_token = SignInForm.of(form).anfrage if form is not None else request.query_params.get("anfrage")
        pending = self.server.unseal(request_token)
        if pending is None or request_token is None:
            return error_page(*EXPIRED)
        return _Visit(form, request_token, pending)

    async def _decide(
        self, pending: PendingAuthorization, account: Account, chosen: list[str], allowed: frozenset[str], decision: str | None
    ) -> Response:
        granted = [scope for scope in pending.scopes if scope in chosen and scope in allowed]
        if not await anyio.to_thread.run_sync(self._claim, pending):
            return error_page(*USED)
        if decision != "erlauben" or not granted:
            return secured(
                self.server.respond(
                    pending.redirect_uri, pending.state, 303, error="access_denied", error_description="Kein Recht erteilt."
                )
            )

        def store() -> str:
            with self.server.db.unit_of_work() as session:
                return tokens.store_code(
                    session,
                    client_id=pending.client_id,
                    user_id=account.user_id,
                    redirect_uri=pending.redirect_uri,
                    code_challenge=pending.code_challenge,
                    resource=pending.resource,
                    scopes=granted,
                    redirect_uri_given=pending.redirect_uri_given,
                )

        code = await anyio.to_thread.run_sync(store)
        return secured(self.server.respond(pending.redirect_uri, pending.state, 303, code=code))

    def _claim(self, pending: PendingAuthorization) -> bool:
        """Single use: the first decision on a pending authorization request wins, a replayed form is refused."""
        expires = utcnow() + dt.timedelta(seconds=PENDING_TTL_SECONDS)
        try:
            with self.server.db.unit_of_work() as session:
                session.add(UsedAuthorizationRequest(nonce=pending.nonce, expires_at=expires))
        except IntegrityError:
            return False
        return True

    def _account(self, token: str | None) -> Account | None:
        with self.server.db.read_only() as session:
            user_id = session_user(session, token, utcnow())
            return account_of(session, session.get(User, user_id)) if user_id is not None else None

    def _open_session(self, user_id: int) -> str:
        with self.server.db.unit_of_work() as session:
            return open_session(session, user_id, utcnow(), dt.timedelta(seconds=SESSION_TTL_SECONDS))

    def _csrf_pair(self, request: Request) -> tuple[str, str]:
        """The cookie nonce (kept if the browser has a valid one) and the form token bound to it."""
        nonce = self.cookies.read(request, CSRF_COOKIE) or secrets.token_urlsafe(32)
        return nonce, self.csrf.mac(nonce)

    def _csrf_valid(self, request: Request, form: FormData) -> bool:
        nonce, sent = self.cookies.read(request, CSRF_COOKIE), SignInForm.of(form).csrf_token
        return nonce is not None and sent is not None and self.csrf.verify(nonce, sent)

    def _with_csrf_cookie(self, response: Response, nonce: str) -> Response:
        self._set_cookie(response, CSRF_COOKIE, nonce, None)
        return response

    def _set_cookie(self, response: Response, name: str, value: str, max_age: int | None) -> None:
        self.cookies.set(response, name, value, max_age)


class SignInForm(FormModel):
    """What every sign-in form carries: the pending authorization request and the CSRF token."""

    anfrage: str | None = None
    csrf_token: str | None = None


class LoginForm(SignInForm):
    email: str | None = None
    password: str | None = None


class ConsentForm(SignInForm):
    entscheidung: str | None = None  # "erlauben" or "ablehnen"
    scope: list[str] = []  # the rights ticked


async def _bounded_form(request: Request) -> FormData | None:
    """The url-encoded form of a POST, or None if it is larger than FORM_MAX_BYTES (never read beyond that)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > FORM_MAX_BYTES:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_MAX_BYTES:
            return None
    return FormData(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def _csrf_refused() -> Response:
    return error_page(
        "Formular abgelehnt",
        "Das Formular war abgelaufen oder unvollständig (Sicherheitsprüfung). Bitte die Seite neu laden und es erneut versuchen.",
        status=403,
    )


def _why_not(account: Account, server: ServerName) -> str:
    title = SERVER_TITLES[server]
    if server is ServerName.broker and account.kind == "broker":
        return f"Dein Konto {account.email} gehört zu keinem Maklerbüro; {title} braucht die Mitgliedschaft in einem Büro."
    if server is ServerName.broker:
        return (
            f"{title} ist für Maklerinnen und Makler eines Büros. Dein Konto {account.email} ist ein Konto für die "
            "Immobiliensuche und kann diese Rechte nicht erteilen."
        )
    return f"{title} verbindet die Konten von Suchenden. Dein Konto {account.email} ist ein Maklerkonto und kann diese Rechte nicht erteilen."
