"""The office's own rows as a caller names them: a listing by its number, the office's name, its members'
names. Another office's row is NOT_FOUND with the same sentence as a missing one, and its number is never
echoed, so an office cannot learn what exists elsewhere; only a listing that is published anyway (in the public
catalog) gets a sentence of its own, pointing to its public exposé."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam, inspect, select
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from contract.search import LISTING_RESOURCE
from shared.catalog.search import PUBLIC_STATUSES
from shared.db.models import Listing, ListingFeature, Office, OfficeMember, User
from shared.db.scoped import ANY_OFFICE, OfficeData, column_rows

LISTING_NOT_FOUND = (
    "Dieses Objekt gibt es im Bestand deines Büros nicht: bitte die Inseratsnummer prüfen oder das Objekt mit "
    "search_listings im Bestand suchen."
)


def _not_in_stock(session: Session, listing_id: str) -> ToolFailure:
    """NOT_FOUND for a listing outside the office's stock; a published one (public anyway) is named with its exposé."""
    public = session.scalar(select(Listing.ref).where(Listing.ref == listing_id, Listing.status.in_(PUBLIC_STATUSES)))
    if public is None:
        return ToolFailure(ErrorCode.NOT_FOUND, LISTING_NOT_FOUND)
    return ToolFailure(
        ErrorCode.NOT_FOUND,
        f"{public} ist ein veröffentlichtes Inserat eines anderen Anbieters, nicht im Bestand deines Büros: sein Exposé "
        f"öffnest du in der Athaus Immobiliensuche, als Ressource {LISTING_RESOURCE.uri_template.format(listing_id=public)}.",
    )


class ListingRead(SimpleNamespace):
    """A listing as an answer reads it, without an ORM entity: every column attribute of `Listing` by its name, the
    office's shown columns as `office` (name, city, phone, email, website) and the features as `features` (each with
    `.feature`, in the entity's order). Loading the entity with its office and features cost four times the CPU."""


_OFFICE_SHOWN = ("name", "city", "phone", "email", "website")
_LISTING_KEYS = tuple(attribute.key for attribute in inspect(Listing).column_attrs)
# Every column attribute of Listing, for a Core select whose rows are read like the entity (by attribute name)
LISTING_COLUMNS = tuple(getattr(Listing, key) for key in _LISTING_KEYS)
# Built once per process (office and listing bound): the listing with its office, one row per feature (ordered as
# the relationship orders them) or one row without any
_OWN_LISTING = (
    ANY_OFFICE.listings()
    .with_only_columns(
        *LISTING_COLUMNS,
        *(getattr(Office, name).label(f"office__{name}") for name in _OFFICE_SHOWN),
        ListingFeature.feature.label("feature__"),
    )
    .join(Office, Office.id == Listing.office_id)
    .outerjoin(ListingFeature, ListingFeature.listing_id == Listing.id)
    .where(Listing.ref == bindparam("listing_ref"))
    .order_by(ListingFeature.feature)
)


def _listing_read(rows: list[Any]) -> ListingRead:
    first = rows[0]._mapping
    office = SimpleNamespace(**{name: first[f"office__{name}"] for name in _OFFICE_SHOWN})
    features = [SimpleNamespace(feature=row.feature__) for row in rows if row.feature__ is not None]
    return ListingRead(**{key: first[key] for key in _LISTING_KEYS}, office=office, features=features)


def own_listing(session: Session, office: OfficeData, listing_id: str) -> ListingRead:
    """One listing of the office's stock, in any status, with its office and features, in one statement."""
    rows = column_rows(session, _OWN_LISTING, {**office.params(), "listing_ref": listing_id})
    if not rows:
        raise _not_in_stock(session, listing_id)
    return _listing_read(rows)


def own_listing_id(session: Session, office: OfficeData, listing_id: str) -> int:
    """The row id of one listing of the office's stock, to filter other rows by it."""
    found = session.scalar(office.listings().with_only_columns(Listing.id).where(Listing.ref == listing_id))
    if found is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, LISTING_NOT_FOUND)
    return int(found)


# Built once: its cache key is memoized; run with `office.params()`, alone or as a column of another statement
OFFICE_NAME = select(Office.name).where(Office.id == bindparam("office_id"))
NO_OFFICE_NAME = "dein Büro"


def office_name(session: Session, office: OfficeData) -> str:
    return session.scalar(OFFICE_NAME, office.params()) or NO_OFFICE_NAME


_MEMBER_NAMES = (  # built once: office and users bound
    select(User.id, User.name)
    .join(OfficeMember, OfficeMember.user_id == User.id)
    .where(OfficeMember.office_id == bindparam("office_id"), User.id.in_(bindparam("user_ids", expanding=True)))
)


def member_names(session: Session, office: OfficeData, user_ids: set[int | None]) -> dict[int, str]:
    """Names of the office's own members among `user_ids`."""
    wanted = {u for u in user_ids if u is not None}
    if not wanted:
        return {}
    rows = column_rows(session, _MEMBER_NAMES, {**office.params(), "user_ids": sorted(wanted)})
    return {user_id: name for user_id, name in rows}
