"""The web app `/app/`: the same accounts log in, see what waits for their click, and click there too.

The login is a server-side session (`shared.auth.sessions`: the cookie, HttpOnly, SameSite=Lax, Secure unless a
local http setup, carries a random token; logging out, a new password or removal from the office ends it at once), every form carries a CSRF token bound to a cookie nonce (signed double submit), a
POST without it is refused with 403 before anything is read or executed. The pages forbid framing.
A click executes through the same `execute` as the card's button, for the logged-in user only, recorded as how it was
made: via="page" from Athaus's own page of one draft (`/app/bestaetigungen/C-…`, the page every draft_/send_/decide_
result names, for a person whose chat shows no card), via="app" from the list. The owner
of an office also finds there the office's setting of which kinds run without a click (`set_without_click`).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlencode

import anyio.to_thread
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.datastructures import FormData
from starlette.requests import Request
from fastapi import APIRouter, Depends
from starlette.responses import HTMLResponse, RedirectResponse, Response

from contract.errors import ToolFailure
from shared.auth.signing import Signer
from shared.auth.access import Account, account_of, sign_in
from shared.auth.passwords import hashing
from contract.confirmations import CONFIRM_PAGE_PATH, CONFIRMATION_ID_PATTERN
from shared.auth.devices import KnownDevices
from shared.auth.sessions import CookiePolicy, close_session, open_session, session_user
from shared.confirmations import Outcome, PendingView, allowed_without_click, execute, list_pending, one_for_page, set_without_click
from shared.confirmations.execute import OFFICE_KINDS
from contract.catalog import IncludeFields
from shared import listing_view
from shared.addresses import EXPOSE_PATH, STOCK_LISTING_PATH
from shared.db.models import Inquiry, Listing, PendingAction, Proposal, User
from shared.webapp.listing import card_html
from shared.db.session import Database
from shared.routing import Answer, FormModel, HeadRoute
from shared.settings import Settings
from shared.web.pages import FORGOT_PATH, SIGNUP_PATH, secured, see_other, too_many_attempts
from shared.webapp.pages import (
    APP_PATH,
    DECIDE_PATH,
    LOGIN_PATH,
    LOGOUT_PATH,
    SETTINGS_PATH,
    WITHOUT_CLICK_LABELS,
    Notice,
    confirmation_page,
    error_page,
    list_page,
    login_page,
)

SESSION_COOKIE = "athaus_app_sitzung"  # names before the prefix (shared.auth.sessions.CookiePolicy)
CSRF_COOKIE = "athaus_app_csrf"
SESSION_TTL_SECONDS = 12 * 3600
NOTICE_TTL_SECONDS = 300

DECISIONS = {"send", "discard"}
NOTICES = {
    "sent": Notice("done", "Gesendet: {id} ist hinausgegangen."),
    "discarded": Notice("info", "Verworfen: {id} geht nicht hinaus."),
    "replayed": Notice("info", "Schon erledigt: {id} war bereits entschieden; es ging nichts ein zweites Mal hinaus."),
    "logged_out": Notice("info", "Du bist abgemeldet."),
    "saved": Notice("done", "Gespeichert. {id}"),
    "done": Notice("done", "{id}"),
}
# How a refused click answers: unknown or not yours is 404 (nothing about whose it is), changed since shown 409.
FAILURE_STATUS = {"CONFIRMATION_INVALID": 404, "CONFLICT": 409, "CONFIRMATION_EXPIRED": 410}


class WebApp:
    def __init__(self, settings: Settings, db: Database, secret: str, now: Callable[[], dt.datetime]) -> None:
        self.db = db
        self.settings = settings
        self.public_url = settings.public_url.rstrip("/")
        # Reset by e-mail link only with the built-in authorization server (an external one owns the passwords).
        self.forgot_url = None if settings.oauth_issuer else FORGOT_PATH
        self.signup_url = None if settings.oauth_issuer else SIGNUP_PATH
        self.now = now
        self.csrf = Signer(secret, "app-csrf")
        self.notices = Signer(secret, "app-notice")
        self.cookies = CookiePolicy.of(settings.public_url, settings.development)
        self.devices = KnownDevices(secret, self.cookies)

    def router(self) -> APIRouter:
        """The web app's routes: the CSRF-checked form and the signed-in account are dependencies, each form a
        pydantic model."""
        router = APIRouter(route_class=HeadRoute, tags=["Web-App"], default_response_class=HTMLResponse)

        checked_form, signed_in = self.checked_form, self.signed_in

        @router.get("/app", summary="Zur Web-App")
        async def root() -> Response:
            return secured(RedirectResponse(APP_PATH, status_code=308))

        @router.get(APP_PATH, summary="Was auf einen Klick wartet")
        async def index(request: Request, user: Account | None = Depends(signed_in)) -> Response:
            return await self.index(request, user)

        @router.get(LOGIN_PATH, summary="Anmeldeseite der Web-App")
        async def show_login(request: Request, user: Account | None = Depends(signed_in)) -> Response:
            nonce, csrf_token = self._csrf_pair(request)
            onward = onward_path(request.query_params.get("weiter"))
            if user is not None:
                return see_other(onward)
            page = login_page(
                csrf_token=csrf_token, notice=self._notice(request), weiter="" if onward == APP_PATH else onward, forgot_url=self.forgot_url,
                signup_url=self.signup_url,
            )
            return self._with_csrf_cookie(page, nonce)

        @router.post(LOGIN_PATH, openapi_extra=LoginForm.openapi_body(), summary="In der Web-App anmelden")
        async def login(request: Request, form: FormData = Depends(checked_form)) -> Response:
            return await self.login(request, LoginForm.of(form))

        @router.post(LOGOUT_PATH, openapi_extra=CsrfForm.openapi_body(), summary="Abmelden")
        async def logout(request: Request, form: FormData = Depends(checked_form)) -> Response:
            await anyio.to_thread.run_sync(self._close_session, self.cookies.read(request, SESSION_COOKIE))
            return self.logout()

        @router.get(CONFIRM_PAGE_PATH + "{confirmation_id}", summary="Eine Bestätigung: was hinausgeht, Senden oder Verwerfen")
        async def one(request: Request, confirmation_id: str, user: Account | None = Depends(signed_in)) -> Response:
            return await self.one(request, user, confirmation_id)

        @router.post(DECIDE_PATH, openapi_extra=DecisionForm.openapi_body(), summary="Senden oder verwerfen")
        async def decide(form: FormData = Depends(checked_form), user: Account | None = Depends(signed_in)) -> Response:
            return await self.decide(user.user_id if user else None, DecisionForm.of(form))

        @router.post(SETTINGS_PATH, openapi_extra=WithoutClickForm.openapi_body(), summary="Was ohne Klick läuft (Büroinhaber)")
        async def without_click(form: FormData = Depends(checked_form), user: Account | None = Depends(signed_in)) -> Response:
            return await self.without_click(user, WithoutClickForm.of(form))

        return router

    async def checked_form(self, request: Request) -> FormData:
        """A POST's form whose CSRF token holds; otherwise the refusal, before anything is read or executed."""
        form = await request.form()
        if not self._csrf_valid(request, form):
            raise Answer(_csrf_refused())
        return form

    async def signed_in(self, request: Request) -> Account | None:
        """The account of a live server-side session, if the account still exists."""
        return await anyio.to_thread.run_sync(self._user, self.cookies.read(request, SESSION_COOKIE))

    async def account(self, request: Request) -> Account | None:
        """The signed-in account of a request (its session cookie), for pages assembled outside this room."""
        return await self.signed_in(request)

    def form_token(self, request: Request) -> tuple[str, str]:
        """The CSRF cookie nonce and the form token bound to it, for a form on a page assembled outside this room."""
        return self._csrf_pair(request)

    def with_form_cookie(self, response: Response, nonce: str) -> Response:
        return self._with_csrf_cookie(response, nonce)

    def login_for(self, path: str) -> Response:
        """To the login, which continues to `path` afterwards."""
        return see_other(f"{LOGIN_PATH}?{urlencode({'weiter': path})}")

    async def index(self, request: Request, user: Account | None) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        nonce, csrf_token = self._csrf_pair(request)
        items = await anyio.to_thread.run_sync(self._pending, user.user_id)
        allowed = await anyio.to_thread.run_sync(self._without_click_setting, user) if user.office_role == "owner" else None
        page = list_page(user_name=user.name, items=items, csrf_token=csrf_token, notice=self._notice(request), without_click=allowed)
        return self._with_csrf_cookie(page, nonce)

    async def one(self, request: Request, user: Account | None, confirmation_id: str) -> Response:
        """Athaus's page of one draft: only for its own user, logged in (else the login, which comes back here)."""
        ref = confirmation_id.strip().upper()
        if not re.fullmatch(CONFIRMATION_ID_PATTERN, ref):
            return error_page("Nicht gefunden", "Diese Bestätigungsnummer hat nicht das Format C-000123.", 404)
        if user is None:
            return self.login_for(f"{CONFIRM_PAGE_PATH}{ref}")
        nonce, csrf_token = self._csrf_pair(request)
        view, done, card = await anyio.to_thread.run_sync(self._one, user.user_id, ref, user.office_id)
        page = confirmation_page(user_name=user.name, view=view, done=done, confirmation_id=ref, csrf_token=csrf_token, listing=card)
        return self._with_csrf_cookie(page, nonce)

    async def login(self, request: Request, form: LoginForm) -> Response:
        nonce, csrf_token = self._csrf_pair(request)
        email = form.email or ""
        address = request.client.host if request.client else "unknown"
        # The same throttle as the sign-in pages, counted before the hash; the hash work bounded per process.
        outcome = await hashing(sign_in, self.db, email, form.password or "", address, self.devices.knows(request, email))
        if outcome.retry_after is not None:
            return too_many_attempts(outcome.retry_after)
        user_id = outcome.user_id
        if user_id is None:
            failed = Notice("error", "E-Mail-Adresse oder Passwort stimmt nicht. Bitte prüfe beides und versuche es noch einmal.")
            page = login_page(
                csrf_token=csrf_token, email=email, notice=failed, status=400, weiter=form.weiter or "", forgot_url=self.forgot_url,
                signup_url=self.signup_url,
            )
            return self._with_csrf_cookie(page, nonce)
        response = see_other(onward_path(form.weiter))
        token = await anyio.to_thread.run_sync(self._open_session, user_id)
        self._set_cookie(response, SESSION_COOKIE, token, SESSION_TTL_SECONDS)
        self.devices.remember(response, email)
        return response

    def logout(self) -> Response:
        response = see_other(self._with_notice(LOGIN_PATH, "logged_out", ""))
        self.cookies.delete(response, SESSION_COOKIE)
        return response

    async def decide(self, user_id: int | None, form: DecisionForm) -> Response:
        if user_id is None:
            return see_other(LOGIN_PATH)
        confirmation_id = form.confirmation_id or ""
        decision = form.entscheidung or ""
        shown_hash = form.payload_hash or ""
        if decision not in DECISIONS or not confirmation_id:
            return error_page("Unvollständig", "Das Formular war unvollständig. Bitte die Übersicht neu laden und noch einmal klicken.", 400)
        try:
            via = "page" if form.von == "seite" else "app"
            outcome = await anyio.to_thread.run_sync(self._execute, user_id, confirmation_id, decision, shown_hash, via)
        except ToolFailure as failure:
            return error_page("Nicht ausgeführt", failure.message, FAILURE_STATUS.get(failure.code.value, 400))
        kind = "replayed" if outcome.replayed else ("discarded" if outcome.status.value == "discarded" else "sent")
        return see_other(self._with_notice(APP_PATH, kind, confirmation_id))

    async def without_click(self, user: Account | None, form: WithoutClickForm) -> Response:
        """The office owner's setting: which kinds run without a click (only the owner may change it)."""
        if user is None:
            return see_other(LOGIN_PATH)
        if user.office_id is None:
            return error_page("Nicht gespeichert", "Diese Einstellung gibt es nur für Maklerbüros; für Suchende geht nichts ohne Klick hinaus.", 403)
        try:
            kept = await anyio.to_thread.run_sync(self._save_without_click, user, list(form.ohne_klick))
        except ToolFailure as failure:
            return error_page("Nicht gespeichert", failure.message, 403 if failure.code.value == "MISSING_RIGHT" else 400)
        summary = f"Ohne Klick laufen jetzt: {'; '.join(kept)}." if kept else "Alles wartet jetzt auf einen Klick."
        return see_other(self._with_notice(APP_PATH, "saved", summary))

    # ---- data ----------------------------------------------------------------------------------------------

    def _one(self, user_id: int, ref: str, office_id: int | None) -> tuple[PendingView | None, str | None, str]:
        """The draft, what became of it, and the card of the listing it is about (only while it waits)."""
        with self.db.read_only() as session:
            view, done = one_for_page(session, user_id=user_id, ref=ref, now=self.now())
            card = ""
            if view is not None:
                found = listing_of_action(session, ref, office_id)
                if found is not None:
                    listing, href = found
                    summary = listing_view.summary(listing, CARD_FIELDS, None)
                    card = '<p class="label">Das Inserat:</p><div style="max-width:22rem">' + card_html(summary, href=href, public_url=self.public_url, heading="h2") + "</div>"
            return view, done, card

    def _execute(self, user_id: int, confirmation_id: str, decision: str, shown_hash: str, via: Literal["page", "app"]) -> Outcome:
        with self.db.unit_of_work() as session:
            return execute(
                session,
                confirmation_id=confirmation_id,
                user_id=user_id,
                decision=decision,
                token=None,
                shown_payload_hash=shown_hash,
                via=via,
                now=self.now(),
                app_url=self.public_url,
            )

    def _pending(self, user_id: int) -> list[PendingView]:
        with self.db.read_only() as session:
            return list_pending(session, user_id=user_id, now=self.now())

    def _user(self, token: str | None) -> Account | None:
        with self.db.read_only() as session:
            user_id = session_user(session, token, self.now())
            return account_of(session, session.get(User, user_id)) if user_id is not None else None

    def _open_session(self, user_id: int) -> str:
        with self.db.unit_of_work() as session:
            return open_session(session, user_id, self.now(), dt.timedelta(seconds=SESSION_TTL_SECONDS))

    def _close_session(self, token: str | None) -> None:
        with self.db.unit_of_work() as session:
            close_session(session, token)

    def _without_click_setting(self, user: Account) -> dict[str, bool]:
        with self.db.read_only() as session:
            return {kind: allowed_without_click(session, user.office_id, kind) for kind in OFFICE_KINDS}

    def _save_without_click(self, user: Account, chosen: list[str]) -> list[str]:
        assert user.office_id is not None
        with self.db.unit_of_work() as session:
            kept = set_without_click(session, office_id=user.office_id, user_id=user.user_id, kinds_allowed=chosen)
        return [WITHOUT_CLICK_LABELS.get(kind, kind) for kind in kept]

    # ---- cookies, CSRF, notices ----------------------------------------------------------------------------

    def _csrf_pair(self, request: Request) -> tuple[str, str]:
        """The cookie nonce (kept if the browser has one) and the form token bound to it."""
        nonce = self.cookies.read(request, CSRF_COOKIE) or secrets.token_urlsafe(32)
        return nonce, self.csrf.mac(nonce)

    def _csrf_valid(self, request: Request, form: FormData) -> bool:
        nonce, sent = self.cookies.read(request, CSRF_COOKIE), CsrfForm.of(form).csrf_token
        return bool(nonce) and sent is not None and self.csrf.verify(nonce or "", sent)

    def _with_csrf_cookie(self, response: Response, nonce: str) -> Response:
        self._set_cookie(response, CSRF_COOKIE, nonce, None)
        return response

    def _set_cookie(self, response: Response, name: str, value: str, max_age: int | None) -> None:
        self.cookies.set(response, name, value, max_age)

    def _with_notice(self, path: str, kind: str, confirmation_id: str) -> str:
        return f"{path}?meldung={self.notices.dumps({'k': kind, 'c': confirmation_id}, NOTICE_TTL_SECONDS)}"

    def _notice(self, request: Request) -> Notice | None:
        payload = self.notices.loads(request.query_params.get("meldung", ""))
        template = NOTICES.get(payload.get("k", "")) if payload else None
        if payload is None or template is None:
            return None
        return Notice(template.kind, template.text.format(id=payload.get("c", "")))


CARD_FIELDS = IncludeFields(energy=True, features=False, photos=True)


def listing_of_action(session: Session, ref: str, office_id: int | None) -> tuple[Listing, str] | None:
    """The listing a draft is about (an inquiry names it, a reply its inquiry, a decision its proposal), with the page a
    card links to: the office's own page for its listing, else the public exposé."""
    subject = session.scalar(select(PendingAction.subject_ref).where(PendingAction.ref == ref))
    if subject is None:
        return None
    listing = session.scalar(select(Listing).where(Listing.ref == subject))
    for model in (Inquiry, Proposal):
        if listing is None:
            listing = session.scalar(select(Listing).join(model, model.listing_id == Listing.id).where(model.ref == subject))
    if listing is None:
        return None
    own = office_id is not None and listing.office_id == office_id
    return listing, (STOCK_LISTING_PATH if own else EXPOSE_PATH).format(listing_id=listing.ref)


class CsrfForm(FormModel):
    csrf_token: str | None = None


class LoginForm(CsrfForm):
    email: str | None = None
    password: str | None = None
    weiter: str | None = None  # the web app page to open after the login


def onward_path(path: str | None) -> str:
    """Where a login continues: a page of the web app itself (never another site: no open redirect), else its start."""
    if path and path.startswith(APP_PATH) and "//" not in path and "\\" not in path and all(c.isprintable() for c in path):
        return path
    return APP_PATH


class DecisionForm(CsrfForm):
    confirmation_id: str | None = None
    entscheidung: str | None = None  # "send" or "discard"
    payload_hash: str | None = None  # the hash of what the page showed: a changed action is not executed
    von: str | None = None  # "seite": clicked on the page of this one draft (recorded as via="page"), else the list


class WithoutClickForm(CsrfForm):
    ohne_klick: list[str] = []  # the kinds ticked


def _csrf_refused() -> Response:
    return error_page(
        "Formular abgelehnt",
        "Das Formular war abgelaufen oder unvollständig (Sicherheitsprüfung); es wurde nichts ausgeführt. "
        "Bitte die Seite neu laden und es erneut versuchen.",
        403,
    )
