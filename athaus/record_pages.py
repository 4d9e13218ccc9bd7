"""The pages a record's link opens for a person (shared/addresses.py): the public exposé (German, no login) and the
office's listing and inquiry in the web app (login). The connector tools `search` and `fetch` hand out these links.

Assembled here, above both servers, because each page is exactly a server's own view of the record: the catalog's
get_listing, the office's get_listing and get_inquiry (with its personal-data audit), run with the web app's
signed-in account as the caller, and shown as a person reads it (shared/webapp/listing.py: no model notes). The
exposé's "Anfrage stellen" drafts an inquiry with the search server's own draft_inquiry, as the signed-in seeker."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Depends, Request
from sqlalchemy import select
from starlette.datastructures import FormData
from starlette.responses import HTMLResponse, Response

from broker_server import inquiries, stock
from contract.broker_inquiries import GetInquiryInput
from contract.broker_stock import GetStockListingInput
from contract.catalog import GetListingInput, IncludeFields, ListingDetail, ListingSummary, SearchListingsInput
from contract.confirmations import CONFIRM_PAGE_PATH
from contract.errors import InputNeeded, ToolFailure
from contract.seeker_contact import DraftInquiryInput
from pydantic import ValidationError
from search_server import catalog, contact
from shared.addresses import EXPOSE_PATH, INQUIRY_FORM_PATH, OFFICE_INQUIRY_PATH, STOCK_LISTING_PATH, address
from shared.db.models import Listing
from shared.auth.access import Account
from shared.auth.principal import Principal
from shared.routing import FormModel, HeadRoute
from shared.runtime.context import ToolContext
from shared.webapp.app import WebApp
from shared.web.pages import see_other
from shared.webapp.listing import expose_html, og_head
from shared.webapp.pages import error_page, listing_page
from shared.webapp.listing_pages import default_message, gone_html, inquiry_html, inquiry_page, office_panel

WEB_APP_CLIENT = "web-app"  # the client id the audit names for reads in the web app

NOT_PUBLIC = "Dieses Inserat ist nicht (mehr) veröffentlicht. Weitere Inserate findest du mit der Athaus Immobiliensuche."
FOR_SEEKERS = (
    "Anfragen an Anbieter stellen Suchende mit ihrem eigenen Konto; dein Konto gehört zu einem Maklerbüro. "
    "Bitte melde dich mit einem Konto als Suchende oder Suchender an."
)
NOT_IN_OFFICE = "Das gibt es in deinem Büro nicht: bitte die Nummer prüfen. Die Web-App zeigt nur die Daten deines eigenen Büros."


def _office_caller(account: Account, resource: str) -> Principal | None:
    if account.office_id is None:
        return None
    return Principal(
        user_id=account.user_id,
        kind="broker",
        office_id=account.office_id,
        office_role=account.office_role,
        scopes=frozenset({"makler:lesen"}),
        resource=resource,
        client_id=WEB_APP_CLIENT,
    )


async def _shown(read: Callable[[], Any], page: Callable[[Any], Response], missing: str) -> Response:
    """The record as its page, or a German 404 when the view refuses it (not there, not this office's)."""
    try:
        record = await anyio.to_thread.run_sync(read)
    except (ToolFailure, ValidationError):
        return error_page("Nicht gefunden", missing, 404)
    return page(record)


GONE_STATUSES = ("reserved", "sold", "let", "withdrawn")  # once published, no longer offered: 410, never a draft


def record_router(context: ToolContext, webapp: WebApp) -> APIRouter:
    router = APIRouter(route_class=HeadRoute, tags=["Datensätze"], default_response_class=HTMLResponse)
    resource = context.settings.resource_url("makler")
    search_resource = context.settings.resource_url("suche")
    public_url = context.settings.public_url.rstrip("/")

    def public_listing(listing_id: str) -> ListingDetail:
        return catalog.get_listing(GetListingInput(listing_id=listing_id), context)

    def once_published(listing_id: str) -> tuple[str, str, str] | None:
        """Town, marketing and property type of a listing that was published and is no longer (None for anything else:
        unknown, a draft, a malformed number), for the gone page's similar listings."""
        try:
            ref = GetListingInput(listing_id=listing_id).listing_id
        except ValidationError:
            return None
        with context.db.read_only() as session:
            row = session.execute(
                select(Listing.city, Listing.marketing_type, Listing.property_type).where(
                    Listing.ref == ref, Listing.status.in_(GONE_STATUSES), Listing.published_at.is_not(None)
                )
            ).first()
        return None if row is None else (row[0], row[1], row[2])

    def similar(city: str, marketing_type: str, property_type: str) -> list[tuple[ListingSummary, str]]:
        args = SearchListingsInput(
            city=city, marketing_type=marketing_type, property_types=[property_type], limit=6, include=IncludeFields(photos=True)
        )
        try:
            found = catalog.search_listings(args, context)
        except (ToolFailure, InputNeeded):  # a town the catalog cannot read alone: the page still answers
            return []
        return [(item, EXPOSE_PATH.format(listing_id=item.listing_id)) for item in found.items]

    async def not_offered(listing_id: str) -> Response:
        """A portal's answer for a listing not (or no longer) on offer: gone (410) with similar ones, once published;
        otherwise exactly the answer to an unknown number (a draft never shows it exists)."""
        gone = await anyio.to_thread.run_sync(once_published, listing_id)
        if gone is None:
            return error_page("Nicht gefunden", NOT_PUBLIC, 404)
        city, marketing_type, property_type = gone
        others = await anyio.to_thread.run_sync(similar, city, marketing_type, property_type)
        return listing_page("Dieses Inserat ist nicht mehr verfügbar", gone_html(others, city=city, public_url=public_url), 410)

    @router.get(EXPOSE_PATH, summary="Öffentliches Exposé")
    async def expose(listing_id: str) -> Response:
        try:
            detail = await anyio.to_thread.run_sync(public_listing, listing_id)
        except (ToolFailure, ValidationError):
            return await not_offered(listing_id)
        url = address(public_url, EXPOSE_PATH, listing_id=detail.listing_id)
        body = expose_html(detail, public_url=public_url, inquiry_href=INQUIRY_FORM_PATH.format(listing_id=detail.listing_id))
        return listing_page(detail.title, body, head=og_head(detail, url=url, public_url=public_url))

    async def office_record(request: Request, path: str, read: Callable[[ToolContext], Any], page: Callable[[Any], Response]) -> Response:
        account = await webapp.account(request)
        if account is None:
            return webapp.login_for(path)
        caller = _office_caller(account, resource)
        if caller is None:
            return error_page("Nur für Maklerbüros", "Diese Seite zeigt Daten eines Maklerbüros; dein Konto gehört zu keinem.", 403)
        return await _shown(lambda: read(dataclasses.replace(context, caller=caller)), page, NOT_IN_OFFICE)

    def stock_page(detail: Any) -> Response:
        public = EXPOSE_PATH.format(listing_id=detail.listing_id) if detail.status.value == "published" else None
        body = expose_html(detail, public_url=public_url, inquiry_href=None, office_panel=office_panel(detail, public_href=public))
        return listing_page(f"Objekt {detail.listing_id}: {detail.title}", body)

    @router.get(STOCK_LISTING_PATH, summary="Objekt des eigenen Büros")
    async def stock_listing(request: Request, listing_id: str) -> Response:
        return await office_record(
            request,
            STOCK_LISTING_PATH.format(listing_id=listing_id),
            lambda ctx: stock.get_listing(GetStockListingInput(listing_id=listing_id), ctx),
            stock_page,
        )

    @router.get(OFFICE_INQUIRY_PATH, summary="Anfrage an das eigene Büro")
    async def office_inquiry(request: Request, inquiry_id: str) -> Response:
        return await office_record(
            request,
            OFFICE_INQUIRY_PATH.format(inquiry_id=inquiry_id),
            lambda ctx: inquiries.get_inquiry(GetInquiryInput(inquiry_id=inquiry_id), ctx, tool="web_app"),
            lambda detail: listing_page(
                f"Anfrage {detail.inquiry_id} zu „{detail.listing.title}“",
                inquiry_html(detail, listing_href=STOCK_LISTING_PATH.format(listing_id=detail.listing.listing_id)),
            ),
        )

    def seeker_context(account: Account) -> ToolContext:
        caller = Principal(
            user_id=account.user_id, kind="seeker", office_id=None, office_role=None, scopes=frozenset(), resource=search_resource,
            client_id=WEB_APP_CLIENT,
        )
        return dataclasses.replace(context, caller=caller)

    async def inquiry_form(request: Request, listing_id: str, form: InquiryForm | None) -> Response:
        """'Anfrage stellen': signed in (else the login, which comes back here), a seeker writes the message; the draft
        then waits on its confirmation page for the click, as every draft does."""
        path = INQUIRY_FORM_PATH.format(listing_id=listing_id)
        account = await webapp.account(request)
        if account is None:
            return webapp.login_for(path)
        if account.office_id is not None:
            return error_page("Nur für Suchende", FOR_SEEKERS, 403)
        try:
            detail = await anyio.to_thread.run_sync(public_listing, listing_id)
        except (ToolFailure, ValidationError):
            return await not_offered(listing_id)
        problem = None
        if form is not None:
            try:
                args = DraftInquiryInput(
                    request_id=form.anfrage_id or uuid.uuid4().hex, listing_id=detail.listing_id, message=form.nachricht or "", share=list(form.teilen)
                )
                drafted = await anyio.to_thread.run_sync(contact.draft_inquiry, args, seeker_context(account))
                confirmation = drafted.output.confirmation
                if confirmation is not None:
                    return see_other(CONFIRM_PAGE_PATH + confirmation.confirmation_id)
                problem = drafted.output.outcome
            except ValidationError:
                problem = "Bitte schreibe eine Nachricht an den Anbieter (höchstens 4.000 Zeichen)."
            except ToolFailure as failure:
                problem = failure.message
        nonce, csrf_token = webapp.form_token(request)
        message = form.nachricht if form is not None and form.nachricht is not None else default_message(detail)
        shared = list(form.teilen) if form is not None else ["name", "email"]
        request_key = form.anfrage_id if form is not None and form.anfrage_id else uuid.uuid4().hex  # kept when the form comes back
        page = inquiry_page(
            detail, action=path, csrf_token=csrf_token, request_key=request_key, message=message, shared=shared, problem=problem, user_name=account.name
        )
        return webapp.with_form_cookie(page, nonce)

    @router.get(INQUIRY_FORM_PATH, summary="Anfrage an den Anbieter schreiben")
    async def show_inquiry_form(request: Request, listing_id: str) -> Response:
        return await inquiry_form(request, listing_id, None)

    @router.post(INQUIRY_FORM_PATH, openapi_extra=InquiryForm.openapi_body(), summary="Anfrage vorbereiten (zur Bestätigung)")
    async def draft_inquiry(request: Request, listing_id: str, form: FormData = Depends(webapp.checked_form)) -> Response:
        return await inquiry_form(request, listing_id, InquiryForm.of(form))

    return router


class InquiryForm(FormModel):
    csrf_token: str | None = None
    nachricht: str | None = None  # the message to the provider
    anfrage_id: str | None = None  # the draft's idempotency key, one per form shown
    teilen: list[str] = []  # what of the account goes with it: name, email, phone
