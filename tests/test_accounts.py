"""Accounts of real people, in the domain (shared/accounts/, shared/auth/), on the real database (SQLite by default,
PostgreSQL with ATHAUS_TEST_DATABASE_URL): sign-up with confirmation, reset, offices and staff, export and deletion,
server-side sessions, the password rules, and the throttle counted atomically under parallel attempts."""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import func, select

from contract.errors import ToolFailure
from shared.accounts.links import LIFETIMES
from shared.accounts.offices import accept_invitation, create_office, invitation, invite, members, remove_member, set_role
from shared.accounts.personal_data import KEPT_FOR_OFFICES, delete_account, export_account
from shared.accounts.reset import finish_reset, start_reset
from shared.accounts.signup import confirm_signup, start_signup
from shared.auth import access, passwords, throttle
from shared.auth.access import check_credentials, sign_in
from shared.auth.passwords import hash_password, new_password_problem
from shared.auth.sessions import close_session, open_session, session_user
from shared.auth.tokens import mint_access_token, resolve_access_token
from shared.db.models import AuditEntry, Base, Inquiry, InquiryMessage, OfficeMember, OutboxMessage, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import seeded_database

PUBLIC = "https://athaus.example.org"
NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
PASSWORD = "Dachgeschoss mit Blick auf den Park"
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAFF = next(a for a in DEMO_ACCOUNTS if a.office_role == "staff")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """One small demo database for the tests that leave the demo accounts as they are (each uses its own addresses);
    the reset and the deletion take a scratch database of their own."""
    with seeded_database(tmp_path_factory.mktemp("accounts"), "accounts", listings=60) as database:
        yield database


def outbox(db: Database, recipient: str) -> list[OutboxMessage]:
    with db.read_only() as session:
        rows = list(session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == recipient).order_by(OutboxMessage.id)))
        session.expunge_all()
        return rows


def link_token(mail: OutboxMessage, path: str) -> str:
    found = re.search(re.escape(PUBLIC + path) + r"\?t=([\w-]+)", mail.body)
    assert found, mail.body
    return found.group(1)


def user_id_of(db: Database, email: str) -> int | None:
    with db.read_only() as session:
        return session.scalar(select(User.id).where(User.email == email))


def audit_actions(db: Database) -> list[str]:
    with db.read_only() as session:
        return list(session.scalars(select(AuditEntry.action).order_by(AuditEntry.id)))


def bearer(db: Database, user_id: int) -> str:
    with db.unit_of_work() as session:
        return mint_access_token(session, user_id=user_id, client_id="test", resource=f"{PUBLIC}/suche/mcp", scopes=["suche:konto"]).access_token


def token_works(db: Database, token: str) -> bool:
    with db.read_only() as session:
        return resolve_access_token(session, token) is not None


# --- sign-up ------------------------------------------------------------------------------------------------


def test_a_sign_up_creates_the_account_only_when_its_link_is_followed(db: Database) -> None:
    with db.unit_of_work() as session:
        start_signup(session, email=" Neu@Example.DE ", name="Nora Neu", password_hash=hash_password(PASSWORD), public_url=PUBLIC, now=NOW, continue_with="anfrage-1")
    assert user_id_of(db, "neu@example.de") is None  # nothing can act before the address is confirmed
    [mail] = outbox(db, "neu@example.de")
    assert mail.subject == "Bitte bestätige deine E-Mail-Adresse für Athaus" and "Hallo Nora Neu" in mail.body
    token = link_token(mail, "/oauth/konto-bestaetigen")
    with db.unit_of_work() as session:
        confirmed = confirm_signup(session, token, NOW + dt.timedelta(minutes=5))
    assert confirmed is not None and confirmed.continue_with == "anfrage-1"
    with db.read_only() as session:
        user = session.get(User, confirmed.user_id)
        assert user is not None and (user.email, user.name, user.kind) == ("neu@example.de", "Nora Neu", "seeker")
    assert check_credentials(db, "neu@example.de", PASSWORD) == confirmed.user_id
    assert audit_actions(db)[-1] == "account.signup"
    with db.unit_of_work() as session:
        assert confirm_signup(session, token, NOW + dt.timedelta(minutes=6)) is None  # single use


def test_a_sign_up_for_a_known_address_stores_nothing_and_says_so_by_mail_only(db: Database) -> None:
    known = OWNER.email
    with db.unit_of_work() as session:
        start_signup(session, email=known.upper(), name="Fremd", password_hash=hash_password(PASSWORD), public_url=PUBLIC, now=NOW)
    [mail] = outbox(db, known)
    assert mail.subject == "Dein Athaus-Konto gibt es schon" and "/oauth/" not in mail.body
    assert check_credentials(db, known, PASSWORD) is None  # the old password stays


def test_a_sign_up_link_expires(db: Database) -> None:
    with db.unit_of_work() as session:
        start_signup(session, email="spaet@example.de", name="Spät", password_hash="x", public_url=PUBLIC, now=NOW)
    token = link_token(outbox(db, "spaet@example.de")[0], "/oauth/konto-bestaetigen")
    with db.unit_of_work() as session:
        assert confirm_signup(session, token, NOW + LIFETIMES["signup"] + dt.timedelta(seconds=1)) is None
    assert user_id_of(db, "spaet@example.de") is None


# --- reset --------------------------------------------------------------------------------------------------


def test_a_reset_sets_the_password_once_and_ends_every_session_and_token(scratch_db: Database) -> None:
    seeker = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")
    user_id = user_id_of(scratch_db, seeker.email)
    assert user_id is not None
    token = bearer(scratch_db, user_id)
    with scratch_db.unit_of_work() as session:
        cookie = open_session(session, user_id, NOW)
        start_reset(session, email="niemand@example.de", public_url=PUBLIC, now=NOW)  # unknown: no mail, same answer
        start_reset(session, email=seeker.email, public_url=PUBLIC, now=NOW)
    assert outbox(scratch_db, "niemand@example.de") == []
    link = link_token(outbox(scratch_db, seeker.email)[-1], "/oauth/passwort-neu")
    with scratch_db.unit_of_work() as session:
        assert finish_reset(session, link, hash_password(PASSWORD), NOW + LIFETIMES["reset"] + dt.timedelta(seconds=1)) is None
        assert finish_reset(session, link, hash_password(PASSWORD), NOW + dt.timedelta(minutes=10)) == user_id
        assert finish_reset(session, link, hash_password("noch ein anderes Passwort"), NOW + dt.timedelta(minutes=11)) is None
    assert check_credentials(scratch_db, seeker.email, PASSWORD) == user_id
    assert check_credentials(scratch_db, seeker.email, seeker.password) is None
    assert not token_works(scratch_db, token)
    with scratch_db.read_only() as session:
        assert session_user(session, cookie, NOW) is None
    assert audit_actions(scratch_db)[-1] == "account.password_reset"


def test_a_web_session_lives_on_the_server_and_ends_there(db: Database) -> None:
    with db.unit_of_work() as session:
        cookie = open_session(session, 1, NOW)
    with db.read_only() as session:
        assert session_user(session, cookie, NOW) == 1
        assert session_user(session, cookie, NOW + dt.timedelta(hours=13)) is None
        assert session_user(session, cookie + "x", NOW) is None
    with db.unit_of_work() as session:
        close_session(session, cookie)
    with db.read_only() as session:
        assert session_user(session, cookie, NOW) is None


# --- offices and staff --------------------------------------------------------------------------------------


def test_an_office_its_owner_and_staff_from_invitation_to_removal(db: Database) -> None:
    with db.unit_of_work() as session:
        office_id, owner_link = create_office(session, name="Immobilien Kranich", city="Leipzig", owner_email="Chefin@Kranich.de", public_url=PUBLIC, now=NOW)
    [mail] = outbox(db, "chefin@kranich.de")
    assert owner_link == f"{PUBLIC}/oauth/einladung?t={link_token(mail, '/oauth/einladung')}"
    with db.read_only() as session:
        shown = invitation(session, link_token(mail, "/oauth/einladung"), NOW)
    assert shown is not None and (shown.office_name, shown.role, shown.has_account, shown.refusal) == ("Immobilien Kranich", "owner", False, None)
    with db.unit_of_work() as session:
        owner_id = accept_invitation(session, link_token(mail, "/oauth/einladung"), name="Karla Kranich", password_hash=hash_password(PASSWORD), now=NOW)
    with db.unit_of_work() as session:
        with pytest.raises(ToolFailure) as used:
            accept_invitation(session, link_token(mail, "/oauth/einladung"), name="X", password_hash="x", now=NOW)
    assert used.value.code.value == "CONFIRMATION_EXPIRED"

    with db.unit_of_work() as session:
        invite(session, office_id=office_id, by_user_id=owner_id, email="mit@kranich.de", role="staff", public_url=PUBLIC, now=NOW)
    staff_link = link_token(outbox(db, "mit@kranich.de")[0], "/oauth/einladung")
    with db.unit_of_work() as session:
        staff_id = accept_invitation(session, staff_link, name="Mia Mit", password_hash=hash_password(PASSWORD), now=NOW)
    with db.read_only() as session:
        people, open_invitations = members(session, office_id, NOW)
    assert [(m.name, m.role) for m in people] == [("Mia Mit", "staff"), ("Karla Kranich", "owner")] or [
        (m.name, m.role) for m in people
    ] == [("Karla Kranich", "owner"), ("Mia Mit", "staff")]
    assert open_invitations == []

    # staff may not invite, change roles or remove; the last owner cannot go
    with db.unit_of_work() as session, pytest.raises(ToolFailure) as refused:
        invite(session, office_id=office_id, by_user_id=staff_id, email="x@kranich.de", role="staff", public_url=PUBLIC, now=NOW)
    assert refused.value.code.value == "MISSING_RIGHT"
    with db.unit_of_work() as session, pytest.raises(ToolFailure) as last:
        remove_member(session, office_id=office_id, by_user_id=owner_id, user_id=owner_id, now=NOW)
    assert last.value.code.value == "CONFLICT"
    with db.unit_of_work() as session, pytest.raises(ToolFailure) as taken:
        invite(session, office_id=office_id, by_user_id=owner_id, email=OWNER.email, role="staff", public_url=PUBLIC, now=NOW)
    assert taken.value.message == f"{OWNER.email} gehört schon zu einem anderen Büro. Bitte eine andere Adresse einladen."

    token = bearer(db, staff_id)
    with db.unit_of_work() as session:
        cookie = open_session(session, staff_id, NOW)
        set_role(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, role="owner", now=NOW)
        set_role(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, role="staff", now=NOW)
        remove_member(session, office_id=office_id, by_user_id=owner_id, user_id=staff_id, now=NOW)
    assert not token_works(db, token)  # at once
    with db.read_only() as session:
        assert session_user(session, cookie, NOW) is None
        assert session.scalar(select(OfficeMember).where(OfficeMember.user_id == staff_id)) is None
    assert audit_actions(db)[-8:] == [
        "office.create", "staff.invite", "staff.join", "staff.invite", "staff.join", "staff.role", "staff.role", "staff.remove",
    ]


def test_a_seeker_cannot_join_an_office(db: Database) -> None:
    seeker = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")
    with db.unit_of_work() as session:
        invite(session, office_id=1, by_user_id=user_id_of(db, OWNER.email) or 0, email=seeker.email, role="staff", public_url=PUBLIC, now=NOW)
    token = link_token(outbox(db, seeker.email)[-1], "/oauth/einladung")
    with db.unit_of_work() as session, pytest.raises(ToolFailure) as refused:
        accept_invitation(session, token, name="", password_hash=None, now=NOW)
    assert refused.value.message.startswith(f"{seeker.email} gehört zu einem Konto für die Immobiliensuche")


# --- export and deletion ------------------------------------------------------------------------------------


def busiest_seeker(db: Database) -> User:
    with db.read_only() as session:
        seeker_id = session.scalar(
            select(Inquiry.seeker_id).group_by(Inquiry.seeker_id).order_by(func.count().desc(), Inquiry.seeker_id).limit(1)
        )
        user = session.get(User, seeker_id)
        assert user is not None and user.phone
        session.expunge(user)
        return user


def every_row(db: Database) -> Iterator[tuple[str, str]]:
    """Every row of every table the models know, as text."""
    with db.read_only() as session:
        for table in Base.metadata.sorted_tables:
            for row in session.execute(select(table)):
                yield table.name, json.dumps([str(value) for value in row], ensure_ascii=False)


def test_export_holds_everything_and_deletion_leaves_nothing_of_the_person(scratch_db: Database) -> None:
    person = busiest_seeker(scratch_db)
    with scratch_db.read_only() as session:
        searches = session.scalar(select(func.count()).select_from(SearchOrder).where(SearchOrder.user_id == person.id))
        inquiries = session.scalar(select(func.count()).select_from(Inquiry).where(Inquiry.seeker_id == person.id))
        messages = session.scalar(
            select(func.count()).select_from(InquiryMessage).join(Inquiry, Inquiry.id == InquiryMessage.inquiry_id).where(Inquiry.seeker_id == person.id)
        )
    assert searches and inquiries and messages
    token = bearer(scratch_db, person.id)
    with scratch_db.read_only() as session:
        exported = export_account(session, person.id)
    assert (exported["konto"]["email"], exported["konto"]["name"], exported["konto"]["phone"]) == (person.email, person.name, person.phone)
    assert "password_hash" not in exported["konto"]
    assert (len(exported["suchauftraege"]), len(exported["anfragen"])) == (searches, inquiries)
    assert sum(len(i["nachrichten"]) for i in exported["anfragen"]) == messages
    assert exported["hinweis"] == KEPT_FOR_OFFICES
    json.dumps(exported)  # JSON as it is downloaded
    assert any(person.email in text for _, text in every_row(scratch_db))

    with scratch_db.unit_of_work() as session:
        delete_account(session, person.id, NOW)
    assert not token_works(scratch_db, token)
    assert check_credentials(scratch_db, person.email, "egal") is None
    traces = [(table, value) for table, text in every_row(scratch_db) for value in (person.email, person.name, person.phone) if value and value.lower() in text.lower()]
    assert traces == []
    with scratch_db.read_only() as session:  # the office keeps the inquiries, without the person
        kept = session.scalar(select(func.count()).select_from(Inquiry).where(Inquiry.seeker_id == person.id))
        assert kept == inquiries
        assert session.scalar(select(func.count()).select_from(SearchOrder).where(SearchOrder.user_id == person.id)) == 0
    assert audit_actions(scratch_db)[-1] == "account.delete"
    with scratch_db.unit_of_work() as session, pytest.raises(ToolFailure):
        delete_account(session, person.id, NOW)


def test_a_broker_account_is_not_deleted_by_its_holder(db: Database) -> None:
    with db.unit_of_work() as session, pytest.raises(ToolFailure) as refused:
        delete_account(session, user_id_of(db, OWNER.email) or 0, NOW)
    assert refused.value.code.value == "MISSING_RIGHT"


# --- passwords ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("kurz", "zu kurz"),
        ("elf Zeichen", "zu kurz"),
        ("x" * 129, "zu lang"),
        ("password1234", "zu verbreitet"),
        ("Passwort1234", "zu verbreitet"),
        ("qwertzuiop12", None),
        ("aaaaaaaaaaaaaaaa", "zu verbreitet"),
        ("nora.neu@example.de", "E-Mail-Adresse"),
        ("nora.neu1234", "E-Mail-Adresse"),
        ("Dachgeschoss mit Blick", None),
        ("ähnlich 🏠 und lang genug", None),
        ("x" * 128, "zu verbreitet"),
    ],
)
def test_new_passwords_follow_current_guidance(password: str, problem: str | None) -> None:
    found = new_password_problem(password, email="nora.neu@example.de", name="Nora Neu")
    assert (found is None) if problem is None else (found is not None and problem in found), found


def test_hash_work_is_bounded_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    running, most = 0, 0
    lock = threading.Lock()
    real = passwords.hashlib.scrypt

    def counting(*args: Any, **kwargs: Any) -> bytes:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                running -= 1

    monkeypatch.setattr(passwords.hashlib, "scrypt", counting)
    with ThreadPoolExecutor(max_workers=12) as pool:
        list(pool.map(lambda i: hash_password(f"parallel {i}"), range(12)))
    assert most == passwords.HASH_CONCURRENCY


# --- the throttle, counted before the hash ------------------------------------------------------------------


def test_parallel_wrong_logins_get_exactly_the_limit_through(db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    hashed = []
    real = access.verify_password
    monkeypatch.setattr(access, "verify_password", lambda password, stored: hashed.append(1) or real(password, stored))
    attempts = 3 * throttle.LOGIN_PER_ACCOUNT.attempts
    with ThreadPoolExecutor(max_workers=attempts) as pool:
        outcomes = list(pool.map(lambda i: sign_in(db, STAFF.email, f"falsch {i}", f"10.0.0.{i}"), range(attempts)))
    passed = [o for o in outcomes if o.retry_after is None]
    assert len(passed) == throttle.LOGIN_PER_ACCOUNT.attempts == len(hashed)
    assert all(o.user_id is None for o in outcomes)
    assert all(0 < (o.retry_after or 0) <= 15 * 60 for o in outcomes if o not in passed), outcomes
    assert sign_in(db, STAFF.email, STAFF.password, "10.9.9.9").retry_after is not None  # the right one, too late


def test_a_successful_login_gives_its_attempt_back(db: Database) -> None:
    for _ in range(throttle.LOGIN_PER_ACCOUNT.attempts + 2):
        assert sign_in(db, OWNER.email, OWNER.password, "10.1.1.1").user_id is not None


@pytest.mark.parametrize("parallel", [45])
def test_parallel_registrations_get_exactly_the_limit_through(db: Database, parallel: int) -> None:
    limit = throttle.registration_limit(30)

    def register(_: int) -> int | None:
        with db.unit_of_work() as session:
            return throttle.attempt(session, [(limit, "203.0.113.7")], NOW)

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        outcomes = list(pool.map(register, range(parallel)))
    assert sum(wait is None for wait in outcomes) == 30
    with db.unit_of_work() as session:  # the next window starts afresh
        assert throttle.attempt(session, [(limit, "203.0.113.7")], NOW + limit.window) is None
