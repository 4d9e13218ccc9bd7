"""The confirmation card and the web app in a real browser (Debian's Chromium through Playwright), against the real
servers over HTTP.

- MCP Apps: a small host page (tests/fixtures/mcp_apps_host.html) renders the card from `resources/read` in a sandboxed
  iframe under the spec's default CSP, answers `ui/initialize`, sends the draft's tool result (with `_meta`) and proxies
  the card's `tools/call` to the server with the official client; a person clicks "Senden" (by keyboard), and the seeker
  finds the message with `get_inquiry`. In dark mode "Verwerfen" discards, and nothing goes out.
- ChatGPT's Apps SDK: the same HTML with a `window.openai` stub (toolOutput, toolResponseMetadata, callTool).
- The web app: log in with the demo login, the draft is listed, "Senden" sends.
- End to end across both servers: the seeker's card sends an inquiry, the broker finds it (search_inquiries, situation
  report), drafts a reply, confirms it in the web app, and the seeker reads it with get_inquiry.

Screenshots of the card (light and dark) and of the app page go to the test's temp folder, and also to the folder
named by ATHAUS_SCREENSHOTS (docs/bestaetigungskarte refreshes the ones the docs page
"Bestätigungskarte" shows; the site ships that folder, unlike docs/screenshots).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from contract.confirmations import CARD_CHATGPT_URI, CARD_URI, CONFIRMATION_META_KEY, MCP_APP_MIME, SKYBRIDGE_MIME
from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import LiveServer, seeded_database
from tests.test_docs_browser import Visit, browser  # noqa: F401  (the module's Chromium fixture)

HOST_PAGE = Path(__file__).parent / "fixtures" / "mcp_apps_host.html"
HOST_URL = "http://host.test/"
CHATGPT_URL = "http://chatgpt.test/"
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
SEEKER_SCOPES = ["suche:konto", "suche:anfragen"]
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
BROKER_SCOPES = ["makler:lesen", "makler:schreiben", "makler:senden"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app over real HTTP on a demo catalog of its own (the clicks write to it)."""
    with seeded_database(tmp_path_factory.mktemp("cards"), "cards") as db, LiveServer(db) as live:
        live.db = db  # type: ignore[attr-defined]
        yield live


def in_thread(function: Any, *args: Any) -> Any:
    """Runs an async MCP exchange outside Playwright's event loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, function, *args).result(timeout=60)


def access_token(server: LiveServer, email: str, endpoint: str, scopes: list[str]) -> str:
    with server.db.unit_of_work() as session:  # type: ignore[attr-defined]
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url(endpoint)
        return mint_access_token(session, user_id=user_id, client_id="test", resource=resource, scopes=scopes).access_token


def wire(result: Any) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


class Seeker:
    """A person's MCP client (the seeker's by default): the official client over real HTTP with a bearer token."""

    def __init__(self, server: LiveServer, account: Any = SEEKER, endpoint: str = "suche", scopes: list[str] = SEEKER_SCOPES) -> None:
        self.url = f"{server.base_url}/{endpoint}/mcp"
        self.token = access_token(server, account.email, endpoint, scopes)
        self.clicks: list[dict[str, Any]] = []

    async def _session(self, use: Any) -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30) as http:
            async with Client(streamable_http_client(self.url, http_client=http), mode="2026-07-28") as client:
                return await use(client)

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        async def use(client: Client) -> Any:
            return await client.call_tool(name, arguments)

        return wire(in_thread(self._session, use))

    def card(self, mime: str) -> str:
        async def use(client: Client) -> Any:
            return await client.read_resource(CARD_URI if mime == MCP_APP_MIME else CARD_CHATGPT_URI)

        (content,) = in_thread(self._session, use).contents
        assert content.mime_type == mime
        return str(content.text)

    def call_from_card(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The host's proxy for the card's tools/call: only tools the app may call (visibility "app") go through."""

        async def use(client: Client) -> Any:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            meta = (tools[name].meta or {}) if name in tools else {}
            if "app" not in meta.get("ui", {}).get("visibility", ["model", "app"]):
                raise PermissionError(f"{name} ist für die Karte nicht freigegeben")
            return await client.call_tool(name, arguments)

        result = wire(in_thread(self._session, use))
        self.clicks.append(result)
        return result

    def draft(self, message: str, listing: str | None = None) -> dict[str, Any]:
        listing = listing or self.call("search_listings", {"limit": 1})["structuredContent"]["items"][0]["listing_id"]
        result = self.call("draft_inquiry", {"listing_id": listing, "message": message})
        assert not result.get("isError"), result
        secret = result["_meta"][CONFIRMATION_META_KEY]["token"]
        # The model's view of the result (text and structuredContent) never carries the card's token.
        assert secret not in json.dumps([result["content"], result["structuredContent"]])
        return result


def keep_screenshot(shot: Path, name: str) -> None:
    assert shot.stat().st_size > 5_000, name  # a rendered card, not a blank one
    target = os.environ.get("ATHAUS_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, Path(target) / name)


def host_page(browser: Any, seeker: Seeker, scheme: str) -> Visit:  # noqa: F811
    visit = Visit(browser)
    visit.page.emulate_media(color_scheme=scheme)
    visit.page.route(HOST_URL, lambda route: route.fulfill(status=200, content_type="text/html", body=HOST_PAGE.read_text(encoding="utf-8")))
    visit.page.expose_function("athausCallTool", seeker.call_from_card)
    assert visit.open(HOST_URL) == 200
    return visit


def inquiry_messages(seeker: Seeker, inquiry_id: str) -> str:
    return json.dumps(seeker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)


def test_card_in_an_mcp_apps_host_sends_on_the_click(browser: Any, server: LiveServer, tmp_path: Path) -> None:  # noqa: F811
    seeker = Seeker(server)
    text = "Guten Tag, ist die Wohnung noch frei? Ich würde sie gern am Samstag besichtigen. (Kartentest hell)"
    draft = seeker.draft(text)
    html = seeker.card(MCP_APP_MIME)
    visit = host_page(browser, seeker, "light")
    visit.page.evaluate("setup => window.startHost(setup)", {"html": html, "theme": "light", "toolInput": {}, "toolResult": draft})

    card = visit.page.frame_locator("iframe")
    send = card.get_by_role("button", name="Senden")
    send.wait_for(state="visible")
    confirmation = draft["structuredContent"]["confirmation"]
    assert card.locator("h1").inner_text() == confirmation["summary"]
    assert card.locator("#body").inner_text() == text
    assert card.locator("#to").inner_text() == draft["structuredContent"]["recipient"]
    assert card.locator("#from").inner_text() == draft["structuredContent"]["sender"]
    assert card.get_by_role("button", name="Verwerfen").is_visible()
    shot = tmp_path / "bestaetigungskarte-hell.png"
    visit.page.locator("iframe").screenshot(path=str(shot))
    keep_screenshot(shot, "bestaetigungskarte-hell.png")

    send.focus()
    visit.page.keyboard.press("Enter")
    card.locator(".status.done").wait_for(state="visible")
    assert card.locator("#status-title").inner_text() == "Gesendet"
    assert not send.is_visible()

    methods = [entry["method"] for entry in visit.page.evaluate("window.hostLog")]
    assert methods[:2] == ["ui/initialize", "ui/notifications/initialized"]
    assert "tools/call" in methods
    assert len(seeker.clicks) == 1 and not seeker.clicks[0].get("isError"), seeker.clicks
    clicked = seeker.clicks[0]["structuredContent"]
    assert clicked["confirmation"]["status"] == "sent"
    assert text in inquiry_messages(seeker, clicked["inquiry_id"])
    assert visit.problems == []


def test_card_in_dark_mode_discards_by_keyboard_and_nothing_goes_out(browser: Any, server: LiveServer, tmp_path: Path) -> None:  # noqa: F811
    seeker = Seeker(server)
    text = "Guten Abend, ich hätte Interesse an einer Besichtigung. (Kartentest dunkel, wird verworfen)"
    draft = seeker.draft(text)
    visit = host_page(browser, seeker, "dark")
    visit.page.evaluate(
        "setup => window.startHost(setup)", {"html": seeker.card(MCP_APP_MIME), "theme": "dark", "toolInput": {}, "toolResult": draft}
    )
    card = visit.page.frame_locator("iframe")
    discard = card.get_by_role("button", name="Verwerfen")
    discard.wait_for(state="visible")
    assert card.locator("html").get_attribute("data-theme") == "dark"
    shot = tmp_path / "bestaetigungskarte-dunkel.png"
    visit.page.locator("iframe").screenshot(path=str(shot))
    keep_screenshot(shot, "bestaetigungskarte-dunkel.png")
    dark_background = card.locator("main").evaluate("node => getComputedStyle(node).backgroundColor")
    visit.page.evaluate("window.hostNotify('ui/notifications/host-context-changed', {theme: 'light'})")  # the host's theme wins
    card.locator("html[data-theme='light']").wait_for(state="attached")
    assert card.locator("main").evaluate("node => getComputedStyle(node).backgroundColor") != dark_background
    visit.page.evaluate("window.hostNotify('ui/notifications/host-context-changed', {theme: 'dark'})")
    card.locator("html[data-theme='dark']").wait_for(state="attached")

    card.get_by_role("button", name="Senden").focus()
    visit.page.keyboard.press("Tab")  # focus order: Senden, then Verwerfen
    assert card.locator(":focus").inner_text() == "Verwerfen"
    visit.page.keyboard.press("Space")
    card.locator("#status-title").filter(has_text="Verworfen").wait_for(state="visible")
    assert [click["structuredContent"]["confirmation"]["status"] for click in seeker.clicks] == ["discarded"]
    listed = json.dumps(seeker.call("list_inquiries", {})["structuredContent"], ensure_ascii=False)
    assert text not in listed
    assert visit.problems == []


def test_card_in_chatgpt_form_sends_through_window_openai(browser: Any, server: LiveServer) -> None:  # noqa: F811
    seeker = Seeker(server)
    text = "Hallo, ich interessiere mich für das Inserat. Passt ein Termin nächste Woche? (Kartentest ChatGPT)"
    draft = seeker.draft(text)
    html = seeker.card(SKYBRIDGE_MIME)
    visit = Visit(browser)
    stub = {"theme": "light", "toolOutput": draft["structuredContent"], "toolResponseMetadata": draft["_meta"]}
    visit.page.add_init_script(
        "window.openai = Object.assign(" + json.dumps(stub) + ", {callTool: (name, args) => window.athausCallTool(name, args)});"
    )
    visit.page.expose_function("athausCallTool", seeker.call_from_card)
    visit.page.route(CHATGPT_URL, lambda route: route.fulfill(status=200, content_type="text/html", body=html))
    assert visit.open(CHATGPT_URL) == 200
    send = visit.page.get_by_role("button", name="Senden")
    send.wait_for(state="visible")
    send.dblclick()  # a double click calls the server once (the card waits for the answer; the server sends once anyway)
    visit.page.locator(".status.done").wait_for(state="visible")
    assert len(seeker.clicks) == 1
    clicked = seeker.clicks[0]["structuredContent"]
    assert clicked["confirmation"]["status"] == "sent"
    assert text in inquiry_messages(seeker, clicked["inquiry_id"])
    assert visit.problems == []


def test_web_app_lists_the_draft_and_sends_on_the_click(browser: Any, server: LiveServer, tmp_path: Path) -> None:  # noqa: F811
    seeker = Seeker(server)
    text = "Guten Tag, gibt es noch einen Besichtigungstermin? (Test der Web-App)"
    draft = seeker.draft(text)
    confirmation_id = draft["structuredContent"]["confirmation"]["confirmation_id"]
    visit = Visit(browser)
    log_in_to_the_app(visit, server, SEEKER)
    item = visit.page.locator(f"article[data-confirmation='{confirmation_id}']")
    assert text in item.inner_text()
    shot = tmp_path / "web-app.png"
    visit.page.screenshot(path=str(shot), full_page=True)
    keep_screenshot(shot, "web-app.png")

    item.get_by_role("button", name="Senden").click()
    visit.page.wait_for_url("**/app/?meldung=*")
    assert f"Gesendet: {confirmation_id}" in visit.page.get_by_role("status").inner_text()
    assert visit.page.locator(f"article[data-confirmation='{confirmation_id}']").count() == 0
    sent = seeker.call("send_inquiry", {"confirmation_id": confirmation_id})["structuredContent"]
    assert sent["confirmation"]["status"] == "sent"
    assert text in inquiry_messages(seeker, sent["inquiry_id"])
    assert visit.problems == []


def test_card_with_a_forged_token_says_so_in_german_and_nothing_goes_out(browser: Any, server: LiveServer) -> None:  # noqa: F811
    seeker = Seeker(server)
    text = "Diese Nachricht darf nicht hinausgehen (gefälschtes Token)."
    draft = seeker.draft(text)
    forged = json.loads(json.dumps(draft))
    forged["_meta"][CONFIRMATION_META_KEY]["token"] = "gefaelscht-" + "x" * 32
    visit = host_page(browser, seeker, "light")
    visit.page.evaluate("setup => window.startHost(setup)", {"html": seeker.card(MCP_APP_MIME), "theme": "light", "toolInput": {}, "toolResult": forged})
    card = visit.page.frame_locator("iframe")
    card.get_by_role("button", name="Senden").click()
    alert = card.get_by_role("alert")
    alert.wait_for(state="visible")
    assert seeker.clicks[0]["isError"] is True
    assert seeker.clicks[0]["content"][0]["text"] in alert.inner_text()  # the server's German sentence with the next step
    assert "Nicht ausgeführt" in alert.inner_text()
    confirmation_id = draft["structuredContent"]["confirmation"]["confirmation_id"]
    still = seeker.call("send_inquiry", {"confirmation_id": confirmation_id})["structuredContent"]
    assert still["confirmation"]["status"] == "pending"
    assert text not in json.dumps(seeker.call("list_inquiries", {})["structuredContent"], ensure_ascii=False)
    assert visit.problems == []


def test_card_of_an_expired_or_sent_confirmation_offers_no_buttons(browser: Any, server: LiveServer) -> None:  # noqa: F811
    seeker = Seeker(server)
    draft = seeker.draft("Nur zum Anzeigen (abgelaufen / gesendet).")
    html = seeker.card(MCP_APP_MIME)
    shown = {}
    for state in ("expired", "sent"):
        result = json.loads(json.dumps(draft))
        result["structuredContent"]["confirmation"]["status"] = state
        visit = host_page(browser, seeker, "light")
        visit.page.evaluate("setup => window.startHost(setup)", {"html": html, "theme": "light", "toolInput": {}, "toolResult": result})
        card = visit.page.frame_locator("iframe")
        card.locator("#status").wait_for(state="visible")
        shown[state] = card.locator("#status-title").inner_text()
        assert card.get_by_role("button").count() == 0 or not card.get_by_role("button", name="Senden").is_visible()
        assert visit.problems == []
    assert shown == {"expired": "Abgelaufen", "sent": "Bereits gesendet"}
    assert seeker.clicks == []


def log_in_to_the_app(visit: Visit, server: LiveServer, account: Any) -> None:
    visit.page.context.clear_cookies()  # the browser is shared by the tests of this module: nobody is logged in yet
    assert visit.open(f"{server.base_url}/app/") == 200
    assert visit.page.url.endswith("/app/anmelden")
    visit.page.get_by_label("E-Mail-Adresse").fill(account.email)
    visit.page.get_by_label("Passwort").fill(account.password)
    visit.page.get_by_role("button", name="Anmelden").click()
    visit.page.wait_for_url("**/app/")


def test_end_to_end_inquiry_by_card_reply_in_the_web_app_across_both_servers(browser: Any, server: LiveServer) -> None:  # noqa: F811
    """The issue's flow, as the two people do it: the seeker's card click sends an inquiry; the broker finds it with
    search_inquiries and in the situation report, drafts a reply, confirms it in the web app; the seeker reads it."""
    seeker = Seeker(server)
    broker = Seeker(server, OWNER, "makler", BROKER_SCOPES)
    listing = broker.call("search_listings", {"statuses": ["published"], "limit": 1})["structuredContent"]["items"][0]["listing_id"]
    before = broker.call("show_situation_report", {})["structuredContent"]

    question = "Guten Tag, ich möchte die Wohnung gern besichtigen. Geht es am Dienstagabend? (Ende-zu-Ende-Test)"
    draft = seeker.draft(question, listing)
    visit = host_page(browser, seeker, "light")
    visit.page.evaluate("setup => window.startHost(setup)", {"html": seeker.card(MCP_APP_MIME), "theme": "light", "toolInput": {}, "toolResult": draft})
    card = visit.page.frame_locator("iframe")
    card.get_by_role("button", name="Senden").click()
    card.locator(".status.done").wait_for(state="visible")
    inquiry_id = seeker.clicks[0]["structuredContent"]["inquiry_id"]

    found = broker.call("search_inquiries", {"status": ["open"], "limit": 50})["structuredContent"]["items"]
    assert inquiry_id in [item["inquiry_id"] for item in found]
    assert question in json.dumps(broker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)
    after = broker.call("show_situation_report", {})["structuredContent"]
    section = {entry["section"]: entry for entry in after["sections"]}["inquiries"]
    assert section["total"] == {entry["section"]: entry for entry in before["sections"]}["inquiries"]["total"] + 1

    answer = "Guten Tag, Dienstag um 18 Uhr passt. Wir treffen uns vor dem Haus. (Ende-zu-Ende-Test)"
    reply = broker.call("draft_reply", {"inquiry_id": inquiry_id, "text": answer})["structuredContent"]
    confirmation_id = reply["confirmation"]["confirmation_id"]
    waiting = {e["section"]: e for e in broker.call("show_situation_report", {})["structuredContent"]["sections"]}["confirmations"]
    assert confirmation_id in [item["confirmation_id"] for item in waiting["items"]]
    assert answer not in json.dumps(seeker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)

    app = Visit(browser)
    log_in_to_the_app(app, server, OWNER)
    item = app.page.locator(f"article[data-confirmation='{confirmation_id}']")
    assert answer in item.inner_text()
    item.get_by_role("button", name="Senden").click()
    app.page.wait_for_url("**/app/?meldung=*")
    assert f"Gesendet: {confirmation_id}" in app.page.get_by_role("status").inner_text()

    assert answer in json.dumps(seeker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)
    assert visit.problems == [] and app.problems == []
