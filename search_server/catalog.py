"""Handlers of the public catalog: search_listings, count_listings, get_listing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, joinedload, selectinload

from contract.catalog import (
    SORT_KEYS,
    SORT_TEXT,
    CatalogFilters,
    CountListingsInput,
    Facet,
    FacetBucket,
    FacetName,
    GetListingInput,
    ListingDetail,
    ListingSummary,
    SearchListingsInput,
)
from contract.envelope import IncompleteReason, Page, ReasonCode, Tally
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import MarketingType, PropertyType, label
from shared import german, listing_view
from shared.catalog import search as engine
from shared.catalog.scope import ALL_FILTERS, PublicScope
from shared.db.models import Listing
from shared.runtime import render
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request
from shared.wording import PRICE_ON_REQUEST

# What an omitted filter means, spelled out in the echoed request (rule 1).
ALL_OF_IT: dict[str, Any] = {**ALL_FILTERS, "status": ["published"]}

PRICE_BANDS: dict[MarketingType, list[tuple[float, float | None]]] = {
    MarketingType.buy: [(0, 200_000), (200_000, 400_000), (400_000, 700_000), (700_000, 1_000_000), (1_000_000, None)],
    MarketingType.rent: [(0, 500), (500, 1_000), (1_000, 1_500), (1_500, 2_500), (2_500, None)],
}


class Scope(PublicScope):
    """The resolved scope of one public catalog request, with its request echo."""

    def request(self, args: CatalogFilters, exclude: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
        """The request as executed: places as the catalog spells them, and rent only where a warm rent is asked for."""
        implied = {**ALL_OF_IT, "marketing_type": MarketingType.rent.value} if engine.warm_rent_filtered(args) else ALL_OF_IT
        return effective_request(self.executed(args), implied, exclude)


def search_listings(args: SearchListingsInput, ctx: ToolContext) -> Page[ListingSummary]:
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        scope = Scope(session, args)
        page = scope.page(
            session, ctx.cursors, args, binding=engine.binding(args, args.sort), revision=snap.revision, now=ctx.now(),
            count_cap=engine.COUNT_CAP,
        )
        items = [listing_view.summary(row, args.include, scope.distance_km(row)) for row in page.rows]
        hint, suggestions = scope.next_steps(session) if page.total == 0 else (None, [])
    incomplete = []
    if page.total is None:
        incomplete.append(IncompleteReason(code=ReasonCode.TOTAL_NOT_COUNTED, message=_not_counted(page.total_at_least)))
    return Page(
        items=items,
        total=page.total,
        total_at_least=page.total_at_least,
        incomplete=incomplete,
        request=scope.request(args, exclude={"cursor"}),
        sort_key=SORT_KEYS[args.sort],
        sort_key_label=SORT_TEXT[args.sort],
        freshness=snap.freshness,
        next_cursor=page.next_cursor,
        warnings=scope.warnings,
        suggestions=suggestions,
        empty_hint=hint,
    )


def _not_counted(at_least: int | None) -> str:
    return (
        f"Gesamtzahl nicht gezählt: mindestens {german.number(at_least or 0, 0)} Treffer, genau zu zählen würde die Suche "
        "verlangsamen. Die genaue Zahl liefert count_listings mit denselben Filtern; engere Filter (Ort, Preis, "
        "Objektart, Suchwörter) ergeben eine genau gezählte Trefferliste."
    )


def _buckets(pairs: list[tuple[Any, int]], labeller: Any) -> list[FacetBucket]:
    return [FacetBucket(value=str(value), label=labeller(value), count=n) for value, n in pairs]


def count_listings(args: CountListingsInput, ctx: ToolContext) -> Tally:
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        scope = Scope(session, args)
        total = engine.count(session, scope.conditions)
        facets: list[Facet] = []
        for name in sorted(set(args.facets), key=list(FacetName).index):
            if name is FacetName.marketing_type:
                pairs = engine.facet_counts(session, scope.conditions, Listing.marketing_type)
                facets.append(Facet(name=name, buckets=_buckets(pairs, lambda v: label(MarketingType(v)))))
            elif name is FacetName.property_type:
                pairs = engine.facet_counts(session, scope.conditions, Listing.property_type)
                facets.append(Facet(name=name, buckets=_buckets(pairs, lambda v: label(PropertyType(v)))))
            elif name is FacetName.city:
                pairs = engine.facet_counts(session, scope.conditions, Listing.city)
                facets.append(Facet(name=name, buckets=_buckets(pairs, str)))
            else:
                facets.append(Facet(name=name, buckets=_price_buckets(session, scope, args.marketing_type)))
        hint, suggestions = scope.next_steps(session) if total == 0 else (None, [])
    return Tally(
        total=total,
        request=scope.request(args),
        freshness=snap.freshness,
        body={"facets": facets},
        warnings=scope.warnings,
        suggestions=suggestions,
        empty_hint=hint,
    )


def _band_label(low: float, high: float | None, rent: bool) -> str:
    unit = " € Kaltmiete" if rent else " €"
    if high is None:
        return f"ab {german.number(low, 0)}{unit}"
    return f"{german.number(low, 0)} bis unter {render.number(high, 0)}{unit}"


def _price_buckets(session: Session, scope: Scope, marketing_type: MarketingType | None) -> list[FacetBucket]:
    """Price bands per marketing type (a purchase price and a rent never share a band)."""
    buckets: list[FacetBucket] = []
    for kind in [marketing_type] if marketing_type else list(MarketingType):
        bands = PRICE_BANDS[kind]
        counts = engine.price_band_counts(session, [*scope.conditions, Listing.marketing_type == kind.value], bands)
        for (low, high), n in zip(bands, counts, strict=False):
            if n:
                value = f"{kind.value}:{low:g}-{'' if high is None else f'{high:g}'}"
                buckets.append(FacetBucket(value=value, label=f"{label(kind)}: {_band_label(low, high, kind is MarketingType.rent)}", count=n))
        if counts[-1]:
            buckets.append(FacetBucket(value=f"{kind.value}:on_request", label=f"{label(kind)}: {PRICE_ON_REQUEST}", count=counts[-1]))
    return buckets


# Built once: SQLAlchemy memoizes a statement's cache key on the object, so a reused statement is neither rebuilt nor
# re-keyed per call. The office (many-to-one, never null) comes in the same row; the features in one more query.
_PUBLIC_LISTING = (
    select(Listing)
    .where(Listing.ref == bindparam("listing_id"), Listing.status.in_(engine.PUBLIC_STATUSES))
    .options(joinedload(Listing.office, innerjoin=True), selectinload(Listing.features))
)


def load_public_listing(session: Session, listing_id: str) -> Listing:
    listing = session.scalar(_PUBLIC_LISTING, {"listing_id": listing_id})
    if listing is None:
        raise ToolFailure(
            ErrorCode.NOT_FOUND,
            f"Ein veröffentlichtes Inserat {listing_id} gibt es nicht (mehr): bitte die Inseratsnummer prüfen oder mit "
            "search_listings suchen.",
        )
    return listing


def get_listing(args: GetListingInput, ctx: ToolContext) -> ListingDetail:
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        listing = load_public_listing(session, args.listing_id)
        return listing_view.detail(listing, snap.freshness, ctx.now().date())


HANDLERS: dict[str, Handler] = {
    "search_listings": search_listings,
    "count_listings": count_listings,
    "get_listing": get_listing,
}
