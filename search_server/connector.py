"""`search` and `fetch` of ChatGPT's research connectors over the public catalog (contract/connectors.py).

Thin over the catalog's own handlers: the one line is read into search_listings' filters (shared/connector.py,
shared/catalog/free_text.py) and searched by the same engine with the same honesty (totals, completeness,
warnings, the empty result's next step); `fetch` is get_listing's exposé as text.
"""

from __future__ import annotations

from pydantic import ValidationError
from sqlalchemy import select

from contract.catalog import GetListingInput, SearchListingsInput
from contract.connectors import RESULTS_SHOWN, ConnectorDocument, ConnectorFetchInput, ConnectorHit, ConnectorSearchInput
from contract.envelope import EffectiveValue, Page, ValueSource
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import MarketingType, PropertyType, label
from search_server import catalog
from shared import connector
from shared.addresses import EXPOSE_PATH, address
from shared.catalog import search as engine
from shared.catalog.reading import Reading
from shared.db.models import Listing
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.render import framed, render


def listing_hit(listing_id: str, title: str, postal_code: str, city: str, public_url: str) -> ConnectorHit:
    return ConnectorHit(
        id=listing_id,
        title=f"{framed(title)} ({postal_code} {city})",
        url=address(public_url, EXPOSE_PATH, listing_id=listing_id),
        kind="listing",
    )


def search(args: ConnectorSearchInput, ctx: ToolContext) -> Page[ConnectorHit]:
    reading = connector.read(args.query, ctx.db)
    if reading.inquiry_id:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{reading.inquiry_id} ist eine Anfragenummer; dieser Katalog kennt nur Inserate: bitte nach Ort, Wörtern oder "
            "einer Inseratsnummer suchen.",
        )
    if reading.listing_id:
        return _one_listing(args.query, reading, ctx)
    page = catalog.search_listings(connector.filters(reading, SearchListingsInput, RESULTS_SHOWN), ctx)
    hits = [listing_hit(s.listing_id, s.title, s.postal_code, s.city, ctx.settings.public_url) for s in page.items]
    empty = not hits
    return Page(
        items=hits,
        total=page.total,
        total_at_least=page.total_at_least,
        request=connector.echo(args.query, reading, page.request),
        sort_key=page.sort_key,
        sort_key_label=page.sort_key_label,
        freshness=page.freshness,
        incomplete=[
            *connector.not_understood(args.query, reading),
            *([*connector.shown_fewer(page.total, len(hits), "Treffer", "search_listings"), *page.incomplete] if hits else []),
        ],
        warnings=page.warnings,
        suggestions=connector.line_suggestions(args.query, reading) if empty else [],
        empty_hint=f"Gelesen als: {reading.sentence()}. {page.empty_hint or ''}".strip() if empty else None,
        body={"read_as": reading.sentence()},
    )


def _one_listing(line: str, reading: Reading, ctx: ToolContext) -> Page[ConnectorHit]:
    """A line that is a listing number: that published listing, or an empty answer that says it does not exist."""
    assert reading.listing_id is not None
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        row = session.execute(
            select(Listing.ref, Listing.title, Listing.postal_code, Listing.city).where(
                Listing.ref == reading.listing_id, Listing.status.in_(engine.PUBLIC_STATUSES)
            )
        ).one_or_none()
    hits = [listing_hit(*row, ctx.settings.public_url)] if row else []
    return Page(
        items=hits,
        total=len(hits),
        request={
            "line": EffectiveValue(value=line, source=ValueSource.caller),
            "listing_id": EffectiveValue(value=reading.listing_id, source=ValueSource.caller),
        },
        sort_key="listing_id asc",
        freshness=snap.freshness,
        empty_hint=None
        if hits
        else f"Ein veröffentlichtes Inserat {reading.listing_id} gibt es nicht (mehr): bitte die Nummer prüfen oder nach Ort und Wörtern suchen.",
        body={"read_as": reading.sentence()},
    )


def fetch(args: ConnectorFetchInput, ctx: ToolContext) -> ConnectorDocument:
    try:
        request = GetListingInput(listing_id=args.id)
    except ValidationError:
        raise connector.not_this_kind(args.id.strip(), "Inseratsnummern: A- und sieben Ziffern") from None
    detail = catalog.get_listing(request, ctx)
    return ConnectorDocument(
        id=detail.listing_id,
        title=f"{framed(detail.title)} ({detail.address.postal_code} {detail.address.city})",
        text=render(detail),
        url=address(ctx.settings.public_url, EXPOSE_PATH, listing_id=detail.listing_id),
        metadata={
            "kind": "listing",
            "marketing_type": label(MarketingType(detail.marketing_type)),
            "property_type": label(PropertyType(detail.property_type)),
            "postal_code": detail.address.postal_code,
            "city": detail.address.city,
            "state": detail.address.state,
            "provider": detail.provider.name,
            "data_as_of": detail.freshness.data_as_of.isoformat(),
        },
    )


HANDLERS: dict[str, Handler] = {"search": search, "fetch": fetch}
