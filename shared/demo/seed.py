"""Seeding a fresh database with demo data: the catalog (shared.demo.catalog), then the accounts around it
(shared.demo.accounts), in one transaction, so a failed run leaves nothing.

The same seed and listing count always give identical rows: one `random.Random(seed)` drives every choice of
the catalog, the accounts draw from a Random of their own, and all dates hang off DEMO_NOW, never the clock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, select, text
from sqlalchemy.orm import Session

from shared.catalog.indexing import bump_revision
from shared.db.models import Listing, Office, Place
from shared.demo.accounts.seeding import ACCOUNT_MODELS_WITH_IDS, seed_accounts
from shared.demo.bulk import fast_sqlite_writes
from shared.demo.catalog import write_catalog
from shared.demo.clock import DEMO_NOW
from shared.demo.randomness import DEFAULT_SEED


class CatalogNotEmptyError(RuntimeError):
    """seed_demo only fills an empty catalog; demo data is never mixed into existing data."""


@dataclass(frozen=True)
class SeedSummary:
    offices: int
    places: int
    listings: int
    published: int
    users: int
    inquiries: int
    search_orders: int


def seed_demo(engine: Engine, listings: int = 2400, seed: int = DEFAULT_SEED, bulk: bool = True, workers: int | None = None
) -> SeedSummary:
    """Fill an empty, migrated database with places, offices and `listings` demo listings, then the demo
    accounts around them (brokers, seekers, saved searches, inquiries, …).

    `bulk` (the default) loads the catalog the fastest way of the database (shared.demo.bulk); `bulk=False`
    inserts it through plain SQLAlchemy inserts with every index in place. Both give identical rows. `workers`
    processes compute the term index (default: two from 50,000 listings on, see write_catalog).

    Raises CatalogNotEmptyError when listings, offices or places already exist.
    """
    if listings < 0:
        raise ValueError("listings must not be negative")
    with engine.connect() as connection:
        with fast_sqlite_writes(connection) if bulk else nullcontext(), connection.begin():
            _require_empty(connection)
            catalog = write_catalog(connection, random.Random(seed), listings, bulk=bulk, workers=workers)
            accounts = seed_accounts(connection, catalog.offices, seed)
            _advance_id_sequences(connection, (Place, Office, Listing, *ACCOUNT_MODELS_WITH_IDS))
            with Session(bind=connection) as session:
                bump_revision(session, now=DEMO_NOW)
                session.flush()
    with engine.begin() as connection:
        # Fresh statistics, or the planner picks weak indexes on a freshly loaded catalog (bench/README.md).
        connection.execute(text("ANALYZE"))
    return SeedSummary(
        offices=len(catalog.offices),
        places=catalog.places,
        listings=listings,
        published=catalog.published,
        users=accounts.users,
        inquiries=accounts.inquiries,
        search_orders=accounts.search_orders,
    )


def _require_empty(connection: Connection) -> None:
    for model in (Listing, Office, Place):
        if connection.scalar(select(model.id).limit(1)) is not None:
            raise CatalogNotEmptyError(
                f"Demo data needs an empty database, but table {model.__tablename__!r} already has rows."
            )


def _advance_id_sequences(connection: Connection, models: Sequence[Any]) -> None:
    """Ids were given explicitly; PostgreSQL's sequences must continue after them for later inserts."""
    if connection.dialect.name != "postgresql":
        return
    for model in models:
        table = model.__tablename__
        connection.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"coalesce(max(id), 1), max(id) IS NOT NULL) FROM {table}"
            )
        )
