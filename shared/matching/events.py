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
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from contract.errors import InputNeeded, ToolFailure
from contract.vocabulary import MatchKind, ProposalStatus, SearchOrderStatus
from shared.catalog import places
from shared.catalog import search as engine
from shared.catalog.gazetteer import split_state
from shared.catalog.scope import filter_conditions, parse_query
from shared.catalog.text import normalise
from shared.db.models import Listing, ListingEvent, Match, Proposal, SearchOrder
from shared.matching.notify import notify
from shared.saved_search import criteria_of
from shared.write_log import temporary_ref

PUBLISHED = "published"
PRICE_DROP = "price_drop"
STATUS_CHANGE = "status_change"


@dataclass(frozen=True)
class MatchCounts:
    matches: int = 0
    proposals: int = 0

    def __add__(self, other: MatchCounts) -> MatchCounts:
        return MatchCounts(self.matches + other.matches, self.proposals + other.proposals)


def fits(session: Session, listing: Listing, criteria: dict[str, Any] | None) -> bool:
    """Whether the listing meets the saved criteria, whatever its status (the event decides about status)."""
    filters = criteria_of(criteria)
    if filters.marketing_type is not None and filters.marketing_type.value != listing.marketing_type:
        return False
    if filters.property_types and listing.property_type not in {p.value for p in filters.property_types}:
        return False
    # the same tests the catalog's SQL makes on city and postal codes (shared.catalog.search.base_conditions), in
    # Python first: most saved searches look elsewhere, and need no query
    if filters.city and (normalise(split_state(filters.city)[0]) != listing.city_key or split_state(filters.city)[1] not in (None, listing.state)):
        return False
    if filters.postal_codes and not any(listing.postal_code.startswith(code) for code in filters.postal_codes):
        return False
    conditions = _conditions(session, criteria, filters)
    if conditions is None:  # a stored place the catalog no longer knows: nothing fits
        return False
    return session.scalar(select(Listing.id).where(Listing.id == listing.id, *conditions)) is not None


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


def _add_match(session: Session, order: SearchOrder, listing: Listing, event: ListingEvent, kind: MatchKind, detail: dict[str, Any]) -> None:
    match = Match(
        ref=temporary_ref(), search_order_id=order.id, listing_id=listing.id, kind=kind.value, detail=detail,
        state="new", created_at=event.created_at, event_id=event.id,
    )
    session.add(match)
    session.flush()
    match.ref = f"T-{match.id:06d}"


def _add_proposal(session: Session, order: SearchOrder, listing: Listing, event: ListingEvent) -> None:
    proposal = Proposal(
        ref=temporary_ref(), office_id=listing.office_id, listing_id=listing.id, search_order_id=order.id,
        status=ProposalStatus.open.value, created_at=event.created_at, event_id=event.id,
    )
    session.add(proposal)
    session.flush()
    proposal.ref = f"P-{proposal.id:06d}"


def _make(session: Session, event: ListingEvent, listing: Listing) -> MatchCounts:
    orders = _active_orders(session)
    matched_before = set(session.scalars(select(Match.search_order_id).where(Match.listing_id == listing.id)))
    counts = MatchCounts()
    if event.kind == STATUS_CHANGE:
        for order in orders:
            if order.id in matched_before:
                _add_match(session, order, listing, event, MatchKind.status_change, dict(event.detail))
                counts += MatchCounts(1, 0)
        return counts
    proposed_before = set(session.scalars(select(Proposal.search_order_id).where(Proposal.listing_id == listing.id)))
    for order in orders:
        if not fits(session, listing, order.criteria):
            continue
        if event.kind == PRICE_DROP:
            _add_match(session, order, listing, event, MatchKind.price_drop, dict(event.detail))
            counts += MatchCounts(1, 0)
            continue
        if order.id in matched_before:
            _add_match(session, order, listing, event, MatchKind.status_change, dict(event.detail))
        else:
            _add_match(session, order, listing, event, MatchKind.new_listing, {})
        counts += MatchCounts(1, 0)
        if order.approachable and order.id not in proposed_before:
            _add_proposal(session, order, listing, event)
            counts += MatchCounts(0, 1)
    return counts


def listing_event(session: Session, listing: Listing, kind: str, detail: dict[str, Any], now: dt.datetime) -> MatchCounts:
    """Record the event at the listing's current version, make its Treffer and proposals, and notify the other
    instances (PostgreSQL, on commit). Call after the listing's change is applied and flushed."""
    session.flush()
    event = ListingEvent(listing_id=listing.id, version=listing.version, kind=kind, detail=detail, created_at=now)
    session.add(event)
    session.flush()
    counts = _make(session, event, listing)
    notify(session, {"event": event.id, "listing": listing.ref, "kind": kind, "matches": counts.matches, "proposals": counts.proposals})
    return counts
