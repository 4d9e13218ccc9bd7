"""Which terms SQLite looks up listing by listing instead of listing their postings first.

`listing_id IN (postings of a term)` is how both databases find the listings with a word. PostgreSQL turns it into a
join it can stop early (a merge along the primary key, a nested loop along the page's order). SQLite has neither a
merge join nor statistics per term: it reads every posting of the term into a list, then looks the listings up and,
for a page, sorts them all. For "Balkon" at 10^6 listings that is 380,663 postings per search (520 ms). For a
frequent term the other way round is cheap: walk the listings in the page's order (or any order, for the capped
count) and probe the term index for each (EXISTS), which stops after a page or the cap; for a rare term it would walk
far, and the list of its few postings is the cheap way.

A term counts as frequent when it has at least sqrt(COUNT_CAP · catalog size) postings, where the two ways cost about
the same for the capped count (reading that many postings, or probing that many listings to find the cap); the page
of a frequent term needs even fewer probes. Finding out reads at most that many entries of the term index.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from shared.catalog.query import Term
from shared.db.models import Listing, ListingTerm


class TermFrequency:
    """Per request: which words are frequent enough to be looked up per listing (SQLite only; on PostgreSQL none is,
    its planner decides from its own statistics). A word with other spellings counts the postings of all of them."""

    def __init__(self, session: Session, cap: int) -> None:
        self.session = session
        self.probing = session.get_bind().dialect.name == "sqlite"
        self.cap = cap
        self._threshold: int | None = None
        self._frequent: dict[tuple[str, ...], bool] = {}

    def frequent(self, terms: Iterable[Term]) -> frozenset[str]:
        """The texts of the exact terms among `terms` that are frequent."""
        if not self.probing:
            return frozenset()
        return frozenset(term.text for term in terms if not term.prefix and self._is_frequent(term.spellings))

    def _is_frequent(self, spellings: tuple[str, ...]) -> bool:
        if spellings not in self._frequent:
            threshold = self.threshold()
            postings = select(ListingTerm.listing_id).where(ListingTerm.term.in_(spellings)).limit(threshold).subquery()
            self._frequent[spellings] = (self.session.scalar(select(func.count()).select_from(postings)) or 0) >= threshold
        return self._frequent[spellings]

    def threshold(self) -> int:
        if self._threshold is None:
            size = self.session.scalar(select(func.max(Listing.id))) or 0
            self._threshold = max(self.cap, math.isqrt(self.cap * size))
        return self._threshold
