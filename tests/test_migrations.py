"""Alembic is the only way the schema is made: after `upgrade head` the database matches the models exactly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from shared.db.migrate import upgrade
from shared.db.models import Base
from shared.db.session import Database
from tests.conftest import _fresh_database_url

# Alembic cannot compare indexes over expressions (DESC NULLS LAST); their DDL is checked below instead.
EXPRESSION_INDEXES = {
    "ix_listings_newest": {"postgresql": "published_at DESC NULLS LAST, id", "sqlite": "published_at DESC, id"},
    "ix_listings_price_desc": {"postgresql": "(status, price DESC NULLS LAST, id)", "sqlite": "(status, price DESC, id)"},
    "ix_listings_kind_price_desc": {
        "postgresql": "(status, marketing_type, price DESC NULLS LAST, id)",
        "sqlite": "(status, marketing_type, price DESC, id)",
    },
    "ix_listings_type_price_desc": {
        "postgresql": "(status, marketing_type, property_type, price DESC NULLS LAST, id)",
        "sqlite": "(status, marketing_type, property_type, price DESC, id)",
    },
    "ix_listings_area_desc": {"postgresql": "(status, living_area DESC NULLS LAST, id)", "sqlite": "(status, living_area DESC, id)"},
    "ix_listings_city_newest": {
        "postgresql": "(city_key, status, published_at DESC NULLS LAST, id, marketing_type, property_type, price)",
        "sqlite": "(city_key, status, published_at DESC, id, marketing_type, property_type, price)",
    },
    "ix_listings_geo_cell": {
        "postgresql": "((((trunc((latitude * (10)::double precision)) * (10000)::double precision) + trunc((longitude * (10)::double precision))))::integer), status, latitude, longitude)",
        "sqlite": "((CAST(latitude * 10 AS INTEGER) * 10000 + CAST(longitude * 10 AS INTEGER)), status, latitude, longitude)",
    },
    "ix_listings_warm_rent": {
        "postgresql": "(status, marketing_type, (((price + service_charges) + heating_costs)), id)",
        "sqlite": "(status, marketing_type, (price + service_charges + heating_costs), id)",
    },
}


def _index_name(diff: Any) -> str | None:
    return getattr(diff[1], "name", None) if isinstance(diff, tuple) and diff[0] in {"add_index", "remove_index"} else None


def test_upgrade_head_matches_the_models(tmp_path: Path) -> None:
    url, drop = _fresh_database_url(tmp_path, "migrations")
    db = Database.from_url(url)
    try:
        upgrade(db.engine)
        upgrade(db.engine)  # a second upgrade is a no-op
        with db.engine.connect() as connection:
            differences = compare_metadata(MigrationContext.configure(connection, opts={"compare_type": True}), Base.metadata)
            dialect = connection.dialect.name
            for name, definitions in EXPRESSION_INDEXES.items():
                query = (
                    "SELECT indexdef FROM pg_indexes WHERE indexname = :n"
                    if dialect == "postgresql"
                    else "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = :n"
                )
                ddl = connection.execute(text(query), {"n": name}).scalar_one()
                assert definitions[dialect] in ddl, ddl
        assert [d for d in differences if _index_name(d) not in EXPRESSION_INDEXES] == []
    finally:
        db.engine.dispose()
        drop()
