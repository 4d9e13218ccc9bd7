"""The web app's pages about people: the office owner's staff list (invite by e-mail with a role, change a role,
remove someone: their sessions and tokens end at once) and everyone's "Meine Daten" (the JSON of everything Athaus
holds about the account; a seeker deletes the account there). Standing on `shared.accounts`; the same session, CSRF
check and look as the rest of the web app."""

from __future__ import annotations

import json
from html import escape

import anyio.to_thread
from fastapi import APIRouter, Depends
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from contract.errors import ToolFailure
from shared.accounts.offices import ROLES, Member, OpenInvitation, invite, members, remove_member, set_role
from shared.accounts.personal_data import KEPT_FOR_OFFICES, delete_account, export_account, office_stock
from shared.auth.access import Account
from shared.german import date_text
from shared.routing import FormModel, HeadRoute
from shared.web.pages import secured, see_other
from shared.webapp.app import SESSION_COOKIE, WebApp
from shared.webapp.pages import LOGIN_PATH, MY_DATA_PATH, STAFF_PATH, Notice, error_page, header_of, notice_html, page

INVITE_PATH = f"{STAFF_PATH}/einladen"
ROLE_PATH = f"{STAFF_PATH}/rolle"
REMOVE_PATH = f"{STAFF_PATH}/entfernen"
EXPORT_PATH = f"{MY_DATA_PATH}/export.json"
DELETE_PATH = f"{MY_DATA_PATH}/loeschen"
STOCK_EXPORT_PATH = "/app/bestand.xml"
FAILURE_STATUS = {"MISSING_RIGHT": 403, "NOT_FOUND": 404, "CONFLICT": 409}


class InviteForm(FormModel):
    csrf_token: str | None = None
    email: str | None = None
    rolle: str | None = None


class MemberForm(FormModel):
    csrf_token: str | None = None
    person: str | None = None
    rolle: str | None = None


class DeleteForm(FormModel):
    csrf_token: str | None = None
    bestaetigt: str | None = None


class PeoplePages:
    def __init__(self, app: WebApp) -> None:
        self.app = app

    def router(self) -> APIRouter:
        router = APIRouter(route_class=HeadRoute, tags=["Web-App"], default_response_class=HTMLResponse)
        app = self.app

        @router.get(STAFF_PATH, summary="Mitarbeitende des Büros (Inhaber)")
        async def staff(request: Request, user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.staff(request, user)

        @router.post(INVITE_PATH, openapi_extra=InviteForm.openapi_body(), summary="Per E-Mail einladen (Inhaber)")
        async def send_invitation(
            request: Request, form: FormData = Depends(app.checked_form), user: Account | None = Depends(app.signed_in)
        ) -> Response:
            return await self.invite(request, user, InviteForm.of(form))

        @router.post(ROLE_PATH, openapi_extra=MemberForm.openapi_body(), summary="Rolle ändern (Inhaber)")
        async def change_role(form: FormData = Depends(app.checked_form), user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.change(user, MemberForm.of(form), remove=False)

        @router.post(REMOVE_PATH, openapi_extra=MemberForm.openapi_body(), summary="Aus dem Büro entfernen (Inhaber)")
        async def remove(form: FormData = Depends(app.checked_form), user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.change(user, MemberForm.of(form), remove=True)

        @router.get(STOCK_EXPORT_PATH, summary="Der Bestand des Büros als OpenImmo-Übertragung (Inhaber)")
        async def stock(user: Account | None = Depends(app.signed_in)) -> Response:
            if user is None:
                return see_other(LOGIN_PATH)
            if user.office_id is None or user.office_role != "owner":
                return error_page("Nur für Inhaber", "Den Bestand eines Büros exportieren seine Inhaberinnen und Inhaber.", 403)
            text = await anyio.to_thread.run_sync(self._stock, user.office_id)
            disposition = f'attachment; filename="athaus-bestand-{user.office_id}.xml"'
            return secured(Response(text.encode(), media_type="application/xml", headers={"Content-Disposition": disposition}))

        @router.get(MY_DATA_PATH, summary="Meine Daten")
        async def my_data(request: Request, user: Account | None = Depends(app.signed_in)) -> Response:
            return self.my_data(request, user)

        @router.get(EXPORT_PATH, summary="Alle Daten des Kontos als JSON (DSGVO Art. 15, 20)")
        async def export(user: Account | None = Depends(app.signed_in)) -> Response:
            if user is None:
                return see_other(LOGIN_PATH)
            data = await anyio.to_thread.run_sync(self._export, user.user_id)
            body = json.dumps(data, ensure_ascii=False, indent=2)
            return secured(Response(body, media_type="application/json", headers={"Content-Disposition": 'attachment; filename="athaus-meine-daten.json"'}))

        @router.post(DELETE_PATH, openapi_extra=DeleteForm.openapi_body(), summary="Konto löschen (DSGVO Art. 17)")
        async def delete(request: Request, form: FormData = Depends(app.checked_form), user: Account | None = Depends(app.signed_in)) -> Response:
            return await self.delete(request, user, DeleteForm.of(form))

        return router

    # ---- staff -------------------------------------------------------------------------------------------------

    async def staff(self, request: Request, user: Account | None, *, entered: InviteForm | None = None, problem: str | None = None) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        if user.office_id is None or user.office_role != "owner":
            return error_page("Nur für Inhaber", "Die Mitarbeitenden eines Büros verwalten seine Inhaberinnen und Inhaber.", 403)
        people, invited = await anyio.to_thread.run_sync(self._members, user.office_id)
        nonce, csrf_token = self.app._csrf_pair(request)
        notice = Notice("error", problem) if problem else self.app._notice(request)
        export = f'<p><a href="{STOCK_EXPORT_PATH}" download>Bestand des Büros als OpenImmo herunterladen (XML)</a></p>'
        body = notice_html(notice) + _staff_table(people, user, csrf_token) + _invited(invited) + _invite_form(csrf_token, entered) + export
        response = page("Mitarbeitende", body, 400 if problem else 200, header=header_of(user.name, csrf_token, owner=True))
        return self.app._with_csrf_cookie(response, nonce)

    async def invite(self, request: Request, user: Account | None, form: InviteForm) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        try:
            await anyio.to_thread.run_sync(self._invite, user, form.email or "", form.rolle or "")
        except ToolFailure as failure:
            if failure.code.value == "MISSING_RIGHT":
                return error_page("Nicht eingeladen", failure.message, 403)
            return await self.staff(request, user, entered=form, problem=failure.message)
        address = (form.email or "").strip().lower()
        text = f"Eingeladen: {address} als {ROLES[form.rolle or 'staff']}. Der Link in der E-Mail gilt 7 Tage."
        return see_other(self.app._with_notice(STAFF_PATH, "done", text))

    async def change(self, user: Account | None, form: MemberForm, *, remove: bool) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        person = int(form.person) if (form.person or "").isdigit() else 0
        try:
            text = await anyio.to_thread.run_sync(self._change, user, person, form.rolle or "", remove)
        except ToolFailure as failure:
            return error_page("Nicht geändert", failure.message, FAILURE_STATUS.get(failure.code.value, 400))
        return see_other(self.app._with_notice(STAFF_PATH, "done", text))

    # ---- my data -----------------------------------------------------------------------------------------------

    def my_data(self, request: Request, user: Account | None, *, problem: str | None = None) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        nonce, csrf_token = self.app._csrf_pair(request)
        export = (
            '<div class="panel" style="max-width:none"><h2>Auskunft</h2><p>Alles, was Athaus über dein Konto speichert '
            "(Konto, Suchaufträge, Treffer, Anfragen und Nachrichten, vorbereitete Aktionen, E-Mails, verbundene "
            "Anwendungen, wer deine Angaben gesehen hat), als JSON-Datei.</p>"
            f'<p><a href="{EXPORT_PATH}" download>Meine Daten herunterladen (JSON)</a></p></div>'
        )
        if user.kind == "seeker":
            deletion = (
                '<div class="panel" style="max-width:none"><h2>Konto löschen</h2>'
                "<p>Dein Konto, deine Suchaufträge mit ihren Treffern und Vorschlägen, vorbereitete Aktionen und deine "
                "Anmeldungen werden sofort gelöscht; verbundene Anwendungen verlieren den Zugang. "
                f"{escape(KEPT_FOR_OFFICES)}</p>"
                f'<form method="post" action="{DELETE_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
                '<label><input type="checkbox" name="bestaetigt" value="ja"> Ja, mein Konto endgültig löschen</label>'
                '<div class="actions" style="margin-top:.8rem"><button class="primary" type="submit">Konto löschen</button></div></form></div>'
            )
        else:
            deletion = (
                '<div class="panel" style="max-width:none"><h2>Konto löschen</h2><p>Konten von Maklerinnen und Maklern '
                "entfernt die Inhaberin oder der Inhaber des Büros aus dem Büro.</p></div>"
            )
        body = notice_html(Notice("error", problem) if problem else self.app._notice(request)) + export + deletion
        header = header_of(user.name, csrf_token, owner=user.office_role == "owner")
        return self.app._with_csrf_cookie(page("Meine Daten", body, 400 if problem else 200, header=header), nonce)

    async def delete(self, request: Request, user: Account | None, form: DeleteForm) -> Response:
        if user is None:
            return see_other(LOGIN_PATH)
        if form.bestaetigt != "ja":
            return self.my_data(request, user, problem="Bitte das Häkchen setzen, dass das Konto endgültig gelöscht werden soll.")
        try:
            await anyio.to_thread.run_sync(self._delete, user.user_id)
        except ToolFailure as failure:
            return error_page("Nicht gelöscht", failure.message, FAILURE_STATUS.get(failure.code.value, 400))
        response = see_other(self.app._with_notice(LOGIN_PATH, "done", "Dein Konto ist gelöscht. " + KEPT_FOR_OFFICES))
        self.app.cookies.delete(response, SESSION_COOKIE)
        return response

    # ---- data --------------------------------------------------------------------------------------------------

    def _members(self, office_id: int) -> tuple[list[Member], list[OpenInvitation]]:
        with self.app.db.read_only() as session:
            return members(session, office_id, self.app.now())

    def _invite(self, user: Account, email: str, role: str) -> None:
        with self.app.db.unit_of_work() as session:
            invite(
                session, office_id=user.office_id or 0, by_user_id=user.user_id, email=email, role=role,
                public_url=self.app.settings.public_url, now=self.app.now(),
            )

    def _change(self, user: Account, person: int, role: str, remove: bool) -> str:
        with self.app.db.unit_of_work() as session:
            if remove:
                name = remove_member(session, office_id=user.office_id or 0, by_user_id=user.user_id, user_id=person, now=self.app.now())
                return f"Entfernt: {name} gehört nicht mehr zum Büro; alle Anmeldungen und Zugänge sind beendet."
            set_role(session, office_id=user.office_id or 0, by_user_id=user.user_id, user_id=person, role=role, now=self.app.now())
            return f"Gespeichert: neue Rolle {ROLES[role]}."

    def _stock(self, office_id: int) -> str:
        with self.app.db.read_only() as session:
            return "".join(office_stock(session, office_id, self.app.now()))

    def _export(self, user_id: int) -> dict[str, object]:
        with self.app.db.read_only() as session:
            return export_account(session, user_id)

    def _delete(self, user_id: int) -> None:
        with self.app.db.unit_of_work() as session:
            delete_account(session, user_id, self.app.now())


def _role_select(name: str, chosen: str, ident: str = "") -> str:
    options = "".join(f'<option value="{key}"{" selected" if key == chosen else ""}>{label}</option>' for key, label in ROLES.items())
    identity = f' id="{ident}"' if ident else ' aria-label="Rolle"'
    return f'<select name="{name}"{identity}>{options}</select>'


def _staff_table(people: list[Member], user: Account, csrf_token: str) -> str:
    hidden = f'<input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
    rows = "".join(
        f'<tr data-person="{escape(person.email)}"><td>{escape(person.name)}</td><td>{escape(person.email)}</td>'
        f'<td><form method="post" action="{ROLE_PATH}">{hidden}<input type="hidden" name="person" value="{person.user_id}">'
        f'{_role_select("rolle", person.role)}<button type="submit">Rolle speichern</button></form></td>'
        f'<td><form method="post" action="{REMOVE_PATH}">{hidden}<input type="hidden" name="person" value="{person.user_id}">'
        f'<button type="submit"{" disabled" if person.user_id == user.user_id else ""}>Entfernen</button></form></td></tr>'
        for person in people
    )
    return (
        '<table><thead><tr><th>Name</th><th>E-Mail</th><th>Rolle</th><th></th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def _invited(invited: list[OpenInvitation]) -> str:
    if not invited:
        return ""
    items = "".join(
        f"<li>{escape(item.email)} als {escape(ROLES.get(item.role, item.role))}, gültig bis {escape(date_text(item.expires_at.date()))}</li>"
        for item in invited
    )
    return f'<h2 class="section">Offene Einladungen</h2><ul>{items}</ul>'


def _invite_form(csrf_token: str, entered: InviteForm | None) -> str:
    email = escape((entered.email or "") if entered else "")
    role = (entered.rolle or "staff") if entered else "staff"
    return (
        '<h2 class="section">Jemanden einladen</h2><div class="panel">'
        f'<form method="post" action="{INVITE_PATH}"><input type="hidden" name="csrf_token" value="{escape(csrf_token)}">'
        f'<label for="invite-email">E-Mail-Adresse</label><input id="invite-email" name="email" type="email" required value="{email}">'
        f'<label for="invite-role">Rolle</label>{_role_select("rolle", role, "invite-role")}'
        '<div class="actions" style="margin-top:1rem"><button class="primary" type="submit">Einladung senden</button></div></form></div>'
    )
