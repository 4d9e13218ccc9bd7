"""The bulk load of the demo catalog (COPY on PostgreSQL, raw executemany on SQLite, indexes built after the load)
writes exactly the rows of the plain row-by-row inserts, is deterministic, and leaves the same schema behind."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine

from shared.db.migrate import upgrade
from shared.db.models import Inquiry, InquiryMessage, Match, SearchOrder
from shared.db.session import Database
from shared.demo import seed_demo
from tests.catalog_digest import CATALOG_DIGEST_600, table_digest
from tests.conftest import _fresh_database_url

LISTINGS = 3_000
ACCOUNT_TABLES = ((SearchOrder, [SearchOrder.id]), (Match, [Match.id]), (Inquiry, [Inquiry.id]), (InquiryMessage, [InquiryMessage.id]))


def _clauses(sql: str) -> list[str]:
    return [line.strip().rstrip(",") for line in sql.splitlines()]


def _schema(engine: Engine) -> list[tuple[Any, ...]]:
    """Indexes and constraints of the catalog tables, as the database describes them, and on PostgreSQL the statistics
    targets set on columns (an index's among them, which its definition does not carry)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            rows = connection.exec_driver_sql("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
            # A table a migration rebuilt (batch mode) lists its constraints in no fixed order: compare them as a set.
            return [(kind, name, table, sorted(_clauses(sql or ""))) for kind, name, table, sql in rows]
        indexes = connection.exec_driver_sql("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 2")
        constraints = connection.exec_driver_sql(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), convalidated FROM pg_constraint "
            "WHERE connamespace = 'public'::regnamespace ORDER BY 2"
        )
        targets = connection.exec_driver_sql(
            "SELECT attrelid::regclass::text, attnum, attstattarget FROM pg_attribute "
            "WHERE attstattarget > 0 AND attrelid::regclass::text NOT LIKE 'pg_%%' ORDER BY 1, 2"
        )
        return [tuple(r) for r in [*indexes, *constraints, *targets]]


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
    assert table_digest(bulk) == table_digest(plain)
    assert table_digest(bulk, ACCOUNT_TABLES) == table_digest(plain, ACCOUNT_TABLES)
    assert _schema(bulk) == _schema(plain)


def test_bulk_load_is_deterministic_and_the_catalog_is_the_same_on_both_databases(fresh: Any) -> None:
    first, second, other = fresh("first"), fresh("second"), fresh("other")
    for engine in (first, second):
        seed_demo(engine, listings=600, seed=7)
    seed_demo(other, listings=600, seed=8)
    # the digest recorded on SQLite: every catalog byte is the same on PostgreSQL
    assert table_digest(first) == table_digest(second) == CATALOG_DIGEST_600
    assert table_digest(other) != CATALOG_DIGEST_600
