"""Saved searches of the seekers, with their Treffer and the proposals of offices."""

from __future__ import annotations

import datetime as dt

from shared.demo.accounts.ground import Ground
from shared.demo.accounts.logins import is_documented
from shared.demo.accounts.matches import MATCH_WINDOW, Matches
from shared.demo.accounts.people import DemoUser
from shared.demo.accounts.proposals import Proposals
from shared.demo.accounts.saved_search import SavedSearch, draw_criteria
from shared.demo.accounts.stock import DemoListing
from shared.demo.clock import DEMO_NOW
from shared.demo.randomness import Weighted

OFFICE_ONE_PROPOSAL_SEARCHES = 4  # approachable searches of generated seekers around office 1's listings
_FREQUENCIES = Weighted({"instant": 45, "daily": 40, "weekly": 15})
_ORDER_STATUSES = Weighted({"active": 78, "paused": 13, "ended": 9})


class SavedSearches:
    def __init__(self, ground: Ground) -> None:
        self.ground = ground
        self.orders: list[SavedSearch] = []
        self.matches = Matches(ground.rng)
        self.proposals = Proposals(ground, self.matches)

    def draw(self) -> None:
        """The documented seekers' searches first, then about two thirds of the other seekers search too."""
        ground = self.ground
        rng = ground.rng
        residential = [lst for lst in ground.pool if lst.property_type in ("apartment", "house")] or ground.pool
        seeds = iter(residential)
        office_seeds = {
            office_id: listings.where(lambda lst: lst.status == "published" and lst.property_type in ("apartment", "house"))
            for office_id, listings in ground.office_listings.items()
        }
        home_seeds = {  # in the office's own city, where it has the most listings
            office_id: listings.where(lambda lst, city=ground.offices[office_id].place.name: lst.city == city) or listings
            for office_id, listings in office_seeds.items()
        }

        def next_seed(office_id: int | None = None, home: bool = False) -> DemoListing | None:
            if office_id is not None and office_seeds.get(office_id):
                return rng.choice((home_seeds if home else office_seeds)[office_id])
            return next(seeds, None) or (rng.choice(residential) if residential else None)

        documented = [s for s in ground.people.seekers if is_documented(s.email)]
        plans: list[tuple[DemoUser, DemoListing | None, str, bool, int | None, str]] = []
        # (seeker, seed, status, approachable, office to propose from, frequency)
        for seeker in documented:
            if seeker.email.startswith("suchende@"):
                plans += [
                    (seeker, next_seed(1, home=True), "active", True, 1, "instant"),
                    (seeker, next_seed(), "active", False, None, "weekly"),
                    (seeker, next_seed(), "paused", False, None, "daily"),
                ]
            else:
                plans += [
                    (seeker, next_seed(1, home=True), "active", True, 1, "daily"),
                    (seeker, next_seed(2, home=True), "active", True, 2, "instant"),
                ]
        forced = OFFICE_ONE_PROPOSAL_SEARCHES
        for seeker in ground.people.seekers:
            if seeker in documented or rng.random() >= 2 / 3:
                continue
            for n in range(rng.choices((1, 2, 3), weights=(55, 30, 15))[0]):
                if n == 0 and forced > 0:
                    forced -= 1
                    plans.append((seeker, next_seed(1), "active", True, 1, _FREQUENCIES.pick(rng)))
                    continue
                seed = next_seed()
                plans.append((seeker, seed, _ORDER_STATUSES.pick(rng), rng.random() < 0.4, None,
                              _FREQUENCIES.pick(rng)))
        for seeker, seed, status, approachable, office_id, frequency in plans:
            self._search_order(seeker, seed, status, approachable, office_id, frequency)
        self.matches.number()
        self.proposals.number()

    def _search_order(
        self, seeker: DemoUser, seed: DemoListing | None, status: str, approachable: bool, office_id: int | None,
        frequency: str,
    ) -> None:
        rng = self.ground.rng
        documented = is_documented(seeker.email)
        filters, name = draw_criteria(rng, seed, broad=documented)
        earliest = max(seeker.created_at, DEMO_NOW - dt.timedelta(days=180))
        if documented or rng.random() < 0.85:
            span = (DEMO_NOW - MATCH_WINDOW - earliest).total_seconds()
            created = earliest + dt.timedelta(seconds=rng.uniform(0, max(span, 0)))
        else:  # a fresh search
            created = DEMO_NOW - dt.timedelta(seconds=rng.uniform(86_400, MATCH_WINDOW.total_seconds()))
        if status == "active" and rng.random() < 0.7:
            updated = created
        else:
            updated = created + (DEMO_NOW - created) * rng.uniform(0.2, 0.95)
        number = len(self.orders) + 1
        order = SavedSearch(number, f"S-{number:06d}", seeker, filters, status, frequency, approachable, created, seed)
        self.orders.append(order)
        order.row = {
            "id": number,
            "ref": order.ref,
            "user_id": seeker.id,
            "name": name[:200],
            "criteria": filters.model_dump(mode="json", exclude_none=True),
            "frequency": frequency,
            "status": status,
            "approachable": approachable,
            "created_at": created,
            "updated_at": updated,
        }
        if status != "active":
            return
        proposed: set[int] = set()
        if approachable and seed is not None:
            proposed = self.proposals.propose(order, office_id or seed.office_id, guaranteed=office_id is not None)
        wanted = rng.randint(5, 10) if documented else rng.randint(0, 12)
        candidates = [lst for lst in self.ground.stock.fitting(filters) if lst.id not in proposed]
        rng.shuffle(candidates)
        made = 0
        for lst in candidates:
            if made >= wanted:
                break
            made += self.matches.for_listing(order, lst, room=wanted - made)
