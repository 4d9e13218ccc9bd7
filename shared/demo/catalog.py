"""The demo catalog written: real places, broker offices, and listings with their features and search terms.

Listings are generated in chunks (a generator, never the whole catalog in memory) and bulk loaded the way each
database loads fastest (shared.demo.bulk), so memory stays flat and a million listings load in minutes.
"""

from __future__ import annotations

import multiprocessing
import os
import random
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, insert

from contract.vocabulary import ListingStatus
from shared.catalog.indexing import search_fields
from shared.catalog.text import index_terms, normalise
from shared.db.models import Office, Place
from shared.demo.bulk import TermRow, copy_text, loader_for
from shared.demo.listings.factory import ListingFactory
from shared.demo.offices import DemoOffice, draw_offices
from shared.demo.places import DEMO_PLACES
from shared.demo.rows import CHUNK_SIZE, Row

BULK_CHUNK_SIZE = 5_000
PARALLEL_FROM = 50_000  # catalogs from this size compute their term index in worker processes
_IN_FLIGHT = 3  # chunks of terms being computed at once: bounds memory


@dataclass(frozen=True)
class WrittenCatalog:
    offices: list[DemoOffice]
    places: int
    published: int


@dataclass
class Chunk:
    listings: list[Row] = field(default_factory=list)
    features: list[tuple[int, str]] = field(default_factory=list)
    fields: list[tuple[int, list[str]]] = field(default_factory=list)  # (listing id, its searchable text fields)
    published: int = 0


def listing_chunks(factory: ListingFactory, listings: int, size: int) -> Iterator[Chunk]:
    """Listings 1..`listings` with their features and text fields, `size` listings at a time, in id order."""
    for first in range(1, listings + 1, size):
        chunk = Chunk()
        for listing_id in range(first, min(first + size, listings + 1)):
            row, features = factory.listing(listing_id)
            chunk.listings.append(row)
            chunk.features.extend((listing_id, f.value) for f in features)
            fields = search_fields(
                title=row["title"],
                description=row["description"],
                city=row["city"],
                district=row["district"],
                subtype=row["property_subtype"],
                features=features,
            )
            chunk.fields.append((listing_id, fields))
            chunk.published += row["status"] == ListingStatus.published
        yield chunk


def term_rows_of(fields: list[tuple[int, list[str]]]) -> list[TermRow]:
    """The full-text index rows of listings, given their text fields (pure: runs in a worker process too)."""
    return [(listing_id, position, term) for listing_id, texts in fields for position, term in index_terms(texts)]


def _encoded_terms(fields: list[tuple[int, list[str]]], as_copy_text: bool) -> list[TermRow] | str:
    rows = term_rows_of(fields)
    return copy_text(rows) if as_copy_text else rows


def write_catalog(connection: Connection, rng: random.Random, listings: int, bulk: bool = True, workers: int | None = None) -> WrittenCatalog:
    """Places, then offices, then `listings` listings: the offices are the first draw of `rng`.

    `bulk` loads through COPY (PostgreSQL) or raw executemany (SQLite) with the secondary indexes built after the
    load, and from PARALLEL_FROM listings (or when `workers` is given) computes the term index in worker processes
    while the main process draws the listings (the draw is one random stream, the terms are pure); without it every
    row goes through an SQLAlchemy insert with the indexes in place. Both write the same rows.
    """
    places = _place_rows()
    connection.execute(insert(Place), places)
    offices = draw_offices(rng)
    connection.execute(insert(Office), [office.row() for office in offices])
    factory = ListingFactory(rng, offices)
    loader = loader_for(connection, bulk)
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if bulk and listings >= PARALLEL_FROM else 0
    published = 0
    chunks = listing_chunks(factory, listings, BULK_CHUNK_SIZE if bulk else CHUNK_SIZE)
    with loader.deferred_indexes(), _pool(workers) as pool:
        pending: deque[Any] = deque()
        for chunk in chunks:
            loader.listings(chunk.listings)
            loader.features(chunk.features)
            published += chunk.published
            if pool is None:
                loader.terms(term_rows_of(chunk.fields))
                continue
            pending.append(pool.apply_async(_encoded_terms, (chunk.fields, loader.copies_text)))
            while len(pending) >= _IN_FLIGHT:
                loader.terms(pending.popleft().get())
        while pending:
            loader.terms(pending.popleft().get())
    return WrittenCatalog(offices, len(places), published)


@contextmanager
def _pool(workers: int) -> Iterator[Any]:
    if workers <= 0:
        yield None
        return
    # spawn, not fork: the caller may run threads (a server, a test's), and a worker needs no state of ours
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        yield pool


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
