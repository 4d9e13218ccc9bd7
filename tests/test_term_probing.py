"""Frequent words are looked up per listing (EXISTS) where SQLite would otherwise list every posting first
(shared.catalog.probing); a prefix is then probed as the exact terms it stands for. Both must find exactly what the
posting lists find: the same totals and the same listings in the same order, page after page. Checked on the backend
of the run with probing forced on for every word (the demo catalog is too small for any word to be frequent) and
forced off."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.dialects import sqlite
from sqlalchemy.orm import Session

from contract.catalog import SearchListingsInput
from shared.catalog.probing import TermFrequency
from shared.catalog.scope import PublicScope
from shared.db.session import Database
from tests.conftest import Caller

QUERIES = [
    {"query": "Balkon"},
    {"query": "Balkon Garten"},
    {"query": "Balkon -Garten"},
    {"query": "Altbau OR Loggia"},
    {"query": "Dachgeschoss*"},
    {"query": "Dachgeschoss* -Balkon"},
    {"query": "Balkon", "city": "Leipzig", "marketing_type": "rent", "max_price": 1200},
    {"query": "Wohn*", "sort": "price_asc", "marketing_type": "buy"},
]


def _forced(monkeypatch: pytest.MonkeyPatch, on: bool) -> None:
    original = TermFrequency.__init__

    def init(self: TermFrequency, session: Session, cap: int) -> None:
        original(self, session, cap)
        self.probing = on
        self._threshold = 1  # every word with a posting is frequent

    monkeypatch.setattr(TermFrequency, "__init__", init)


def _walk(search: Caller, arguments: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The total fields of each page and the listings of the first three pages, in order."""
    totals, listings, cursor = [], [], None
    for _ in range(3):
        page = search("search_listings", {**arguments, "limit": 15, **({"cursor": cursor} if cursor else {})})
        totals.append((page["total"], page["total_exact"], page["total_at_least"]))
        listings.extend(hit["listing_id"] for hit in page["items"])
        cursor = page["completeness"].get("next_cursor")
        if cursor is None:
            break
    return totals, listings


@pytest.mark.parametrize("arguments", QUERIES, ids=lambda a: " ".join(f"{k}={v}" for k, v in a.items()))
def test_probing_finds_exactly_what_the_posting_lists_find(
    arguments: dict[str, Any], search: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    _forced(monkeypatch, on=False)
    listed = _walk(search, arguments)
    _forced(monkeypatch, on=True)
    probed = _walk(search, arguments)
    assert listed[1], "the query finds nothing in the demo catalog: it checks nothing"
    assert probed == listed


def test_forced_probing_really_probes(demo_db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    for on, expected in ((True, "EXISTS"), (False, "IN (SELECT")):
        _forced(monkeypatch, on=on)
        with Session(demo_db.engine) as session:
            scope = PublicScope(session, SearchListingsInput(query="Dachgeschoss*"))
            sql = " ".join(str(c.compile(dialect=sqlite.dialect())) for c in scope.page_conditions)
        assert expected in sql, sql
        assert ("listing_terms.term >=" in sql) is (not on)  # probed: the prefix as its exact terms
