"""An import that publishes makes exactly what publishing the same listings one at a time makes: the import's chunk
records its listing events together (`shared.matching.events.EventBatch`, one query per saved search), the tool
path one event per call. Two databases seeded alike: one imports a transfer with publish, the other imports it as
drafts and publishes each new listing with update_listing_status. Listings, status history, audit, events, Treffer,
proposals and (PostgreSQL) the notifications must be the same, and the transfer must make Treffer and proposals and
leave a listing that fails the check a draft, so the comparison compares something."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import select

from shared.db.models import AuditEntry, Listing, ListingEvent, ListingStatusChange, Match, Proposal, SearchOrder
from shared.db.session import Database
from shared.matching.notify import CHANNEL, conninfo
from tests.conftest import seeded_database
from tests.test_import_listings import broker, flats, keys

REASON = "OpenImmo-Import"  # what the import writes as the reason of the publication; the tool path is given the same


@contextlib.contextmanager
def notifications(db: Database) -> Iterator[list[dict[str, Any]]]:
    """The listing events' notifications sent while the block runs (PostgreSQL; SQLite sends none)."""
    heard: list[dict[str, Any]] = []
    if db.engine.dialect.name != "postgresql":
        yield heard
        return
    import psycopg

    with psycopg.connect(conninfo(db.engine.url.render_as_string(hide_password=False)), autocommit=True) as connection:
        connection.execute(f"LISTEN {CHANNEL}")
        yield heard
        heard += [json.loads(n.payload) for n in connection.notifies(timeout=1.0, stop_after=None)]


def ordered(rows: Any) -> list[tuple[Any, ...]]:
    return sorted(rows, key=repr)  # a draft's published_at is None: tuples of mixed types sort by their text


def made(db: Database) -> dict[str, Any]:
    """What publishing wrote, keyed by what both databases share (objektnr_extern, search order refs), not by ids."""
    with db.read_only() as session:
        listings = {row.id: row for row in session.scalars(select(Listing).where(Listing.external_id.is_not(None)))}
        key = {row.id: row.external_id for row in listings.values()}
        ref_key = {row.ref: row.external_id for row in listings.values()}
        orders = {order_id: ref for order_id, ref in session.execute(select(SearchOrder.id, SearchOrder.ref))}
        events = {e.id: (key[e.listing_id], e.kind, e.version) for e in session.scalars(select(ListingEvent)) if e.listing_id in key}
        matches = session.scalars(select(Match).where(Match.event_id.in_(events)).order_by(Match.id)).all()
        proposals = session.scalars(select(Proposal).where(Proposal.event_id.in_(events)).order_by(Proposal.id)).all()
        assert all(m.ref == f"T-{m.id:06d}" for m in matches) and all(p.ref == f"P-{p.id:06d}" for p in proposals)
        return {
            # a draft's updated_at is the clock's on SQLite (the UPDATE that writes its ref), on both sides alike
            "listings": ordered(
                (row.external_id, row.status, row.version, row.published_at, row.updated_at if row.status == "published" else None)
                for row in listings.values()
            ),
            "history": ordered(
                (key[c.listing_id], c.old_status, c.new_status, c.changed_by, c.changed_at, c.reason)
                for c in session.scalars(select(ListingStatusChange).where(ListingStatusChange.listing_id.in_(key)))
            ),
            "audit": ordered(
                (ref_key[a.subject_ref], a.action, a.subject_version, a.user_id, a.office_id, json.dumps(a.before, sort_keys=True),
                 json.dumps(a.after, sort_keys=True), a.at, a.client_id)
                for a in session.scalars(select(AuditEntry).where(AuditEntry.action == "listing.status", AuditEntry.subject_ref.in_(ref_key)))
            ),
            "events": ordered(
                (key[e.listing_id], e.kind, e.version, json.dumps(e.detail, sort_keys=True), e.created_at)
                for e in session.scalars(select(ListingEvent).where(ListingEvent.id.in_(events)))
            ),
            "matches": ordered(
                (orders[m.search_order_id], key[m.listing_id], m.kind, json.dumps(m.detail, sort_keys=True), m.state, m.created_at,
                 events[m.event_id], m.alerted_at)
                for m in matches
            ),
            "proposals": ordered(
                (orders[p.search_order_id], key[p.listing_id], p.office_id, p.status, p.created_at, p.decided_at, events[p.event_id])
                for p in proposals
            ),
        }


def test_an_import_that_publishes_makes_what_publishing_each_listing_by_the_tool_makes(tmp_path: Path) -> None:
    transfer = flats(keys(120), "TEIL")  # four cities, flats for sale; every 50th without a living area (stays a draft)
    with seeded_database(tmp_path / "batch", "batch", listings=60) as batch, seeded_database(tmp_path / "single", "single", listings=60) as single:
        with notifications(batch) as batch_heard:
            imported = broker(batch)("import_listings", {"xml": transfer, "publish": True})
        drafts = broker(single)("import_listings", {"xml": transfer, "publish": False})
        assert [r["outcome"] for r in imported["results"]] == [r["outcome"] for r in drafts["results"]] == ["created"] * 120
        published = [r["objektnr_extern"] for r in imported["results"] if r["reason"] == "Angelegt und veröffentlicht."]
        assert len(published) == 118  # T-049 and T-099 fail the check
        call = broker(single)
        with notifications(single) as single_heard:
            outputs = {}
            for result in drafts["results"]:
                if result["objektnr_extern"] in published:
                    outputs[result["objektnr_extern"]] = call(
                        "update_listing_status", {"listing_id": result["listing_id"], "status": "published", "reason": REASON}
                    )
        expected, got = made(single), made(batch)
        assert len(expected["matches"]) > len(published) and len(expected["proposals"]) > 10  # it compares something
        assert {k for _, k, *_ in expected["matches"]} < {k for k, *_ in expected["listings"]}  # and not everything fits
        for part in expected:
            assert got[part] == expected[part], part
        assert sum(o["matches_made"] for o in outputs.values()) == len(got["matches"])
        assert sum(o["proposals_made"] for o in outputs.values()) == len(got["proposals"])
        if batch.engine.dialect.name == "postgresql":
            def shown(heard: list[dict[str, Any]], results: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
                key = {r["listing_id"]: r["objektnr_extern"] for r in results}
                return [(key[n["listing"]], n["kind"], n["matches"], n["proposals"]) for n in heard]

            assert len(batch_heard) == len(published)
            assert shown(batch_heard, imported["results"]) == shown(single_heard, drafts["results"])
