"""Races that lost or corrupted data (issue 17, item 5), raced with threads against the real database (SQLite by
default, PostgreSQL with ATHAUS_TEST_DATABASE_URL), each thread its own unit of work through the servers' runner.

- 20 concurrent save_listing with the same version: exactly one changes it, 19 are CONFLICT (SQLite answered 13
  "changed" and overwrote 12 of them: its reads ran outside the transaction).
- Revising a draft while it is clicked: what went out is exactly the stored payload of the sent draft, a revision
  after the click is CONFLICT.
- A reject and accepts of one proposal at once: no accept draft is left waiting on the rejected proposal.
- Idempotency keys under concurrency: the same draft_inquiry / save_search_order key from 8 threads makes one.
- Issue 30: a reject racing the click of its acceptance (20 rounds; it deadlocked on PostgreSQL every time, and the
  loser read that the database was unreachable): one wins, the loser is told which way the proposal went. Send and
  discard of one draft clicked at once: one decides, the other is answered with that decision."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import mcp_types as types
from sqlalchemy import func, select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.db.models import Inquiry, InquiryMessage, Listing, OutboxMessage, PendingAction, Proposal, SearchOrder
from shared.db.session import Database
from tests.confirmation_helpers import APPS_META, OWNER, SEEKER, card_of, click, open_inquiry, open_proposal, principal_of, published_listing
from tests.conftest import Caller, make_context, request_key


def raced(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run the calls in threads released together; their results in order (an exception is returned, not raised)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        barrier.wait(timeout=30)
        try:
            results[index] = call()
        except Exception as error:  # noqa: BLE001 - reported to the test
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads)
    assert not [r for r in results if isinstance(r, Exception)], results
    return results


def code_of(result: types.CallToolResult) -> str:
    return result.meta["athaus/code"] if result.is_error else "OK"


def test_concurrent_saves_with_one_version_change_the_listing_once(scratch_db: Database) -> None:
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email))
    with scratch_db.read_only() as session:
        ref, version = session.execute(select(Listing.ref, Listing.version).where(Listing.office_id == 1).order_by(Listing.id).limit(1)).one()
    results = raced(
        [lambda i=i: owner.raw("save_listing", {"request_id": request_key(), "listing_id": ref, "version": version, "fields": {"title": f"Gleichzeitig {i:02d}"}}) for i in range(20)]
    )
    codes = [code_of(r) for r in results]
    assert sorted(codes) == ["CONFLICT"] * 19 + ["OK"], codes
    [winner] = [r for r in results if not r.is_error]
    assert winner.structured_content["version"] == version + 1
    with scratch_db.read_only() as session:
        title, now_version = session.execute(select(Listing.title, Listing.version).where(Listing.ref == ref)).one()
    assert now_version == version + 1 and title.startswith("Gleichzeitig ")


def test_a_revision_racing_the_click_never_changes_what_was_sent(scratch_db: Database) -> None:
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email), APPS_META)
    outcomes: set[str] = set()
    for round_ in range(4):
        inquiry = open_inquiry(scratch_db)
        drafted = owner.raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry, "text": f"Erste Fassung {round_}"})
        card = card_of(drafted)
        ref = card["confirmation_id"]
        calls: list[Callable[[], Any]] = []
        for i in range(4):
            calls.append(lambda: owner.raw("decide_confirmation", click(card), APPS_META))
            calls.append(lambda i=i: owner.raw("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry, "text": f"Fassung {round_}.{i}", "confirmation_id": ref}))
        results = raced(calls)
        clicks, revisions = results[0::2], results[1::2]
        with scratch_db.read_only() as session:
            row = session.scalar(select(PendingAction).where(PendingAction.ref == ref))
            action = type("Action", (), {"status": row.status, "payload": dict(row.payload), "created_at": row.created_at})
            bodies = list(session.scalars(select(OutboxMessage.body).where(OutboxMessage.pending_action_id == row.id)))
            messages = list(
                session.scalars(
                    select(InquiryMessage.body)
                    .join(Inquiry, Inquiry.id == InquiryMessage.inquiry_id)
                    .where(Inquiry.ref == inquiry, InquiryMessage.created_at >= action.created_at, InquiryMessage.author == "office")
                )
            )
        if action.status == "sent":
            outcomes.add("sent")
            assert len(bodies) == 1 and action.payload["text"] in bodies[0]
            assert messages[-1] == action.payload["text"]
            # every revision that answered OK did so while the draft was still pending; none after the click
            for revision in revisions:
                assert code_of(revision) in ("OK", "CONFLICT")
                if not revision.is_error:
                    assert revision.structured_content["confirmation"]["status"] == "pending"
            assert action.payload["text"] in {f"Erste Fassung {round_}"} | {r.structured_content["text"] for r in revisions if not r.is_error}
            assert sum(1 for c in clicks if not c.is_error and c.structured_content["confirmation"]["status"] == "sent") >= 1
        else:
            outcomes.add("pending")
            assert action.status == "pending" and bodies == []
            assert all(code_of(c) == "CONFLICT" for c in clicks)
        # the draft is no longer touchable once sent; close the round's inquiry so the next round takes another
        with scratch_db.unit_of_work() as session:
            session.execute(Inquiry.__table__.update().where(Inquiry.ref == inquiry).values(status="closed"))
    assert outcomes  # which way each round went depends on the scheduler; both are checked above


def test_a_reject_racing_accepts_leaves_no_accept_draft_waiting(scratch_db: Database) -> None:
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email))
    for _ in range(3):
        proposal, _seeker = open_proposal(scratch_db)
        calls: list[Callable[[], Any]] = [lambda: owner.raw("decide_proposal", {"proposal_id": proposal, "decision": "reject"})]
        calls += [lambda: owner.raw("decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt gut."}) for _ in range(3)]
        results = raced(calls)
        assert code_of(results[0]) == "OK"
        assert all(code_of(r) in ("OK", "CONFLICT") for r in results[1:])
        with scratch_db.read_only() as session:
            status = session.scalar(select(Proposal.status).where(Proposal.ref == proposal))
            waiting = session.scalar(
                select(func.count()).select_from(PendingAction).where(PendingAction.subject_ref == proposal, PendingAction.status == "pending")
            )
            drafts = session.scalar(select(func.count()).select_from(PendingAction).where(PendingAction.subject_ref == proposal))
        assert status == "rejected" and waiting == 0
        assert drafts <= 1  # accepts reuse one waiting draft, never two


def test_one_idempotency_key_from_many_threads_makes_one(scratch_db: Database) -> None:
    context = make_context(scratch_db)
    seeker = Caller(SEARCH, context, principal_of(scratch_db, SEEKER.email))
    listing = published_listing(scratch_db)
    inquiry = {"listing_id": listing, "message": "Ist die Wohnung noch frei?", "request_id": "race-draft-0001"}
    drafts = raced([lambda: seeker.raw("draft_inquiry", inquiry) for _ in range(8)])
    assert {code_of(d) for d in drafts} == {"OK"}
    assert len({d.structured_content["confirmation"]["confirmation_id"] for d in drafts}) == 1
    order = {"criteria": {"city": "Leipzig", "marketing_type": "rent"}, "request_id": "race-order-0001"}
    saved = raced([lambda: seeker.raw("save_search_order", order) for _ in range(8)])
    assert {code_of(s) for s in saved} == {"OK"}
    assert len({s.structured_content["search_order_id"] for s in saved}) == 1
    with scratch_db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(PendingAction).where(PendingAction.subject_ref == listing)) == 1
        named = select(func.count()).select_from(SearchOrder).where(SearchOrder.ref == saved[0].structured_content["search_order_id"])
        assert session.scalar(named) == 1


ROUNDS = 20


def test_a_reject_racing_the_click_of_its_acceptance_leaves_one_winner_and_tells_the_loser(scratch_db: Database) -> None:
    """Issue 30: the click claimed the draft and then wanted the proposal, the reject held the proposal and then wanted
    the draft: PostgreSQL broke the deadlock in 20 of 20 rounds and the loser read "Die Datenbank ist gerade nicht
    erreichbar". Both now take the proposal first; the loser is told which way the proposal went."""
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email), APPS_META)
    proposal, _seeker = open_proposal(scratch_db)
    accepted = f"Der Vorschlag {proposal} wurde inzwischen angenommen und das Exposé verschickt; ablehnen geht nicht mehr. list_proposals zeigt seinen Status."
    rejected = f"Der Vorschlag {proposal} wurde inzwischen abgelehnt; das Exposé ist nicht hinausgegangen. list_proposals zeigt seinen Status."
    winners: list[str] = []
    for _ in range(ROUNDS):
        card = card_of(owner.raw("decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt gut."}))
        clicked, reject = raced(
            [
                lambda: owner.raw("decide_confirmation", click(card)),
                lambda: owner.raw("decide_proposal", {"proposal_id": proposal, "decision": "reject"}),
            ]
        )
        with scratch_db.read_only() as session:
            status = session.scalar(select(Proposal.status).where(Proposal.ref == proposal))
            draft = session.scalar(select(PendingAction.status).where(PendingAction.ref == card["confirmation_id"]))
            sent = session.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.pending_action_id == select(PendingAction.id).where(PendingAction.ref == card["confirmation_id"]).scalar_subquery()))
        if status == "accepted":
            winners.append("click")
            assert (code_of(clicked), clicked.structured_content["confirmation"]["status"]) == ("OK", "sent")
            assert (code_of(reject), reject.content[0].text) == ("CONFLICT", accepted)
            assert (draft, sent) == ("sent", 1)
        else:
            winners.append("reject")
            assert status == "rejected"
            assert (code_of(reject), reject.structured_content["outcome"]) == ("OK", f"Vorschlag {proposal} abgelehnt; das gilt sofort, ohne Klick. Die/der Suchende erfährt nichts davon.")
            assert (code_of(clicked), clicked.content[0].text) == ("CONFLICT", rejected)
            assert (draft, sent) == ("discarded", 0)
        with scratch_db.unit_of_work() as session:  # open again for the next round
            session.execute(Proposal.__table__.update().where(Proposal.ref == proposal).values(status="open", decided_at=None))
    assert len(winners) == ROUNDS  # which side wins each round is the scheduler's; both are checked above


def test_send_and_discard_of_one_draft_clicked_at_once_decide_it_once(scratch_db: Database) -> None:
    """The other pair that takes the same row: both clicks claim the draft with one conditional UPDATE, so one decides
    and the other is told, as a replay, what was decided; never an error, never both."""
    owner = Caller(BROKER, make_context(scratch_db), principal_of(scratch_db, OWNER.email), APPS_META)
    decided: list[str] = []
    inquiry = open_inquiry(scratch_db)
    for round_ in range(ROUNDS // 2):
        card = card_of(owner.raw("draft_reply", {"inquiry_id": inquiry, "text": f"Antwort {round_}", "request_id": f"race-send-discard-{round_:04d}"}))
        send, discard = raced(
            [lambda: owner.raw("decide_confirmation", click(card)), lambda: owner.raw("decide_confirmation", click(card, "discard"))]
        )
        assert (code_of(send), code_of(discard)) == ("OK", "OK")
        with scratch_db.read_only() as session:
            status = session.scalar(select(PendingAction.status).where(PendingAction.ref == card["confirmation_id"]))
            mails = session.scalar(select(func.count()).select_from(OutboxMessage).where(OutboxMessage.pending_action_id == select(PendingAction.id).where(PendingAction.ref == card["confirmation_id"]).scalar_subquery()))
        assert (status, mails) in {("sent", 1), ("discarded", 0)}
        loser = discard if status == "sent" else send
        shown = {r.structured_content["confirmation"]["status"] for r in (send, discard)}
        assert shown == {status}
        replay = " Schon vorher gesendet; nichts wurde doppelt gesendet." if status == "sent" else "; nichts ist hinausgegangen."
        assert loser.structured_content["outcome"].endswith(replay)
        decided.append(status)
        with scratch_db.unit_of_work() as session:  # open again for the next round's draft
            session.execute(Inquiry.__table__.update().where(Inquiry.ref == inquiry).values(status="open"))
    assert len(decided) == ROUNDS // 2
