"""What the seeker's account lists share: each is limited to the account of the login and echoes it
(`account_scope`), pages with the shared account walk owned by the seeker (`owner_key`), is read live, and shows
listings by `shared.listing_view`, saying when one is no longer published."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from contract.envelope import EffectiveValue, Freshness, ValueSource
from contract.vocabulary import label
from shared.catalog.search import PUBLIC_STATUSES
from shared.db.models import Listing, User
from shared.db.scoped import SeekerData
from shared.runtime import render

UNNAMED_ACCOUNT = "dein Konto"


def account_scope(session: Session, seeker: SeekerData) -> dict[str, EffectiveValue]:
    """The account an answer is limited to, as the login gives it: by the user's display name, never by an id."""
    name = session.scalar(select(User.name).where(User.id == seeker.user_id)) or UNNAMED_ACCOUNT
    return {"account": EffectiveValue(value=name, source=ValueSource.login)}


def owner_key(seeker: SeekerData) -> str:
    """The owner of a seeker's walks: a cursor of one seeker is refused for another."""
    return f"seeker:{seeker.user_id}"


def live(now: dt.datetime, snapshot: str) -> Freshness:
    """Account rows are read live from the database in this call."""
    return Freshness(data_as_of=now, snapshot=snapshot)


def when(value: dt.datetime) -> str:
    return render.value_text(value)


def labels_text(values: Iterable[StrEnum]) -> str:
    return ", ".join(label(v) for v in values)


def available(listing: Listing) -> bool:
    return listing.status in PUBLIC_STATUSES


def load_listings(session: Session, ids: Iterable[int]) -> dict[int, Listing]:
    wanted = set(ids)
    if not wanted:
        return {}
    rows = session.scalars(
        select(Listing).where(Listing.id.in_(wanted)).options(selectinload(Listing.office), selectinload(Listing.features))
    )
    return {row.id: row for row in rows}
