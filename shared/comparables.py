"""The query that finds comparables: published catalog listings of the same kind in an area, through the
catalog engine's own public scope (never an office's stock), with what a missing value left out, and each one's
distance from the object where its location is known."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, bindparam, case, or_, select
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


@lru_cache(maxsize=128)
def _statement(
    marketing_type: MarketingType,
    property_type: PropertyType,
    city: str | None,
    postal_codes: tuple[str, ...] | None,
    area: tuple[float, float] | None,
    excluding: bool,
) -> Select[Any]:
    """The comparables' select for one kind of object in one place, the listing left out a bound `exclude_id`.

    Kept per arguments (a bounded few: a listing's check asks for its kind in its city): the statement is immutable,
    and building it and its cache key anew was as much CPU as running it."""
    filters = CatalogFilters(
        marketing_type=marketing_type,
        property_types=[property_type],
        city=None if postal_codes else city,
        postal_codes=list(postal_codes) if postal_codes else None,
        min_living_area=area[0] if area else None,
        max_living_area=area[1] if area else None,
    )
    base = engine.base_conditions(filters, ParsedQuery(), None)
    if excluding:
        base.append(Listing.id != bindparam("exclude_id"))
    ranges = engine.range_conditions(filters).get("living_area", [Listing.living_area > 0])
    # What is left out and what is compared, in one statement: each row flagged for the sets it belongs to (a row
    # may be in several), only rows of some set read.
    left_out_area = or_(Listing.living_area.is_(None), Listing.living_area <= 0)
    on_request = and_(*ranges, Listing.price.is_(None))
    compared = and_(*ranges, Listing.price.is_not(None), Listing.price > 0, Listing.living_area > 0)
    return (
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
    )


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
    statement = _statement(marketing_type, property_type, city, tuple(postal_codes) if postal_codes else None, area, exclude_id is not None)
    rows = session.execute(statement, {"exclude_id": exclude_id} if exclude_id is not None else {}).all()
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
