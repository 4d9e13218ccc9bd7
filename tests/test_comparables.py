"""The comparables (`shared.comparables.find_comparables`) read in one statement, with what they leave out as flags:
on every combination of the demo catalog the same rows and the same counts as a count per set (rule 14)."""

from __future__ import annotations

import itertools

from sqlalchemy import or_, select

from contract.catalog import CatalogFilters
from contract.vocabulary import MarketingType, PropertyType
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery
from shared.comparables import find_comparables
from shared.db.models import Listing
from shared.db.session import Database


def _by_counts(session, filters: CatalogFilters, exclude_id: int | None) -> tuple[list[str], int, int]:
    """The comparables' refs, the price-on-request and the unknown-area counts, each set a statement of its own."""
    base = engine.base_conditions(filters, ParsedQuery(), None)
    if exclude_id is not None:
        base.append(Listing.id != exclude_id)
    ranges = engine.range_conditions(filters).get("living_area", [Listing.living_area > 0])
    unknown_area = engine.count(session, [*base, or_(Listing.living_area.is_(None), Listing.living_area <= 0)])
    on_request = engine.count(session, [*base, *ranges, Listing.price.is_(None)])
    refs = session.scalars(
        select(Listing.ref).where(*base, *ranges, Listing.price.is_not(None), Listing.price > 0, Listing.living_area > 0).order_by(Listing.id)
    ).all()
    return list(refs), on_request, unknown_area


def test_one_statement_finds_what_a_count_per_set_finds(demo_db: Database) -> None:
    with demo_db.read_only() as session:
        cities = session.scalars(select(Listing.city).distinct().order_by(Listing.city).limit(6)).all()
        codes = session.scalars(select(Listing.postal_code).distinct().order_by(Listing.postal_code).limit(3)).all()
        first_id = session.scalar(select(Listing.id).order_by(Listing.id).limit(1))
        left_out = 0
        for city, marketing, kind, area, exclude in itertools.product(
            cities, MarketingType, [PropertyType.apartment, PropertyType.house], [None, (0.0, 80.0), (60.0, 120.0)], [None, first_id]
        ):
            for postal_codes in (None, [codes[0][:2]], list(codes)):
                filters = CatalogFilters(
                    marketing_type=marketing, property_types=[kind], city=None if postal_codes else city, postal_codes=postal_codes,
                    min_living_area=area[0] if area else None, max_living_area=area[1] if area else None,
                )
                found = find_comparables(
                    session, marketing_type=marketing, property_type=kind, city=city, postal_codes=postal_codes, area=area, exclude_id=exclude
                )
                expected = _by_counts(session, filters, exclude)
                assert ([c.listing_id for c in found.listings], found.price_on_request, found.living_area_unknown) == expected
                left_out += found.price_on_request + found.living_area_unknown
    assert left_out > 0  # the demo catalog has listings each flag counts
