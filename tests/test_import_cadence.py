"""What an import costs as the transfer grows, counted rather than timed (speed is measured in bench/openimmo_import.py):
progress comes at least every PROGRESS_EVERY objects, new listings created included, and the statements a chunk sends
grow with the batches it creates, not with its objects; the same transfer again costs the same few statements
however many objects it holds. On SQLite and PostgreSQL (there COPY goes past SQLAlchemy and is not counted; see `counting` for SQLite)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from contract.vocabulary import TransferSource
from shared.db.session import Database
from shared.demo import DEMO_NOW
from shared.demo.openimmo import object_xml, transfer
from shared.stock_import import import_transfer
from shared.stock_import.importing import CHUNK, PROGRESS_EVERY
from tests.conftest import seeded_database

OFFICE = 1


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with seeded_database(tmp_path, "import_cadence", listings=20) as database:
        yield database


def xml(n: int, scope: str = "VOLL") -> bytes:
    return transfer([object_xml(f"C-{i:05d}", i) for i in range(n)], scope=scope).encode()


def run(db: Database, data: bytes, *, publish: bool = False, preview: bool = False,
        notes: list[tuple[float, float | None, str | None]] | None = None) -> Any:
    return import_transfer(
        db, io.BytesIO(data), source_kind=TransferSource.upload, office_id=OFFICE, user_id=None, client_id="test",
        max_bytes=10 * 1024 * 1024, publish=publish, now=DEMO_NOW, preview=preview,
        progress=(lambda *note: notes.append(note)) if notes is not None else None,
    )


@contextmanager
def counting(db: Database) -> Iterator[list[str]]:
    """The statements sent. Not counted on SQLite: the ORM's INSERT of each new listing (SQLAlchemy sends one per row
    there, as it cannot match the ids RETURNING gives to the rows of a batch on this table); PostgreSQL inserts the
    listings with one COPY."""
    statements: list[str] = []
    sqlite = db.engine.dialect.name == "sqlite"

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if statement.lstrip().upper().startswith("BEGIN") or (sqlite and statement.startswith("INSERT INTO listings (")):
            return
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", count)
    try:
        yield statements
    finally:
        event.remove(db.engine, "before_cursor_execute", count)


def gaps(notes: list[tuple[float, float | None, str | None]]) -> list[float]:
    done = [0.0] + [note[0] for note in notes]
    return [later - earlier for earlier, later in zip(done, done[1:])]


@pytest.mark.parametrize(("publish", "preview"), [(False, False), (True, False), (False, True)])
def test_progress_comes_at_least_every_hundred_objects_new_listings_included(db: Database, publish: bool, preview: bool) -> None:
    n = CHUNK + 2 * PROGRESS_EVERY + 7  # a full chunk of new listings, then a part of one
    notes: list[tuple[float, float | None, str | None]] = []
    result = run(db, xml(n), publish=publish, preview=preview, notes=notes)
    assert result.counts.created == n
    assert notes[-1] == (n, n, f"{n} von {n} Objekten verarbeitet")
    assert all(0 <= gap <= PROGRESS_EVERY for gap in gaps(notes)), gaps(notes)
    assert all(total == n for _, total, _ in notes)


def test_progress_of_the_same_transfer_again(db: Database) -> None:
    n = CHUNK + PROGRESS_EVERY + 1
    run(db, xml(n))
    notes: list[tuple[float, float | None, str | None]] = []
    assert run(db, xml(n), notes=notes).counts.unchanged == n
    assert notes[-1][0] == n and all(0 <= gap <= PROGRESS_EVERY for gap in gaps(notes)), gaps(notes)


def test_statements_grow_with_the_batches_not_the_objects(db: Database) -> None:
    """New listings: a fixed number of statements per batch of PROGRESS_EVERY and per chunk. The same transfer again:
    the same statements for 30 objects as for 130 (one chunk: its read, the withdrawal's read)."""
    counts = {}
    for n in (30, 130, 230):
        with counting(db) as statements:
            run(db, xml(n, "TEIL").replace(b"C-", f"N{n}-".encode()))
        counts[n] = len(statements)
    per_batch = counts[130] - counts[30]
    assert per_batch == counts[230] - counts[130]
    assert per_batch <= 8, counts  # not per object: 100 more objects, a handful more statements
    again = {}
    for n in (30, 130):
        with counting(db) as statements:
            assert run(db, xml(n, "TEIL").replace(b"C-", f"N{n}-".encode())).counts.unchanged == n
        again[n] = len(statements)
    assert again[30] == again[130] <= 4, again
