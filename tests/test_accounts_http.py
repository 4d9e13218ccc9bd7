"""The account pages over HTTP (the app in process): the web app's login has the same throttle as the sign-in pages,
logging out ends the session on the server (the old cookie is worthless), sign-up and reset answer a known and an
unknown address alike, and with an external issuer there are no sign-up and reset pages."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from athaus.app import create_app
from shared.auth.throttle import LOGIN_PER_ACCOUNT
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import seeded_database

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(Path(tmp_path_factory.mktemp("accounts-http")), "accounts_http", listings=40) as database:
        yield database


def client(db: Database, **changes: object) -> TestClient:
    settings = Settings(**{"database_url": str(db.engine.url), "secret_key": "accounts-http", "outbox_worker": False, **changes})  # type: ignore[arg-type]
    return TestClient(create_app(settings, db), base_url=settings.public_url, follow_redirects=False)


def csrf(page: str) -> str:
    found = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert found, page
    return unescape(found.group(1))


def app_login(http: TestClient, email: str, password: str) -> int:
    token = csrf(http.get("/app/anmelden").text)
    return http.post("/app/anmelden", data={"csrf_token": token, "email": email, "password": password}).status_code


def test_the_web_app_login_is_throttled_like_the_sign_in(db: Database) -> None:
    with client(db) as http:
        answers = [app_login(http, SEEKER.email, f"falsch {n}") for n in range(LOGIN_PER_ACCOUNT.attempts)]
        assert answers == [400] * LOGIN_PER_ACCOUNT.attempts
        assert app_login(http, SEEKER.email, SEEKER.password) == 429  # the right one, too late


def test_logging_out_ends_the_session_on_the_server(db: Database) -> None:
    with client(db) as http:
        assert app_login(http, OWNER.email, OWNER.password) == 303
        cookie = http.cookies.get("athaus_app_sitzung")
        assert cookie and http.get("/app/").status_code == 200
        page = http.get("/app/").text
        assert http.post("/app/abmelden", data={"csrf_token": csrf(page)}).status_code == 303
    with client(db) as replay:  # the old cookie, kept by someone else
        replay.cookies.set("athaus_app_sitzung", cookie, path="/")
        answer = replay.get("/app/")
        assert answer.status_code == 303 and answer.headers["location"] == "/app/anmelden"


@pytest.mark.parametrize(("path", "fields"), [("/oauth/konto-anlegen", {"name": "Jemand", "password": "Wohnung mit Balkon 7"}), ("/oauth/passwort-vergessen", {})])
def test_sign_up_and_reset_answer_a_known_and_an_unknown_address_alike(db: Database, path: str, fields: dict[str, str]) -> None:
    answers = []
    for email in (OWNER.email, f"unbekannt-{len(path)}@example.de"):
        with client(db) as http:
            token = csrf(http.get(path).text)
            answer = http.post(path, data={"csrf_token": token, "email": email, **fields})
            answers.append((answer.status_code, answer.text.replace(email, "ADRESSE")))
    assert answers[0] == answers[1] and answers[0][0] == 200


def test_with_an_external_issuer_there_is_no_sign_up_and_no_reset(db: Database) -> None:
    with client(db, oauth_issuer="https://login.example", oauth_jwks_url="https://login.example/jwks.json") as http:
        for path in ("/oauth/konto-anlegen", "/oauth/passwort-vergessen", "/oauth/passwort-neu", "/oauth/konto-bestaetigen"):
            assert http.get(path).status_code == 404, path
        assert "Passwort vergessen" not in http.get("/app/anmelden").text


def test_the_owner_downloads_the_stock_as_openimmo_and_nobody_else(db: Database) -> None:
    with client(db) as http:
        assert app_login(http, OWNER.email, OWNER.password) == 303
        answer = http.get("/app/bestand.xml")
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/xml")
        assert answer.text.startswith('<?xml version="1.0" encoding="UTF-8"?>') and "<immobilie>" in answer.text
    staff = next(a for a in DEMO_ACCOUNTS if a.office_role == "staff")
    other_seeker = [a for a in DEMO_ACCOUNTS if a.kind == "seeker"][1]  # the first one is throttled above
    for account in (staff, other_seeker):
        with client(db) as http:
            assert app_login(http, account.email, account.password) == 303
            assert http.get("/app/bestand.xml").status_code == 403
