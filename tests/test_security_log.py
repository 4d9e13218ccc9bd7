"""Security events are log lines, once each (issue 34): logins (ok, wrong password, throttled), sign-ups, resets,
deletions, offices and staff changes each write one `security_event` line (logger `athaus.security`) when their
transaction commits, none when it rolls back; a line names the action and internal ids only, never an e-mail address,
a name, a link's token or a password. On the real database (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL)."""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from shared.accounts.links import office_ref, user_ref
from shared.accounts.offices import accept_invitation, create_office, invite, remove_member, set_role
from shared.accounts.personal_data import delete_account
from shared.accounts.reset import finish_reset, start_reset
from shared.accounts.signup import confirm_signup, start_signup
from shared.auth.access import sign_in
from shared.auth.passwords import hash_password
from shared.db.models import OutboxMessage, User
from shared.db.session import Database
from tests.conftest import seeded_database

PUBLIC = "https://athaus.example.org"
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
PASSWORD = "Dachgeschoss mit Blick auf den Park"
KEYS = {"event", "action", "outcome", "subject", "by_user", "office", "client_id"}


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with seeded_database(tmp_path, "security", listings=20) as database:
        yield database


def link(db: Database, recipient: str, path: str) -> str:
    with db.read_only() as session:
        body = session.scalars(select(OutboxMessage.body).where(OutboxMessage.recipient == recipient).order_by(OutboxMessage.id.desc())).first()
    found = re.search(re.escape(PUBLIC + path) + r"\?t=([\w-]+)", body or "")
    assert found, body
    return found.group(1)


def test_each_security_event_is_one_log_line_without_personal_data(db: Database, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="athaus.security")
    secrets: list[str] = [PASSWORD]
    with db.unit_of_work() as session:
        office_id, _ = create_office(session, name="Immobilien Kranich", city="Leipzig", owner_email="chefin@kranich.de", public_url=PUBLIC, now=NOW)
    secrets.append(owner_token := link(db, "chefin@kranich.de", "/oauth/einladung"))
    with db.unit_of_work() as session:
        owner_id = accept_invitation(session, owner_token, name="Karla Kranich", password_hash=hash_password(PASSWORD), now=NOW)
    with db.unit_of_work() as session:
        invite(session, office_id=office_id, by_user_id=owner_id, email="mit@kranich.de", role="staff", public_url=PUBLIC, now=NOW)
    secrets.append(staff_token := link(db, "mit@kranich.de", "/oauth/einladung"))
    with db.unit_of_work() as session:
        staff_id = accept_invitation(session, staff_token, name="Mia Mit", password_hash=hash_password(PASSWORD), now=NOW)
    with db.unit_of_work() as session:
        set_role(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, role="owner", now=NOW)
    with db.unit_of_work() as session:
        set_role(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, role="staff", now=NOW)
    with pytest.raises(RuntimeError), db.unit_of_work() as session:  # rolled back: no line
        remove_member(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, now=NOW)
        raise RuntimeError("abgebrochen")
    with db.unit_of_work() as session:
        remove_member(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, now=NOW)

    with db.unit_of_work() as session:
        start_signup(session, email="neu@example.de", name="Nora Neu", password_hash=hash_password(PASSWORD), public_url=PUBLIC, now=NOW, continue_with=None)
    secrets.append(signup_token := link(db, "neu@example.de", "/oauth/konto-bestaetigen"))
    with db.unit_of_work() as session:
        confirmed = confirm_signup(session, signup_token, NOW)
    assert confirmed is not None
    seeker_id = confirmed.user_id
    with db.unit_of_work() as session:
        start_reset(session, email="neu@example.de", public_url=PUBLIC, now=NOW)
    secrets.append(reset_token := link(db, "neu@example.de", "/oauth/passwort-neu"))
    with db.unit_of_work() as session:
        assert finish_reset(session, reset_token, hash_password(PASSWORD + " neu"), NOW) == seeker_id
    assert sign_in(db, "neu@example.de", "falsch, ganz falsch", "192.0.2.7").user_id is None
    assert sign_in(db, "Neu@Example.de", PASSWORD + " neu", "192.0.2.7").user_id == seeker_id
    with db.unit_of_work() as session:
        delete_account(session, seeker_id, NOW)

    lines = [record.getMessage() for record in caplog.records if record.name == "athaus.security"]
    events = [json.loads(line) for line in lines]
    office, owner, staff, seeker = office_ref(office_id), user_ref(owner_id), user_ref(staff_id), user_ref(seeker_id)
    assert [(e["action"], e.get("outcome"), e.get("subject"), e.get("by_user")) for e in events] == [
        ("office.create", None, office, None),
        ("staff.invite", None, office, None),  # the owner's invitation
        ("staff.join", None, owner, owner_id),
        ("staff.invite", None, office, owner_id),
        ("staff.join", None, staff, staff_id),
        ("staff.role", None, staff, owner_id),
        ("staff.role", None, staff, owner_id),
        ("staff.remove", None, staff, owner_id),  # once: the removal rolled back left no line
        ("account.signup", None, seeker, seeker_id),
        ("account.password_reset", None, seeker, seeker_id),
        ("login", "wrong_password", None, None),
        ("login", "ok", None, seeker_id),
        ("account.delete", None, seeker, seeker_id),
    ]
    assert all(e["event"] == "security_event" and set(e) <= KEYS for e in events), events
    assert {e["office"] for e in events[:8]} == {office_id}
    with db.read_only() as session:
        names = list(session.scalars(select(User.name))) + list(session.scalars(select(User.email)))
    personal = [*secrets, "kranich.de", "example.de", "Karla", "Mia", "Nora", "192.0.2.7", *names]
    assert not [(word, line) for line in lines for word in personal if word and word in line]
