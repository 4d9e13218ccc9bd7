"""Treffer of saved searches: a listing was new, its price dropped or its reservation ended."""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import Any

from shared.demo.accounts.saved_search import SavedSearch
from shared.demo.accounts.stock import DemoListing
from shared.demo.clock import DEMO_NOW
from shared.demo.randomness import Weighted
from shared.demo.rows import Row

MATCH_WINDOW = dt.timedelta(days=30)  # how far back Treffer and inquiries reach
_MATCH_STATES_NEW = Weighted({"new": 80, "seen": 20})
_MATCH_STATES_OLD = Weighted({"new": 20, "seen": 45, "interesting": 20, "not_interested": 15})


@dataclass
class ListingEvent:
    """Something that happened to a listing after it was published: a price drop or reserved → published."""

    kind: str
    at: dt.datetime
    detail: dict[str, Any]


class Matches:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.rows: list[Row] = []
        self.events: dict[int, ListingEvent | None] = {}  # listing id → its one change, if any

    def _delivery(self, event_at: dt.datetime, frequency: str) -> dt.datetime:
        """When the Treffer reaches the seeker: at once, with the next morning's or next Monday's digest."""
        if frequency == "instant":
            return event_at + dt.timedelta(minutes=self.rng.randint(1, 15))
        morning = dt.datetime.combine(event_at.date(), dt.time(6, 0), tzinfo=dt.UTC)
        days = 1 if frequency == "daily" else 7 - event_at.weekday()
        return morning + dt.timedelta(days=days)

    def _event(self, lst: DemoListing) -> ListingEvent | None:
        """At most one change per listing, shared by every search that reports it; never after updated_at."""
        if lst.id in self.events:
            return self.events[lst.id]
        rng = self.rng
        event = None
        assert lst.published_at is not None
        earliest = max(lst.published_at + dt.timedelta(days=2), DEMO_NOW - MATCH_WINDOW)
        if lst.updated_at > earliest and rng.random() < 0.35:
            at = earliest + (lst.updated_at - earliest) * rng.random()
            if lst.price is not None and rng.random() < 0.6:
                step = -3 if lst.marketing_type == "buy" else -1
                old = round(lst.price * rng.uniform(1.04, 1.15), step)
                if old <= lst.price:
                    old = lst.price + 10 ** -step
                event = ListingEvent("price_drop", at, {"old_price": old, "new_price": lst.price})
            else:
                event = ListingEvent("status_change", at, {"old_status": "reserved", "new_status": "published"})
        self.events[lst.id] = event
        return event

    def for_listing(self, order: SavedSearch, lst: DemoListing, room: int) -> int:
        """Up to `room` Treffer for one listing: it was new, and/or its price dropped or its reservation ended."""
        rng = self.rng
        assert lst.published_at is not None
        found: list[tuple[str, dt.datetime, dict[str, Any]]] = []
        if lst.published_at >= order.created_at:
            found.append(("new_listing", self._delivery(lst.published_at, order.frequency), {}))
        event = self._event(lst)
        if event is not None and event.at >= order.created_at and (not found or rng.random() < 0.5):
            found.append((event.kind, self._delivery(event.at, order.frequency), event.detail))
        made = 0
        for kind, at, detail in found:
            if made < room and DEMO_NOW - MATCH_WINDOW <= at <= DEMO_NOW:
                self.add(order, lst, kind, at, dict(detail))
                made += 1
        return made

    def add(self, order: SavedSearch, lst: DemoListing, kind: str, at: dt.datetime, detail: dict[str, Any]) -> None:
        states = _MATCH_STATES_NEW if DEMO_NOW - at < dt.timedelta(days=2) else _MATCH_STATES_OLD
        self.rows.append(
            {
                "search_order_id": order.id,
                "listing_id": lst.id,
                "kind": kind,
                "detail": detail,
                "state": states.pick(self.rng),
                "created_at": at,
                "alerted_at": at,  # the demo's Treffer reached their seekers when they were made (no e-mail later)
            }
        )

    def number(self) -> None:
        """Treffer in the order they arrived: T-000001 is the oldest."""
        self.rows.sort(key=lambda m: (m["created_at"], m["search_order_id"], m["listing_id"], m["kind"]))
        for number, match in enumerate(self.rows, start=1):
            match.update(id=number, ref=f"T-{number:06d}")
