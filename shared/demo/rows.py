"""Rows as the demo data writes them: plain dicts, inserted in chunks so memory stays flat at any scale."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice
from typing import Any

from sqlalchemy import Connection, insert

Row = dict[str, Any]

CHUNK_SIZE = 2_000


def insert_in_chunks(connection: Connection, model: Any, rows: Iterable[Row]) -> int:
    """Insert `rows` (a list, or a generator that is consumed as it goes), CHUNK_SIZE at a time; how many."""
    written = 0
    iterator = iter(rows)
    while chunk := list(islice(iterator, CHUNK_SIZE)):
        connection.execute(insert(model), chunk)
        written += len(chunk)
    return written
