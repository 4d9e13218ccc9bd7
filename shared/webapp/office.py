"""The office's own settings in the web app (owner only): name, town, contact details, the e-mail inquiry notices go
to and the OpenImmo feed address (checked as every outbound address when saved). Standing on
`shared.accounts.office_settings`; the same session, CSRF check and look as the rest of the web app."""

from __future__ import annotations

from html import escape

import anyio.to_thread
from fastapi import APIRouter, Depends
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from contract.errors import ToolFailure
from shared.accounts.office_settings import FIELDS, read_settings, save_settings
from shared.auth.access import Account
from shared.routing import FormModel, HeadRoute
from shared.web.pages import see_other
from shared.webapp.app import WebApp
from shared.webapp.pages import LOGIN_PATH, OFFICE_PATH, Notice, error_page, header_of, notice_html, page

HINTS = {
    "email": "Steht bei jedem Inserat als Kontakt.",
    "inquiry_email": "Hierhin gehen die Benachrichtigungen über neue Anfragen; leer: an die E-Mail für Interessenten.",
    "openimmo_feed_url": "Von hier lädt import_listings mit from_feed die Übertragung (XML oder ZIP mit Fotos); nur "
                         "öffentliche https-Adressen.",
}
INPUT_TYPES = {"email": "email", "url": "url", "feed": "url"}


class OfficeForm(FormModel):
    csrf_token: str | None = None
    name: str | None = None
    city: str | None = None
    phone: str | None = None
    email: str | None = None
    inquiry_email: str | None = None
    website: str | None = None
    openimmo_feed_url: str | None = None


class OfficePages:
    def __init__(self, app: WebApp) -> None:
        self.app = app

    def router(self) -> APIRouter:
        router = APIRouter(route_class=HeadRoute, tags=["Web-App"], default_response_class=HTMLResponse)
        app = self.app

        @router.get(OFFICE_PATH, summary="Einstellungen des Büros (Inhaber)")
        async def show(request: Request, user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.show(request, user)

        @router.post(OFFICE_PATH, openapi_extra=OfficeForm.openapi_body(), summary="Einstellungen des Büros speichern (Inhaber)")
        async def save(request: Request, form: FormData = Depends(app.checked_form), user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.save(request, user, OfficeForm.of(form))

        return router

    def _refused(self, user: Account | None) -> Response | None:
        if user is None:
            return see_other(LOGIN_PATH)
        if user.office_id is None or user.office_role != "owner":
            return error_page("Nur für Inhaber", "Die Einstellungen eines Büros ändern seine Inhaberinnen und Inhaber.", 403)
        return None

    async def show(self, request: Request, user: Account | None, *, entered: dict[str, str] | None = None,
                   problem: str | None = None) -> Response:
        refused = self._refused(user)
        if refused is not None:
            return refused
        assert user is not None and user.office_id is not None
        values = entered or await anyio.to_thread.run_sync(self._read, user.office_id)
        nonce, csrf_token = self.app._csrf_pair(request)
        notice = Notice("error", problem) if problem else self.app._notice(request)
        body = notice_html(notice) + _form(values, csrf_token)
        response = page("Einstellungen des Büros", body, 400 if problem else 200, header=header_of(user.name, csrf_token, owner=True))
        return self.app._with_csrf_cookie(response, nonce)

    async def save(self, request: Request, user: Account | None, form: OfficeForm) -> Response:
        refused = self._refused(user)
        if refused is not None:
            return refused
        assert user is not None and user.office_id is not None
        sent = {f.name: getattr(form, f.name) or "" for f in FIELDS}
        try:
            changed = await anyio.to_thread.run_sync(self._save, user.office_id, sent)
        except ToolFailure as failure:
            return await self.show(request, user, entered=sent, problem=failure.message)
        text = ("Gespeichert: " + ", ".join(changed) + ".") if changed else "Nichts geändert."
        return see_other(self.app._with_notice(OFFICE_PATH, "done", text))

    def _read(self, office_id: int) -> dict[str, str]:
        with self.app.db.read_only() as session:
            return read_settings(session, office_id)

    def _save(self, office_id: int, sent: dict[str, str | None]) -> list[str]:
        with self.app.db.unit_of_work() as session:
            return save_settings(session, office_id, sent, allow_http=self.app.settings.development)


def _form(values: dict[str, str], csrf_token: str) -> str:
    rows = []
    for field in FIELDS:
        kind = INPUT_TYPES.get(field.kind, "text")
        required = " required" if field.required else ""
        hint = f'<p class="hint">{escape(HINTS[field.name])}</p>' if field.name in HINTS else ""
        rows.append(
            f'<label for="office-{field.name}">{escape(field.label)}</label>'
            f'<input id="office-{field.name}" name="{field.name}" type="{kind}" maxlength="{field.limit}"{required} '
            f'value="{escape(values.get(field.name, ""))}">{hint}'
        )
    return (
        '<div class="panel">'
        f'<form method="post" action="{OFFICE_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        + "".join(rows)
        + '<div class="actions" style="margin-top:1rem"><button class="primary" type="submit">Speichern</button></div></form></div>'
    )
