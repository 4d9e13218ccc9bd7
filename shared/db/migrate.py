"""Runs Alembic programmatically, so `athaus db upgrade` and the tests use the very same path.

Once, however many processes start together (issue 34: a second instance on an empty database died with
`UniqueViolation … alembic_version`): the upgrade holds a lock, and reads where the database stands only once it has
it, so the second finds the schema done and does nothing. PostgreSQL: a transaction-level advisory lock (the upgrade is
one transaction, the lock ends with it); SQLite: an exclusive `flock` on a file beside the database (SQLite's own
locks are POSIX locks on the database file, which another descriptor of it would release on closing)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy import exc as sa_exc

import migrations

log = logging.getLogger("athaus.db")
MIGRATIONS_DIR = Path(migrations.__file__).parent
ADVISORY_LOCK_KEY = 0x61746861_75730001  # "athaus" + 1: the migration lock's key, the same in every process
FAILED = "Die Datenbank konnte nicht migriert werden: bitte ATHAUS_DATABASE_URL und die Datenbank prüfen, dann erneut starten."


class MigrationFailed(Exception):
    """The upgrade did not happen; the message is German and names the next step, the detail is in the log."""


@contextlib.contextmanager
def sqlite_file_lock(engine: Engine) -> Iterator[None]:
    """SQLite: held before the first connection (which may switch the journal mode, itself a write) until the upgrade
    is committed; other backends and in-memory databases: nothing to hold."""
    path = engine.url.database
    if engine.dialect.name != "sqlite" or not path or path == ":memory:" or path.startswith("file:"):
        yield
        return
    with open(f"{path}.migrate-lock", "a+b") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def advisory_lock(connection: Connection) -> None:
    """PostgreSQL: held from here until the upgrade's transaction ends."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK_KEY})


def alembic_config(engine: Engine) -> Config:
    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> int:
    """Migrate to `revision`; says so in one log line (steps and time) and returns the number of steps."""
    config = alembic_config(engine)
    started = time.monotonic()
    try:
        with sqlite_file_lock(engine), engine.begin() as connection:
            advisory_lock(connection)
            config.attributes["connection"] = connection
            current = tuple(applied_revisions(connection)) or None  # read under the lock: another may just have migrated
            steps = sum(1 for _ in ScriptDirectory.from_config(config).iterate_revisions(revision, current or "base"))
            with warnings.catch_warnings():
                # SQLite's batch migrations reflect the listings table, whose expression index SQLAlchemy cannot reflect
                # and need not: the migration that made it keeps it (an operator can do nothing about this warning).
                warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index", sa_exc.SAWarning)
                command.upgrade(config, revision)
    except (sa_exc.SQLAlchemyError, OSError) as error:  # unreachable, refused, a path SQLite cannot open
        log.error(json.dumps({"event": "migration_failed", "error": type(error).__name__, "detail": str(error).splitlines()[0][:300]}))
        raise MigrationFailed(FAILED) from error
    seconds = time.monotonic() - started
    at = ", ".join(sorted(head_revisions(engine))) if revision == "head" else revision
    text = (
        f"Datenbank migriert: {steps} {'Schritt' if steps == 1 else 'Schritte'} in {seconds:.1f} s (Stand {at})".replace(".", ",")
        if steps
        else f"Datenbank ist auf dem neuesten Stand ({at})"
    )
    log.info(json.dumps({"event": "migrated", "steps": steps, "seconds": round(seconds, 3), "revision": at, "text": text}, ensure_ascii=False))
    return steps


def revision(engine: Engine, message: str) -> None:
    """Developer helper: autogenerate a new version from the models (see docs/engineering.md)."""
    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.revision(config, message=message, autogenerate=True)


def head_revisions(engine: Engine) -> frozenset[str]:
    """The revisions this code's migrations end in (one, tests/test_migrations.py sees to it)."""
    return frozenset(ScriptDirectory.from_config(alembic_config(engine)).get_heads())


def applied_revisions(connection: Connection) -> frozenset[str]:
    """The revisions the database is at (`alembic current`); empty for a database never migrated."""
    return frozenset(MigrationContext.configure(connection).get_current_heads())


def known_revisions(engine: Engine) -> frozenset[str]:
    """Every revision this code's migrations have: a database at one of them is behind, at any other unknown."""
    return frozenset(revision.revision for revision in ScriptDirectory.from_config(alembic_config(engine)).walk_revisions())
