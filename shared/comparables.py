"""The query that finds comparables: published catalog listings of the same kind in an area, through the
catalog engine's own public scope (never an office's stock), with what a missing value left out, and each one's
distance from the object where its location is known."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, case, or_, select
from sqlalchemy.orm import Session

from contract.catalog import CatalogFilters
from contract.vocabulary import MarketingType, PropertyType
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery
from shared.db.models import Listing
from shared.valuation import Comparable, ComparableSet


@dataclass(frozen=True)
class Origin:
    """Where distances to the comparables are measured from, and how the answer names that place (German)."""

    latitude: float
    longitude: float
    label: str

    def distance_km(self, latitude: float, longitude: float) -> float:
        return engine.distance_km(engine.Centre(self.latitude, self.longitude, 0.0, self.label), latitude, longitude)


def _flag(condition: ColumnElement[bool]) -> ColumnElement[int]:
    """1 where `condition` is true, else 0 (also where SQL finds it unknown, as a WHERE would)."""
    return case((condition, 1), else_=0)


def find_comparables(
    session: Session,
    *,
    marketing_type: MarketingType,
    property_type: PropertyType,
    city: str | None,
    postal_codes: list[str] | None,
    area: tuple[float, float] | None,
    exclude_id: int | None,
    origin: Origin | None = None,
) -> ComparableSet:
    """Published listings with a price and a living area (in `area`, if given) in `postal_codes` or else `city`;
    the listing `exclude_id` (the object itself) is left out; distances are measured from `origin`, if given."""
    filters = CatalogFilters(
        marketing_type=marketing_type,
        property_types=[property_type],
        city=None if postal_codes else city,
        postal_codes=postal_codes,
        min_living_area=area[0] if area else None,
        max_living_area=area[1] if area else None,
    )
    base = engine.base_conditions(filters, ParsedQuery(), None)
    if exclude_id is not None:
        base.append(Listing.id != exclude_id)
    ranges = engine.range_conditions(filters).get("living_area", [Listing.living_area > 0])
    # What is left out and what is compared, in one statement: each row flagged for the sets it belongs to (a row
    # may be in several), only rows of some set read.
    left_out_area = or_(Listing.living_area.is_(None), Listing.living_area <= 0)
    on_request = and_(*ranges, Listing.price.is_(None))
    compared = and_(*ranges, Listing.price.is_not(None), Listing.price > 0, Listing.living_area > 0)
    rows = session.execute(
        select(
            Listing.ref,
            Listing.price,
            Listing.living_area,
            Listing.rooms,
            Listing.year_built,
            Listing.postal_code,
            Listing.latitude,
            Listing.longitude,
            _flag(left_out_area).label("area_unknown"),
            _flag(on_request).label("on_request"),
            _flag(compared).label("compared"),
        )
        .where(*base, or_(left_out_area, on_request, compared))
        .order_by(Listing.id)
    ).all()
    return ComparableSet(
        listings=[
            Comparable(
                listing_id=r.ref,
                price=r.price,
                living_area=r.living_area,
                rooms=r.rooms,
                year_built=r.year_built,
                postal_code=r.postal_code,
                distance_km=origin.distance_km(r.latitude, r.longitude) if origin else None,
            )
            for r in rows
            if r.compared
        ],
        price_on_request=sum(r.on_request for r in rows),
        living_area_unknown=sum(r.area_unknown for r in rows),
        distance_from=origin.label if origin else None,
    )


def comparables_in_city(session: Session, listing: Listing) -> ComparableSet:
    """What a listing's price is checked against: its marketing and property type in its city, itself left out."""
    return find_comparables(
        session,
        marketing_type=MarketingType(listing.marketing_type),
        property_type=PropertyType(listing.property_type),
        city=listing.city,
        postal_codes=None,
        area=None,
        exclude_id=listing.id,
    )
