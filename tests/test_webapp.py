"""The web app /app/ over ASGI (httpx through Starlette's test client), on a demo catalog of its own and the real
database: the demo logins log in, their pending confirmations are listed with the card's content, a click executes
(once), a form without a valid CSRF token executes nothing, another user's confirmation is neither listed nor
executable, and the pages cannot be framed. A broker confirms a reply there and the seeker reads it; only the office
owner sets which kinds run without a click."""

from __future__ import annotations

import datetime as dt
import re
from html import escape
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from starlette.testclient import TestClient

from athaus.app import create_app
from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.confirmations import allowed_without_click, list_pending
from shared.db.models import Inquiry, Office, PendingAction, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import Caller, make_context, request_key, seeded_database

BASE = "http://127.0.0.1:8000"
RESOURCE = f"{BASE}/suche/mcp"
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
OTHER_SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchender@"))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("webapp"), "webapp") as database:
        yield database


def user_id(db: Database, email: str) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(User.id).where(User.email == email)))


def draft(db: Database, email: str, message: str) -> dict[str, Any]:
    """A seeker's inquiry draft, made with the tool the model calls (real clock: the app runs on it too)."""
    principal = Principal(user_id(db, email), "seeker", None, None, frozenset({"suche:konto", "suche:anfragen"}), RESOURCE)
    caller = Caller(SEARCH, make_context(db, now=dt.datetime.now(dt.UTC)), principal)
    listing = caller("search_listings", {"limit": 1})["items"][0]["listing_id"]
    return caller("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": message})


def status_of(db: Database, confirmation_id: str) -> str:
    with db.read_only() as session:
        return str(session.scalar(select(PendingAction.status).where(PendingAction.ref == confirmation_id)))


def client(db: Database, public_url: str = BASE) -> TestClient:
    settings = Settings(database_url=str(db.engine.url), secret_key="webapp-test-secret", public_url=public_url)
    return TestClient(create_app(settings, db), base_url=public_url, follow_redirects=False)


def hidden(page: str, name: str, scope: str = "") -> str:
    """The value of a hidden form field (in the article of `scope` if named)."""
    if scope:
        page = page[page.index(f'data-confirmation="{scope}"') :]
    found = re.search(rf'name="{name}" value="([^"]*)"', page)
    assert found, name
    return found.group(1)


def log_in(browser: TestClient, email: str, password: str) -> str:
    """Logs in through the form; returns the list page."""
    first = browser.get("/app/")
    assert first.status_code == 303 and first.headers["location"] == "/app/anmelden"
    form = browser.get("/app/anmelden")
    assert form.status_code == 200
    answer = browser.post("/app/anmelden", data={"csrf_token": hidden(form.text, "csrf_token"), "email": email, "password": password})
    assert answer.status_code == 303 and answer.headers["location"] == "/app/", answer.text
    page = browser.get("/app/")
    assert page.status_code == 200
    return page.text


def test_log_in_list_and_send(db: Database) -> None:
    text = "Guten Tag, ist die Wohnung noch frei? (Web-App-Test)"
    drafted = draft(db, SEEKER.email, text)
    confirmation_id = drafted["confirmation"]["confirmation_id"]
    browser = client(db)
    page = log_in(browser, SEEKER.email, SEEKER.password)
    assert "Wartende Bestätigungen" in page and f"Angemeldet als {SEEKER.name}" in page
    assert f'data-confirmation="{confirmation_id}"' in page
    assert escape(text) in page and escape(drafted["recipient"]) in page and escape(drafted["sender"]) in page
    assert 'value="send">Senden</button>' in page and 'value="discard">Verwerfen</button>' in page

    form = {
        "csrf_token": hidden(page, "csrf_token", confirmation_id),
        "confirmation_id": confirmation_id,
        "payload_hash": hidden(page, "payload_hash", confirmation_id),
        "entscheidung": "send",
    }
    answer = browser.post("/app/bestaetigungen", data=form)
    assert answer.status_code == 303 and answer.headers["location"].startswith("/app/?meldung="), answer.text
    after = browser.get(answer.headers["location"]).text
    assert f"Gesendet: {confirmation_id} ist hinausgegangen." in after
    assert f'data-confirmation="{confirmation_id}"' not in after
    assert status_of(db, confirmation_id) in {"sent", "executed"}
    with db.read_only() as session:
        assert confirmation_id not in {item.confirmation_id for item in list_pending(session, user_id=user_id(db, SEEKER.email), now=dt.datetime.now(dt.UTC))}

    again = browser.post("/app/bestaetigungen", data=form)  # a double click sends once
    assert again.status_code in {303, 400, 409}
    assert status_of(db, confirmation_id) in {"sent", "executed"}


def test_discard(db: Database) -> None:
    drafted = draft(db, SEEKER.email, "Wird verworfen (Web-App-Test)")
    confirmation_id = drafted["confirmation"]["confirmation_id"]
    browser = client(db)
    page = log_in(browser, SEEKER.email, SEEKER.password)
    form = {
        "csrf_token": hidden(page, "csrf_token", confirmation_id),
        "confirmation_id": confirmation_id,
        "payload_hash": hidden(page, "payload_hash", confirmation_id),
        "entscheidung": "discard",
    }
    answer = browser.post("/app/bestaetigungen", data=form)
    assert answer.status_code == 303
    assert f"Verworfen: {confirmation_id} geht nicht hinaus." in browser.get(answer.headers["location"]).text
    assert status_of(db, confirmation_id) == "discarded"


@pytest.mark.parametrize("case", ["no token", "wrong token", "no cookie"])
def test_a_form_without_a_valid_csrf_token_executes_nothing(db: Database, case: str) -> None:
    drafted = draft(db, SEEKER.email, f"CSRF-Test ({case})")
    confirmation_id = drafted["confirmation"]["confirmation_id"]
    browser = client(db)
    page = log_in(browser, SEEKER.email, SEEKER.password)
    form = {
        "csrf_token": hidden(page, "csrf_token", confirmation_id),
        "confirmation_id": confirmation_id,
        "payload_hash": hidden(page, "payload_hash", confirmation_id),
        "entscheidung": "send",
    }
    if case == "no token":
        del form["csrf_token"]
    elif case == "wrong token":
        token = form["csrf_token"]
        form["csrf_token"] = ("y" if token[0] == "x" else "x") + token[1:]  # another first character, always
    else:
        browser.cookies.delete("athaus_app_csrf", domain="127.0.0.1", path="/")
    answer = browser.post("/app/bestaetigungen", data=form)
    assert answer.status_code == 403
    assert "Formular abgelehnt" in answer.text and "es wurde nichts ausgeführt" in answer.text
    assert status_of(db, confirmation_id) == "pending"


def test_another_users_confirmation_is_neither_listed_nor_executable(db: Database) -> None:
    drafted = draft(db, SEEKER.email, "Nur für Lena (Trennungstest)")
    confirmation_id = drafted["confirmation"]["confirmation_id"]
    own = client(db)
    own_page = log_in(own, SEEKER.email, SEEKER.password)
    payload_hash = hidden(own_page, "payload_hash", confirmation_id)

    other = client(db)
    page = log_in(other, OTHER_SEEKER.email, OTHER_SEEKER.password)
    assert confirmation_id not in page
    form = {"csrf_token": hidden(page, "csrf_token"), "confirmation_id": confirmation_id, "payload_hash": payload_hash, "entscheidung": "send"}
    answer = other.post("/app/bestaetigungen", data=form)
    assert answer.status_code in {400, 404}
    assert "Nicht ausgeführt" in answer.text
    assert status_of(db, confirmation_id) == "pending"
    # …while the owner still can.
    mine = {**form, "csrf_token": hidden(own_page, "csrf_token", confirmation_id)}
    assert own.post("/app/bestaetigungen", data=mine).status_code == 303
    assert status_of(db, confirmation_id) in {"sent", "executed"}


def test_wrong_password_login_page_and_logout(db: Database) -> None:
    browser = client(db)
    form = browser.get("/app/anmelden")
    wrong = browser.post("/app/anmelden", data={"csrf_token": hidden(form.text, "csrf_token"), "email": SEEKER.email, "password": "falsch"})
    assert wrong.status_code == 400 and "E-Mail-Adresse oder Passwort stimmt nicht" in wrong.text
    assert "athaus_app_sitzung" not in wrong.headers.get("set-cookie", "")
    page = log_in(browser, SEEKER.email, SEEKER.password)
    out = browser.post("/app/abmelden", data={"csrf_token": hidden(page, "csrf_token")})
    assert out.status_code == 303 and out.headers["location"].startswith("/app/anmelden?meldung=")
    assert "Du bist abgemeldet." in browser.get(out.headers["location"]).text
    assert browser.get("/app/").headers["location"] == "/app/anmelden"


def test_cookies_and_headers(db: Database) -> None:
    browser = client(db)
    assert browser.get("/app").headers["location"] == "/app/"
    login = browser.get("/app/anmelden")
    for response in (login, browser.get("/app/"), browser.post("/app/bestaetigungen", data={})):
        assert response.headers["x-frame-options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["cache-control"] == "no-store"
    answer = browser.post("/app/anmelden", data={"csrf_token": hidden(login.text, "csrf_token"), "email": SEEKER.email, "password": SEEKER.password})
    # plain http on loopback in development: no Secure (it would never come back), so no __Host- prefix either
    assert set_cookies(answer)["athaus_app_sitzung"] == {"httponly": "", "max-age": "43200", "path": "/", "samesite": "lax"}
    assert set_cookies(login)["athaus_app_csrf"] == {"httponly": "", "path": "/", "samesite": "lax"}

    secure = client(db, public_url="https://athaus.example")
    form = secure.get("/app/anmelden")
    assert set_cookies(form) == {"__Host-athaus_app_csrf": {"httponly": "", "path": "/", "samesite": "lax", "secure": ""}}
    answer = secure.post("/app/anmelden", data={"csrf_token": hidden(form.text, "csrf_token"), "email": SEEKER.email, "password": SEEKER.password})
    assert set_cookies(answer) == {
        "__Host-athaus_app_sitzung": {"httponly": "", "max-age": "43200", "path": "/", "samesite": "lax", "secure": ""},
        # the browser is known from now on (shared/auth/devices.py): 180 days
        "__Host-athaus_geraet": {"httponly": "", "max-age": "15552000", "path": "/", "samesite": "lax", "secure": ""},
    }
    assert secure.get("/app/").status_code == 200  # the prefixed cookies are the ones read
    out = secure.post("/app/abmelden", data={"csrf_token": hidden(secure.get("/app/").text, "csrf_token")})
    assert set_cookies(out)["__Host-athaus_app_sitzung"]["path"] == "/" and set_cookies(out)["__Host-athaus_app_sitzung"]["max-age"] == "0"


def set_cookies(response: Any) -> dict[str, dict[str, str]]:
    """The cookies a response sets: name → its attributes (lower-cased names, flags as ""), without the value."""
    cookies = {}
    for header in response.headers.get_list("set-cookie"):
        name_value, *attributes = (part.strip() for part in header.split(";"))
        fields = dict((a.split("=", 1) + [""])[:2] for a in attributes)
        cookies[name_value.split("=", 1)[0]] = {key.lower(): value for key, value in fields.items() if key.lower() != "expires"}
    return cookies


def test_german_throughout(db: Database) -> None:
    browser = client(db)
    page = log_in(browser, OTHER_SEEKER.email, OTHER_SEEKER.password)
    assert '<html lang="de">' in page
    for english in ("Login", "Logout", "Submit", "Pending", "Confirm", "Send</", "Discard"):
        assert english not in page, english


OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAFF = next(a for a in DEMO_ACCOUNTS if a.office_role == "staff" and a.office_id == 1)
OTHER_OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 2)
BROKER_SCOPES = frozenset({"makler:lesen", "makler:schreiben", "makler:senden"})


def broker(db: Database, account: Any) -> Caller:
    principal = Principal(user_id(db, account.email), "broker", account.office_id, account.office_role, BROKER_SCOPES, f"{BASE}/makler/mcp")
    return Caller(BROKER, make_context(db, now=dt.datetime.now(dt.UTC)), principal)


def test_a_broker_confirms_a_reply_in_the_app_and_the_seeker_reads_it(db: Database) -> None:
    owner = broker(db, OWNER)
    inquiry_id = owner("search_inquiries", {"status": ["open"], "limit": 1})["items"][0]["inquiry_id"]
    text = "Guten Tag, die Wohnung ist noch frei. Passt Ihnen Donnerstag um 17 Uhr? (Antwort aus der Web-App)"
    drafted = owner("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry_id, "text": text})
    confirmation_id = drafted["confirmation"]["confirmation_id"]

    for account in (STAFF, OTHER_OWNER):  # the colleague and the other office see nothing of it
        assert confirmation_id not in log_in(client(db), account.email, account.password)
    browser = client(db)
    page = log_in(browser, OWNER.email, OWNER.password)
    assert escape(text) in page
    form = {
        "csrf_token": hidden(page, "csrf_token", confirmation_id),
        "confirmation_id": confirmation_id,
        "payload_hash": hidden(page, "payload_hash", confirmation_id),
        "entscheidung": "send",
    }
    other = client(db)
    other_page = log_in(other, OTHER_OWNER.email, OTHER_OWNER.password)
    refused = other.post("/app/bestaetigungen", data={**form, "csrf_token": hidden(other_page, "csrf_token")})
    assert refused.status_code == 404 and status_of(db, confirmation_id) == "pending"

    assert browser.post("/app/bestaetigungen", data=form).status_code == 303
    assert status_of(db, confirmation_id) == "sent"
    with db.read_only() as session:
        seeker_id = session.scalar(select(Inquiry.seeker_id).where(Inquiry.ref == inquiry_id))
    seeker = Caller(SEARCH, make_context(db, now=dt.datetime.now(dt.UTC)), Principal(seeker_id, "seeker", None, None, frozenset({"suche:konto"}), RESOURCE))
    assert text in str(seeker("get_inquiry", {"inquiry_id": inquiry_id}))


def test_only_the_office_owner_allows_kinds_without_a_click(db: Database) -> None:
    owner = client(db)
    page = log_in(owner, OWNER.email, OWNER.password)
    assert "Ohne Klick (für dein Büro)" in page and 'value="send_reply">' in page and 'value="decide_proposal">' in page
    for account in (STAFF, SEEKER):  # nobody else sees the setting…
        assert "Ohne Klick (für dein Büro)" not in log_in(client(db), account.email, account.password)

    saved = owner.post("/app/ohne-klick", data={"csrf_token": hidden(page, "csrf_token"), "ohne_klick": ["send_reply"]})
    assert saved.status_code == 303
    assert "Gespeichert. Ohne Klick laufen jetzt: Antworten auf Anfragen an das Büro senden." in owner.get(saved.headers["location"]).text
    with db.read_only() as session:
        assert [allowed_without_click(session, 1, kind) for kind in ("send_reply", "decide_proposal")] == [True, False]
        assert session.get(Office, 1).send_without_click == ["send_reply"]

    staff = client(db)  # …nor may change it (both halves: the owner could, the staff member cannot)
    staff_page = log_in(staff, STAFF.email, STAFF.password)
    refused = staff.post("/app/ohne-klick", data={"csrf_token": hidden(staff_page, "csrf_token")})
    assert refused.status_code == 403 and "Nur die Inhaberin oder der Inhaber" in refused.text
    no_csrf = owner.post("/app/ohne-klick", data={"ohne_klick": ["decide_proposal"]})
    assert no_csrf.status_code == 403
    with db.read_only() as session:
        assert session.get(Office, 1).send_without_click == ["send_reply"]

    page = owner.get("/app/").text
    assert 'value="send_reply" checked>' in page
    cleared = owner.post("/app/ohne-klick", data={"csrf_token": hidden(page, "csrf_token")})
    assert "Gespeichert. Alles wartet jetzt auf einen Klick." in owner.get(cleared.headers["location"]).text
    with db.read_only() as session:
        assert session.get(Office, 1).send_without_click == []
