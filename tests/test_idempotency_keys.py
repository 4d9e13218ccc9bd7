"""Idempotency keys (issue 17, item 5): a repeat with the same request_id returns the first result and creates nothing
twice (the drafts too), the same key with other arguments is CONFLICT, and after 48 hours a key is forgotten: the
same key then runs afresh, and housekeeping deletes it."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import func, select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.auth.cleanup import remove_expired
from shared.db.models import IdempotencyKey, PendingAction
from shared.db.session import Database
from tests.confirmation_helpers import OWNER, SEEKER, open_inquiry, principal_of, published_listing
from tests.conftest import FIXED_NOW, Caller, make_context


def keys(db: Database) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(IdempotencyKey)) or 0)


def test_a_repeated_draft_with_its_key_is_the_first_draft(scratch_db: Database) -> None:
    seeker = Caller(SEARCH, make_context(scratch_db), principal_of(scratch_db, SEEKER.email))
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email))
    listing, inquiry = published_listing(scratch_db), open_inquiry(scratch_db)
    ask = {"listing_id": listing, "message": "Ist sie noch frei?", "request_id": "draft-key-0001"}
    first, again = seeker("draft_inquiry", ask), seeker("draft_inquiry", ask)
    assert again["confirmation"]["confirmation_id"] == first["confirmation"]["confirmation_id"]
    assert seeker.error("draft_inquiry", {**ask, "message": "Etwas anderes"})[0] == "CONFLICT"
    unkeyed = seeker("draft_inquiry", {"listing_id": listing, "message": "Ist sie noch frei?"})
    assert unkeyed["confirmation"]["confirmation_id"] != first["confirmation"]["confirmation_id"]
    reply = {"inquiry_id": inquiry, "text": "Ja, gern.", "request_id": "reply-key-0001"}
    assert owner("draft_reply", reply)["confirmation"]["confirmation_id"] == owner("draft_reply", reply)["confirmation"]["confirmation_id"]
    with scratch_db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(PendingAction).where(PendingAction.subject_ref == listing)) == 2


def test_a_key_lives_48_hours(scratch_db: Database) -> None:
    now = FIXED_NOW
    seeker = Caller(SEARCH, make_context(scratch_db, now), principal_of(scratch_db, SEEKER.email))
    later = Caller(SEARCH, make_context(scratch_db, now + dt.timedelta(hours=48, minutes=1)), principal_of(scratch_db, SEEKER.email))
    order = {"criteria": {"city": "Leipzig", "marketing_type": "rent"}, "request_id": "order-key-0001"}
    first = seeker("save_search_order", order)
    assert seeker("save_search_order", order)["search_order_id"] == first["search_order_id"]
    within = Caller(SEARCH, make_context(scratch_db, now + dt.timedelta(hours=47)), principal_of(scratch_db, SEEKER.email))
    assert within("save_search_order", order)["replayed"] is True
    afresh = later("save_search_order", order)
    assert afresh["search_order_id"] != first["search_order_id"] and afresh["replayed"] is False
    before = keys(scratch_db)
    with scratch_db.unit_of_work() as session:
        assert remove_expired(session, now + dt.timedelta(hours=47))["idempotency_keys"] == 0
    with scratch_db.unit_of_work() as session:
        removed = remove_expired(session, now + dt.timedelta(hours=48 + 49))["idempotency_keys"]
    assert removed == before and keys(scratch_db) == 0
