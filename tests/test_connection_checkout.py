"""A connection comes out of the pool outside any transaction, on both databases: the ping or the statement timeout at
checkout (shared.db.session) must not leave one open, or no isolation level could be set on it afterwards (VACUUM, the
latency bench's AUTOCOMMIT connection) and a transaction would start before the unit of work begins its own. On
PostgreSQL a checkout costs no round trip unless the connection's statement timeout does not fit the deadline or the
connection idled (issue 21)."""

from __future__ import annotations

import contextlib
import os
from typing import Any

import pytest
from sqlalchemy import text

from shared.db import deadline
from shared.db import session as session_module
from shared.db.session import Database, statement_timeout_to_set


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


def test_the_statement_timeout_never_exceeds_what_is_left_and_is_kept_while_it_fits() -> None:
    assert statement_timeout_to_set(None, None) == 0  # no deadline (migrations, seeding): no timeout
    assert statement_timeout_to_set(None, 0) is None
    assert statement_timeout_to_set(None, 7_000) == 0
    assert statement_timeout_to_set(8.0, None) == 7_200  # unknown: set, a little below what is left
    assert statement_timeout_to_set(8.0, 0) == 7_200  # none at all never serves a call with a deadline
    assert statement_timeout_to_set(8.0, 7_200) is None
    assert statement_timeout_to_set(10.0, 7_200) is None  # the token lookup's longer rest keeps the tool's timeout
    assert statement_timeout_to_set(7.0, 7_200) == 6_300  # longer than what is left: lowered
    assert statement_timeout_to_set(20.0, 7_200) == 18_000  # far shorter than what is left: raised
    assert statement_timeout_to_set(0.4, 7_200) == 400  # under a second: exactly what is left
    assert statement_timeout_to_set(-1.0, 7_200) == 1  # past the deadline: the next statement is cancelled at once


def _checkout_statements(db: Database, seconds: float | None, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], str]:
    issued: list[str] = []
    real = session_module.checkout_statement

    def counted(dbapi_connection: Any, statement: str) -> None:
        issued.append(statement)
        real(dbapi_connection, statement)

    monkeypatch.setattr(session_module, "checkout_statement", counted)
    with contextlib.ExitStack() as stack:
        if seconds is not None:
            stack.enter_context(deadline.within(seconds))
        with db.engine.connect() as connection:
            shown = connection.scalar(text("SHOW statement_timeout"))
    return issued, shown


def _set_to(statement: str) -> int:
    prefix = "SET statement_timeout = "
    assert statement.startswith(prefix), statement
    return int(statement.removeprefix(prefix))


@pytest.mark.skipif(not os.environ.get("ATHAUS_TEST_DATABASE_URL"), reason="statement timeout and ping are PostgreSQL's")
def test_a_checkout_costs_no_round_trip_unless_the_timeout_does_not_fit_or_the_connection_idled(
    demo_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = Database.from_url(demo_db.engine.url.render_as_string(hide_password=False), pool_size=1, max_overflow=0)
    try:
        issued, shown = _checkout_statements(db, 10, monkeypatch)  # a new connection: 0.9 of what is left
        assert len(issued) == 1 and 8_500 <= _set_to(issued[0]) <= 9_000 and shown == f"{_set_to(issued[0])}ms", issued
        assert _checkout_statements(db, 10, monkeypatch) == ([], shown)  # back from the pool, just used: nothing
        issued, shown = _checkout_statements(db, 8, monkeypatch)  # the timeout would outlive this deadline: lowered
        assert len(issued) == 1 and 6_800 <= _set_to(issued[0]) <= 7_200 and shown == f"{_set_to(issued[0])}ms", issued
        assert _checkout_statements(db, 10, monkeypatch) == ([], shown)  # 0.7 of the longer rest or more: kept
        assert _checkout_statements(db, None, monkeypatch) == (["SET statement_timeout = 0"], "0")  # no deadline
        assert _checkout_statements(db, None, monkeypatch) == ([], "0")
        with db.engine.connect() as connection:  # a rollback does not undo the connection's timeout
            connection.execute(text("SELECT 1"))
            connection.rollback()
        monkeypatch.setattr(session_module, "IDLE_PING_SECONDS", 0.0)  # it lay in the pool: pinged
        assert _checkout_statements(db, None, monkeypatch) == (["SELECT 1"], "0")
    finally:
        db.engine.dispose()
