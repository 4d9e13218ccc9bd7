"""Athaus Immobiliensuche as served: its contract declaration with handlers, resource readers, prompts and completers."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel
from sqlalchemy import select

from contract import search as contract
from contract.catalog import RESULTS_URI, GetListingInput, ListingDetail
from contract.confirmations import CARD_URI
from contract.seeker_account import GetInquiryInput
from contract.vocabulary import MarketingType, label
from search_server import account, account_writes, catalog, connector, contact, costs, matches
from shared.catalog.search import PUBLIC_STATUSES, Snapshot, current_snapshot
from shared.catalog.text import normalise
from shared.chatapps.results import results_html
from shared.confirmations.card import card_html
from shared.catalog import places
from shared.db.models import Inquiry, Listing
from shared.runtime.context import ToolContext
from shared.runtime.definition import ServerDefinition, bind


def read_listing(variables: Mapping[str, str], ctx: ToolContext) -> ListingDetail:
    return catalog.get_listing(GetListingInput(listing_id=variables["listing_id"]), ctx)


def read_own_inquiry(variables: Mapping[str, str], ctx: ToolContext) -> BaseModel:
    return account.get_inquiry(GetInquiryInput(inquiry_id=variables["inquiry_id"]), ctx)


def complete_own_inquiry_ids(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    with ctx.db.read_only() as session:
        query = ctx.seeker().inquiries().with_only_columns(Inquiry.ref).where(Inquiry.ref.startswith(prefix.strip().upper()))
        return list(session.scalars(query.order_by(Inquiry.ref).limit(limit)))


def complete_places(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    """Place names (or postal codes, for digits) of Germany that start with `prefix`."""
    return places.completions(prefix, limit)


def complete_marketing_types(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    key = normalise(prefix.strip())
    return [m.value for m in MarketingType if m.value.startswith(key) or normalise(label(m)).startswith(key)]


def complete_listing_ids(prefix: str, ctx: ToolContext, limit: int) -> list[str]:
    with ctx.db.read_only() as session:
        query = (
            select(Listing.ref)
            .where(Listing.ref.startswith(prefix.strip().upper()), Listing.status.in_(PUBLIC_STATUSES))
            .order_by(Listing.ref)
            .limit(limit)
        )
        return list(session.scalars(query))


def catalog_revision(ctx: ToolContext) -> Snapshot:
    return current_snapshot(ctx.db)


def start_search_prompt(arguments: Mapping[str, str], ctx: ToolContext) -> str:
    place = arguments["place"]
    kind = arguments.get("marketing_type") or ""
    budget = arguments.get("budget") or ""
    wanted = {"buy": "zu kaufen", "rent": "zu mieten"}.get(normalise(kind), "zu kaufen oder zu mieten")
    lines = [
        f"Ich suche ein Zuhause in {place}, {wanted}." + (f" Mein Budget liegt bei höchstens {budget} €." if budget else ""),
        "Bitte geh so vor:",
        f"1. Zähle mit count_listings, was es in {place} gibt (near mit place und einem Umkreis, oder city), "
        "aufgeschlüsselt nach Objektart und Preisband.",
        "2. Frag mich danach genau eine Sache, die die Suche am stärksten eingrenzt (z. B. Zimmer, Wohnfläche oder Ausstattung).",
        "3. Suche dann mit search_listings und zeige mir die Treffer mit Preis, Fläche, Zimmern und Inseratsnummer.",
        "4. Wenn eine Antwort completeness.complete = false hat, sag mir das und blättere mit next_cursor weiter, statt "
        "daraus zu schließen, dass es nicht mehr gibt. Ist die Antwort leer, nenne mir die Vorschläge, statt selbst zu erweitern.",
    ]
    return "\n".join(lines)


DEFINITION = ServerDefinition(
    spec=contract.SERVER,
    handlers=bind(catalog.HANDLERS, connector.HANDLERS, costs.HANDLERS, account.HANDLERS, matches.HANDLERS, account_writes.HANDLERS, contact.HANDLERS),
    readers={
        contract.LISTING_RESOURCE.name: read_listing,
        contract.OWN_INQUIRY_RESOURCE.name: read_own_inquiry,
    },
    prompts={contract.START_SEARCH_PROMPT.name: start_search_prompt},
    completers={
        "places": complete_places,
        "marketing_types": complete_marketing_types,
        f"{contract.LISTING_RESOURCE.name}.listing_id": complete_listing_ids,
        f"{contract.OWN_INQUIRY_RESOURCE.name}.inquiry_id": complete_own_inquiry_ids,
    },
    app_html={CARD_URI: card_html, RESULTS_URI: results_html},
    # their answers depend on arguments, catalog and day only: kept per catalog revision (shared/runtime/read_cache.py)
    public_reads=frozenset({"search_listings", "count_listings", "get_listing", "search", "fetch"}),
    catalog_revision=catalog_revision,
)
