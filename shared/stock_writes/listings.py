"""Writing a listing of an office: `save_listing` (create or change its fields) and `change_status`."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, make_transient_to_detached, selectinload
from sqlalchemy.orm.attributes import flag_modified, set_committed_value

from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import ListingStatus, MarketingType, WriteResult, label
from shared import publishing
from shared.catalog.indexing import bump_revision, search_fields
from shared.catalog.text import index_terms, normalise
from shared.db.copying import insert_rows, next_ids
from shared.db.models import AuditEntry, Listing, ListingFeature, ListingStatusChange, ListingTerm
from shared.matching.events import PRICE_DROP, PUBLISHED, STATUS_CHANGE, EventBatch, MatchCounts, listing_event
from shared.stock_writes.fields import ALWAYS_APPLIED, TEXT_FIELDS, WRITABLE, merged, named, planned_state, state_of, validated
from shared.write_log import audit, audit_row, changed_keys, remember, replayed, temporary_ref

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


def _apply(listing: Listing, values: dict[str, Any], sent: set[str] | dict[str, Any]) -> None:
    for name in WRITABLE:
        if name == "features" or (name not in sent and listing.id is not None and name not in ALWAYS_APPLIED):
            continue
        setattr(listing, name, values[name])
    listing.city_key = normalise(listing.city.strip())


def _write_features(session: Session, listing: Listing, features: list[str]) -> None:
    session.execute(delete(ListingFeature).where(ListingFeature.listing_id == listing.id))
    if features:
        session.execute(insert(ListingFeature), [{"listing_id": listing.id, "feature": f} for f in features])
    session.expire(listing, ["features"])


def _terms(listing: Listing, features: list[str]) -> tuple[int, list[tuple[int, str]]]:
    """The listing's id and full-text terms (position, term) from its current text (shared.catalog.indexing)."""
    fields = search_fields(
        title=listing.title,
        description=listing.description,
        city=listing.city,
        district=listing.district,
        subtype=listing.property_subtype,
        features=features,  # type: ignore[arg-type]
    )
    return listing.id, index_terms(fields)


def _index(session: Session, listing: Listing, features: list[str]) -> None:
    session.execute(delete(ListingTerm).where(ListingTerm.listing_id == listing.id))
    copy_terms(session, [_terms(listing, features)])


def copy_terms(session: Session, listings: list[tuple[int, list[tuple[int, str]]]]) -> None:
    """Insert full-text term rows, (listing id, its (position, term) pairs) per listing: on PostgreSQL through COPY in
    the session's transaction (a listing has about 50, an import chunk tens of thousands; terms are [a-z0-9], nothing
    in them needs COPY's escaping), the text made without a dict per row; elsewhere as one executemany."""
    if not any(terms for _, terms in listings):
        return
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        rows = [{"listing_id": listing_id, "position": p, "term": t} for listing_id, terms in listings for p, t in terms]
        session.execute(insert(ListingTerm.__table__), rows)
        return
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor.copy("COPY listing_terms (listing_id, position, term) FROM STDIN") as copy:
        copy.write("".join(f"{listing_id}\t{p}\t{t}\n" for listing_id, terms in listings for p, t in terms))


def _own_listing(session: Session, office_id: int, listing_ref: str) -> Listing:
    listing = session.scalar(
        select(Listing).where(Listing.office_id == office_id, Listing.ref == listing_ref).options(selectinload(Listing.features))
    )
    if listing is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, NOT_IN_STOCK)
    return listing


@dataclass(frozen=True)
class ChangePlan:
    """What a change of a listing would do, worked out without writing: the fields validated and merged, the state
    before and after, and the fields that change (empty: the save would change nothing)."""

    sent: dict[str, Any]
    values: dict[str, Any]
    before: dict[str, Any]
    after: dict[str, Any]
    changed: list[str]


def plan_change(session: Session, listing: Listing, fields: dict[str, Any]) -> ChangePlan:
    """Validate `fields` against the listing as it is and say what would change (raises ToolFailure as save_listing
    would). The import calls it on listings read in bulk to pass over unchanged objects without any write."""
    sent = validated(fields)
    before = state_of(listing)
    values = merged(session, before, sent)
    after = planned_state(before, values, sent)
    return ChangePlan(sent, values, before, after, changed_keys(before, after))


def _insert_listings(session: Session, listings: list[Listing]) -> None:
    """Give new listings their ids and refs and insert them. PostgreSQL: ids from the sequence, one COPY, the objects
    then attached to the session as loaded (no INSERT of dozens of columns per row to parse); elsewhere the ORM's
    batched INSERT, then the refs."""
    if session.connection().dialect.name != "postgresql":
        session.add_all(listings)
        session.flush()  # one INSERT … RETURNING id for all (SQLAlchemy's insertmanyvalues)
        for listing in listings:
            listing.ref = f"A-{listing.id:07d}"
        session.flush()
        return
    table = Listing.__table__
    for listing, new_id in zip(listings, next_ids(session, table, len(listings)), strict=True):  # type: ignore[arg-type]
        listing.id, listing.ref = new_id, f"A-{new_id:07d}"
    columns = [(column.name, Listing.__mapper__.get_property_by_column(column).key) for column in table.columns]  # type: ignore[attr-defined]
    # a new listing's values are its instance dict (what _apply set); a column it leaves unset is None, as getattr reads it
    rows = [{name: state.get(key) for name, key in columns} for state in (listing.__dict__ for listing in listings)]
    insert_rows(session, table, rows)  # type: ignore[arg-type]
    for listing, row in zip(listings, rows, strict=True):
        for name, key in columns:  # what was written is loaded: a column left unset (published_at) is not read again
            if key not in listing.__dict__:
                set_committed_value(listing, key, row[name])
        make_transient_to_detached(listing)
        session.add(listing)


def draft_of(session: Session, fields: dict[str, Any]) -> Listing:
    """The draft `fields` would create, validated and merged as create_listings does, not added to the session (the
    import's preview checks it against the publishing rules)."""
    values = merged(session, None, validated(fields))
    listing = Listing(status=ListingStatus.draft.value, version=1)
    _apply(listing, values, WRITABLE)
    return listing


@dataclass(frozen=True)
class NewListing:
    """One listing to create: its fields (ListingFields names) and, for the import, where it came from."""

    fields: dict[str, Any]
    feed: str | None = None
    external_id: str | None = None
    digest: str | None = None  # the import's digest of `fields` (stored as Listing.import_digest with the version)


def create_listings(
    session: Session, *, office_id: int, user_id: int | None, client_id: str | None, items: list[NewListing],
    now: dt.datetime, revise: bool = True,
) -> list[SaveOutcome | ToolFailure]:
    """Create drafts, each as save_listing would (validated, merged, status history, terms, audit row), in a few
    statements for all of them: one INSERT of the listings, one of their features, terms, history and audit rows, one
    revision bump (`revise` False: the caller bumps once for its whole transaction). An item that fails validation
    is its ToolFailure in the result, in the order of `items`, and leaves nothing behind."""
    results: list[Any] = []  # SaveOutcome | ToolFailure, in the order of items
    made: list[tuple[int, Listing, list[str]]] = []
    for item in items:
        try:
            sent = validated(item.fields)
            values = merged(session, None, sent)
        except ToolFailure as failure:
            results.append(failure)
            continue
        listing = Listing(ref=temporary_ref(), office_id=office_id, status=ListingStatus.draft.value, version=1)
        listing.created_at = listing.updated_at = now
        listing.feed, listing.external_id = item.feed, item.external_id
        listing.import_digest = f"{listing.version}:{item.digest}" if item.digest else None
        _apply(listing, values, WRITABLE)
        made.append((len(results), listing, list(values["features"] or [])))
        results.append(None)  # its SaveOutcome once the listing has its id
    if not made:
        return results
    _insert_listings(session, [listing for _, listing, _ in made])
    features: list[dict[str, Any]] = []
    terms: list[tuple[int, list[tuple[int, str]]]] = []
    history: list[dict[str, Any]] = []
    audits: list[dict[str, Any]] = []
    for position, listing, chosen in made:
        session.expire(listing, ["features"])
        features += [{"listing_id": listing.id, "feature": f} for f in chosen]
        terms.append(_terms(listing, chosen))
        history.append({"listing_id": listing.id, "old_status": None, "new_status": listing.status, "changed_by": user_id,
                        "changed_at": now, "reason": None})
        after = state_of(listing, chosen)
        audits.append(audit_row(now=now, user_id=user_id, client_id=client_id, office_id=office_id, action="listing.create",
                                subject_ref=listing.ref, subject_version=listing.version, before=None, after=None))
        audits[-1]["after"] = after  # state_of is JSON-safe already
        written = sorted(k for k, v in after.items() if v not in (None, [], "", False) and k != "status")
        results[position] = SaveOutcome(WriteResult.created, listing, written)
    copy_terms(session, terms)
    for model, rows in ((ListingFeature, features), (ListingStatusChange, history), (AuditEntry, audits)):
        insert_rows(session, model.__table__, rows)  # the table: no ORM bookkeeping per row
    if revise:
        bump_revision(session, now)
    return results


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
    revise: bool = True,
) -> SaveOutcome:
    """Create (listing_ref None: a draft) or change a listing of the office. See the package docstring. `revise`
    False: the caller bumps the catalog revision once for its whole transaction (the import)."""
    request = {"listing_ref": listing_ref, "expected_version": expected_version, "fields": fields, "feed": feed, "external_id": external_id}
    if user_id is not None and (stored := replayed(session, user_id=user_id, operation="save_listing", key=idempotency_key, request=request, now=now)):
        listing = _own_listing(session, office_id, stored["listing_ref"])
        return SaveOutcome(WriteResult(stored["result"]), listing, stored["changed_fields"], True, MatchCounts(stored["matches"], 0))
    if listing_ref is None:
        [created] = create_listings(session, office_id=office_id, user_id=user_id, client_id=client_id,
                                    items=[NewListing(fields, feed, external_id)], now=now, revise=revise)
        if isinstance(created, ToolFailure):
            raise created
        outcome = created
    else:
        listing = locked_listing(session, office_id, listing_ref)
        _check_version(session, listing, expected_version)
        outcome = _change(session, listing, plan_change(session, listing, fields), office_id, user_id, client_id, now, revise)
    if user_id is not None:
        remember(
            session, user_id=user_id, operation="save_listing", key=idempotency_key, request=request, now=now,
            outcome={"result": outcome.result.value, "listing_ref": outcome.listing.ref, "changed_fields": outcome.changed_fields,
                     "matches": outcome.made.matches},
        )
    session.flush()
    return outcome


def _change(
    session: Session, listing: Listing, plan: ChangePlan, office_id: int, user_id: int | None, client_id: str | None,
    now: dt.datetime, revise: bool,
) -> SaveOutcome:
    if not plan.changed:
        return SaveOutcome(WriteResult.unchanged, listing, [])
    old_price = listing.price
    _apply(listing, plan.values, plan.sent)
    if "features" in plan.sent and "features" in plan.changed:
        _write_features(session, listing, plan.values["features"] or [])
    listing.version += 1
    listing.updated_at = now
    flag_modified(listing, "updated_at")  # written even when equal, or onupdate would take the real clock
    session.flush()
    if TEXT_FIELDS.intersection(plan.changed):
        _index(session, listing, plan.after["features"])
    if revise:
        bump_revision(session, now)
    audit(
        session, now=now, user_id=user_id, client_id=client_id, office_id=office_id, action="listing.change",
        subject_ref=listing.ref, subject_version=listing.version, before=plan.before, after=plan.after,
    )
    made = MatchCounts()
    if listing.status == ListingStatus.published.value and old_price is not None and listing.price is not None and listing.price < old_price:
        made = listing_event(session, listing, PRICE_DROP, {"old_price": old_price, "new_price": listing.price}, now)
    return SaveOutcome(WriteResult.changed, listing, plan.changed, False, made)


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
    revise: bool = True,
    listing: Listing | None = None,
    events: EventBatch | None = None,
) -> StatusOutcome:
    """Publish, reserve, mark sold or let, withdraw (or a withdrawn listing back to draft). See the package docstring.
    `revise` False: the caller bumps the catalog revision once for its transaction. `listing`: the listing this
    transaction has just created (create_listings), which no other transaction can see, so it is not read again.
    `events`: the listing event is added to this batch, made by the caller (`EventBatch.make`), and `made` stays 0."""
    if events is not None and idempotency_key is not None:
        raise ValueError("a batched event's counts are not known yet, so they cannot be remembered for a replay")
    new = ListingStatus(status)
    request = {"listing_ref": listing_ref, "status": new.value, "reason": reason, "expected_version": expected_version}
    if user_id is not None and (stored := replayed(session, user_id=user_id, operation="update_listing_status", key=idempotency_key, request=request, now=now)):
        listing = _own_listing(session, office_id, listing_ref)
        made = MatchCounts(stored["matches"], stored["proposals"])
        return StatusOutcome(WriteResult(stored["result"]), listing, ListingStatus(stored["old_status"]), new, True, made)
    if listing is None or listing.ref != listing_ref or listing.office_id != office_id:
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
        history = {"listing_id": listing.id, "old_status": old.value, "new_status": new.value, "changed_by": user_id,
                   "changed_at": now, "reason": reason}
        entry = audit_row(
            now=now, user_id=user_id, client_id=client_id, office_id=office_id, action="listing.status",
            subject_ref=listing.ref, subject_version=listing.version,
            before={"status": old.value}, after={"status": new.value, **({"reason": reason} if reason else {})},
        )
        if events is not None:  # written with the batch: one INSERT (COPY) per table for the whole chunk
            events.write_later(ListingStatusChange.__table__, history)
            events.write_later(AuditEntry.__table__, entry)
        else:
            session.add(ListingStatusChange(**history))
            session.add(AuditEntry(**entry))
        if revise:
            bump_revision(session, now)
        detail = {"old_status": old.value, "new_status": new.value, "first_publication": first_publication}
        if events is not None and (new is ListingStatus.published or old.value in SEEN_STATUSES):
            events.add(listing, PUBLISHED if new is ListingStatus.published else STATUS_CHANGE, detail)
        elif new is ListingStatus.published:
            made = listing_event(session, listing, PUBLISHED, detail, now)
        elif old.value in SEEN_STATUSES:
            made = listing_event(session, listing, STATUS_CHANGE, detail, now)
    if user_id is not None:
        remember(
            session, user_id=user_id, operation="update_listing_status", key=idempotency_key, request=request, now=now,
            outcome={"result": result.value, "old_status": old.value, "matches": made.matches, "proposals": made.proposals},
        )
    if events is None:  # a batch is flushed once, when it is made
        session.flush()
    return StatusOutcome(result, listing, old, new, False, made)
