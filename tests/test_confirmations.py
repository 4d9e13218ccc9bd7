"""Drafts a person confirms (SPEC section 7), in-process through the servers' own runner on a scratch database:
the confirmation block, the token only in `_meta`, send_ without a click, executing once, and every way a click
must execute nothing (both halves of each rule)."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from sqlalchemy import func, select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.db.models import Inquiry, InquiryMessage, Match, Office, OutboxMessage, PendingAction, Proposal
from shared.db.session import Database
from tests.confirmation_helpers import (
    APPS_META,
    OTHER_OWNER,
    OTHER_SEEKER,
    OWNER,
    SEEKER,
    STAFF,
    card_of,
    click,
    open_inquiry,
    open_proposal,
    principal_of,
    published_listing,
)
from tests.conftest import Caller, FIXED_NOW, make_context, request_key


def callers(db: Database, now: dt.datetime = FIXED_NOW) -> dict[str, Caller]:
    """The people of these tests, each in a host that renders MCP Apps (it shows the card; the card's click works)."""
    context = make_context(db, now)
    return {
        "seeker": Caller(SEARCH, context, principal_of(db, SEEKER.email), APPS_META),
        "other_seeker": Caller(SEARCH, context, principal_of(db, OTHER_SEEKER.email), APPS_META),
        "owner": Caller(BROKER, context, principal_of(db, OWNER.email), APPS_META),
        "staff": Caller(BROKER, context, principal_of(db, STAFF.email), APPS_META),
        "other_owner": Caller(BROKER, context, principal_of(db, OTHER_OWNER.email), APPS_META),
    }


def count(db: Database, statement: Any) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(statement.subquery())) or 0)


def messages_of(db: Database, inquiry_ref: str) -> list[tuple[str, str]]:
    with db.read_only() as session:
        rows = session.execute(
            select(InquiryMessage.author, InquiryMessage.body).join(Inquiry, Inquiry.id == InquiryMessage.inquiry_id).where(Inquiry.ref == inquiry_ref).order_by(InquiryMessage.id)
        )
        return [(a, b) for a, b in rows]


def test_a_drafted_inquiry_waits_for_the_click_and_goes_out_once(scratch_db: Database) -> None:
    c = callers(scratch_db)
    listing = published_listing(scratch_db)
    drafted = c["seeker"].raw("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Ist die Wohnung noch frei?", "share": ["name", "email"]})
    card = card_of(drafted)
    structured = drafted.structured_content
    assert structured["confirmation"]["status"] == "pending"
    assert structured["confirmation"]["action"] == "send_inquiry"
    assert structured["confirmation"]["confirmation_id"] == card["confirmation_id"]
    assert structured["text"] == "Ist die Wohnung noch frei?"
    assert [line["label"] for line in structured["shared_contact"]] == ["Name", "E-Mail"]
    assert card["token"] not in json.dumps(structured) and card["token"] not in drafted.content[0].text
    with scratch_db.read_only() as session:
        action = session.scalar(select(PendingAction).where(PendingAction.ref == card["confirmation_id"]))
        assert action.token_hash != card["token"] and len(action.token_hash) == 64 and action.office_id is None
    # send_inquiry by the model: the card again, pending, same token; nothing sent
    again = c["seeker"].raw("send_inquiry", {"confirmation_id": card["confirmation_id"]})
    assert again.structured_content["confirmation"]["status"] == "pending" and card_of(again) == card
    assert count(scratch_db, select(OutboxMessage)) == 0
    # the click
    sent = c["seeker"]("decide_confirmation", click(card))
    assert sent["confirmation"]["status"] == "sent"
    inquiry = sent["inquiry_id"]
    assert messages_of(scratch_db, inquiry) == [("seeker", "Ist die Wohnung noch frei?")]
    # replay: nothing twice
    replay = c["seeker"]("decide_confirmation", click(card))
    assert replay["confirmation"]["status"] == "sent" and replay["inquiry_id"] == inquiry
    assert messages_of(scratch_db, inquiry) == [("seeker", "Ist die Wohnung noch frei?")]
    assert count(scratch_db, select(OutboxMessage).where(OutboxMessage.inquiry_id.is_not(None))) == 1
    # the broker sees it
    found = c["owner"]("search_inquiries", {"limit": 50})
    assert inquiry in [item["inquiry_id"] for item in found["items"]]


def test_forged_foreign_changed_and_expired_clicks_execute_nothing(scratch_db: Database) -> None:
    c = callers(scratch_db)
    listing = published_listing(scratch_db)
    card = card_of(c["seeker"].raw("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Hallo"}))
    before = count(scratch_db, select(InquiryMessage))
    # forged token
    assert c["seeker"].error("decide_confirmation", click(card, token="x" * 43))[0] == "CONFIRMATION_INVALID"
    # another seeker with the real token
    assert c["other_seeker"].error("decide_confirmation", click(card))[0] == "CONFIRMATION_INVALID"
    # a broker (other server) with the real token
    assert c["owner"].error("decide_confirmation", click(card))[0] == "CONFIRMATION_INVALID"
    # changed payload since shown: the draft revised, the old card's hash no longer matches
    revised = card_of(c["seeker"].raw("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Hallo, geändert", "confirmation_id": card["confirmation_id"]}))
    assert revised["payload_hash"] != card["payload_hash"] and revised["token"] == card["token"]
    code, message = c["seeker"].error("decide_confirmation", click(card))
    assert code == "CONFLICT" and "neue Fassung" in message
    # expired
    late = callers(scratch_db, FIXED_NOW + dt.timedelta(hours=49))
    code, message = late["seeker"].error("decide_confirmation", click(revised))
    assert code == "CONFIRMATION_EXPIRED" and "neu vorbereiten" in message
    assert count(scratch_db, select(InquiryMessage)) == before
    assert count(scratch_db, select(OutboxMessage)) == 0
    # the other half: the real click by the right person with the shown hash sends
    assert c["seeker"]("decide_confirmation", click(revised))["confirmation"]["status"] == "sent"
    assert count(scratch_db, select(InquiryMessage)) == before + 1


def test_a_reply_of_the_office_and_another_offices_token(scratch_db: Database) -> None:
    c = callers(scratch_db)
    inquiry = open_inquiry(scratch_db)
    drafted = c["owner"].raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry, "text": "Gern, Besichtigung am Freitag?"})
    card = card_of(drafted)
    assert drafted.structured_content["confirmation"]["action"] == "send_reply"
    # another office's owner, another member of the same office: nothing
    assert c["other_owner"].error("decide_confirmation", click(card))[0] == "CONFIRMATION_INVALID"
    assert c["staff"].error("decide_confirmation", click(card))[0] == "CONFIRMATION_INVALID"
    assert c["owner"]("send_reply", {"confirmation_id": card["confirmation_id"]})["confirmation"]["status"] == "pending"
    before = messages_of(scratch_db, inquiry)
    done = c["owner"]("decide_confirmation", click(card))
    assert done["confirmation"]["status"] == "sent"
    assert messages_of(scratch_db, inquiry) == [*before, ("office", "Gern, Besichtigung am Freitag?")]
    seen = c["seeker"].as_(principal_of(scratch_db, _seeker_email_of(scratch_db, inquiry)))("get_inquiry", {"inquiry_id": inquiry})
    assert seen["messages"][-1]["text"] == "Gern, Besichtigung am Freitag?" and seen["messages"][-1]["from_provider"] is True


def _seeker_email_of(db: Database, inquiry_ref: str) -> str:
    from shared.db.models import User

    with db.read_only() as session:
        return str(session.scalar(select(User.email).join(Inquiry, Inquiry.seeker_id == User.id).where(Inquiry.ref == inquiry_ref)))


def test_send_without_click_only_where_the_office_allowed_it(scratch_db: Database) -> None:
    c = callers(scratch_db)
    inquiry = open_inquiry(scratch_db)
    card = card_of(c["owner"].raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry, "text": "Das Exposé kommt per E-Mail."}))
    assert c["owner"]("send_reply", {"confirmation_id": card["confirmation_id"]})["confirmation"]["status"] == "pending"
    with scratch_db.unit_of_work() as session:
        session.get(Office, 1).send_without_click = ["send_reply"]
    result = c["owner"].raw("send_reply", {"confirmation_id": card["confirmation_id"]})
    assert result.structured_content["confirmation"]["status"] == "sent_without_click"
    assert "ohne Klick" in result.content[0].text
    assert not (result.meta or {}).get("athaus/confirmation")
    assert messages_of(scratch_db, inquiry)[-1] == ("office", "Das Exposé kommt per E-Mail.")


def test_accepting_a_proposal_sends_the_expose_after_the_click_and_rejecting_is_at_once(scratch_db: Database) -> None:
    c = callers(scratch_db)
    proposal, seeker_id = open_proposal(scratch_db)
    matches_before = count(scratch_db, select(Match).where(Match.kind == "proposal"))
    waiting = c["owner"].raw("decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt zu Ihrer Suche."})
    card = card_of(waiting)
    assert waiting.structured_content["confirmation"]["status"] == "pending"
    assert count(scratch_db, select(Match).where(Match.kind == "proposal")) == matches_before
    done = c["owner"]("decide_confirmation", click(card))
    assert done["confirmation"]["status"] == "sent"
    with scratch_db.read_only() as session:
        assert session.scalar(select(Proposal.status).where(Proposal.ref == proposal)) == "accepted"
    assert count(scratch_db, select(Match).where(Match.kind == "proposal")) == matches_before + 1
    assert c["owner"].error("decide_proposal", {"proposal_id": proposal, "decision": "reject"})[0] == "CONFLICT"
    other, _ = open_proposal(scratch_db)
    rejected = c["owner"]("decide_proposal", {"proposal_id": other, "decision": "reject"})
    assert rejected["confirmation"] is None
    with scratch_db.read_only() as session:
        assert session.scalar(select(Proposal.status).where(Proposal.ref == other)) == "rejected"


@pytest.mark.parametrize("decision", ["discard"])
def test_discard_sends_nothing(scratch_db: Database, decision: str) -> None:
    c = callers(scratch_db)
    card = card_of(c["seeker"].raw("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(scratch_db), "message": "Hallo"}))
    before = count(scratch_db, select(InquiryMessage))
    assert c["seeker"]("decide_confirmation", click(card, decision=decision))["confirmation"]["status"] == "discarded"
    assert c["seeker"]("decide_confirmation", click(card, decision="send"))["confirmation"]["status"] == "discarded"
    assert count(scratch_db, select(InquiryMessage)) == before


def test_the_web_app_lists_the_same_content_and_its_click_executes_with_the_shown_hash(scratch_db: Database) -> None:
    from contract.errors import ToolFailure
    from shared.confirmations import execute, list_pending

    c = callers(scratch_db)
    drafted = c["seeker"].raw("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(scratch_db), "message": "Über die App bestätigt"})
    card = card_of(drafted)
    seeker_id = principal_of(scratch_db, SEEKER.email).user_id
    other_id = principal_of(scratch_db, OTHER_SEEKER.email).user_id
    with scratch_db.read_only() as session:
        views = list_pending(session, user_id=seeker_id, now=FIXED_NOW)
        assert list_pending(session, user_id=other_id, now=FIXED_NOW) == []
        assert list_pending(session, user_id=seeker_id, now=FIXED_NOW + dt.timedelta(hours=49)) == []
    view = next(v for v in views if v.confirmation_id == card["confirmation_id"])
    shown = drafted.structured_content
    assert (view.summary, view.recipient, view.sender, view.subject, view.text) == (
        shown["confirmation"]["summary"], shown["recipient"], shown["sender"], shown["subject"], shown["text"]
    )
    assert view.payload_hash == card["payload_hash"] and view.action_label == "Anfrage senden"
    assert [list(line) for line in view.shared_contact] == [[line["label"], line["value"]] for line in shown["shared_contact"]]
    arguments = {"confirmation_id": card["confirmation_id"], "decision": "send", "token": None, "via": "app", "now": FIXED_NOW}
    for user_id, shown_hash, code in ((other_id, card["payload_hash"], "CONFIRMATION_INVALID"), (seeker_id, "0" * 64, "CONFLICT"), (seeker_id, None, "CONFLICT")):
        with pytest.raises(ToolFailure) as refused, scratch_db.unit_of_work() as session:
            execute(session, user_id=user_id, shown_payload_hash=shown_hash, **arguments)
        assert refused.value.code.value == code
    assert count(scratch_db, select(OutboxMessage)) == 0
    with scratch_db.unit_of_work() as session:
        outcome = execute(session, user_id=seeker_id, shown_payload_hash=card["payload_hash"], **arguments)
    assert outcome.status.value == "sent" and not outcome.replayed and outcome.inquiry_id
    with scratch_db.unit_of_work() as session:
        again = execute(session, user_id=seeker_id, shown_payload_hash=card["payload_hash"], **arguments)
    assert again.replayed and again.inquiry_id == outcome.inquiry_id
    assert messages_of(scratch_db, outcome.inquiry_id) == [("seeker", "Über die App bestätigt")]
    with scratch_db.read_only() as session:
        assert session.scalar(select(PendingAction.via).where(PendingAction.ref == card["confirmation_id"])) == "app"


def test_only_the_owner_allows_kinds_without_a_click(scratch_db: Database) -> None:
    from contract.errors import ToolFailure
    from shared.confirmations import set_without_click

    staff_id = principal_of(scratch_db, STAFF.email).user_id
    owner_id = principal_of(scratch_db, OWNER.email).user_id
    with pytest.raises(ToolFailure), scratch_db.unit_of_work() as session:
        set_without_click(session, office_id=1, user_id=staff_id, kinds_allowed=["send_reply"])
    with pytest.raises(ToolFailure), scratch_db.unit_of_work() as session:
        set_without_click(session, office_id=1, user_id=owner_id, kinds_allowed=["send_inquiry"])
    with scratch_db.unit_of_work() as session:
        assert set_without_click(session, office_id=1, user_id=owner_id, kinds_allowed=["decide_proposal"]) == ["decide_proposal"]
    c = callers(scratch_db)
    proposal, _ = open_proposal(scratch_db)
    done = c["owner"].raw("decide_proposal", {"proposal_id": proposal, "decision": "accept"})
    assert done.structured_content["confirmation"]["status"] == "sent_without_click" and "ohne Klick" in done.content[0].text
