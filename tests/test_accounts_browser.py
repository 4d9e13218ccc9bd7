"""Accounts as people use them, in Debian's Chromium (Playwright) against the server over real HTTP, with the e-mails
read from a real SMTP server (aiosmtpd) that the in-app outbox worker delivers to:

1. A connector (the official MCP client with its OAuth support, registering itself like ChatGPT) starts the
   sign-in; the person chooses "Konto anlegen", confirms the address from the e-mail, consents, and the client gets
   its code and token and calls a tool.
2. "Passwort vergessen" from the web app's login: the link from the e-mail sets a new password; the old token gets
   401 at once and the new password opens the web app.
3. The owner of an office invites a broker in the web app; the invited person accepts from the e-mail; the owner
   removes them, and their token gets 401 at once.
4. The seeker downloads "Meine Daten" as JSON and deletes the account: the token gets 401, and nothing of the person
   is left in any table the models know.

Every form is also sent with bad input once: the page answers in German and keeps what was typed, except passwords.
"""

from __future__ import annotations

import concurrent.futures
import json
import queue
import re
import time
from collections.abc import Iterator
from email import message_from_bytes
from email.message import Message
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import pytest
from aiosmtpd.controller import Controller
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from sqlalchemy import select

from shared.auth.tokens import mint_access_token
from shared.db.models import Base, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import request_key, seeded_database
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)
from tests.test_oauth import MemoryStorage, OAuthServer, mcp_status
from tests.test_outbox import Inbox, free_port

REDIRECT = "https://claude.ai/api/mcp/auth_callback"
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
SEEKER_EMAIL = "lena.lindner@example.de"
SEEKER_NAME = "Lena Lindner-Testperson"
FIRST_PASSWORD = "Altbau mit Stuck und Dielen"
NEW_PASSWORD = "Gartenhaus am Wasser 2026"


class Mailbox(Inbox):
    def __init__(self) -> None:
        super().__init__()
        self.used: set[str] = set()

    def mails_to(self, address: str) -> list[Message]:
        return [message_from_bytes(envelope.content) for envelope in self.messages if address in envelope.rcpt_tos]

    def link(self, address: str, path: str) -> str:
        """The link to `path` in the newest e-mail to `address` that has one, waiting for the outbox to deliver it."""
        pattern = re.compile(r"(http://\S+" + re.escape(path) + r"\?t=[\w-]+)")
        for _ in range(200):  # at most 20 s
            for mail in reversed(self.mails_to(address)):
                found = pattern.search(mail.get_payload(decode=True).decode())
                if found and found.group(1) not in self.used:
                    self.used.add(found.group(1))
                    return found.group(1)
            time.sleep(0.1)
        raise AssertionError(f"no new e-mail with {path} to {address}; got {[m['Subject'] for m in self.mails_to(address)]}")


@pytest.fixture(scope="module")
def mailbox() -> Iterator[tuple[Mailbox, int]]:
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield box, port
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("accounts-browser"), "accounts_browser", listings=60) as database:
        yield database


@pytest.fixture(scope="module")
def athaus(db: Database, mailbox: tuple[Mailbox, int]) -> Iterator[OAuthServer]:
    server = OAuthServer(db, smtp_host="127.0.0.1", smtp_port=mailbox[1], outbox_poll_seconds=0.2)
    with server:
        yield server


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:  # noqa: F811
    page = browser.new_page()
    page.set_default_timeout(20_000)
    # The connector's redirect URI: the browser arrives there with the code; nothing is fetched from outside.
    page.route("https://claude.ai/**", lambda route: route.fulfill(status=200, content_type="text/html", body="<p>zurück beim Client</p>"))
    yield page
    page.close()


def field(page: Any, selector: str) -> str:
    return page.locator(selector).input_value()


def alert(page: Any) -> str:
    return page.locator('[role="alert"]').first.inner_text()


def test_the_whole_way_in_and_out(athaus: OAuthServer, mailbox: tuple[Mailbox, int], tab: Any, db: Database) -> None:
    box = mailbox[0]
    base = athaus.base_url

    # --- 1. a connector's sign-in, sign-up, confirmation, consent, code, token, a tool call -----------------------
    urls: queue.Queue[str] = queue.Queue()
    answers: queue.Queue[AuthorizationCodeResult] = queue.Queue()

    async def redirect_handler(url: str) -> None:
        urls.put(url)

    async def callback_handler() -> AuthorizationCodeResult:
        return await anyio.to_thread.run_sync(lambda: answers.get(timeout=90))

    storage = MemoryStorage()

    async def connector() -> dict[str, Any]:
        metadata = OAuthClientMetadata.model_validate({"client_name": "Claude", "redirect_uris": [REDIRECT], "application_type": "web"})
        auth = OAuthClientProvider(
            server_url=athaus.resource("suche"), client_metadata=metadata, storage=storage,
            redirect_handler=redirect_handler, callback_handler=callback_handler,
        )
        async with (
            httpx2.AsyncClient(auth=auth, timeout=60) as http,
            Client(streamable_http_client(athaus.resource("suche"), http_client=http), mode="legacy") as client,
        ):
            result = await client.call_tool(
                "save_search_order", {"request_id": request_key(), "name": "Altbau in Leipzig", "criteria": {"city": "Leipzig", "marketing_type": "rent"}}
            )
            return {"error": result.is_error, "structured": result.structured_content, "meta": result.meta}

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        running = pool.submit(anyio.run, connector)
        tab.goto(first(urls, running))
        assert tab.locator("h1").inner_text() == "Bei Athaus anmelden"
        tab.get_by_role("link", name="Konto anlegen").click()
        assert tab.locator("h1").inner_text() == "Konto anlegen"
        # bad input: a common password; e-mail and name are kept, the password is not
        tab.fill("#email", SEEKER_EMAIL)
        tab.fill("#name", SEEKER_NAME)
        tab.fill("#password", "password1234")
        tab.get_by_role("button", name="Konto anlegen").click()
        assert "zu verbreitet" in alert(tab)
        assert (field(tab, "#email"), field(tab, "#name"), field(tab, "#password")) == (SEEKER_EMAIL, SEEKER_NAME, "")
        tab.fill("#password", FIRST_PASSWORD)
        tab.get_by_role("button", name="Konto anlegen").click()
        assert tab.locator("h1").inner_text() == "Bitte prüfe dein Postfach"
        with db.read_only() as session:  # nothing can act before the address is confirmed
            assert session.scalar(select(User).where(User.email == SEEKER_EMAIL)) is None
        tab.goto(box.link(SEEKER_EMAIL, "/oauth/konto-bestaetigen"))
        tab.get_by_role("button", name="Konto bestätigen").click()
        assert tab.locator("h1").inner_text() == "Zugriff erlauben?"
        assert SEEKER_NAME in tab.locator("main").inner_text()
        tab.get_by_role("button", name="Erlauben").click()
        tab.wait_for_url(REDIRECT + "**")
        query = dict(parse_qsl(urlsplit(tab.url).query))
        answers.put(AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss")))
        called = running.result(timeout=90)
    assert not called["error"] and called["structured"]["search_order_id"].startswith("S-"), called
    token = storage.tokens.access_token if storage.tokens else ""
    assert mcp_status(athaus.resource("suche"), token) == 200

    # the same answer for a known address: the page does not tell
    tab.goto(f"{base}/oauth/konto-anlegen")
    tab.fill("#email", OWNER.email)
    tab.fill("#name", "Jemand")
    tab.fill("#password", FIRST_PASSWORD)
    tab.get_by_role("button", name="Konto anlegen").click()
    known = tab.locator("main").inner_text().replace(OWNER.email, "X")
    tab.goto(f"{base}/oauth/konto-anlegen")
    tab.fill("#email", "noch.niemand@example.de")
    tab.fill("#name", "Jemand")
    tab.fill("#password", FIRST_PASSWORD)
    tab.get_by_role("button", name="Konto anlegen").click()
    assert tab.locator("main").inner_text().replace("noch.niemand@example.de", "X") == known

    # --- 2. password reset from the web app's login ----------------------------------------------------------------
    tab.goto(f"{base}/app/anmelden")
    tab.get_by_role("link", name="Passwort vergessen?").click()
    tab.fill("#email", "keine adresse")
    tab.evaluate("document.querySelector('form').noValidate = true")
    tab.get_by_role("button", name="Link schicken").click()
    assert "gültige E-Mail-Adresse" in alert(tab) and field(tab, "#email") == "keine adresse"
    tab.fill("#email", SEEKER_EMAIL)
    tab.get_by_role("button", name="Link schicken").click()
    assert "Wenn es ein Konto" in tab.locator("main").inner_text()
    tab.goto(box.link(SEEKER_EMAIL, "/oauth/passwort-neu"))
    tab.fill("#password", "kurz")
    tab.evaluate("document.querySelector('form').noValidate = true")
    tab.get_by_role("button", name="Passwort speichern").click()
    assert "zu kurz" in alert(tab) and field(tab, "#password") == ""
    tab.fill("#password", NEW_PASSWORD)
    tab.get_by_role("button", name="Passwort speichern").click()
    assert tab.locator("h1").inner_text() == "Passwort geändert"
    assert mcp_status(athaus.resource("suche"), token) == 401  # every token of the account ended with the change
    login(tab, base, SEEKER_EMAIL, NEW_PASSWORD)
    assert tab.locator("h1").inner_text() == "Wartende Bestätigungen"
    tab.get_by_role("button", name="Abmelden").click()

    # --- 3. invite, accept, remove -------------------------------------------------------------------------------
    login(tab, base, OWNER.email, OWNER.password)
    tab.get_by_role("link", name="Mitarbeitende").click()
    assert tab.locator("h1").inner_text() == "Mitarbeitende"
    tab.fill("#invite-email", "ohne-at.example.de")
    tab.evaluate("document.querySelectorAll('form').forEach(f => f.noValidate = true)")
    tab.get_by_role("button", name="Einladung senden").click()
    assert "gültige E-Mail-Adresse" in alert(tab) and field(tab, "#invite-email") == "ohne-at.example.de"
    tab.fill("#invite-email", "neu.makler@example.de")
    tab.select_option("#invite-role", "staff")
    tab.get_by_role("button", name="Einladung senden").click()
    assert "Eingeladen: neu.makler@example.de als Mitarbeiter/in" in tab.locator('[role="status"]').inner_text()
    tab.get_by_role("button", name="Abmelden").click()
    tab.goto(box.link("neu.makler@example.de", "/oauth/einladung"))
    assert "Mitarbeiter/in" in tab.locator("main").inner_text()
    tab.fill("#name", "Nele Neumakler")
    tab.fill("#password", "neu.makler")
    tab.get_by_role("button", name="Einladung annehmen").click()
    assert alert(tab) and field(tab, "#name") == "Nele Neumakler" and field(tab, "#password") == ""
    tab.fill("#password", "Maisonette mit Dachterrasse")
    tab.get_by_role("button", name="Einladung annehmen").click()
    assert tab.locator("h1").inner_text() == "Willkommen im Büro"
    broker_token = token_for(db, athaus, "neu.makler@example.de", "makler", ["makler:lesen"])
    assert mcp_status(athaus.resource("makler"), broker_token) == 200
    login(tab, base, OWNER.email, OWNER.password)
    tab.goto(f"{base}/app/mitarbeitende")
    tab.locator('tr[data-person="neu.makler@example.de"]').get_by_role("button", name="Entfernen").click()
    assert "Entfernt: Nele Neumakler" in tab.locator('[role="status"]').inner_text()
    assert mcp_status(athaus.resource("makler"), broker_token) == 401  # at once
    tab.get_by_role("button", name="Abmelden").click()

    # --- 4. Meine Daten: export and deletion ---------------------------------------------------------------------
    seeker_token = token_for(db, athaus, SEEKER_EMAIL, "suche", ["suche:konto"])
    login(tab, base, SEEKER_EMAIL, NEW_PASSWORD)
    tab.get_by_role("link", name="Meine Daten").click()
    with tab.expect_download() as download:
        tab.get_by_role("link", name="Meine Daten herunterladen (JSON)").click()
    exported = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert (exported["konto"]["email"], exported["konto"]["name"]) == (SEEKER_EMAIL, SEEKER_NAME)
    assert [s["name"] for s in exported["suchauftraege"]] == ["Altbau in Leipzig"]
    tab.get_by_role("button", name="Konto löschen").click()  # without the tick
    assert "Häkchen" in alert(tab)
    tab.get_by_label("Ja, mein Konto endgültig löschen").check()
    tab.get_by_role("button", name="Konto löschen").click()
    assert "Dein Konto ist gelöscht" in tab.locator('[role="status"]').inner_text()
    assert mcp_status(athaus.resource("suche"), seeker_token) == 401
    traces = [
        (table.name, value)
        for table in Base.metadata.sorted_tables
        for row in rows(db, table)
        for value in (SEEKER_EMAIL, SEEKER_NAME)
        if value.lower() in row.lower()
    ]
    assert traces == []


def first(urls: queue.Queue[str], running: concurrent.futures.Future[Any]) -> str:
    """The authorization URL the connector opens, or the connector's own failure."""
    for _ in range(600):
        try:
            return urls.get(timeout=0.1)
        except queue.Empty:
            if running.done():
                running.result()
                raise AssertionError("the connector ended without opening the sign-in") from None
    raise AssertionError("the connector never opened the sign-in")


def login(tab: Any, base: str, email: str, password: str) -> None:
    tab.goto(f"{base}/app/anmelden")
    tab.fill("#email", email)
    tab.fill("#password", password)
    tab.get_by_role("button", name="Anmelden").click()


def token_for(db: Database, athaus: OAuthServer, email: str, server: str, scopes: list[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        assert user_id is not None
        return mint_access_token(session, user_id=user_id, client_id="test", resource=athaus.resource(server), scopes=scopes).access_token


def rows(db: Database, table: Any) -> list[str]:
    with db.read_only() as session:
        return [json.dumps([str(value) for value in row], ensure_ascii=False) for row in session.execute(select(table))]
