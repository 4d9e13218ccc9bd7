"""Runs Alembic programmatically, so `athaus db upgrade` and the tests use the very same path."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine

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
