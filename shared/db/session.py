"""Engine and unit of work. Handlers get a UnitOfWork from the runtime; nothing holds a global session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker


def make_engine(database_url: str) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


class Database:
    """Owns the engine and hands out units of work (one transaction each)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._sessions = sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def from_url(cls, database_url: str) -> Database:
        return cls(make_engine(database_url))

    @contextmanager
    def unit_of_work(self) -> Iterator[Session]:
        """A session in one transaction: committed when the block ends cleanly, rolled back otherwise."""
        with self._sessions.begin() as session:
            yield session

    @contextmanager
    def read_only(self) -> Iterator[Session]:
        """A session for reads; always rolled back, so a read can never write by accident."""
        session = self._sessions()
        try:
            yield session
        finally:
            session.rollback()
            session.close()
