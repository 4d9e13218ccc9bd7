"""Inquiries of seekers about listings, each with its thread of messages."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.demo.accounts.ground import Ground
from shared.demo.accounts.letters import Letters, Message
from shared.demo.accounts.logins import is_documented
from shared.demo.accounts.matches import MATCH_WINDOW
from shared.demo.accounts.people import DemoUser
from shared.demo.accounts.searches import SavedSearches
from shared.demo.accounts.stock import DemoListing
from shared.demo.clock import DEMO_NOW
from shared.demo.randomness import Weighted

OFFICE_ONE_UNANSWERED = 6  # open inquiries to office 1, 3–10 days old (the situation report shows them)
_INQUIRY_STATUSES = Weighted({"open": 25, "answered": 50, "closed": 25})


@dataclass
class Thread:
    listing: DemoListing
    seeker: DemoUser
    status: str
    created_at: dt.datetime
    messages: list[Message] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    letters: Letters | None = None
    ref: str = ""
    id: int = 0


class Inquiries:
    def __init__(self, ground: Ground, searches: SavedSearches) -> None:
        self.ground = ground
        self.searches = searches
        self.threads: list[Thread] = []
        self.inquired: set[tuple[int, int]] = set()  # (seeker, listing) pairs that have a thread

    def draw(self, target: int) -> None:
        """Planned inquiries of the documented seekers and to office 1 first, then up to `target` in all."""
        ground = self.ground
        rng = ground.rng
        seekers = ground.people.seekers
        documented = {s.email.split("@")[0]: s for s in seekers if is_documented(s.email)}
        one, two = ground.published_of(1), ground.published_of(2)
        others = [s for s in seekers if s.email not in {d.email for d in documented.values()}] or seekers
        # Each plan: (seekers to pick from, listings to pick from, status, age range in days of an open one)
        lena, tobias = documented.get("suchende"), documented.get("suchender")
        old_enough = one.where(lambda lst: lst.published_at is not None and lst.published_at < DEMO_NOW - dt.timedelta(days=11))
        plans: list[tuple[list[DemoUser], Sequence[DemoListing], str, tuple[float, float] | None]] = []
        if lena:
            plans += [([lena], old_enough, "open", (3.5, 5)), ([lena], one, "answered", None),
                      ([lena], ground.pool, "closed", None), ([lena], ground.pool, "answered", None)]
        if tobias:
            plans += [([tobias], two, "open", (1.0, 1.8)), ([tobias], one, "answered", None)]
        # Office 1 always has unanswered inquiries for the situation report, old ones and new ones.
        plans += [(others, old_enough, "open", (3, 10))] * OFFICE_ONE_UNANSWERED
        plans += [(others, one, "open", (0.05, 1.5))] * 2
        for candidates, listings, status, ages in plans:
            for _ in range(50):  # until one fits (a pair may exist already, a listing may be too new)
                if not listings or self._thread(rng.choice(candidates), rng.choice(listings), status, ages):
                    break
        # The rest: seekers who found something, some of them through their Treffer.
        interesting = [m for m in self.searches.matches.rows if m["state"] == "interesting"]
        orders = {order.id: order for order in self.searches.orders}
        listings = {**ground.stock.known, **{lst.id: lst for lst in ground.pool}}
        for match in interesting:
            if len(self.threads) >= target:
                break
            order, lst = orders[match["search_order_id"]], listings.get(match["listing_id"])
            if lst is not None and rng.random() < 0.5:
                self._thread(order.user, lst, self._status(), None, after=match["created_at"])
        for lst in ground.pool:
            if len(self.threads) >= target:
                break
            self._thread(rng.choice(others), lst, self._status(), None)
        # I-000001 is the oldest inquiry.
        self.threads.sort(key=lambda t: (t.created_at, t.listing.id, t.seeker.id))
        for number, thread in enumerate(self.threads, start=1):
            thread.id, thread.ref = number, f"I-{number:06d}"

    def _status(self) -> str:
        return _INQUIRY_STATUSES.pick(self.ground.rng)

    def _thread(
        self, seeker: DemoUser, lst: DemoListing, status: str, ages: tuple[float, float] | None,
        after: dt.datetime | None = None,
    ) -> bool:
        rng = self.ground.rng
        if (seeker.id, lst.id) in self.inquired or lst.published_at is None:
            return False
        earliest = max(lst.published_at + dt.timedelta(hours=1), DEMO_NOW - MATCH_WINDOW, seeker.created_at)
        if after is not None:
            earliest = max(earliest, after + dt.timedelta(minutes=20))
        latest = DEMO_NOW - dt.timedelta(minutes=20)
        if status == "open":
            if ages is None:
                ages = (0.02, 2.0) if rng.random() < 0.6 else (3.0, 10.0)
            created = DEMO_NOW - dt.timedelta(days=rng.uniform(*ages))
            if created < earliest:
                return False
        else:
            latest_start = latest - dt.timedelta(days=1)
            if earliest >= latest_start:
                return False
            created = earliest + (latest_start - earliest) * rng.random()
        self.inquired.add((seeker.id, lst.id))
        thread = Thread(lst, seeker, status, created)
        thread.profile = self._profile(seeker, lst)
        self._write_thread(thread, latest)
        self.threads.append(thread)
        return True

    def _profile(self, seeker: DemoUser, lst: DemoListing) -> dict[str, Any]:
        rng = self.ground.rng
        profile: dict[str, Any] = {"name": seeker.name, "email": seeker.email}
        if seeker.phone and rng.random() < 0.7:
            profile["phone"] = seeker.phone
        profile["household"] = seeker.situation["household"]
        key = "financing" if lst.marketing_type == "buy" else "income"
        profile[key] = seeker.situation[key]
        return profile

    def _write_thread(self, thread: Thread, latest: dt.datetime) -> None:
        """1–4 messages, seeker and office in turn: open has only the seeker's, answered ends with the office."""
        rng = self.ground.rng
        lengths = {"open": (1,), "answered": (2, 4), "closed": (2, 3, 4)}[thread.status]
        wanted = rng.choice(lengths)
        times = [thread.created_at]
        for n in range(1, wanted):
            hours = rng.uniform(0.5, 26) if n % 2 else rng.uniform(1, 40)  # office replies, then the seeker
            times.append(times[-1] + dt.timedelta(hours=hours))
        while len(times) > 1 and times[-1] > latest:
            times.pop()
        if thread.status == "answered" and len(times) % 2 and len(times) > 1:  # an answer needs a question
            times.pop()
        if len(times) == 1:
            thread.status = "open"
        office_id = thread.listing.office_id
        thread.letters = Letters(
            rng, thread.listing, thread.seeker, thread.profile.get("household", ""), thread.created_at,
            self.ground.offices[office_id], self.ground.people.members.get(office_id, []),
        )
        thread.messages = thread.letters.messages(times, closing=thread.status == "closed")
