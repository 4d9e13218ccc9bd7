"""Handlers of the public catalog: search_listings, count_listings, get_listing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from contract.catalog import (
    SORT_KEYS,
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
from contract.envelope import Page, Tally
from contract.errors import ErrorCode
from contract.vocabulary import MarketingType, PropertyType, label
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery, parse
from shared.catalog.scope import empty_hint as _empty_hint
from shared.catalog.scope import filter_warnings as _warnings
from shared.catalog.scope import resolve_centre as _centre
from shared.catalog.suggest import suggestions_for
from shared.db.models import Listing
from shared.runtime.context import ToolContext
from shared.runtime.envelope import effective_request
from shared.runtime.errors import ToolFailure
from search_server import listings

# What an omitted filter means, spelled out in the echoed request (rule 1).
ALL_OF_IT: dict[str, Any] = {
    "marketing_type": [m.value for m in MarketingType],
    "property_types": [p.value for p in PropertyType],
    "features": [],
    "status": ["published"],
}

PRICE_BANDS: dict[MarketingType, list[tuple[float, float | None]]] = {
    MarketingType.buy: [(0, 200_000), (200_000, 400_000), (400_000, 700_000), (700_000, 1_000_000), (1_000_000, None)],
    MarketingType.rent: [(0, 500), (500, 1_000), (1_000, 1_500), (1_500, 2_500), (2_500, None)],
}


class Scope:
    """The resolved scope of one catalog request (filters, parsed text, centre, SQL conditions)."""

    def __init__(self, session: Session, filters: CatalogFilters) -> None:
        self.filters = filters
        self.parsed = parse(filters.query) if filters.query else ParsedQuery()
        self.centre = _centre(session, filters)
        self.base = engine.base_conditions(filters, self.parsed, self.centre)
        self.ranges = engine.range_conditions(filters)
        self.conditions = [*self.base, *(c for parts in self.ranges.values() for c in parts)]
        self.excluded = engine.unknown_value_counts(session, self.base, self.ranges)

    def request(self, args: CatalogFilters, exclude: set[str] = frozenset()) -> dict[str, Any]:  # type: ignore[assignment]
        return effective_request(args, ALL_OF_IT, exclude)


def search_listings(args: SearchListingsInput, ctx: ToolContext) -> Page[ListingSummary]:
    now = ctx.now()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        scope = Scope(session, args)
        bound_to = engine.binding(CatalogFilters.model_validate(args.model_dump(include=set(CatalogFilters.model_fields))), args.sort)
        conditions = list(scope.conditions)
        if args.cursor:
            position = ctx.cursors.decode(args.cursor, binding=bound_to, snapshot=snap.revision, now=now)
            conditions.append(engine.after(position, args.sort))
        total = engine.count(session, scope.conditions)
        rows = list(
            session.scalars(
                select(Listing)
                .where(*conditions)
                .order_by(*engine.order_by(args.sort))
                .limit(args.limit + 1)
                .options(selectinload(Listing.office), selectinload(Listing.features))
            )
        )
        more = len(rows) > args.limit
        rows = rows[: args.limit]
        items = [
            listings.summary(
                row, args.include, engine.distance_km(scope.centre, row.latitude, row.longitude) if scope.centre else None
            )
            for row in rows
        ]
        next_cursor = (
            ctx.cursors.encode(binding=bound_to, snapshot=snap.revision, position=engine.position_of(rows[-1], args.sort), now=now)
            if more
            else None
        )
    return Page(
        items=items,
        total=total,
        request=scope.request(args, exclude={"cursor"}),
        sort_key=SORT_KEYS[args.sort],
        freshness=snap.freshness,
        next_cursor=next_cursor,
        warnings=_warnings(args, scope.parsed, scope.excluded),
        suggestions=suggestions_for(args) if total == 0 else [],
        empty_hint=_empty_hint(args, scope.centre) if total == 0 else None,
    )


def _buckets(pairs: list[tuple[Any, int]], labeller: Any) -> list[FacetBucket]:
    return [FacetBucket(value=str(value), label=labeller(value), count=n) for value, n in pairs]


def count_listings(args: CountListingsInput, ctx: ToolContext) -> Tally:
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
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
    return Tally(
        total=total,
        request=scope.request(args),
        freshness=snap.freshness,
        body={"facets": facets},
        warnings=_warnings(args, scope.parsed, scope.excluded),
        suggestions=suggestions_for(args) if total == 0 else [],
        empty_hint=_empty_hint(args, scope.centre) if total == 0 else None,
    )


def _band_label(low: float, high: float | None, rent: bool) -> str:
    unit = " € Kaltmiete" if rent else " €"
    fmt = lambda v: f"{v:,.0f}".replace(",", ".")  # noqa: E731
    return f"ab {fmt(low)}{unit}" if high is None else f"{fmt(low)} bis unter {fmt(high)}{unit}"


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
            buckets.append(FacetBucket(value=f"{kind.value}:on_request", label=f"{label(kind)}: Preis auf Anfrage", count=counts[-1]))
    return buckets


def load_public_listing(session: Session, listing_id: str) -> Listing:
    listing = session.scalar(
        select(Listing)
        .where(Listing.ref == listing_id, Listing.status.in_(engine.PUBLIC_STATUSES))
        .options(selectinload(Listing.office), selectinload(Listing.features))
    )
    if listing is None:
        raise ToolFailure(
            ErrorCode.NOT_FOUND,
            f"Ein veröffentlichtes Inserat {listing_id} gibt es nicht (mehr): bitte die Inseratsnummer prüfen oder mit "
            "search_listings suchen.",
        )
    return listing


def get_listing(args: GetListingInput, ctx: ToolContext) -> ListingDetail:
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        listing = load_public_listing(session, args.listing_id)
        return listings.detail(listing, snap.freshness, ctx.now().date())


