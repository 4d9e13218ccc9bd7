"""Proposals: an office offers one of its listings to a seeker whose saved search allows being approached."""

from __future__ import annotations

import datetime as dt

from shared.demo.accounts.ground import Ground
from shared.demo.accounts.matches import Matches
from shared.demo.accounts.saved_search import SavedSearch
from shared.demo.clock import DEMO_NOW
from shared.demo.randomness import Weighted
from shared.demo.rows import Row

_PROPOSAL_STATUSES = Weighted({"open": 40, "accepted": 35, "rejected": 25})


class Proposals:
    def __init__(self, ground: Ground, matches: Matches) -> None:
        self.ground = ground
        self.matches = matches
        self.rows: list[Row] = []

    def propose(self, order: SavedSearch, office_id: int, guaranteed: bool) -> set[int]:
        """Listings of one office that fit an approachable search; the first one of a guaranteed search is open."""
        rng = self.ground.rng
        candidates = self.ground.stock.fitting(order.filters, office_id=office_id, limit=20)
        rng.shuffle(candidates)
        count = rng.randint(1, 3) if guaranteed else rng.choice((0, 1, 1, 2, 3))
        chosen: set[int] = set()
        for lst in candidates[:count]:
            assert lst.published_at is not None
            earliest = max(order.created_at, lst.published_at, DEMO_NOW - dt.timedelta(days=21))
            latest = DEMO_NOW - dt.timedelta(hours=1)
            if earliest >= latest:
                continue
            status = "open" if guaranteed and not chosen else _PROPOSAL_STATUSES.pick(rng)
            created = earliest + (latest - earliest) * rng.random()
            decided = None
            if status != "open":
                decided = min(DEMO_NOW, created + dt.timedelta(hours=rng.uniform(1, 72)))
            self.rows.append(
                {
                    "office_id": office_id,
                    "listing_id": lst.id,
                    "search_order_id": order.id,
                    "status": status,
                    "created_at": created,
                    "decided_at": decided,
                }
            )
            if status == "accepted" and decided is not None:  # the exposé went to the seeker as a Treffer
                self.matches.add(order, lst, "proposal", decided, {"office": self.ground.offices[office_id].name})
            chosen.add(lst.id)
        return chosen

    def number(self) -> None:
        """P-000001 is the oldest proposal."""
        self.rows.sort(key=lambda p: (p["created_at"], p["listing_id"]))
        for number, proposal in enumerate(self.rows, start=1):
            proposal.update(id=number, ref=f"P-{number:06d}")
