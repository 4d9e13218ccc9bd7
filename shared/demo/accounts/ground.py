"""What every part of the demo accounts draws on: one random stream, the offices, the people and the listings."""

from __future__ import annotations

import random
from dataclasses import dataclass

from shared.demo.accounts.people import People
from shared.demo.accounts.stock import DemoListing, ListingIds, Stock
from shared.demo.offices import DemoOffice


@dataclass
class Ground:
    rng: random.Random
    offices: dict[int, DemoOffice]
    people: People
    stock: Stock
    pool: list[DemoListing]  # published listings in random order, for searches and inquiries
    office_listings: dict[int, ListingIds]  # every listing of the offices 1 and 2, by id

    def published_of(self, office_id: int) -> ListingIds:
        """The published listings of office 1 or 2 (none if the catalog lacks the office)."""
        listings = self.office_listings.get(office_id) or ListingIds(self.stock, [])
        return listings.where(lambda lst: lst.status == "published")
