"""Runs Alembic programmatically, so `athaus db upgrade` and the tests use the very same path."""

from __future__ import annotations

import json
import logging
import time
import warnings
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine
from sqlalchemy import exc as sa_exc

import migrations

log = logging.getLogger("athaus.db")
MIGRATIONS_DIR = Path(migrations.__file__).parent


def alembic_config(engine: Engine) -> Config:
    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> int:
    """Migrate to `revision`; says so in one log line (steps and time) and returns the number of steps."""
    config = alembic_config(engine)
    started = time.monotonic()
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        current = tuple(applied_revisions(connection)) or None
        steps = sum(1 for _ in ScriptDirectory.from_config(config).iterate_revisions(revision, current or "base"))
        with warnings.catch_warnings():
            # SQLite's batch migrations reflect the listings table, whose expression index SQLAlchemy cannot reflect and
            # need not: the migration that made it keeps it (an operator can do nothing about this warning).
            warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based index", sa_exc.SAWarning)
            command.upgrade(config, revision)
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
