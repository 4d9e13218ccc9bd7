"""The status history of the listings of offices 1 and 2: draft, published, reserved, sold or let, …"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

from shared.demo.accounts.ground import Ground
from shared.demo.accounts.matches import ListingEvent
from shared.demo.accounts.stock import DemoListing
from shared.demo.rows import Row


def status_history(ground: Ground, events: dict[int, ListingEvent | None]) -> Iterator[Row]:
    """Every status change of every listing of the offices 1 and 2, consistent with its dates and its event, numbered
    from 1; drawn listing by listing as the caller consumes them (they grow with the offices' stock)."""
    number = 0
    for office_id, listings in ground.office_listings.items():
        office = _OfficeHistory(ground, office_id, events)
        for lst in listings:
            for row in office.changes(lst):
                number += 1
                yield {**row, "id": number}


class _OfficeHistory:
    def __init__(self, ground: Ground, office_id: int, events: dict[int, ListingEvent | None]) -> None:
        self.rng = ground.rng
        self.members = ground.people.members.get(office_id) or [None]
        self.events = events
        self.fell_through = 0

    def changes(self, lst: DemoListing) -> list[Row]:
        rng = self.rng
        rows: list[Row] = []

        def change(old: str | None, new: str, at: dt.datetime) -> None:
            author = rng.choice(self.members)
            rows.append({"listing_id": lst.id, "old_status": old, "new_status": new,
                         "changed_by": author.id if author else None, "changed_at": at})

        change(None, "draft", lst.created_at)
        if lst.published_at is None:
            return rows
        change("draft", "published", lst.published_at)
        event = self.events.get(lst.id)
        if event is not None and event.kind == "status_change":
            reserved = lst.published_at + (event.at - lst.published_at) * rng.uniform(0.3, 0.9)
            change("published", "reserved", reserved)
            change("reserved", "published", event.at)
        elif (
            lst.status == "published" and lst.updated_at - lst.published_at > dt.timedelta(days=2)
            and (rng.random() < 0.1 or self.fell_through < 2)
        ):  # a reservation that fell through, at least twice per office
            self.fell_through += 1
            reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.2, 0.8)
            change("published", "reserved", reserved)
            change("reserved", "published", lst.updated_at)
        if lst.status in ("sold", "let"):
            reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.3, 0.9)
            change("published", "reserved", reserved)
            change("reserved", lst.status, lst.updated_at)
        elif lst.status in ("reserved", "withdrawn"):
            change("published", lst.status, lst.updated_at)
        return rows
