"""Engine and unit of work. Handlers get a UnitOfWork from the runtime; nothing holds a global session.

Every statement under a deadline (every HTTP request and MCP call has one) is bounded: on PostgreSQL by a connect
timeout, a pool timeout and the connection's statement timeout, which never exceeds what is left of the deadline when
the connection is checked out, and for a database that does not answer at all by the watchdog
(`shared/db/watchdog.py`); on SQLite by a progress handler that aborts a statement once the call's deadline has passed
(`shared/db/deadline.py`).

What a checkout costs on PostgreSQL (issue 21: every call checks out at least once): nothing, as a rule. The statement
timeout is a setting of the connection (`SET statement_timeout` outside any transaction, so no rollback undoes it),
set again only when what the connection has is longer than what is left, or shorter than KEEP_TIMEOUT_SHARE of it; a
connection is pinged only when it lay in the pool longer than IDLE_PING_SECONDS (the pool hands out the most recently
used one first, so under load none has). A connection the database dropped meanwhile (a restart) fails its first
statement: the call answers SOURCE_UNAVAILABLE, SQLAlchemy invalidates the whole pool, and the next call connects
afresh; no restart of ours is needed either way.

On SQLite a unit of work takes the write lock before its first read (`BEGIN IMMEDIATE`), so a read-then-write (the
optimistic version check, a draft's status, an idempotency key) holds against a concurrent writer just as `FOR UPDATE`
does on PostgreSQL; pysqlite's own transaction handling (which began a transaction only at the first write, leaving
the reads outside it) is switched off. Reads (`read_only`) begin a plain deferred transaction."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.base import Executable

from shared.db import deadline, watchdog
from shared.telemetry.database import MeteredQueuePool, instrument

CONNECT_TIMEOUT_SECONDS = 3  # a database that does not answer the connect is down, not slow
POOL_TIMEOUT_SECONDS = 5  # waiting longer for a free connection is an outage, not a queue
SQLITE_BUSY_SECONDS = 10  # waiting for another writer's lock
WRITE_OPTION = "athaus_writes"  # execution option of a unit of work's connection: SQLite begins it IMMEDIATE
ALONE_OPTION = "athaus_alone"  # execution option of `Database.read_alone`'s connection: no BEGIN at all
_PROGRESS_STEPS = 10_000  # SQLite VM instructions between two deadline checks (well under a millisecond)
QUERY_CACHE_SIZE = 5000  # compiled statements per engine: the mixed workload of both servers overflowed the default 500 and recompiled
IDLE_PING_SECONDS = 1.0  # a connection idle in the pool longer than this is pinged at checkout
KEEP_TIMEOUT_SHARE = 0.7  # a connection's statement timeout serves while it is between this share of what is left and all of it
SET_TIMEOUT_SHARE = 0.9  # a timeout is set a little below what is left, so the next call's slightly different rest keeps it
_TIMEOUT_MS = "athaus_statement_timeout_ms"  # record.info: the statement timeout this connection has (0: none)
_CHECKED_IN = "athaus_checked_in_at"  # record.info: time.monotonic() of its last return to the pool


def _sqlite_past_deadline() -> int:
    return 1 if deadline.expired() else 0


def make_engine(database_url: str, pool_size: int = 10, max_overflow: int = 20) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        pooled: dict[str, Any] = {} if url.database in (None, "", ":memory:") else {"poolclass": MeteredQueuePool}
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_SECONDS}, hide_parameters=True,
            query_cache_size=QUERY_CACHE_SIZE, **pooled
        )
        instrument(engine)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()
            dbapi_connection.set_progress_handler(_sqlite_past_deadline, _PROGRESS_STEPS)
            dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection) -> None:  # type: ignore[no-untyped-def]
            options = connection.get_execution_options()
            if options.get(ALONE_OPTION, False):
                return
            connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get(WRITE_OPTION, False) else "BEGIN")

        return engine
    connect_args: dict[str, Any] = {}
    if url.get_backend_name() == "postgresql":
        # no connection-wide statement timeout: migrations and seeding a large catalog run without a deadline
        connect_args = {"connect_timeout": CONNECT_TIMEOUT_SECONDS}
    # hide_parameters: an error's message (logged) never carries the values of a statement (e-mail addresses, tokens)
    # pool_use_lifo: the most recently used connection goes out first, so under load no connection idles long enough
    # to be pinged, and the ones load does not need stay idle (and are pinged when they are needed again)
    engine = create_engine(
        url, pool_size=pool_size, max_overflow=max_overflow, pool_timeout=POOL_TIMEOUT_SECONDS, connect_args=connect_args,
        hide_parameters=True, poolclass=MeteredQueuePool, pool_use_lifo=True, query_cache_size=QUERY_CACHE_SIZE,
    )
    if url.get_backend_name() == "postgresql":
        event.listen(engine, "do_connect", _connect_within_deadline)
    event.listen(engine, "checkout", _watch_and_prepare)
    event.listen(engine, "checkin", _release)
    instrument(engine)  # after the ping: a connection counts as in use once it passed
    return engine


def _connect_within_deadline(_dialect: Any, _record: Any, _cargs: Any, cparams: dict[str, Any]) -> None:
    """A new connection gets no more time to connect than the call has left (at least a second, at most the default)."""
    left = deadline.remaining()
    if left is not None:
        cparams["connect_timeout"] = max(1, min(CONNECT_TIMEOUT_SECONDS, math.ceil(left)))


def statement_timeout_to_set(left: float | None, current: int | None) -> int | None:
    """The statement timeout (ms, 0: none) a connection must be given for a call with `left` seconds, or None when the
    one it has (`current`, None: unknown) serves: never longer than what is left, and not much shorter."""
    if left is None:
        return None if current == 0 else 0
    cap = max(1, int(left * 1000))
    if current is not None and 0 < current <= cap and current >= cap * KEEP_TIMEOUT_SHARE:
        return None
    return max(1, int(cap * SET_TIMEOUT_SHARE)) if cap >= 1000 else cap


def _watch_and_prepare(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    """At checkout: watched by the watchdog under the current deadline (a database that hangs cannot hold the
    thread); the statement timeout set when the connection's own does not fit the deadline, which pings it as well;
    else pinged only when it idled (a connection the database dropped is replaced, so a restart needs no restart here).
    Most checkouts under load do neither: no round trip."""
    at = deadline.at()
    if at is not None:
        watchdog.watch(dbapi_connection, at)
    timeout = statement_timeout_to_set(deadline.remaining(), record.info.get(_TIMEOUT_MS))
    checked_in = record.info.get(_CHECKED_IN)
    idle = checked_in is not None and time.monotonic() - checked_in > IDLE_PING_SECONDS
    if timeout is None and not idle:
        return
    try:
        checkout_statement(dbapi_connection, "SELECT 1" if timeout is None else f"SET statement_timeout = {timeout}")
    except Exception as error:
        watchdog.release(dbapi_connection)
        raise sa_exc.DisconnectionError("database connection failed its ping") from error
    if timeout is not None:
        record.info[_TIMEOUT_MS] = timeout


def checkout_statement(dbapi_connection: Any, statement: str) -> None:
    """One statement at checkout, in autocommit: psycopg would otherwise open a transaction for it and hand the
    connection out inside it (no isolation level or autocommit could be set on it any more), and a rollback would
    undo a SET."""
    autocommit = getattr(dbapi_connection, "autocommit", None)
    if autocommit is False:
        dbapi_connection.autocommit = True
    try:
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(statement)
        finally:
            cursor.close()
    finally:
        if autocommit is False:
            dbapi_connection.autocommit = False


def _release(dbapi_connection: Any, record: Any) -> None:
    if dbapi_connection is not None:
        watchdog.release(dbapi_connection)
    if record is not None:
        record.info[_CHECKED_IN] = time.monotonic()


class Database:
    """Owns the engine and hands out units of work (one transaction each)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)
        self._writing = sessionmaker(engine.execution_options(**{WRITE_OPTION: True}), expire_on_commit=False)
        self._alone = engine.execution_options(**{ALONE_OPTION: True})
        self._extensions: dict[str, Any] = {}

    def extension(self, name: str, create: Callable[[], Any]) -> Any:
        """What a room of `shared` keeps once per database (its session listeners, say), made on first use."""
        if name not in self._extensions:
            self._extensions[name] = create()
        return self._extensions[name]

    def listen_writes(self, name: str, listener: Any) -> None:
        """A session event (`after_flush`, `do_orm_execute`, `after_commit`, …) on every unit of work."""
        event.listen(self._writing, name, listener)

    @classmethod
    def from_url(cls, database_url: str, pool_size: int = 10, max_overflow: int = 20) -> Database:
        return cls(make_engine(database_url, pool_size, max_overflow))

    @contextmanager
    def unit_of_work(self) -> Iterator[Session]:
        """A session in one transaction: committed when the block ends cleanly, rolled back otherwise."""
        with self._writing.begin() as session:
            yield session

    def read_alone(self, statement: Executable, *, row: bool = False) -> Any:
        """The first column of the first row (`row`: the first row) of one read statement, run on its own outside any transaction (issue 21: the
        read cache's catalog revision on every public read): on PostgreSQL in autocommit, one round trip where a read
        transaction needs three (BEGIN, the statement, ROLLBACK), and no ORM session; on SQLite without BEGIN. A single
        statement sees everything committed before it started, as it would as the only statement of a transaction."""
        with self._alone.connect() as connection:
            dbapi_connection = connection.connection.dbapi_connection
            autocommit = getattr(dbapi_connection, "autocommit", None)  # psycopg would open a transaction for it
            if autocommit is False:
                dbapi_connection.autocommit = True
            try:
                return connection.execute(statement).first() if row else connection.scalar(statement)
            finally:
                if autocommit is False:
                    try:
                        dbapi_connection.autocommit = False
                    except Exception:  # noqa: BLE001  # a lost connection (the error that lost it goes on): never pooled again
                        connection.invalidate()

    @contextmanager
    def read_only(self) -> Iterator[Session]:
        """A session for reads; always rolled back, so a read can never write by accident."""
        session = self._sessions()
        try:
            yield session
        finally:
            session.rollback()
            session.close()
