"""Delivery by e-mail from the outbox, against a real SMTP server (aiosmtpd) on loopback: delivered once, retried
with backoff while the server is down and then delivered once, a permanent refusal told to the sender."""

from __future__ import annotations

import datetime as dt
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from search_server.server import DEFINITION as SEARCH
from shared.db.models import OutboxMessage
from shared.db.session import Database
from shared.outbox import enqueue
from shared.outbox.worker import BODY_KEPT, SmtpMailer, deliver_due
from shared.settings import Settings
from tests.confirmation_helpers import APPS_META, SEEKER, card_of, click, principal_of, published_listing
from tests.conftest import Caller, FIXED_NOW, make_context, request_key


class Inbox:
    """An SMTP handler that keeps what it receives, or refuses every message with `refuse` (e.g. '550 …')."""

    def __init__(self, refuse: str | None = None) -> None:
        self.messages: list[Any] = []
        self.refuse = refuse

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            return self.refuse
        self.messages.append(envelope)
        return "250 OK"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def smtp_port() -> int:
    return free_port()


@pytest.fixture
def inbox(smtp_port: int) -> Iterator[Inbox]:
    box = Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    yield box
    controller.stop()


def settings(db: Database, port: int, **changes: Any) -> Settings:
    return Settings(database_url=str(db.engine.url), smtp_host="127.0.0.1", smtp_port=port, outbox_retry_seconds=60, outbox_max_attempts=3, **changes)


def send_inquiry(db: Database) -> str:
    """A seeker's inquiry sent by the click; its inquiry number."""
    seeker = Caller(SEARCH, make_context(db), principal_of(db, SEEKER.email), APPS_META)
    card = card_of(seeker.raw("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Ist die Wohnung noch frei?"}))
    return str(seeker("decide_confirmation", click(card))["inquiry_id"])


def rows(db: Database) -> list[tuple[str, int]]:
    with db.read_only() as session:
        return [(r.status, r.attempts) for r in session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))]


def test_a_sent_inquiry_is_mailed_once(scratch_db: Database, inbox: Inbox, smtp_port: int) -> None:
    send_inquiry(scratch_db)
    config = settings(scratch_db, smtp_port)
    mailer = SmtpMailer.from_settings(config)
    assert mailer is not None
    first = deliver_due(scratch_db, config, mailer, FIXED_NOW)
    again = deliver_due(scratch_db, config, mailer, FIXED_NOW + dt.timedelta(hours=1))
    assert len(first.sent) == 1 and again.sent == [] and again.retried == []
    assert len(inbox.messages) == 1
    content = inbox.messages[0].content.decode()
    with scratch_db.read_only() as session:
        row = session.scalar(select(OutboxMessage))
        assert row.status == "sent" and row.attempts == 1 and f"Message-ID: {row.message_id}" in content
        assert inbox.messages[0].rcpt_tos == [row.recipient]
        # sent: the body is gone, recipient, subject and time stay
        assert (row.body, row.sent_at, bool(row.subject)) == ("", FIXED_NOW, True)
    assert "Ist die Wohnung noch frei?" in content


def test_a_failed_or_skipped_body_is_kept_a_week_for_the_sender_then_emptied(scratch_db: Database, smtp_port: int) -> None:
    send_inquiry(scratch_db)
    config = Settings(database_url=str(scratch_db.engine.url), smtp_host="127.0.0.1", smtp_port=smtp_port, outbox_max_attempts=1)
    mailer = SmtpMailer.from_settings(config)
    assert mailer is not None
    assert len(deliver_due(scratch_db, config, mailer, FIXED_NOW).failed) == 1  # nobody listening: failed at once
    with scratch_db.unit_of_work() as session:
        enqueue(session, kind="alert", recipient=None, subject="Neue Treffer", body="Text mit Link", now=FIXED_NOW)
    deliver_due(scratch_db, config, mailer, FIXED_NOW + BODY_KEPT - dt.timedelta(minutes=1))
    assert [(status, body != "") for status, body in bodies(scratch_db)] == [("failed", True), ("skipped", True)]
    deliver_due(scratch_db, config, mailer, FIXED_NOW + BODY_KEPT + dt.timedelta(minutes=1))
    assert bodies(scratch_db) == [("failed", ""), ("skipped", "")]


def bodies(db: Database) -> list[tuple[str, str]]:
    with db.read_only() as session:
        return [(r.status, r.body) for r in session.scalars(select(OutboxMessage).order_by(OutboxMessage.id))]


def test_smtp_down_is_retried_later_and_then_delivered_once(scratch_db: Database, smtp_port: int) -> None:
    send_inquiry(scratch_db)
    config = settings(scratch_db, smtp_port)
    mailer = SmtpMailer.from_settings(config)
    assert mailer is not None
    down = deliver_due(scratch_db, config, mailer, FIXED_NOW)
    assert len(down.retried) == 1 and rows(scratch_db) == [("queued", 1)]
    # not due before the backoff has passed
    assert deliver_due(scratch_db, config, mailer, FIXED_NOW + dt.timedelta(seconds=30)).retried == []
    box = Inbox()
    controller = Controller(box, hostname="127.0.0.1", port=smtp_port)
    controller.start()
    try:
        up = deliver_due(scratch_db, config, mailer, FIXED_NOW + dt.timedelta(seconds=61))
        deliver_due(scratch_db, config, mailer, FIXED_NOW + dt.timedelta(hours=2))
    finally:
        controller.stop()
    assert len(up.sent) == 1 and len(box.messages) == 1
    assert rows(scratch_db) == [("sent", 2)]


def test_a_permanent_refusal_is_told_to_the_sender(scratch_db: Database, smtp_port: int) -> None:
    inquiry = send_inquiry(scratch_db)
    seeker = Caller(SEARCH, make_context(scratch_db), principal_of(scratch_db, SEEKER.email), APPS_META)
    assert seeker("get_inquiry", {"inquiry_id": inquiry})["delivery_notes"] == []
    config = settings(scratch_db, smtp_port)
    mailer = SmtpMailer.from_settings(config)
    assert mailer is not None
    controller = Controller(Inbox(refuse="550 Postfach unbekannt"), hostname="127.0.0.1", port=smtp_port)
    controller.start()
    try:
        done = deliver_due(scratch_db, config, mailer, FIXED_NOW)
    finally:
        controller.stop()
    assert len(done.failed) == 1 and rows(scratch_db) == [("failed", 1)]
    notes = seeker("get_inquiry", {"inquiry_id": inquiry})["delivery_notes"]
    assert len(notes) == 1 and "nicht zugestellt" in notes[0]


def test_after_the_last_attempt_the_sender_is_told(scratch_db: Database, smtp_port: int) -> None:
    inquiry = send_inquiry(scratch_db)
    config = settings(scratch_db, smtp_port)
    mailer = SmtpMailer.from_settings(config)
    assert mailer is not None
    now = FIXED_NOW
    for _ in range(3):
        deliver_due(scratch_db, config, mailer, now)
        now += dt.timedelta(hours=1)
    assert rows(scratch_db) == [("failed", 3)]
    seeker = Caller(SEARCH, make_context(scratch_db), principal_of(scratch_db, SEEKER.email), APPS_META)
    assert "nach 3 Versuchen" in seeker("get_inquiry", {"inquiry_id": inquiry})["delivery_notes"][0]


def test_two_workers_never_take_the_same_row(scratch_db: Database) -> None:
    from shared.outbox.worker import claim

    send_inquiry(scratch_db)
    with scratch_db.unit_of_work() as session:
        first = claim(session, FIXED_NOW)
    with scratch_db.unit_of_work() as session:
        second = claim(session, FIXED_NOW)
    assert len(first) == 1 and second == []


def test_the_app_delivers_the_outbox_itself(scratch_db: Database, inbox: Inbox, smtp_port: int) -> None:
    import time

    from tests.conftest import LiveServer

    send_inquiry(scratch_db)
    with LiveServer(scratch_db, smtp_host="127.0.0.1", smtp_port=smtp_port, outbox_poll_seconds=0.1):
        deadline = time.monotonic() + 15
        while not inbox.messages and time.monotonic() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)  # a few more rounds: nothing is sent twice
    assert len(inbox.messages) == 1 and rows(scratch_db) == [("sent", 1)]
