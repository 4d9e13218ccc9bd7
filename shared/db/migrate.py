"""Runs Alembic programmatically, so `athaus db upgrade` and the tests use the very same path."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

import migrations

MIGRATIONS_DIR = Path(migrations.__file__).parent


def alembic_config(engine: Engine) -> Config:
    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine, revision: str = "head") -> None:
    config = alembic_config(engine)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


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
