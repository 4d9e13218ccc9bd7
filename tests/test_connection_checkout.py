"""A connection comes out of the pool outside any transaction, on both databases: the ping at checkout
(shared.db.session) must not leave one open, or no isolation level could be set on it afterwards (VACUUM, the
latency bench's AUTOCOMMIT connection) and a transaction would start before the unit of work begins its own."""

from __future__ import annotations

from sqlalchemy import text

from shared.db.session import Database


def _in_transaction(raw: object) -> bool:
    info = getattr(raw, "info", None)  # psycopg
    if info is not None:
        return info.transaction_status.name != "IDLE"
    return bool(raw.in_transaction)  # type: ignore[attr-defined]  # sqlite3


def test_a_checked_out_connection_is_outside_a_transaction(demo_db: Database) -> None:
    with demo_db.engine.connect() as connection:
        assert _in_transaction(connection.connection.driver_connection) is False
        if demo_db.engine.dialect.name == "postgresql":  # psycopg opens one for any statement: the check can see it
            connection.execute(text("SELECT 1"))
            assert _in_transaction(connection.connection.driver_connection) is True


def test_a_checked_out_connection_takes_autocommit(demo_db: Database) -> None:
    for _ in range(2):  # a fresh connection and one back from the pool
        with demo_db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            assert connection.scalar(text("SELECT 1")) == 1
