"""The account pages beside the sign-in (built-in authorization server only): "Konto anlegen" from the login page of
a connector's sign-in, the confirmation link that creates the account and continues to the consent page, "Passwort
vergessen" and the new password from its link, and the invitation link of an office.

Same look, CSRF check (signed double submit on the sign-in CSRF cookie), bounded forms and throttle as the login: every form
that hashes a password counts its attempt before the hash (`shared.auth.throttle`), and sign-up and reset answer the
same whether or not the address has an account, in the same time: what differs is done after the answer
(`after_the_answer`). Bad input is answered with the German reason on the same form, with
what was typed kept, except passwords. A link from an e-mail is only used by the button on its page (a POST), so a
mail scanner that opens links uses up nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

import anyio.to_thread
from fastapi import APIRouter
from sqlalchemy.exc import IntegrityError
from starlette.background import BackgroundTask
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from contract.errors import ToolFailure
from shared.accounts.links import CONFIRM_PATH, INVITATION_PATH, RESET_PATH
from shared.accounts.offices import ROLES, Invitation, accept_invitation, invitation
from shared.accounts.reset import finish_reset, reset_link_valid, start_reset
from shared.accounts.signup import confirm_signup, email_problem, name_problem, start_signup
from shared.auth import throttle
from shared.auth.access import guarded
from shared.auth.passwords import MIN_LENGTH, hash_password, hashing, new_password_problem
from shared.db.models import utcnow
from shared.routing import FormModel, HeadRoute
from shared.web.consent import CSRF_COOKIE, SignInPages, _bounded_form, _csrf_refused
from shared.web.pages import FORGOT_PATH, SIGNUP_PATH, carrying, error_page, page, too_many_attempts

log = logging.getLogger("athaus.accounts")

APP_LOGIN = "/app/anmelden"
LINK_GONE = (
    "Link abgelaufen",
    "Dieser Link ist abgelaufen oder wurde schon benutzt. Bitte einen neuen anfordern.",
)


class AccountForm(FormModel):
    csrf_token: str | None = None
    anfrage: str | None = None
    t: str | None = None
    email: str | None = None
    name: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class Visit:
    form: AccountForm | None  # None: GET
    csrf_token: str
    nonce: str


class AccountPages:
    def __init__(self, pages: SignInPages) -> None:
        self.pages = pages
        self.server = pages.server

    def router(self) -> APIRouter:
        router = APIRouter(route_class=HeadRoute, tags=["Konto"], default_response_class=HTMLResponse)
        body = AccountForm.openapi_body()
        for path, endpoint, summary in (
            (SIGNUP_PATH, self.signup, "Konto anlegen"),
            (CONFIRM_PATH, self.confirm, "E-Mail-Adresse bestätigen"),
            (FORGOT_PATH, self.forgot, "Passwort vergessen"),
            (RESET_PATH, self.new_password, "Neues Passwort"),
            (INVITATION_PATH, self.invitation, "Einladung annehmen"),
        ):
            router.add_api_route(path, endpoint, methods=["GET"], summary=summary)
            router.add_api_route(path, endpoint, methods=["POST"], openapi_extra=body, summary=summary)
        return router

    # ---- sign-up ---------------------------------------------------------------------------------------------

    async def signup(self, request: Request) -> Response:
        visit = await self._visit(request)
        if isinstance(visit, Response):
            return visit
        anfrage = visit.form.anfrage if visit.form else request.query_params.get("anfrage")
        show = lambda problem=None, form=None: self._answer(visit, _signup_page(visit.csrf_token, anfrage, form, problem))  # noqa: E731
        if visit.form is None:
            return show()
        form = visit.form
        email, name, password = (form.email or "").strip(), (form.name or "").strip(), form.password or ""
        problem = email_problem(email) or name_problem(name) or new_password_problem(password, email=email, name=name)
        if problem:
            return show(problem, form)
        wait = await anyio.to_thread.run_sync(guarded, self.server.db, [(throttle.SIGNUP_PER_ACCOUNT, email), (throttle.SIGNUP_PER_ADDRESS, _address(request))])
        if wait is not None:
            return too_many_attempts(wait)
        password_hash = await hashing(hash_password, password)  # for a known address too: the same time either way

        def store() -> None:
            with self.server.db.unit_of_work() as session:
                start_signup(
                    session, email=email, name=name, password_hash=password_hash, public_url=self.server.settings.public_url,
                    now=utcnow(), continue_with=anfrage if self.server.unseal(anfrage) else None,
                )

        return after_the_answer(self._answer(visit, _check_mail_page(email)), "signup", store)

    async def confirm(self, request: Request) -> Response:
        visit = await self._visit(request)
        if isinstance(visit, Response):
            return visit
        token = visit.form.t if visit.form else request.query_params.get("t")
        if visit.form is None:
            return self._answer(visit, _confirm_page(visit.csrf_token, token or ""))

        def confirm() -> object:
            with self.server.db.unit_of_work() as session:
                return confirm_signup(session, token, utcnow())

        try:
            confirmed = await anyio.to_thread.run_sync(confirm)
        except IntegrityError:  # the address was confirmed by a second link at the same moment
            confirmed = None
        if confirmed is None:
            return error_page(*LINK_GONE, status=410)
        if confirmed.user_id is None:  # type: ignore[attr-defined]
            return page("Konto gibt es schon", f'<p>Für diese Adresse gibt es schon ein Konto. <a href="{APP_LOGIN}">Anmelden</a></p>')
        anfrage = confirmed.continue_with  # type: ignore[attr-defined]
        if anfrage and self.server.unseal(anfrage):
            return await self.pages.signed_in_to(carrying("/oauth/zustimmung", anfrage), confirmed.user_id)  # type: ignore[attr-defined]
        return page(
            "Konto bestätigt",
            "<p>Dein Konto ist angelegt. Die Anmeldung, mit der du es angelegt hast, ist inzwischen abgelaufen: bitte die "
            f'Verbindung in der Anwendung (ChatGPT, Claude, …) noch einmal starten, oder <a href="{APP_LOGIN}">in der Web-App anmelden</a>.</p>',
        )

    # ---- reset -----------------------------------------------------------------------------------------------

    async def forgot(self, request: Request) -> Response:
        visit = await self._visit(request)
        if isinstance(visit, Response):
            return visit
        anfrage = visit.form.anfrage if visit.form else request.query_params.get("anfrage")
        if visit.form is None:
            return self._answer(visit, _forgot_page(visit.csrf_token, anfrage, "", None))
        email = (visit.form.email or "").strip()
        problem = email_problem(email)
        if problem:
            return self._answer(visit, _forgot_page(visit.csrf_token, anfrage, email, problem))
        wait = await anyio.to_thread.run_sync(guarded, self.server.db, [(throttle.RESET_PER_ACCOUNT, email), (throttle.RESET_PER_ADDRESS, _address(request))])
        if wait is not None:
            return too_many_attempts(wait)

        def store() -> None:
            with self.server.db.unit_of_work() as session:
                start_reset(session, email=email, public_url=self.server.settings.public_url, now=utcnow())

        return after_the_answer(self._answer(visit, _reset_sent_page(email)), "reset", store)

    async def new_password(self, request: Request) -> Response:
        visit = await self._visit(request)
        if isinstance(visit, Response):
            return visit
        token = visit.form.t if visit.form else request.query_params.get("t")
        if not await anyio.to_thread.run_sync(self._reset_valid, token):
            return error_page(*LINK_GONE, status=410)
        if visit.form is None:
            return self._answer(visit, _new_password_page(visit.csrf_token, token or "", None))
        password = visit.form.password or ""
        problem = new_password_problem(password)
        if problem:
            return self._answer(visit, _new_password_page(visit.csrf_token, token or "", problem))
        wait = await anyio.to_thread.run_sync(guarded, self.server.db, [(throttle.NEW_PASSWORD_PER_ADDRESS, _address(request))])
        if wait is not None:
            return too_many_attempts(wait)
        password_hash = await hashing(hash_password, password)

        def store() -> int | None:
            with self.server.db.unit_of_work() as session:
                return finish_reset(session, token, password_hash, utcnow())

        if await anyio.to_thread.run_sync(store) is None:
            return error_page(*LINK_GONE, status=410)
        return page(
            "Passwort geändert",
            "<p>Dein neues Passwort gilt. Du bist überall abgemeldet, auch in verbundenen Anwendungen wie ChatGPT oder Claude; "
            f'verbinde sie neu oder <a href="{APP_LOGIN}">melde dich in der Web-App an</a>.</p>',
        )

    # ---- invitation ------------------------------------------------------------------------------------------

    async def invitation(self, request: Request) -> Response:
        visit = await self._visit(request)
        if isinstance(visit, Response):
            return visit
        token = visit.form.t if visit.form else request.query_params.get("t")
        shown = await anyio.to_thread.run_sync(self._invitation, token)
        if shown is None:
            return error_page("Einladung abgelaufen", "Diese Einladung ist abgelaufen oder wurde schon angenommen. Bitte um eine neue Einladung.", status=410)
        show = lambda problem=None, name="": self._answer(visit, _invitation_page(visit.csrf_token, token or "", shown, name, problem))  # noqa: E731
        if visit.form is None or shown.refusal:
            return show(shown.refusal)
        name, password = (visit.form.name or "").strip(), visit.form.password or ""
        password_hash = None
        if not shown.has_account:
            problem = name_problem(name) or new_password_problem(password, email=shown.email, name=name)
            if problem:
                return show(problem, name)
            wait = await anyio.to_thread.run_sync(guarded, self.server.db, [(throttle.NEW_PASSWORD_PER_ADDRESS, _address(request))])
            if wait is not None:
                return too_many_attempts(wait)
            password_hash = await hashing(hash_password, password)

        def accept() -> int:
            with self.server.db.unit_of_work() as session:
                return accept_invitation(session, token, name=name, password_hash=password_hash, now=utcnow())

        try:
            await anyio.to_thread.run_sync(accept)
        except ToolFailure as failure:
            return show(failure.message, name)
        return page(
            "Willkommen im Büro",
            f"<p>Du gehörst jetzt als {escape(ROLES[shown.role])} zu <strong>{escape(shown.office_name)}</strong>. Verbinde "
            f'„Athaus für Makler“ in ChatGPT oder Claude, oder <a href="{APP_LOGIN}">melde dich in der Web-App an</a>.</p>',
        )

    # ---- helpers ---------------------------------------------------------------------------------------------

    async def _visit(self, request: Request) -> Visit | Response:
        nonce, csrf_token = self.pages._csrf_pair(request)
        if request.method != "POST":
            return Visit(None, csrf_token, nonce)
        if not self.pages.cookies.read(request, CSRF_COOKIE):
            return _csrf_refused()
        form: FormData | None = await _bounded_form(request)
        if form is None:
            return error_page("Formular zu groß", "Das Formular war zu groß. Bitte die Seite neu laden und es erneut versuchen.", status=413)
        if not self.pages._csrf_valid(request, form):
            return _csrf_refused()
        return Visit(AccountForm.of(form), csrf_token, nonce)

    def _answer(self, visit: Visit, response: Response) -> Response:
        return self.pages._with_csrf_cookie(response, visit.nonce)

    def _reset_valid(self, token: str | None) -> bool:
        with self.server.db.read_only() as session:
            return reset_link_valid(session, token, utcnow())

    def _invitation(self, token: str | None) -> Invitation | None:
        with self.server.db.read_only() as session:
            return invitation(session, token, utcnow())


def after_the_answer(response: Response, form: str, work: Callable[[], None]) -> Response:
    """`response`, with `work` run once it has been sent: what differs between a known and an unknown address (a link
    stored, which e-mail is queued) happens after the answer, so the answer takes the same time for both (issue 30:
    "Passwort vergessen" answered a known address 1-2 ms later). `Connection: close`, so the next request does not
    wait for it on the same connection and cannot time it there either. A failure is logged (the person sees the same
    page and can ask again)."""

    async def run() -> None:
        try:
            await anyio.to_thread.run_sync(work)
        except Exception:
            log.exception(json.dumps({"event": "account_mail_failed", "form": form}))

    response.background = BackgroundTask(run)
    response.headers["Connection"] = "close"
    return response


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _hidden(csrf_token: str, **values: str | None) -> str:
    fields = {"csrf_token": csrf_token, **values}
    return "".join(f'<input type="hidden" name="{name}" value="{escape(value)}">' for name, value in fields.items() if value)


def _error(problem: str | None) -> str:
    return f'<p class="error" role="alert">{escape(problem)}</p>' if problem else ""


PASSWORD_HINT = f'<p class="hint">Mindestens {MIN_LENGTH} Zeichen, gern ein Satz aus mehreren Wörtern; bekannte Passwörter werden abgelehnt.</p>'


def _signup_page(csrf_token: str, anfrage: str | None, form: AccountForm | None, problem: str | None) -> Response:
    email, name = escape((form.email or "") if form else ""), escape((form.name or "") if form else "")
    back = f'<p><a href="{escape(carrying("/oauth/anmelden", anfrage))}">Zurück zur Anmeldung</a></p>' if anfrage else ""
    body = (
        "<p>Ein Konto für die Immobiliensuche: Suchaufträge, Treffer und Anfragen an Maklerbüros. Maklerinnen und Makler "
        "werden von ihrem Büro eingeladen.</p>"
        f'{_error(problem)}<form method="post" action="{SIGNUP_PATH}">{_hidden(csrf_token, anfrage=anfrage)}'
        f'<label for="email">E-Mail-Adresse</label><input id="email" name="email" type="email" autocomplete="email" required value="{email}">'
        f'<label for="name">Name</label><input id="name" name="name" type="text" autocomplete="name" required value="{name}">'
        '<label for="password">Passwort</label><input id="password" name="password" type="password" autocomplete="new-password" required>'
        f'{PASSWORD_HINT}<div class="actions"><button class="primary" type="submit">Konto anlegen</button></div></form>{back}'
    )
    return page("Konto anlegen", body, 400 if problem else 200)


def _check_mail_page(email: str) -> Response:
    return page(
        "Bitte prüfe dein Postfach",
        f"<p>Wir haben eine E-Mail an <strong>{escape(email.lower())}</strong> geschickt. Öffne den Link darin, um dein Konto "
        "zu bestätigen; danach geht die Anmeldung weiter. Der Link gilt 24 Stunden.</p>"
        "<p>Keine E-Mail bekommen? Prüfe den Spam-Ordner oder lege das Konto in ein paar Minuten noch einmal an.</p>",
    )


def _confirm_page(csrf_token: str, token: str) -> Response:
    body = (
        "<p>Ein Klick, und dein Athaus-Konto ist angelegt.</p>"
        f'<form method="post" action="{CONFIRM_PATH}">{_hidden(csrf_token, t=token)}'
        '<div class="actions"><button class="primary" type="submit">Konto bestätigen</button></div></form>'
    )
    return page("E-Mail-Adresse bestätigen", body)


def _forgot_page(csrf_token: str, anfrage: str | None, email: str, problem: str | None) -> Response:
    body = (
        "<p>Gib die E-Mail-Adresse deines Kontos ein; wir schicken dir einen Link für ein neues Passwort.</p>"
        f'{_error(problem)}<form method="post" action="{FORGOT_PATH}">{_hidden(csrf_token, anfrage=anfrage)}'
        f'<label for="email">E-Mail-Adresse</label><input id="email" name="email" type="email" autocomplete="email" required value="{escape(email)}">'
        '<div class="actions"><button class="primary" type="submit">Link schicken</button></div></form>'
    )
    return page("Passwort vergessen", body, 400 if problem else 200)


def _reset_sent_page(email: str) -> Response:
    return page(
        "Bitte prüfe dein Postfach",
        f"<p>Wenn es ein Konto mit der Adresse <strong>{escape(email.lower())}</strong> gibt, ist die E-Mail mit dem Link "
        "unterwegs. Der Link gilt eine Stunde und nur einmal.</p>",
    )


def _new_password_page(csrf_token: str, token: str, problem: str | None) -> Response:
    body = (
        f'{_error(problem)}<form method="post" action="{RESET_PATH}">{_hidden(csrf_token, t=token)}'
        '<label for="password">Neues Passwort</label><input id="password" name="password" type="password" autocomplete="new-password" required>'
        f'{PASSWORD_HINT}<div class="actions"><button class="primary" type="submit">Passwort speichern</button></div></form>'
    )
    return page("Neues Passwort", body, 400 if problem else 200)


def _invitation_page(csrf_token: str, token: str, shown: Invitation, name: str, problem: str | None) -> Response:
    intro = (
        f"<p>Du bist als {escape(ROLES.get(shown.role, shown.role))} zu <strong>{escape(shown.office_name)}</strong> eingeladen "
        f"({escape(shown.email)}).</p>"
    )
    if shown.refusal:
        return page("Einladung", intro + _error(problem), 409)
    fields = (
        ""
        if shown.has_account
        else (
            f'<label for="name">Name</label><input id="name" name="name" type="text" autocomplete="name" required value="{escape(name)}">'
            '<label for="password">Passwort</label><input id="password" name="password" type="password" autocomplete="new-password" required>'
            + PASSWORD_HINT
        )
    )
    body = (
        f'{intro}{_error(problem)}<form method="post" action="{INVITATION_PATH}">{_hidden(csrf_token, t=token)}{fields}'
        '<div class="actions"><button class="primary" type="submit">Einladung annehmen</button></div></form>'
    )
    return page("Einladung", body, 400 if problem else 200)
