"""Many rows into one table inside the caller's transaction, the fastest way each database takes them: COPY on
PostgreSQL (one stream; an INSERT of hundreds of rows with dozens of columns costs psycopg more to parse than the
server to run), one executemany elsewhere. Used where a write makes rows by the hundred (the import's chunks)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, insert, text
from sqlalchemy.orm import Session


def insert_rows(session: Session, table: Table, rows: Sequence[dict[str, Any]]) -> None:
    """Insert `rows` (dicts with the same keys: column names) into `table`. Values as the columns' Python types:
    aware datetimes, dates, JSON as dicts and lists."""
    if not rows:
        return
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        session.execute(insert(table), list(rows))
        return
    names = list(rows[0])
    json_columns = {name for name in names if table.c[name].type.__class__.__name__ == "JSON"}
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor.copy(f"COPY {table.name} ({', '.join(names)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([_value(row[name], name in json_columns) for name in names])


def _value(value: Any, is_json: bool) -> Any:
    if is_json:
        return None if value is None else json.dumps(value)
    if isinstance(value, dt.datetime) and value.tzinfo is None:
        raise ValueError("naive datetime: every stored time is aware (UTC)")
    return value


def next_ids(session: Session, table: Table, count: int) -> list[int]:
    """`count` new primary keys from the table's sequence (PostgreSQL), for rows inserted with insert_rows."""
    sequence = session.scalar(text(f"SELECT pg_get_serial_sequence('{table.name}', 'id')"))
    return list(session.scalars(text(f"SELECT nextval('{sequence}') FROM generate_series(1, :n)"), {"n": count}))
