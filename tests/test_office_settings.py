"""An office's own settings (issue 32): its owner sets name, town, contact details, the e-mail for inquiry notices and
the OpenImmo feed address in the web app, an operator with `athaus office set`; the feed address is checked as every
outbound address is when it is saved (https, a host with public addresses only). Real database (SQLite and
PostgreSQL); the web app over ASGI as tests/test_webapp.py drives it; names resolve through a stand-in resolver."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from athaus import cli
from shared import outbound
from shared.accounts.office_settings import save_settings
from shared.db.models import Office
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import seeded_database
from tests.test_webapp import client, hidden, log_in

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAFF = next(a for a in DEMO_ACCOUNTS if a.office_role == "staff" and a.office_id == 1)
ADDRESSES = {"crm.example.de": "93.184.216.34", "intern.example.de": "10.0.0.7"}


@pytest.fixture(autouse=True)
def resolver(monkeypatch: pytest.MonkeyPatch) -> None:
    async def lookup(host: str, port: int, **_: Any) -> list[Any]:
        if host not in ADDRESSES:
            raise socket.gaierror("unknown")
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ADDRESSES[host], port))]

    monkeypatch.setattr(outbound, "lookup", lookup)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    with seeded_database(tmp_path, "office_settings", listings=20) as database:
        yield database


def office(db: Database, office_id: int = 1) -> tuple[Any, ...]:
    with db.read_only() as session:
        row = session.get(Office, office_id)
        assert row is not None
        return (row.name, row.phone, row.email, row.inquiry_email, row.website, row.openimmo_feed_url)


def test_every_problem_is_named_at_once_and_nothing_is_saved(db: Database) -> None:
    before = office(db)
    sent = {"email": "kein-at", "website": "www.ohne-schema.de", "openimmo_feed_url": "https://intern.example.de/export.zip",
            "name": ""}
    with pytest.raises(Exception) as refused, db.unit_of_work() as session:
        save_settings(session, 1, sent)
    assert getattr(refused.value, "message", "") == (
        "Name des Büros: bitte angeben. E-Mail für Interessenten: Bitte eine gültige E-Mail-Adresse eingeben, etwa "
        "name@example.de. Website: bitte eine Adresse mit https:// angeben, etwa https://www.example.de. "
        "OpenImmo-Feed-Adresse: der Rechner intern.example.de ist nicht erreichbar oder kein öffentlicher Rechner "
        "(interne Adressen sind gesperrt); bitte die Adresse prüfen. Nichts wurde gespeichert."
    )
    assert office(db) == before
    with db.unit_of_work() as session:
        changed = save_settings(session, 1, {"openimmo_feed_url": "https://crm.example.de/openimmo.zip"})
    assert (changed, office(db)[5]) == (["OpenImmo-Feed-Adresse"], "https://crm.example.de/openimmo.zip")
    with pytest.raises(Exception) as plain_http, db.unit_of_work() as session:
        save_settings(session, 1, {"openimmo_feed_url": "http://crm.example.de/openimmo.zip"})
    assert "bitte eine https-Adresse mit Rechnernamen angeben" in getattr(plain_http.value, "message", "")


def test_the_owner_sets_them_in_the_web_app_and_staff_cannot(db: Database) -> None:
    browser = client(db)
    log_in(browser, OWNER.email, OWNER.password)
    page = browser.get("/app/buero")
    assert page.status_code == 200 and 'name="openimmo_feed_url"' in page.text and 'href="/app/buero"' in page.text
    form = {"csrf_token": hidden(page.text, "csrf_token"), "name": office(db)[0], "city": "Leipzig", "phone": "+49 341 123456",
            "email": "kontakt@hoffmann.example", "inquiry_email": "anfragen@hoffmann.example", "website": "https://hoffmann.example",
            "openimmo_feed_url": "https://crm.example.de/openimmo.zip"}
    saved = browser.post("/app/buero", data=form)
    assert saved.status_code == 303 and saved.headers["location"].startswith("/app/buero")
    assert office(db) == (form["name"], "+49 341 123456", "kontakt@hoffmann.example", "anfragen@hoffmann.example",
                          "https://hoffmann.example", "https://crm.example.de/openimmo.zip")
    refused = browser.post("/app/buero", data={**form, "openimmo_feed_url": "https://intern.example.de/x.xml"})
    assert refused.status_code == 400 and "der Rechner intern.example.de ist nicht erreichbar" in refused.text
    assert office(db)[5] == "https://crm.example.de/openimmo.zip"
    no_token = browser.post("/app/buero", data={**form, "csrf_token": "x", "phone": ""})
    assert no_token.status_code == 403 and office(db)[1] == "+49 341 123456"
    staff = client(db)
    log_in(staff, STAFF.email, STAFF.password)
    assert staff.get("/app/buero").status_code == 403


def test_an_operator_sets_them_with_the_cli(db: Database, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("ATHAUS_DATABASE_URL", db.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv("ATHAUS_LOG_LEVEL", "WARNING")
    assert cli.main(["office", "set", "--office", "2", "--feed-url", "https://crm.example.de/b.xml",
                     "--inquiry-email", "anfragen@sommer.example"]) == 0
    assert capsys.readouterr().out.strip() == (
        "Büro 2: gespeichert: E-Mail für Benachrichtigungen über Anfragen, OpenImmo-Feed-Adresse."
    )
    assert (office(db, 2)[3], office(db, 2)[5]) == ("anfragen@sommer.example", "https://crm.example.de/b.xml")
    assert cli.main(["office", "set", "--office", "2", "--feed-url", "https://intern.example.de/b.xml"]) == 1
    assert capsys.readouterr().err.strip().startswith("Nicht gespeichert: OpenImmo-Feed-Adresse: der Rechner intern.example.de")
    with db.read_only() as session:
        assert session.scalar(select(Office.openimmo_feed_url).where(Office.id == 2)) == "https://crm.example.de/b.xml"
