"""The confirmation card and the web app in a real browser (Debian's Chromium through Playwright), against the real
servers over HTTP. The card in an MCP Apps host (the extension's official host library) is tests/test_mcp_apps_host.py.

- ChatGPT's Apps SDK, which no library can stand in for: the card's HTML with a `window.openai` stub (toolOutput,
  toolResponseMetadata, callTool); the card asks for its state, then the click sends once.
- The web app: log in with the demo login, the draft is listed, "Senden" sends.
- End to end across both servers (the card's part in the official host library): tests/test_mcp_apps_host.py.

The screenshot of the app page goes to the test's temp folder, and also to the folder named by ATHAUS_SCREENSHOTS
(docs/bestaetigungskarte refreshes the ones the docs page "Bestätigungskarte" shows; the site ships that folder, unlike
docs/screenshots).
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
from tests.confirmation_helpers import APPS_EXTENSIONS, CARD_HOST_CLIENT
from tests.conftest import LiveServer, request_key, seeded_database
from tests.test_docs_browser import Visit, browser  # noqa: F401  (the module's Chromium fixture)

CHATGPT_URL = "http://chatgpt.test/"
SEEKER = next(a for a in DEMO_ACCOUNTS if a.email.startswith("suchende@"))
SEEKER_SCOPES = ["suche:konto", "suche:anfragen"]
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
BROKER_SCOPES = ["makler:lesen", "makler:schreiben", "makler:senden"]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app over real HTTP on a demo catalog of its own (the clicks write to it)."""
    # the tokens' client is listed as a card host (ATHAUS_CARD_HOSTS): these tabs play a chat that shows the card
    with seeded_database(tmp_path_factory.mktemp("cards"), "cards") as db, LiveServer(db, card_hosts=[CARD_HOST_CLIENT]) as live:
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
        return mint_access_token(session, user_id=user_id, client_id=CARD_HOST_CLIENT, resource=resource, scopes=scopes).access_token


def wire(result: Any) -> dict[str, Any]:
    return result.model_dump(by_alias=True, mode="json", exclude_none=True)


class Seeker:
    """A person's MCP client (the seeker's by default): the official client over real HTTP with a bearer token."""

    def __init__(self, server: LiveServer, account: Any = SEEKER, endpoint: str = "suche", scopes: list[str] = SEEKER_SCOPES) -> None:
        self.url = f"{server.base_url}/{endpoint}/mcp"
        self.token = access_token(server, account.email, endpoint, scopes)
        self.calls: list[tuple[str, dict[str, Any]]] = []  # (tool, result) of every call the card made

    async def _session(self, use: Any) -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30) as http:
            async with Client(streamable_http_client(self.url, http_client=http), mode="2026-07-28", extensions=APPS_EXTENSIONS) as client:  # renders MCP Apps
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
        self.calls.append((name, result))
        return result

    @property
    def clicks(self) -> list[dict[str, Any]]:
        return [result for name, result in self.calls if name == "decide_confirmation"]

    def draft(self, message: str, listing: str | None = None) -> dict[str, Any]:
        listing = listing or self.call("search_listings", {"limit": 1})["structuredContent"]["items"][0]["listing_id"]
        result = self.call("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": message})
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


def inquiry_messages(seeker: Seeker, inquiry_id: str) -> str:
    return json.dumps(seeker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)


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
    assert [name for name, _ in seeker.calls] == ["get_confirmation"]  # the state first, then the buttons
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


def log_in_to_the_app(visit: Visit, server: LiveServer, account: Any) -> None:
    visit.page.context.clear_cookies()  # the browser is shared by the tests of this module: nobody is logged in yet
    assert visit.open(f"{server.base_url}/app/") == 200
    assert visit.page.url.endswith("/app/anmelden")
    visit.page.get_by_label("E-Mail-Adresse").fill(account.email)
    visit.page.get_by_label("Passwort").fill(account.password)
    visit.page.get_by_role("button", name="Anmelden").click()
    visit.page.wait_for_url("**/app/")
