"""Bulk loading of the demo catalog, the fastest way each database loads: PostgreSQL through COPY on the raw
psycopg connection, SQLite through executemany in one big transaction with its journal kept in memory; on both,
the secondary indexes (and on PostgreSQL the keys and foreign keys of the term and feature tables) are dropped
for the load and built once afterwards, which is far cheaper than maintaining them row by row.

Everything happens in the caller's transaction: a failed load leaves nothing, dropped indexes included.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, insert

from shared.db.models import Listing, ListingFeature, ListingTerm
from shared.demo.rows import Row

log = logging.getLogger(__name__)

TermRow = tuple[int, int, str]  # (listing_id, position, term)

# Tables whose secondary indexes are deferred during the catalog load.
CATALOG_TABLES = (Listing.__tablename__, ListingFeature.__tablename__, ListingTerm.__tablename__)
# On PostgreSQL these lose their primary and foreign keys during the load too (nothing references them).
_KEYLESS_DURING_LOAD = (ListingFeature.__tablename__, ListingTerm.__tablename__)
_LISTING_COLUMNS = tuple(column.name for column in Listing.__table__.columns)


class Loader:
    """Writes chunks of catalog rows; `deferred_indexes` wraps the whole load. `terms` takes rows, or (when
    `copies_text`) the COPY text of copy_text()."""

    copies_text = False

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    @contextmanager
    def deferred_indexes(self) -> Iterator[None]:
        yield

    def listings(self, rows: Sequence[Row]) -> None:
        self.connection.execute(insert(Listing), list(rows))

    def features(self, rows: Sequence[tuple[int, str]]) -> None:
        if rows:
            self.connection.execute(insert(ListingFeature), [{"listing_id": i, "feature": f} for i, f in rows])

    def terms(self, rows: Sequence[TermRow]) -> None:
        if rows:
            self.connection.execute(insert(ListingTerm), [{"listing_id": i, "position": p, "term": t} for i, p, t in rows])


class SqliteLoader(Loader):
    def terms(self, rows: Sequence[TermRow]) -> None:
        raw = self.connection.connection.driver_connection
        raw.executemany("INSERT INTO listing_terms (listing_id, position, term) VALUES (?, ?, ?)", rows)  # type: ignore[union-attr]

    def features(self, rows: Sequence[tuple[int, str]]) -> None:
        raw = self.connection.connection.driver_connection
        raw.executemany("INSERT INTO listing_features (listing_id, feature) VALUES (?, ?)", rows)  # type: ignore[union-attr]

    @contextmanager
    def deferred_indexes(self) -> Iterator[None]:
        names = ", ".join(f"'{table}'" for table in CATALOG_TABLES)
        indexes = self.connection.exec_driver_sql(
            f"SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN ({names}) ORDER BY name"
        ).all()
        for name, _ in indexes:
            self.connection.exec_driver_sql(f'DROP INDEX "{name}"')
        yield
        for _, sql in indexes:
            _timed(self.connection.exec_driver_sql, sql)


class PostgresLoader(Loader):
    def _copy(self, statement: str) -> Any:
        raw = self.connection.connection.driver_connection
        return raw.cursor().copy(statement)  # type: ignore[union-attr]

    def listings(self, rows: Sequence[Row]) -> None:
        if not rows:
            return
        # The generator's columns; the rest (a listing's edit version, its feed) take their server defaults.
        names = [name for name in _LISTING_COLUMNS if name in rows[0]]
        with self._copy(f"COPY listings ({', '.join(names)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(tuple(_pg_value(name, row[name]) for name in names))

    def features(self, rows: Sequence[tuple[int, str]]) -> None:
        with self._copy("COPY listing_features (listing_id, feature) FROM STDIN") as copy:
            copy.write("".join(f"{i}\t{f}\n" for i, f in rows))

    copies_text = True

    def terms(self, rows: Sequence[TermRow] | str) -> None:
        with self._copy("COPY listing_terms (listing_id, position, term) FROM STDIN") as copy:
            copy.write(rows if isinstance(rows, str) else copy_text(rows))

    @contextmanager
    def deferred_indexes(self) -> Iterator[None]:
        run = self.connection.exec_driver_sql
        run("SET LOCAL maintenance_work_mem = '512MB'")
        run("SET LOCAL synchronous_commit = off")
        tables = ", ".join(f"'{table}'::regclass" for table in CATALOG_TABLES)
        keyless = ", ".join(f"'{table}'::regclass" for table in _KEYLESS_DURING_LOAD)
        indexes = run(
            "SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i "
            f"WHERE i.indrelid IN ({tables}) AND NOT EXISTS (SELECT 1 FROM pg_constraint c "
            "WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid) ORDER BY 1"
        ).all()
        # Keys of the term and feature tables, and every foreign key of the three (primary keys first back).
        constraints = run(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), contype FROM pg_constraint "
            f"WHERE (conrelid IN ({keyless}) AND contype IN ('p', 'u', 'f')) OR (conrelid IN ({tables}) AND contype = 'f') "
            "ORDER BY contype DESC, 1, 2"
        ).all()
        for table, name, _, _ in sorted(constraints, key=lambda c: c[3]):  # foreign keys before primary keys
            run(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
        # A statistics target set on an index's column (migration 0022) is not part of its definition.
        targets = run(
            "SELECT a.attrelid::regclass::text, a.attnum, a.attstattarget FROM pg_attribute a JOIN pg_index i ON i.indexrelid = a.attrelid "
            f"WHERE i.indrelid IN ({tables}) AND a.attstattarget > 0 ORDER BY 1, 2"
        ).all()
        for name, _ in indexes:
            run(f"DROP INDEX {name}")
        yield
        for table, name, definition, kind in constraints:
            if kind != "f":
                _timed(run, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
        for _, definition in indexes:
            _timed(run, definition)
        for name, column, target in targets:
            run(f"ALTER INDEX {name} ALTER COLUMN {column} SET STATISTICS {target}")
        for table, name, definition, kind in constraints:
            if kind == "f":
                _timed(run, f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')


def copy_text(rows: Sequence[TermRow]) -> str:
    """Term rows as COPY text. Terms are normalised to [a-z0-9]: nothing in them needs COPY's escaping."""
    return "".join(f"{i}\t{p}\t{t}\n" for i, p, t in rows)


def _timed(run: Any, statement: str) -> None:
    started = time.perf_counter()
    run(statement)
    log.debug("%.1f s: %s", time.perf_counter() - started, statement)


def _pg_value(name: str, value: Any) -> Any:
    if name == "photos":
        return json.dumps(value)
    return value


def loader_for(connection: Connection, bulk: bool) -> Loader:
    if not bulk:
        return Loader(connection)
    if connection.dialect.name == "postgresql":
        return PostgresLoader(connection)
    if connection.dialect.name == "sqlite":
        return SqliteLoader(connection)
    return Loader(connection)


@contextmanager
def fast_sqlite_writes(connection: Connection) -> Iterator[None]:
    """SQLite without fsync and with its rollback journal in memory while the demo loads (a crash mid-load loses
    only the demo data being loaded); the usual modes come back afterwards. Must run outside a transaction."""
    if connection.dialect.name != "sqlite":
        yield
        return
    raw = connection.connection.driver_connection
    if raw.in_transaction:  # type: ignore[union-attr]
        yield
        return
    synchronous = raw.execute("PRAGMA synchronous").fetchone()[0]  # type: ignore[union-attr]
    journal = raw.execute("PRAGMA journal_mode").fetchone()[0]  # type: ignore[union-attr]
    raw.execute("PRAGMA synchronous = OFF")  # type: ignore[union-attr]
    raw.execute("PRAGMA journal_mode = MEMORY")  # type: ignore[union-attr]
    raw.execute("PRAGMA cache_size = -64000")  # type: ignore[union-attr]
    try:
        yield
    finally:
        raw.execute(f"PRAGMA journal_mode = {journal}")  # type: ignore[union-attr]
        raw.execute(f"PRAGMA synchronous = {int(synchronous)}")  # type: ignore[union-attr]
        raw.execute("PRAGMA cache_size = -2000")  # type: ignore[union-attr]
