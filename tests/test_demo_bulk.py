"""The bulk load of the demo catalog (COPY on PostgreSQL, raw executemany on SQLite, indexes built after the load)
writes exactly the rows of the plain row-by-row inserts, is deterministic, and leaves the same schema behind."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select

from shared.db.migrate import upgrade
from shared.db.models import Inquiry, InquiryMessage, Listing, ListingFeature, ListingTerm, Match, Office, Place, SearchOrder
from shared.db.session import Database
from shared.demo import seed_demo
from tests.conftest import _fresh_database_url
from tests.test_demo_accounts import CATALOG_DIGEST_600

LISTINGS = 3_000
TABLES = (
    (Listing, [Listing.id]),
    (ListingFeature, [ListingFeature.listing_id, ListingFeature.feature]),
    (ListingTerm, [ListingTerm.listing_id, ListingTerm.position, ListingTerm.term]),
    (Office, [Office.id]),
    (Place, [Place.id]),
)
ACCOUNT_TABLES = ((SearchOrder, [SearchOrder.id]), (Match, [Match.id]), (Inquiry, [Inquiry.id]), (InquiryMessage, [InquiryMessage.id]))


def _digest(engine: Engine, tables: Any = TABLES) -> str:
    digest = hashlib.sha256()
    with engine.connect() as connection:
        for model, keys in tables:
            for row in connection.execute(select(model).order_by(*keys)):
                plain = tuple(v.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(v, dt.datetime) else v for v in row)
                digest.update(repr(plain).encode())
    return digest.hexdigest()


def _schema(engine: Engine) -> list[tuple[Any, ...]]:
    """Indexes and constraints of the catalog tables, as the database describes them."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            return [tuple(r) for r in connection.exec_driver_sql("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")]
        indexes = connection.exec_driver_sql("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 2")
        constraints = connection.exec_driver_sql(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
            "WHERE connamespace = 'public'::regnamespace ORDER BY 2"
        )
        return [tuple(r) for r in [*indexes, *constraints]]


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Any]:
    drops = []

    def make(name: str) -> Engine:
        url, drop = _fresh_database_url(tmp_path, name)
        drops.append((db := Database.from_url(url), drop))
        upgrade(db.engine)
        return db.engine

    yield make
    for db, drop in drops:
        db.engine.dispose()
        drop()


def test_bulk_load_writes_the_rows_of_plain_inserts_and_the_same_schema(fresh: Any) -> None:
    bulk, plain = fresh("bulk"), fresh("plain")
    # with the term index computed in worker processes, as a large catalog is
    assert seed_demo(bulk, listings=LISTINGS, seed=7, workers=2) == seed_demo(plain, listings=LISTINGS, seed=7, bulk=False)
    assert _digest(bulk) == _digest(plain)
    assert _digest(bulk, ACCOUNT_TABLES) == _digest(plain, ACCOUNT_TABLES)
    assert _schema(bulk) == _schema(plain)


def test_bulk_load_is_deterministic_and_the_catalog_is_the_same_on_both_databases(fresh: Any) -> None:
    first, second, other = fresh("first"), fresh("second"), fresh("other")
    for engine in (first, second):
        seed_demo(engine, listings=600, seed=7)
    seed_demo(other, listings=600, seed=8)
    # the digest recorded on SQLite: every catalog byte is the same on PostgreSQL
    assert _digest(first) == _digest(second) == CATALOG_DIGEST_600
    assert _digest(other) != CATALOG_DIGEST_600
