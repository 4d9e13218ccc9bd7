"""A listing event and what it makes, in the transaction of the write that caused it.

Events (`ListingEvent.kind`):

- `published`: the listing became published. Every active saved search it fits gets a Treffer: `new_listing` when
  that search had no Treffer for the listing before, else `status_change` (back in the catalog). Every approachable
  (opted-in) active search it fits gets a proposal for the listing's office, once per listing and search.
- `price_drop`: a published listing's price went down. Every active search it fits (at the new price) gets a
  `price_drop` Treffer with the old and the new price.
- `status_change`: a published or reserved listing changed status (reserved, sold, let, withdrawn). Active searches
  that already had a Treffer for it get a `status_change` Treffer: they are the ones who care.

"Fits" is the saved search's criteria (`shared.saved_search.criteria_of`) as the catalog reads them
(`shared.catalog.scope.filter_conditions` and the range conditions) applied to this one listing in SQL, so a saved
search matches exactly what `search_listings` with the same criteria would find. Paused and ended searches get none.

Exactly once: one event per listing version and kind (unique), one Treffer per search and event (unique), one
proposal per listing and search. Writes of one listing are serialised by a row lock (`shared.stock_writes`), so two
instances publishing the same listing at once make one event; the constraints catch anything else.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from contract.errors import InputNeeded, ToolFailure
from contract.vocabulary import MatchKind, ProposalStatus, SearchOrderStatus
from shared.catalog import places
from shared.catalog import search as engine
from shared.catalog.gazetteer import split_state
from shared.catalog.scope import filter_conditions, parse_query
from shared.catalog.text import normalise
from shared.db.copying import insert_rows, next_ids
from shared.db.models import Listing, ListingEvent, Match, Proposal, SearchOrder
from shared.matching.notify import notify_all
from shared.saved_search import criteria_of
from shared.write_log import temporary_ref

PUBLISHED = "published"
PRICE_DROP = "price_drop"
STATUS_CHANGE = "status_change"
# listing ids per IN list: well inside every driver's limit of bound parameters
IDS_PER_QUERY = 500


@dataclass(frozen=True)
class MatchCounts:
    matches: int = 0
    proposals: int = 0

    def __add__(self, other: MatchCounts) -> MatchCounts:
        return MatchCounts(self.matches + other.matches, self.proposals + other.proposals)


def fits(session: Session, listing: Listing, criteria: dict[str, Any] | None) -> bool:
    """Whether the listing meets the saved criteria, whatever its status (the event decides about status)."""
    return bool(_fitting(session, criteria, _profiles([listing])))


@dataclass(frozen=True)
class _Sieve:
    """The tests on marketing and property type, city and postal codes the catalog's SQL makes
    (shared.catalog.search.base_conditions), in Python: most saved searches look elsewhere, and need no query."""

    marketing_type: str | None
    property_types: frozenset[str]
    city_key: str | None
    state: str | None
    postal_codes: tuple[str, ...]

    @classmethod
    def of(cls, filters: Any) -> _Sieve:
        city_key, state = None, None
        if filters.city:
            name, state = split_state(filters.city)
            city_key = normalise(name)
        return cls(
            filters.marketing_type.value if filters.marketing_type is not None else None,
            frozenset(p.value for p in filters.property_types or ()),
            city_key,
            state,
            tuple(filters.postal_codes or ()),
        )

    def passes(self, profile: _Profile) -> bool:
        marketing_type, property_type, city_key, state, postal_code = profile
        if self.marketing_type is not None and self.marketing_type != marketing_type:
            return False
        if self.property_types and property_type not in self.property_types:
            return False
        if self.city_key is not None and (self.city_key != city_key or self.state not in (None, state)):
            return False
        return not self.postal_codes or postal_code.startswith(self.postal_codes)


# what the sieve reads of a listing: marketing type, property type, city key, state, postal code
_Profile = tuple[str, str, str, str | None, str]


def _profiles(listings: Sequence[Listing]) -> dict[_Profile, list[int]]:
    """The listings' ids by what the sieve reads: an import's hundreds of flats are a few profiles."""
    profiles: dict[_Profile, list[int]] = {}
    for listing in listings:
        profile = (listing.marketing_type, listing.property_type, listing.city_key, listing.state, listing.postal_code)
        profiles.setdefault(profile, []).append(listing.id)
    return profiles


def _fitting(session: Session, criteria: dict[str, Any] | None, profiles: dict[_Profile, list[int]]) -> set[int]:
    """The ids of the (flushed) listings in `profiles` that meet the saved criteria: the sieve, then one query for
    those left."""
    filters = criteria_of(criteria)
    sieve = _Sieve.of(filters)
    candidates = [listing_id for profile, ids in profiles.items() if sieve.passes(profile) for listing_id in ids]
    if not candidates:
        return set()
    conditions = _conditions(session, criteria, filters)
    if conditions is None:  # a stored place the catalog no longer knows: nothing fits
        return set()
    found: set[int] = set()
    for start in range(0, len(candidates), IDS_PER_QUERY):
        found.update(session.scalars(select(Listing.id).where(Listing.id.in_(candidates[start:start + IDS_PER_QUERY]), *conditions)))
    return found


def _conditions(session: Session, criteria: dict[str, Any] | None, filters: Any) -> list[Any] | None:
    """The saved criteria as SQL conditions, worked out once per transaction and criteria (an import publishes
    hundreds of listings against the same saved searches; resolving their places each time was most of the cost)."""
    cache: dict[str, list[Any] | None] = session.info.setdefault("matching.conditions", {})
    key = json.dumps(criteria, sort_keys=True, default=str)
    if key not in cache:
        try:
            parsed = parse_query(filters)
            resolved = places.resolve_filters(filters)
        except (ToolFailure, InputNeeded):
            cache[key] = None
        else:
            ranges = [c for parts in engine.range_conditions(resolved.filters).values() for c in parts]
            cache[key] = [*filter_conditions(resolved.filters, parsed, resolved.centre), *ranges]
    return cache[key]


def _active_orders(session: Session) -> list[SearchOrder]:
    return list(session.scalars(select(SearchOrder).where(SearchOrder.status == SearchOrderStatus.active.value).order_by(SearchOrder.id)))


def _by_listing(session: Session, column: Any, listing_column: Any, ids: list[int]) -> dict[int, set[int]]:
    """listing id → the search orders that already have a row in `column`'s table for it."""
    found: dict[int, set[int]] = {}
    for start in range(0, len(ids), IDS_PER_QUERY):
        for order_id, listing_id in session.execute(select(column, listing_column).where(listing_column.in_(ids[start:start + IDS_PER_QUERY]))):
            found.setdefault(listing_id, set()).add(order_id)
    return found


def _insert(session: Session, table: Any, rows: list[dict[str, Any]], ref_prefix: str | None = None) -> list[int]:
    """Insert `rows` and return their new ids in order; with `ref_prefix` each row's ref is the prefix and its id
    (`T-000042`). PostgreSQL: ids from the sequence, one COPY; elsewhere one INSERT … RETURNING, then the refs."""
    if not rows:
        return []
    if session.get_bind().dialect.name == "postgresql":
        ids = next_ids(session, table, len(rows))
        for row, new_id in zip(rows, ids, strict=True):
            row["id"] = new_id
            if ref_prefix:
                row["ref"] = f"{ref_prefix}{new_id:06d}"
        insert_rows(session, table, rows)
        return ids
    if ref_prefix:
        for row in rows:
            row["ref"] = temporary_ref()
    ids = list(session.scalars(insert(table).returning(table.c.id, sort_by_parameter_order=True), rows))
    if ref_prefix:
        session.execute(
            update(table).where(table.c.id == bindparam("new_id")).values(ref=bindparam("new_ref")),
            [{"new_id": new_id, "new_ref": f"{ref_prefix}{new_id:06d}"} for new_id in ids],
        )
    return ids


@dataclass(frozen=True)
class PendingEvent:
    """An event of a listing at the version it made, not yet recorded (`EventBatch`)."""

    listing: Listing
    version: int
    kind: str
    detail: dict[str, Any]


@dataclass
class EventBatch:
    """Listing events of one transaction collected write by write and made together (`make`): what the import does
    for the hundreds of listings a chunk publishes. The same rows as `listing_event` per write, in the same order,
    with one query per active saved search instead of one per search and listing. A listing at most once."""

    events: list[PendingEvent] = field(default_factory=list)
    rows: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, listing: Listing, kind: str, detail: dict[str, Any]) -> None:
        self.events.append(PendingEvent(listing, listing.version, kind, detail))

    def write_later(self, table: Any, row: dict[str, Any]) -> None:
        """A row the write that made the event would have added (its status history, its audit row), inserted with
        the others of its table when the batch is made, before the events."""
        self.rows.setdefault(table, []).append(row)

    def make(self, session: Session, now: dt.datetime) -> list[MatchCounts]:
        """Write the rows, record the events and make their Treffer and proposals; the counts in the order added."""
        events, self.events = self.events, []
        rows, self.rows = self.rows, {}
        for table, table_rows in rows.items():
            insert_rows(session, table, table_rows)
        return listing_events(session, events, now)


def listing_event(session: Session, listing: Listing, kind: str, detail: dict[str, Any], now: dt.datetime) -> MatchCounts:
    """Record the event at the listing's current version, make its Treffer and proposals, and notify the other
    instances (PostgreSQL, on commit). Call after the listing's change is applied and flushed."""
    [counts] = listing_events(session, [PendingEvent(listing, listing.version, kind, detail)], now)
    return counts


def listing_events(session: Session, pending: Sequence[PendingEvent], now: dt.datetime) -> list[MatchCounts]:
    """`listing_event` for each of `pending` (distinct listings), made together: the events, their Treffer and their
    proposals in one INSERT each, the active searches read once, one query per search for all listings it may fit."""
    session.flush()
    if not pending:
        return []
    if len({p.listing.id for p in pending}) != len(pending):
        raise ValueError("one event per listing and batch: a second would have to see what the first made")
    event_ids = _insert(session, ListingEvent.__table__, [
        {"listing_id": p.listing.id, "version": p.version, "kind": p.kind, "detail": p.detail, "created_at": now} for p in pending
    ])
    orders = _active_orders(session)
    ids = [p.listing.id for p in pending]
    matched_before = _by_listing(session, Match.search_order_id, Match.listing_id, ids)
    proposed_before = _by_listing(session, Proposal.search_order_id, Proposal.listing_id, ids)
    profiles = _profiles([p.listing for p in pending if p.kind != STATUS_CHANGE])
    fitting: dict[int, list[SearchOrder]] = {}  # listing id → the active searches it fits, in their order
    for order in orders if profiles else ():
        for listing_id in _fitting(session, order.criteria, profiles):
            fitting.setdefault(listing_id, []).append(order)
    matches: list[dict[str, Any]] = []
    proposals: list[dict[str, Any]] = []
    counts = []
    for event, event_id in zip(pending, event_ids, strict=True):
        listing, made = event.listing, MatchCounts()
        before = matched_before.get(listing.id, set())
        proposed = proposed_before.get(listing.id, set())
        if event.kind == STATUS_CHANGE:  # the searches that had a Treffer for it, whatever they ask now
            made_for = [(order, MatchKind.status_change, dict(event.detail)) for order in orders if order.id in before]
        elif event.kind == PRICE_DROP:
            made_for = [(order, MatchKind.price_drop, dict(event.detail)) for order in fitting.get(listing.id, [])]
        else:
            made_for = [
                (order, MatchKind.status_change, dict(event.detail)) if order.id in before else (order, MatchKind.new_listing, {})
                for order in fitting.get(listing.id, [])
            ]
        for order, kind, detail in made_for:
            matches.append({"search_order_id": order.id, "listing_id": listing.id, "kind": kind.value, "detail": detail,
                            "state": "new", "created_at": now, "event_id": event_id})
            made += MatchCounts(1, 0)
            if event.kind == PUBLISHED and order.approachable and order.id not in proposed:
                proposals.append({"office_id": listing.office_id, "listing_id": listing.id, "search_order_id": order.id,
                                  "status": ProposalStatus.open.value, "created_at": now, "event_id": event_id})
                made += MatchCounts(0, 1)
        counts.append(made)
    _insert(session, Match.__table__, matches, "T-")
    _insert(session, Proposal.__table__, proposals, "P-")
    notify_all(session, [
        {"event": event_id, "listing": p.listing.ref, "kind": p.kind, "matches": made.matches, "proposals": made.proposals}
        for p, event_id, made in zip(pending, event_ids, counts, strict=True)
    ])
    return counts
