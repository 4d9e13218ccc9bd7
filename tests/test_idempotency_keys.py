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
from contract.servers import SERVERS
from contract.tool import Effect
from tests.conftest import Caller, FIXED_NOW, make_context, request_key

MISSING_KEY = (
    "Das Argument request_id fehlt (ein neuer Idempotenzschlüssel je Auftrag, z. B. eine UUID; bei einer Wiederholung "
    "derselbe): bitte korrigieren und das Werkzeug erneut aufrufen."
)


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
    other_key = seeker("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Ist sie noch frei?"})
    assert other_key["confirmation"]["confirmation_id"] != first["confirmation"]["confirmation_id"]
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


def test_every_creating_tool_refuses_a_call_without_its_key(scratch_db: Database) -> None:
    """A retry after a timeout must not create a second record (issue 30, item 4): every save_ and draft_ tool that
    takes request_id requires it (its schema says so) and names the field in German when it is missing; a call that is
    complete but for the key creates nothing."""
    seeker = Caller(SEARCH, make_context(scratch_db), principal_of(scratch_db, SEEKER.email))
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email))
    listing, inquiry = published_listing(scratch_db), open_inquiry(scratch_db)
    complete_but_the_key = {
        ("suche", "draft_inquiry"): (seeker, {"listing_id": listing, "message": "Ist sie noch frei?"}),
        ("suche", "save_search_order"): (seeker, {"criteria": {"city": "Leipzig"}}),
        ("makler", "draft_reply"): (owner, {"inquiry_id": inquiry, "text": "Ja, gern."}),
        ("makler", "save_listing"): (owner, {"listing_id": "A-0000001", "fields": {"title": "Neuer Titel"}}),
        ("makler", "save_valuation"): (owner, {"listing_id": "A-0000001", "value_low": 1, "value_high": 2}),
    }
    creating = {
        (name.value, spec.name)
        for name, server in SERVERS.items()
        for spec in server.tools
        if spec.effect in (Effect.save, Effect.draft) and "request_id" in spec.input_model.model_fields
    }
    assert creating == set(complete_but_the_key)
    before = keys(scratch_db)
    with scratch_db.read_only() as session:
        drafts = session.scalar(select(func.count()).select_from(PendingAction))
    for (server, tool), (caller, arguments) in complete_but_the_key.items():
        schema = next(spec for spec in SERVERS[next(n for n in SERVERS if n.value == server)].tools if spec.name == tool).input_schema()
        assert "request_id" in schema["required"], tool
        assert caller.error(tool, arguments) == ("INVALID_ARGUMENT", MISSING_KEY), tool
    with scratch_db.read_only() as session:
        assert (keys(scratch_db), session.scalar(select(func.count()).select_from(PendingAction))) == (before, drafts)
