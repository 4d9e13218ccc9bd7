"""A saved search fits a listing exactly when search_listings with its criteria finds the listing: `fits` (Python
tests on city and postal codes, then the catalog's SQL for one listing) against the public catalog's own scope, for
every active demo search and published listings that were matched and that were not. Both halves: fits and misses."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from shared.catalog.scope import PublicScope
from shared.db.models import Listing, Match, SearchOrder
from shared.matching.events import fits
from shared.saved_search import criteria_of


def test_fits_agrees_with_the_catalog_search_for_every_active_saved_search(demo_db: Any) -> None:
    with demo_db.read_only() as session:
        matched = session.scalars(
            select(Match.listing_id).join(Listing, Listing.id == Match.listing_id).where(Listing.status == "published").distinct().order_by(Match.listing_id).limit(12)
        ).all()
        others = session.scalars(select(Listing.id).where(Listing.status == "published").order_by(Listing.id).limit(12)).all()
        listings = session.scalars(select(Listing).where(Listing.id.in_({*matched, *others}))).all()
        orders = session.scalars(select(SearchOrder).where(SearchOrder.status == "active").order_by(SearchOrder.id)).all()
        fitting = missing = 0
        for order in orders:
            scope = PublicScope(session, criteria_of(order.criteria))
            found = set(session.scalars(select(Listing.id).where(*scope.conditions, Listing.id.in_([l.id for l in listings]))))
            for listing in listings:
                assert fits(session, listing, order.criteria) == (listing.id in found), (order.ref, listing.ref)
                fitting += listing.id in found
                missing += listing.id not in found
    assert fitting > 0 and missing > 0
