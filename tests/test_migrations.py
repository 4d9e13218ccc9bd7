"""Alembic is the only way the schema is made: after `upgrade head` the database matches the models exactly."""

from __future__ import annotations

from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from shared.db.migrate import upgrade
from shared.db.models import Base
from shared.db.session import Database
from tests.conftest import _fresh_database_url


def test_upgrade_head_matches_the_models(tmp_path: Path) -> None:
    url, drop = _fresh_database_url(tmp_path, "migrations")
    db = Database.from_url(url)
    try:
        upgrade(db.engine)
        upgrade(db.engine)  # a second upgrade is a no-op
        with db.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata)
        assert differences == []
    finally:
        db.engine.dispose()
        drop()
