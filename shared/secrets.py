"""Deployment secrets: from settings, or created once and kept in the database (shared by all instances)."""

from __future__ import annotations

import secrets

from sqlalchemy import bindparam, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from shared.db.models import ServerSecret


_VALUE = select(ServerSecret.value).where(ServerSecret.name == bindparam("name"))  # built once


def ensure_secret(session: Session, name: str) -> str:
    """The stored secret `name`; the first caller creates it, concurrent callers agree on one value."""
    stored = session.connection().execute(_VALUE, {"name": name}).scalar()
    if stored is not None:  # the common case: one read of the column, no insert on every call
        return str(stored)
    dialect = session.get_bind().dialect.name
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(ServerSecret)
    session.execute(insert.values(name=name, value=secrets.token_urlsafe(32)).on_conflict_do_nothing(index_elements=["name"]))
    value = session.get(ServerSecret, name)
    assert value is not None
    return value.value
