"""The demo catalog written: real places, broker offices, and listings with their features and search terms.

Listings are generated and written in chunks, so memory stays flat up to millions of listings.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from sqlalchemy import Connection, insert

from contract.vocabulary import ListingStatus
from shared.catalog.indexing import search_fields, term_rows
from shared.catalog.text import normalise
from shared.db.models import Listing, ListingFeature, ListingTerm, Office, Place
from shared.demo.listings.factory import ListingFactory
from shared.demo.offices import DemoOffice, draw_offices
from shared.demo.places import DEMO_PLACES
from shared.demo.rows import CHUNK_SIZE, Row


@dataclass(frozen=True)
class WrittenCatalog:
    offices: list[DemoOffice]
    places: int
    published: int


def write_catalog(connection: Connection, rng: random.Random, listings: int) -> WrittenCatalog:
    """Places, then offices, then `listings` listings: the offices are the first draw of `rng`."""
    places = _place_rows()
    connection.execute(insert(Place), places)
    offices = draw_offices(rng)
    connection.execute(insert(Office), [office.row() for office in offices])
    factory = ListingFactory(rng, offices)
    published = 0
    for first in range(1, listings + 1, CHUNK_SIZE):
        listing_rows: list[Row] = []
        feature_rows: list[Row] = []
        index_rows: list[Row] = []
        for listing_id in range(first, min(first + CHUNK_SIZE, listings + 1)):
            row, features = factory.listing(listing_id)
            listing_rows.append(row)
            feature_rows.extend({"listing_id": listing_id, "feature": f.value} for f in features)
            fields = search_fields(
                title=row["title"],
                description=row["description"],
                city=row["city"],
                district=row["district"],
                subtype=row["property_subtype"],
                features=features,
            )
            index_rows.extend(term_rows(listing_id, fields))
            published += row["status"] == ListingStatus.published
        connection.execute(insert(Listing), listing_rows)
        if feature_rows:
            connection.execute(insert(ListingFeature), feature_rows)
        connection.execute(insert(ListingTerm), index_rows)
    return WrittenCatalog(offices, len(places), published)


def _place_rows() -> list[Row]:
    pairs = [(code, place) for place in DEMO_PLACES for code in place.postal_codes]
    return [
        {
            "id": place_id,
            "postal_code": code,
            "name": place.name,
            "name_key": normalise(place.name),
            "state": place.state,
            "latitude": place.latitude,
            "longitude": place.longitude,
        }
        for place_id, (code, place) in enumerate(pairs, start=1)
    ]
