"""What of a listing is searchable, and the catalog revision that cursors are bound to."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from contract.vocabulary import Feature, label
from shared.catalog.text import index_terms
from shared.db.models import CatalogState


def search_fields(
    *, title: str, description: str, city: str, district: str | None, subtype: str | None, features: Iterable[Feature]
) -> list[str]:
    """The text fields the full-text index covers, in index order (title first)."""
    return [
        title,
        description,
        " ".join(filter(None, [city, district])),
        subtype or "",
        " ".join(label(f) for f in features),
    ]


def term_rows(listing_id: int, fields: list[str]) -> list[dict[str, object]]:
    return [{"listing_id": listing_id, "position": p, "term": t} for p, t in index_terms(fields)]


def bump_revision(session: Session, now: dt.datetime | None = None) -> int:
    """Mark the catalog as changed; every cursor issued before becomes CURSOR_EXPIRED."""
    now = now or dt.datetime.now(dt.UTC)
    state = session.scalar(select(CatalogState).where(CatalogState.id == 1))
    if state is None:
        session.add(CatalogState(id=1, revision=1, updated_at=now))
        return 1
    session.execute(update(CatalogState).where(CatalogState.id == 1).values(revision=CatalogState.revision + 1, updated_at=now))
    return state.revision + 1
