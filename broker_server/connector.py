"""`search` and `fetch` of ChatGPT's research and company-knowledge connectors over the office's own stock and
inquiries (contract/connectors.py).

Thin over the office's own handlers, so scoping, the personal-data audit and every honesty field stay theirs:
the stock is searched like search_listings (every status), the inquiries like search_inquiries by the line's words
(their messages), and `fetch` is get_listing's or get_inquiry's record as text. Another office's number is the
same NOT_FOUND as a missing one (broker_server/lookups.py).
"""

from __future__ import annotations

from pydantic import ValidationError

from broker_server import inquiries, stock
from contract.broker_inquiries import GetInquiryInput, SearchInquiriesInput
from contract.broker_stock import GetStockListingInput, SearchStockInput
from contract.connectors import RESULTS_SHOWN, ConnectorDocument, ConnectorFetchInput, ConnectorHit, ConnectorSearchInput
from contract.envelope import EffectiveValue, Freshness, Page, ValueSource
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import label
from shared import connector
from shared.addresses import OFFICE_INQUIRY_PATH, STOCK_LISTING_PATH, address
from shared.catalog.reading import Reading
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.render import framed, render

SORT_KEY = "listings: published_at desc, listing_id asc; then inquiries: created_at desc, inquiry_id desc"
SORT_TEXT = "erst Objekte (zuletzt veröffentlichte zuerst), dann Anfragen (neueste zuerst)"


def _listing_hit(listing_id: str, title: str, status: str, public_url: str) -> ConnectorHit:
    return ConnectorHit(
        id=listing_id,
        title=f"Objekt {listing_id}: {framed(title)} ({status})",
        url=address(public_url, STOCK_LISTING_PATH, listing_id=listing_id),
        kind="listing",
    )


def _inquiry_hit(inquiry_id: str, listing_title: str, status: str, public_url: str) -> ConnectorHit:
    return ConnectorHit(
        id=inquiry_id,
        title=f"Anfrage {inquiry_id} zu {framed(listing_title)} ({status})",
        url=address(public_url, OFFICE_INQUIRY_PATH, inquiry_id=inquiry_id),
        kind="inquiry",
    )


def search(args: ConnectorSearchInput, ctx: ToolContext) -> Page[ConnectorHit]:
    reading = connector.read(args.query, ctx.db)
    if reading.listing_id or reading.inquiry_id:
        return _one_record(args.query, reading, ctx)
    public_url = ctx.settings.public_url
    listings = stock.search_listings(connector.filters(reading, SearchStockInput, RESULTS_SHOWN), ctx)
    hits = [_listing_hit(s.listing_id, s.title, s.status_label, public_url) for s in listings.items]
    incomplete = connector.not_understood(args.query, reading)
    if listings.items:
        incomplete += connector.shown_fewer(listings.total, len(listings.items), "Objekte", "search_listings")
    request = connector.echo(args.query, reading, listings.request)
    total = listings.total
    sentence = reading.sentence()
    if reading.message_words:
        found = inquiries.search_inquiries(SearchInquiriesInput(query=reading.message_words, limit=RESULTS_SHOWN), ctx, tool="search")
        hits += [_inquiry_hit(i.inquiry_id, i.listing_title, label(i.status), public_url) for i in found.items]
        if found.items:
            incomplete += connector.shown_fewer(found.total, len(found.items), "Anfragen", "search_inquiries")
        request["inquiries_query"] = EffectiveValue(value=reading.message_words, source=ValueSource.caller)
        total = None if total is None or found.total is None else total + found.total
        sentence += f"; Anfragen: Nachrichten mit „{reading.message_words}“ (Ort und andere Angaben gelten nur für den Bestand)"
    else:
        sentence += "; Anfragen nicht gesucht (die Zeile hat keine Suchwörter für Nachrichten)"
    empty = not hits
    return Page(
        items=hits,
        total=total,
        total_at_least=listings.total_at_least,
        request=request,
        sort_key=SORT_KEY,
        sort_key_label=SORT_TEXT,
        freshness=listings.freshness,
        incomplete=incomplete,
        warnings=listings.warnings,
        suggestions=connector.line_suggestions(args.query, reading) if empty else [],
        empty_hint=f"Gelesen als: {sentence}. Durchsucht wurden nur Bestand und Anfragen deines Büros." if empty else None,
        body={"read_as": sentence},
    )


def _one_record(line: str, reading: Reading, ctx: ToolContext) -> Page[ConnectorHit]:
    """A line that is one number: that record of the office, or an empty answer (another office's is not named)."""
    public_url = ctx.settings.public_url
    hits: list[ConnectorHit] = []
    try:
        if reading.listing_id:
            listing = stock.get_listing(GetStockListingInput(listing_id=reading.listing_id), ctx)
            hits.append(_listing_hit(listing.listing_id, listing.title, listing.status_label, public_url))
            freshness = listing.freshness
        else:
            assert reading.inquiry_id is not None
            inquiry = inquiries.get_inquiry(GetInquiryInput(inquiry_id=reading.inquiry_id), ctx, tool="search")
            hits.append(_inquiry_hit(inquiry.inquiry_id, inquiry.listing.title, label(inquiry.status), public_url))
            freshness = Freshness(data_as_of=ctx.now(), snapshot="anfragen")  # inquiries are read live
    except ToolFailure as failure:
        if failure.code is not ErrorCode.NOT_FOUND:
            raise
        return _nothing(line, reading, ctx, failure.message)
    ref = reading.listing_id or reading.inquiry_id
    return Page(
        items=hits,
        total=1,
        request={
            "line": EffectiveValue(value=line, source=ValueSource.caller),
            "id": EffectiveValue(value=ref, source=ValueSource.caller),
        },
        sort_key="id asc",
        freshness=freshness,
        body={"read_as": reading.sentence()},
    )


def _nothing(line: str, reading: Reading, ctx: ToolContext, why: str) -> Page[ConnectorHit]:
    listings = stock.search_listings(SearchStockInput(limit=1), ctx)  # only for the office's echo and freshness
    return Page(
        items=[],
        total=0,
        request={
            "line": EffectiveValue(value=line, source=ValueSource.caller),
            "id": EffectiveValue(value=reading.listing_id or reading.inquiry_id, source=ValueSource.caller),
            "office": listings.request["office"],
        },
        sort_key="id asc",
        freshness=listings.freshness,
        empty_hint=why,
        body={"read_as": reading.sentence()},
    )


def fetch(args: ConnectorFetchInput, ctx: ToolContext) -> ConnectorDocument:
    ref = args.id.strip().upper()
    public_url = ctx.settings.public_url
    try:
        if ref.startswith("I-"):
            inquiry = inquiries.get_inquiry(GetInquiryInput(inquiry_id=ref), ctx, tool="fetch")
            return ConnectorDocument(
                id=inquiry.inquiry_id,
                title=f"Anfrage {inquiry.inquiry_id} zu {framed(inquiry.listing.title)}",
                text=render(inquiry),
                url=address(public_url, OFFICE_INQUIRY_PATH, inquiry_id=inquiry.inquiry_id),
                metadata={"kind": "inquiry", "status": label(inquiry.status), "listing_id": inquiry.listing.listing_id},
            )
        listing = stock.get_listing(GetStockListingInput(listing_id=ref), ctx)
    except ValidationError:
        raise connector.not_this_kind(args.id.strip(), "Objektnummern: A- und sieben Ziffern; Anfragenummern: I- und sechs Ziffern") from None
    return ConnectorDocument(
        id=listing.listing_id,
        title=f"Objekt {listing.listing_id}: {framed(listing.title)}",
        text=render(listing),
        url=address(public_url, STOCK_LISTING_PATH, listing_id=listing.listing_id),
        metadata={
            "kind": "listing",
            "status": listing.status_label,
            "postal_code": listing.address.postal_code,
            "city": listing.address.city,
            "data_as_of": listing.freshness.data_as_of.isoformat(),
        },
    )


HANDLERS: dict[str, Handler] = {"search": search, "fetch": fetch}
