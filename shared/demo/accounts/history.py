"""The status history of the listings of offices 1 and 2: draft, published, reserved, sold or let, …"""

from __future__ import annotations

import datetime as dt

from shared.demo.accounts.ground import Ground
from shared.demo.accounts.matches import ListingEvent
from shared.demo.accounts.stock import DemoListing
from shared.demo.rows import Row


def status_history(ground: Ground, events: dict[int, ListingEvent | None]) -> list[Row]:
    """Every status change of every listing of the offices 1 and 2, consistent with its dates and its event."""
    rng = ground.rng
    rows: list[Row] = []
    for office_id, listings in ground.office_listings.items():
        members = ground.people.members.get(office_id) or [None]

        def change(lst: DemoListing, old: str | None, new: str, at: dt.datetime) -> None:
            author = rng.choice(members)
            rows.append({"listing_id": lst.id, "old_status": old, "new_status": new,
                         "changed_by": author.id if author else None, "changed_at": at})

        fell_through = 0
        for lst in listings:
            change(lst, None, "draft", lst.created_at)
            if lst.published_at is None:
                continue
            change(lst, "draft", "published", lst.published_at)
            event = events.get(lst.id)
            if event is not None and event.kind == "status_change":
                reserved = lst.published_at + (event.at - lst.published_at) * rng.uniform(0.3, 0.9)
                change(lst, "published", "reserved", reserved)
                change(lst, "reserved", "published", event.at)
            elif (
                lst.status == "published" and lst.updated_at - lst.published_at > dt.timedelta(days=2)
                and (rng.random() < 0.1 or fell_through < 2)
            ):  # a reservation that fell through, at least twice per office
                fell_through += 1
                reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.2, 0.8)
                change(lst, "published", "reserved", reserved)
                change(lst, "reserved", "published", lst.updated_at)
            if lst.status in ("sold", "let"):
                reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.3, 0.9)
                change(lst, "published", "reserved", reserved)
                change(lst, "reserved", lst.status, lst.updated_at)
            elif lst.status in ("reserved", "withdrawn"):
                change(lst, "published", lst.status, lst.updated_at)
    for number, row in enumerate(rows, start=1):
        row["id"] = number
    return rows
