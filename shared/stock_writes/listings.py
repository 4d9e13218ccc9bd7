"""Writing a listing of an office: `save_listing` (create or change its fields) and `change_status`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.attributes import flag_modified

from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import ListingStatus, MarketingType, WriteResult, label
from shared import publishing
from shared.catalog.indexing import bump_revision, search_fields, term_rows
from shared.catalog.text import normalise
from shared.db.models import AuditEntry, Listing, ListingFeature, ListingStatusChange, ListingTerm
from shared.matching.events import PRICE_DROP, PUBLISHED, STATUS_CHANGE, MatchCounts, listing_event
from shared.stock_writes.fields import TEXT_FIELDS, WRITABLE, merged, named, state_of, validated
from shared.write_log import audit, changed_keys, remember, replayed, temporary_ref

NOT_IN_STOCK = (
    "Dieses Objekt gibt es im Bestand deines Büros nicht: bitte die Inseratsnummer prüfen oder das Objekt mit "
    "search_listings im Bestand suchen."
)
# statuses a seeker has seen the listing in: leaving them is news for the searches that matched it
SEEN_STATUSES = (ListingStatus.published.value, ListingStatus.reserved.value)


@dataclass(frozen=True)
class SaveOutcome:
    result: WriteResult
    listing: Listing
    changed_fields: list[str]
    replayed: bool = False
    made: MatchCounts = field(default_factory=MatchCounts)


@dataclass(frozen=True)
class StatusOutcome:
    result: WriteResult
    listing: Listing
    old_status: ListingStatus
    new_status: ListingStatus
    replayed: bool = False
    made: MatchCounts = field(default_factory=MatchCounts)


def locked_listing(session: Session, office_id: int, listing_ref: str) -> Listing:
    """The office's listing, locked for this transaction (PostgreSQL: FOR UPDATE), so writes of one listing queue."""
    listing = session.scalar(
        select(Listing)
        .where(Listing.office_id == office_id, Listing.ref == listing_ref)
        .options(selectinload(Listing.features), selectinload(Listing.office))
        .with_for_update(of=Listing)
        .execution_options(populate_existing=True)
    )
    if listing is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, NOT_IN_STOCK)
    return listing


def listing_by_external_id(session: Session, *, office_id: int, feed: str, external_id: str) -> Listing | None:
    """The office's listing imported from `feed` under `external_id` (objektnr_extern), if any."""
    return session.scalar(
        select(Listing)
        .where(Listing.office_id == office_id, Listing.feed == feed, Listing.external_id == external_id)
        .order_by(Listing.id)
        .limit(1)
    )


def feed_refs(session: Session, *, office_id: int, feed: str) -> dict[str, str]:
    """external_id → listing ref of every listing the office imported from `feed` that is not withdrawn (for VOLL)."""
    rows = session.execute(
        select(Listing.external_id, Listing.ref).where(
            Listing.office_id == office_id, Listing.feed == feed, Listing.external_id.is_not(None), Listing.status != ListingStatus.withdrawn.value
        )
    ).all()
    return {external_id: ref for external_id, ref in rows}


def _check_version(session: Session, listing: Listing, expected_version: int | None) -> None:
    if expected_version is None or expected_version == listing.version:
        return
    if expected_version > listing.version:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{listing.ref} hat die Version {listing.version}, nicht {expected_version}: bitte version aus get_listing senden.",
        )
    entries = session.scalars(
        select(AuditEntry)
        .where(AuditEntry.subject_ref == listing.ref, AuditEntry.subject_version > expected_version)
        .order_by(AuditEntry.id)
    ).all()
    changed = list(dict.fromkeys(k for e in entries for k in changed_keys(e.before, e.after)))
    what = named(changed) if changed else "unbekannte Felder"
    raise ToolFailure(
        ErrorCode.CONFLICT,
        f"{listing.ref} wurde inzwischen geändert (Version {expected_version} → {listing.version}; geändert: {what}). Bitte "
        f"mit get_listing neu lesen, die Änderung prüfen und mit version {listing.version} erneut senden.",
    )


def _apply(session: Session, listing: Listing, values: dict[str, Any], sent: set[str]) -> None:
    for name in WRITABLE:
        if name == "features" or (name not in sent and listing.id is not None and name not in ("state", "latitude", "longitude", "price", "price_on_request")):
            continue
        setattr(listing, name, values[name])
    listing.city_key = normalise(listing.city.strip())
    if "features" in sent or listing.id is None:
        if listing.id is not None:
            session.execute(delete(ListingFeature).where(ListingFeature.listing_id == listing.id))
            session.expire(listing, ["features"])
        session.flush()
        if values["features"]:
            session.execute(insert(ListingFeature), [{"listing_id": listing.id, "feature": f} for f in values["features"]])
        session.expire(listing, ["features"])


def _index(session: Session, listing: Listing) -> None:
    """Rewrite the listing's full-text terms from its current text (shared.catalog.indexing)."""
    session.flush()
    session.execute(delete(ListingTerm).where(ListingTerm.listing_id == listing.id))
    fields = search_fields(
        title=listing.title,
        description=listing.description,
        city=listing.city,
        district=listing.district,
        subtype=listing.property_subtype,
        features=[f.feature for f in listing.features],
    )
    rows = term_rows(listing.id, fields)
    if rows:
        session.execute(insert(ListingTerm), rows)


def _own_listing(session: Session, office_id: int, listing_ref: str) -> Listing:
    listing = session.scalar(
        select(Listing).where(Listing.office_id == office_id, Listing.ref == listing_ref).options(selectinload(Listing.features))
    )
    if listing is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, NOT_IN_STOCK)
    return listing


def save_listing(
    session: Session,
    *,
    office_id: int,
    user_id: int | None,
    client_id: str | None,
    fields: dict[str, Any],
    listing_ref: str | None,
    expected_version: int | None,
    idempotency_key: str | None,
    now: dt.datetime,
    feed: str | None = None,
    external_id: str | None = None,
) -> SaveOutcome:
    """Create (listing_ref None: a draft) or change a listing of the office. See the package docstring."""
    request = {"listing_ref": listing_ref, "expected_version": expected_version, "fields": fields, "feed": feed, "external_id": external_id}
    if user_id is not None and (stored := replayed(session, user_id=user_id, operation="save_listing", key=idempotency_key, request=request, now=now)):
        listing = _own_listing(session, office_id, stored["listing_ref"])
        return SaveOutcome(WriteResult(stored["result"]), listing, stored["changed_fields"], True, MatchCounts(stored["matches"], 0))
    sent = validated(fields)
    if listing_ref is None:
        listing, before = Listing(ref=temporary_ref(), office_id=office_id, status=ListingStatus.draft.value, version=1), None
        listing.created_at = now
        listing.feed, listing.external_id = feed, external_id
    else:
        listing = locked_listing(session, office_id, listing_ref)
        _check_version(session, listing, expected_version)
        before = state_of(listing)
    values = merged(session, before, sent)
    old_price = listing.price
    creating = listing.id is None
    if creating:
        session.add(listing)
        _apply(session, listing, values, set(WRITABLE))
        listing.ref = f"A-{listing.id:07d}"
    else:
        _apply(session, listing, values, set(sent))
    after = state_of(listing)
    changed = [] if creating else changed_keys(before, after)
    made = MatchCounts()
    if creating or changed:
        if not creating:
            listing.version += 1
        listing.updated_at = now
        flag_modified(listing, "updated_at")  # written even when equal, or onupdate would take the real clock
        if creating:
            session.add(ListingStatusChange(listing_id=listing.id, old_status=None, new_status=listing.status, changed_by=user_id, changed_at=now))
        if creating or TEXT_FIELDS.intersection(changed):
            _index(session, listing)
        bump_revision(session, now)
        audit(
            session, now=now, user_id=user_id, client_id=client_id, office_id=office_id,
            action="listing.create" if creating else "listing.change", subject_ref=listing.ref, subject_version=listing.version,
            before=before, after=after,
        )
        if (
            not creating
            and listing.status == ListingStatus.published.value
            and old_price is not None
            and listing.price is not None
            and listing.price < old_price
        ):
            made = listing_event(session, listing, PRICE_DROP, {"old_price": old_price, "new_price": listing.price}, now)
    result = WriteResult.created if creating else (WriteResult.changed if changed else WriteResult.unchanged)
    written = sorted(k for k, v in after.items() if v not in (None, [], "", False) and k != "status")
    outcome = SaveOutcome(result, listing, written if creating else changed, False, made)
    if user_id is not None:
        remember(
            session, user_id=user_id, operation="save_listing", key=idempotency_key, request=request, now=now,
            outcome={"result": result.value, "listing_ref": listing.ref, "changed_fields": outcome.changed_fields, "matches": made.matches},
        )
    session.flush()
    return outcome


def _refuse_transition(listing: Listing, old: ListingStatus, new: ListingStatus, today: dt.date) -> None:
    if new is ListingStatus.draft and old is not ListingStatus.withdrawn:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{listing.ref} ist {label(old)}: zurück zum Entwurf geht nur aus zurückgezogen (erst status withdrawn).",
        )
    if new in (ListingStatus.reserved, ListingStatus.sold, ListingStatus.let) and old.value not in SEEN_STATUSES:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{listing.ref} ist {label(old)}: reserviert, verkauft oder vermietet wird ein veröffentlichtes (oder reserviertes) "
            "Objekt; bitte erst veröffentlichen (status published).",
        )
    if new is ListingStatus.sold and listing.marketing_type != MarketingType.buy.value:
        raise ToolFailure(ErrorCode.CONFLICT, f"{listing.ref} ist ein Mietobjekt: statt sold (verkauft) bitte let (vermietet) senden.")
    if new is ListingStatus.let and listing.marketing_type != MarketingType.rent.value:
        raise ToolFailure(ErrorCode.CONFLICT, f"{listing.ref} ist ein Kaufobjekt: statt let (vermietet) bitte sold (verkauft) senden.")
    if new is ListingStatus.published:
        failed = publishing.failed_blocking_rules(listing, today)
        if failed:
            rules = "; ".join(f"{r.rule_label} ({r.rule.value}): {r.message}" for r in failed)
            raise ToolFailure(
                ErrorCode.CONFLICT,
                f"{listing.ref} kann nicht veröffentlicht werden, nicht erfüllt: {rules} Bitte mit save_listing ergänzen und "
                "erneut veröffentlichen; check_listing zeigt jede Regel.",
            )


def change_status(
    session: Session,
    *,
    office_id: int,
    user_id: int | None,
    client_id: str | None,
    listing_ref: str,
    status: ListingStatus | str,
    reason: str | None,
    now: dt.datetime,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
) -> StatusOutcome:
    """Publish, reserve, mark sold or let, withdraw (or a withdrawn listing back to draft). See the package docstring."""
    new = ListingStatus(status)
    request = {"listing_ref": listing_ref, "status": new.value, "reason": reason, "expected_version": expected_version}
    if user_id is not None and (stored := replayed(session, user_id=user_id, operation="update_listing_status", key=idempotency_key, request=request, now=now)):
        listing = _own_listing(session, office_id, listing_ref)
        made = MatchCounts(stored["matches"], stored["proposals"])
        return StatusOutcome(WriteResult(stored["result"]), listing, ListingStatus(stored["old_status"]), new, True, made)
    listing = locked_listing(session, office_id, listing_ref)
    _check_version(session, listing, expected_version)
    old = ListingStatus(listing.status)
    made = MatchCounts()
    if old is new:
        result = WriteResult.unchanged
    else:
        _refuse_transition(listing, old, new, now.date())
        result = WriteResult.changed
        listing.status = new.value
        first_publication = new is ListingStatus.published and listing.published_at is None
        if new is ListingStatus.published and old not in (ListingStatus.published, ListingStatus.reserved):
            # published (again): the catalog's "newest" and the Treffer it makes say so; the first publication stays
            # in the office's status history
            listing.published_at = now
        listing.version += 1
        listing.updated_at = now
        flag_modified(listing, "updated_at")
        session.add(ListingStatusChange(listing_id=listing.id, old_status=old.value, new_status=new.value, changed_by=user_id, changed_at=now, reason=reason))
        bump_revision(session, now)
        audit(
            session, now=now, user_id=user_id, client_id=client_id, office_id=office_id, action="listing.status",
            subject_ref=listing.ref, subject_version=listing.version,
            before={"status": old.value}, after={"status": new.value, **({"reason": reason} if reason else {})},
        )
        detail = {"old_status": old.value, "new_status": new.value, "first_publication": first_publication}
        if new is ListingStatus.published:
            made = listing_event(session, listing, PUBLISHED, detail, now)
        elif old.value in SEEN_STATUSES:
            made = listing_event(session, listing, STATUS_CHANGE, detail, now)
    if user_id is not None:
        remember(
            session, user_id=user_id, operation="update_listing_status", key=idempotency_key, request=request, now=now,
            outcome={"result": result.value, "old_status": old.value, "matches": made.matches, "proposals": made.proposals},
        )
    session.flush()
    return StatusOutcome(result, listing, old, new, False, made)
