"""The lock-out by wrong passwords no longer locks a person out: strangers' attempts use up the account's counter,
but the person's own browser (a signed device cookie set at a successful login) and a reset link still get them in;
the address is counted first. On the real app (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from athaus.app import create_app
from shared.accounts.links import new_token
from shared.accounts.reset import finish_reset
from shared.auth import throttle
from shared.auth.access import sign_in
from shared.auth.devices import DEVICE_COOKIE
from shared.auth.passwords import hash_password
from shared.db.models import User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import seeded_database

SEEKERS = [a for a in DEMO_ACCOUNTS if a.office_role is None]


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with seeded_database(tmp_path, "lockout", listings=20) as database:
        yield database


def client(db: Database) -> TestClient:
    settings = Settings(database_url=str(db.engine.url), secret_key="lockout-test", outbox_worker=False)  # type: ignore[call-arg]
    return TestClient(create_app(settings, db), base_url=settings.public_url, follow_redirects=False)


def app_login(http: TestClient, email: str, password: str) -> int:
    found = re.search(r'name="csrf_token" value="([^"]+)"', http.get("/app/anmelden").text)
    assert found
    return http.post("/app/anmelden", data={"csrf_token": unescape(found.group(1)), "email": email, "password": password}).status_code


def strangers_lock(db: Database, email: str) -> None:
    for i in range(throttle.LOGIN_PER_ACCOUNT.attempts):
        assert sign_in(db, email, "geraten", f"198.51.100.{i}").user_id is None
    assert sign_in(db, email, "geraten", "198.51.100.200").retry_after is not None


def test_a_locked_account_still_signs_in_from_a_known_device(db: Database) -> None:
    person = SEEKERS[0]
    with client(db) as first_visit:
        assert app_login(first_visit, person.email, person.password) == 303  # signs in once: the browser is known from now on
        device = first_visit.cookies.get(DEVICE_COOKIE)
    assert device
    strangers_lock(db, person.email)
    with client(db) as own, client(db) as other:
        own.cookies.set(DEVICE_COOKIE, device)
        assert app_login(other, person.email, person.password) == 429  # an unknown browser waits
        assert app_login(own, person.email, person.password) == 303  # the person's own does not


def test_the_device_cookie_is_for_its_own_account_only(db: Database) -> None:
    first, second = SEEKERS[0], SEEKERS[1]
    with client(db) as first_visit:
        assert app_login(first_visit, first.email, first.password) == 303
        device = first_visit.cookies.get(DEVICE_COOKIE)
    strangers_lock(db, second.email)
    with client(db) as own:
        own.cookies.set(DEVICE_COOKIE, device)
        assert app_login(own, second.email, second.password) == 429  # known for the first account, not the second
    strangers_lock(db, first.email)
    with client(db) as forged:
        forged.cookies.set(DEVICE_COOKIE, "e30.gefaelscht")  # a forged cookie counts as none
        assert app_login(forged, first.email, first.password) == 429


def test_a_reset_link_gets_the_person_back_in_while_the_account_is_under_attack(db: Database) -> None:
    person = SEEKERS[0]
    strangers_lock(db, person.email)
    now = dt.datetime.now(dt.UTC)
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == person.email))
        link = new_token(session, purpose="reset", email=person.email, user_id=user_id, now=now)
    with db.unit_of_work() as session:
        assert finish_reset(session, link, hash_password("Ein ganz neues Passwort 2026"), now) == user_id
    assert sign_in(db, person.email, "Ein ganz neues Passwort 2026", "203.0.113.9").user_id == user_id


def test_an_address_over_its_limit_stops_before_it_counts_against_the_account(db: Database) -> None:
    person = SEEKERS[1]
    busy = "203.0.113.50"
    for i in range(throttle.LOGIN_PER_ADDRESS.attempts):  # one address tries many other accounts
        sign_in(db, f"jemand{i}@example.org", "geraten", busy)
    for _ in range(3 * throttle.LOGIN_PER_ACCOUNT.attempts):
        assert sign_in(db, person.email, "geraten", busy).retry_after is not None
    assert sign_in(db, person.email, person.password, "203.0.113.51").user_id is not None
