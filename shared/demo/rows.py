"""Rows as the demo data writes them: plain dicts, inserted in chunks so memory stays flat at any scale."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert

Row = dict[str, Any]

CHUNK_SIZE = 2_000


def insert_in_chunks(connection: Connection, model: Any, rows: Sequence[Row]) -> None:
    for start in range(0, len(rows), CHUNK_SIZE):
        connection.execute(insert(model), rows[start:start + CHUNK_SIZE])
