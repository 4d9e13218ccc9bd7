"""The pages a record's link opens for a person (shared/addresses.py): the public exposé (German, no login) and the
office's listing and inquiry in the web app (login). The connector tools `search` and `fetch` hand out these links.

Assembled here, above both servers, because each page is exactly a server's own view of the record: the catalog's
get_listing, the office's get_listing and get_inquiry (with its personal-data audit), run with the web app's
signed-in account as the caller, and shown in the German text a model reads."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import anyio.to_thread
from fastapi import APIRouter, Request
from starlette.responses import HTMLResponse, Response

from broker_server import inquiries, stock
from contract.broker_inquiries import GetInquiryInput
from contract.broker_stock import GetStockListingInput
from contract.catalog import GetListingInput
from contract.errors import ToolFailure
from pydantic import ValidationError
from search_server import catalog
from shared.addresses import EXPOSE_PATH, OFFICE_INQUIRY_PATH, STOCK_LISTING_PATH
from shared.auth.access import Account
from shared.auth.principal import Principal
from shared.routing import HeadRoute
from shared.runtime.context import ToolContext
from shared.runtime.render import render
from shared.webapp.app import WebApp
from shared.webapp.pages import error_page, record_page

WEB_APP_CLIENT = "web-app"  # the client id the audit names for reads in the web app

NOT_PUBLIC = "Dieses Inserat ist nicht (mehr) veröffentlicht. Weitere Inserate findest du mit der Athaus Immobiliensuche."
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


async def _shown(read: Callable[[], Any], title: Callable[[Any], str], missing: str, note: str = "") -> Response:
    """The record as a page, or a German 404 when the view refuses it (not there, not public, not this office's)."""
    try:
        record = await anyio.to_thread.run_sync(read)
    except (ToolFailure, ValidationError):
        return error_page("Nicht gefunden", missing, 404)
    return record_page(title(record), render(record), note=note)


def record_router(context: ToolContext, webapp: WebApp) -> APIRouter:
    router = APIRouter(route_class=HeadRoute, tags=["Datensätze"], default_response_class=HTMLResponse)
    resource = context.settings.resource_url("makler")

    @router.get(EXPOSE_PATH, summary="Öffentliches Exposé")
    async def expose(listing_id: str) -> Response:
        return await _shown(
            lambda: catalog.get_listing(GetListingInput(listing_id=listing_id), context),
            lambda detail: detail.title,
            NOT_PUBLIC,
            note="Öffentliches Exposé bei Athaus",
        )

    async def office_record(request: Request, path: str, read: Callable[[ToolContext], Any], title: Callable[[Any], str]) -> Response:
        account = await webapp.account(request)
        if account is None:
            return webapp.login_for(path)
        caller = _office_caller(account, resource)
        if caller is None:
            return error_page("Nur für Maklerbüros", "Diese Seite zeigt Daten eines Maklerbüros; dein Konto gehört zu keinem.", 403)
        return await _shown(lambda: read(dataclasses.replace(context, caller=caller)), title, NOT_IN_OFFICE)

    @router.get(STOCK_LISTING_PATH, summary="Objekt des eigenen Büros")
    async def stock_listing(request: Request, listing_id: str) -> Response:
        return await office_record(
            request,
            STOCK_LISTING_PATH.format(listing_id=listing_id),
            lambda ctx: stock.get_listing(GetStockListingInput(listing_id=listing_id), ctx),
            lambda detail: f"Objekt {detail.listing_id}: {detail.title}",
        )

    @router.get(OFFICE_INQUIRY_PATH, summary="Anfrage an das eigene Büro")
    async def office_inquiry(request: Request, inquiry_id: str) -> Response:
        return await office_record(
            request,
            OFFICE_INQUIRY_PATH.format(inquiry_id=inquiry_id),
            lambda ctx: inquiries.get_inquiry(GetInquiryInput(inquiry_id=inquiry_id), ctx, tool="web_app"),
            lambda detail: f"Anfrage {detail.inquiry_id} zu „{detail.listing.title}“",
        )

    return router
