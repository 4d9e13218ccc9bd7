"""The office's own rows as a caller names them: a listing by its number, the office's name, its members'
names. Another office's row is NOT_FOUND with the same sentence as a missing one, and its number is never
echoed, so an office cannot learn what exists elsewhere; only a listing that is published anyway (in the public
catalog) gets a sentence of its own, pointing to its public exposé."""

from __future__ import annotations

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, joinedload, selectinload

from contract.errors import ErrorCode, ToolFailure
from contract.search import LISTING_RESOURCE
from shared.catalog.search import PUBLIC_STATUSES
from shared.db.models import Listing, Office, OfficeMember, User
from shared.db.scoped import OfficeData

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


def own_listing(session: Session, office: OfficeData, listing_id: str) -> Listing:
    """One listing of the office's stock, in any status, with its office (joined: no statement of its own) and features loaded."""
    listing = session.scalar(
        office.listings().where(Listing.ref == listing_id).options(joinedload(Listing.office), selectinload(Listing.features))
    )
    if listing is None:
        raise _not_in_stock(session, listing_id)
    return listing


def own_listing_id(session: Session, office: OfficeData, listing_id: str) -> int:
    """The row id of one listing of the office's stock, to filter other rows by it."""
    found = session.scalar(office.listings().with_only_columns(Listing.id).where(Listing.ref == listing_id))
    if found is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, LISTING_NOT_FOUND)
    return int(found)


_OFFICE_NAME = select(Office.name).where(Office.id == bindparam("office_id"))  # built once: its cache key is memoized


def office_name(session: Session, office: OfficeData) -> str:
    return session.scalar(_OFFICE_NAME, {"office_id": office.office_id}) or "dein Büro"


def member_names(session: Session, office: OfficeData, user_ids: set[int | None]) -> dict[int, str]:
    """Names of the office's own members among `user_ids`."""
    wanted = {u for u in user_ids if u is not None}
    if not wanted:
        return {}
    rows = session.execute(
        select(User.id, User.name)
        .join(OfficeMember, OfficeMember.user_id == User.id)
        .where(OfficeMember.office_id == office.office_id, User.id.in_(wanted))
    )
    return {user_id: name for user_id, name in rows}
