"""Two server instances on one PostgreSQL database publish the same listings at the same moment: every listing is
published once, every Treffer and proposal exists once, and a third connection hears each listing event exactly once
(LISTEN/NOTIFY). Each instance is a process of its own calling update_listing_status through the servers' runner.
On SQLite there is one instance per database file, so the test is skipped there.
"""

from __future__ import annotations

import multiprocessing
import time
from collections import Counter
from typing import Any

import pytest
from sqlalchemy import func, select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.db.models import ListingEvent, Match, Proposal, SearchOrder
from shared.db.session import Database
from shared.matching.notify import Listener
from tests.conftest import Caller, make_context, request_key, seeded_database
from tests.test_seeker_writes import SEEKERS, seeker_principal
from tests.test_stock_writes import broker_principal, complete_fields

LISTINGS = 6


def publish_all(database_url: str, refs: list[str], barrier: Any, results: Any) -> None:
    """One instance: publish every listing of `refs`, in that order, right after the other instance is ready."""
    db = Database.from_url(database_url)
    broker = Caller(BROKER, make_context(db), broker_principal(db, 1))
    barrier.wait(timeout=60)
    for ref in refs:
        out = broker("update_listing_status", {"listing_id": ref, "status": "published"})
        results.append((ref, out["result"], out["matches_made"], out["proposals_made"]))
    db.engine.dispose()


def test_two_instances_publishing_at_once_make_each_treffer_once(backend: str, tmp_path: Any) -> None:
    if backend != "postgresql":
        pytest.skip("two instances share a database only on PostgreSQL (LISTEN/NOTIFY); SQLite serves one instance per file")
    with seeded_database(tmp_path, "instances", listings=150) as db:
        url = db.engine.url.render_as_string(hide_password=False)
        seeker = Caller(SEARCH, make_context(db), seeker_principal(db, SEEKERS[0].email))
        broker = Caller(BROKER, make_context(db), broker_principal(db, 1))
        orders = [
            seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Zwillingsturm"}, "approachable": True})["search_order_id"],
            seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Zwillingsturm", "min_rooms": 3}})["search_order_id"],
            seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Dresden", "query": "Zwillingsturm"}})["search_order_id"],  # fits none
        ]
        refs = [
            broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title=f"Wohnung {n} am Zwillingsturm", rooms=2 + n % 2)})["listing_id"]
            for n in range(LISTINGS)
        ]
        heard: list[dict[str, Any]] = []
        listener = Listener(url, heard.append)
        try:
            spawn = multiprocessing.get_context("spawn")
            with spawn.Manager() as manager:
                barrier, results = manager.Barrier(2), manager.list()
                instances = [
                    spawn.Process(target=publish_all, args=(url, refs, barrier, results)),
                    spawn.Process(target=publish_all, args=(url, list(reversed(refs)), barrier, results)),
                ]
                for process in instances:
                    process.start()
                for process in instances:
                    process.join(timeout=180)
                    assert process.exitcode == 0
                outcomes = list(results)
            deadline = time.monotonic() + 10
            while len(heard) < LISTINGS and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(0.5)  # a duplicate notification would arrive now
        finally:
            listener.stop()
        # each listing was published by exactly one instance; the other found it published (unchanged)
        by_listing = Counter((ref, result) for ref, result, _, _ in outcomes)
        assert all(by_listing[(ref, "changed")] == 1 and by_listing[(ref, "unchanged")] == 1 for ref in refs)
        with db.read_only() as session:
            events = session.execute(select(ListingEvent.id, ListingEvent.kind)).all()
            published = [e for e in events if e.kind == "published"]
            per_pair = session.execute(
                select(SearchOrder.ref, Match.listing_id, func.count())
                .join(SearchOrder, Match.search_order_id == SearchOrder.id)
                .where(SearchOrder.ref.in_(orders))
                .group_by(SearchOrder.ref, Match.listing_id)
            ).all()
            proposals = session.execute(
                select(Proposal.listing_id, func.count()).join(SearchOrder, Proposal.search_order_id == SearchOrder.id)
                .where(SearchOrder.ref == orders[0]).group_by(Proposal.listing_id)
            ).all()
            matches_total = session.scalar(select(func.count()).select_from(Match).where(Match.event_id.in_([e.id for e in published])))
            proposals_total = session.scalar(select(func.count()).select_from(Proposal).where(Proposal.event_id.in_([e.id for e in published])))
        assert len(published) == LISTINGS
        # a match is made once, not twice; the search that does not fit has none
        assert sorted(n for _, _, n in per_pair) == [1] * (LISTINGS + LISTINGS // 2)
        assert {ref for ref, _, _ in per_pair} == set(orders[:2])
        assert [n for _, n in proposals] == [1] * LISTINGS
        # what the instances reported is what is stored
        assert sum(m for _, _, m, _ in outcomes) == matches_total and sum(p for _, _, _, p in outcomes) == proposals_total
        # every event was heard once, by a third connection
        assert sorted(h["event"] for h in heard) == sorted(e.id for e in published)
