"""The confirmation card in a real MCP Apps host: the official host library (@modelcontextprotocol/ext-apps, AppBridge)
and the official TypeScript SDK client in Debian's Chromium (tests/mcp_host.py), against the live servers over HTTP.

The host does what the extension's example host does: it calls the draft tool as the model would, reads the tool's
`_meta.ui.resourceUri` (one content of the MCP App type), renders it through a sandbox proxy on another origin under
the CSP from `_meta.ui.csp`, initialises the view, sends tool input and result, proxies the view's `tools/call` (only
tools visible to apps) as its own requests, which declare the MCP Apps extension in their client capabilities. The
person clicks in the card; the database says what happened.

And the issue's flow across both servers: the seeker's card sends an inquiry, the broker finds it (search_inquiries,
situation report), drafts a reply, confirms it in the web app, and the seeker reads it with get_inquiry.

Screenshots of the card (light and dark) go to the test's temp folder and to the folder named by ATHAUS_SCREENSHOTS
(docs/bestaetigungskarte refreshes the docs page "Bestätigungskarte")."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from contract.confirmations import CARD_URI
from shared.db.models import Inquiry, InquiryMessage, PendingAction
from tests.confirmation_helpers import CARD_HOST_CLIENT, open_inquiry, published_listing
from tests.conftest import LiveServer, request_key, seeded_database
from tests.mcp_host import SANDBOX_CSPS, HostPage, host_site, sandbox_url  # noqa: F401  (the page's fixtures)
from tests.test_confirmation_browser import BROKER_SCOPES, OWNER, SEEKER, SEEKER_SCOPES, Seeker, access_token, keep_screenshot, log_in_to_the_app
from tests.test_docs_browser import Visit
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The app over real HTTP on a demo catalog of its own (the clicks write to it)."""
    # the tokens' client is listed as a card host (ATHAUS_CARD_HOSTS): these tabs play a chat that shows the card
    with seeded_database(tmp_path_factory.mktemp("host"), "host") as db, LiveServer(db, card_hosts=[CARD_HOST_CLIENT]) as live:
        live.db = db  # type: ignore[attr-defined]
        yield live


class Card:
    """One host tab showing the card of one tool call, as one person (the seeker by default)."""

    def __init__(self, browser: Any, origin: str, sandbox: str, server: LiveServer, scheme: str = "light", broker: bool = False) -> None:
        self.server = server
        self.db = server.db  # type: ignore[attr-defined]
        self.endpoint = "makler" if broker else "suche"
        account, scopes = (OWNER, BROKER_SCOPES) if broker else (SEEKER, SEEKER_SCOPES)
        self.token = access_token(server, account.email, self.endpoint, scopes)
        self.host = HostPage(browser, origin, scheme=scheme)
        self.sandbox = sandbox
        self.frame = self.host.page.frame_locator("iframe").frame_locator("iframe")  # host → sandbox proxy → card

    def show(self, tool: str, args: dict[str, Any] | None = None, result: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        setup = {"url": f"{self.server.base_url}/{self.endpoint}/mcp", "token": self.token, "tool": tool, "args": args or {}, "sandboxUrl": self.sandbox}
        if result is not None:
            setup["result"] = result
        return dict(self.host.js("setup => window.athausHost.showCard(setup)", {**setup, **extra}))

    def calls(self, name: str | None = None) -> list[dict[str, Any]]:
        return [c for c in self.host.js("() => window.athausHost.calls()") if name is None or c["name"] == name]

    def status(self) -> tuple[str, str]:
        box = self.frame.locator("#status")
        box.wait_for(state="visible")
        return self.frame.locator("#status-title").inner_text(), self.frame.locator("#status-text").inner_text()

    def buttons(self) -> list[str]:
        return [b.inner_text() for b in self.frame.get_by_role("button").all() if b.is_visible()]

    def close(self) -> None:
        self.host.page.close()


@pytest.fixture
def card(browser: Any, host_site: str, sandbox_url: str, server: LiveServer) -> Iterator[Any]:  # noqa: F811
    opened: list[Card] = []

    def open_card(**options: Any) -> Card:
        tab = Card(browser, host_site, sandbox_url, server, **options)
        opened.append(tab)
        return tab

    yield open_card
    for tab in opened:
        tab.close()


def published(server: LiveServer) -> str:
    """A listing of another office than the broker's (whose inquiries the end-to-end test counts)."""
    return published_listing(server.db, office_id=2)  # type: ignore[attr-defined]


def messages(server: LiveServer, body: str) -> int:
    with server.db.read_only() as session:  # type: ignore[attr-defined]
        return int(session.scalar(select(func.count()).select_from(InquiryMessage).where(InquiryMessage.body == body)) or 0)


def pending_status(server: LiveServer, ref: str) -> tuple[str, str | None]:
    with server.db.read_only() as session:  # type: ignore[attr-defined]
        row = session.execute(select(PendingAction.status, PendingAction.via).where(PendingAction.ref == ref)).one()
        return row.status, row.via


def test_the_card_sends_once_on_the_click_and_a_repeat_changes_nothing(card: Any, server: LiveServer, tmp_path: Path) -> None:
    tab = card()
    text = "Guten Tag, ist die Wohnung noch frei? Ich würde sie gern am Samstag besichtigen. (Kartentest hell)"
    draft = tab.show("draft_inquiry", {"request_id": request_key(), "listing_id": published(server), "message": text})
    confirmation = draft["structuredContent"]["confirmation"]
    send = tab.frame.get_by_role("button", name="Senden")
    send.wait_for(state="visible")

    # initialised through the library: the card's ui/initialize, the resource as the extension's host reads it
    log = tab.host.js("() => window.athausHost.log()")
    assert [entry["kind"] for entry in log] == ["resource", "initialized"]
    assert log[0]["uri"] == CARD_URI and log[0]["ui"] == {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}
    assert log[1]["appInfo"]["name"] == "athaus-bestaetigung" and log[1]["appCapabilities"]["availableDisplayModes"] == ["inline"]
    assert "connect-src 'self'" in SANDBOX_CSPS[-1] and "default-src 'none'" in SANDBOX_CSPS[-1]
    # rendered: what goes out, to whom, from whom; the card asked the server for the state before offering buttons
    assert tab.frame.locator("h1").inner_text() == confirmation["summary"]
    assert tab.frame.locator("#body").inner_text() == text
    assert tab.frame.locator("#to").inner_text() == draft["structuredContent"]["recipient"]
    assert tab.frame.locator("#from").inner_text() == draft["structuredContent"]["sender"]
    assert [c["name"] for c in tab.calls()] == ["get_confirmation"]
    assert tab.buttons() == ["Senden", "Verwerfen"]
    # the size the card reports is what it draws; the host sized its frame to it
    drawn = tab.frame.locator("main").evaluate("node => { const b = node.getBoundingClientRect(); return {width: Math.ceil(b.width), height: Math.ceil(b.height)}; }")
    assert tab.host.js("() => window.athausHost.sizes()")[-1] == drawn and drawn["width"] <= 640
    shot = tmp_path / "bestaetigungskarte-hell.png"
    tab.host.page.locator("iframe").screenshot(path=str(shot))
    keep_screenshot(shot, "bestaetigungskarte-hell.png")

    send.focus()
    tab.host.page.keyboard.press("Enter")
    tab.frame.locator(".status.done").wait_for(state="visible")
    assert tab.frame.locator("#status-title").inner_text() == "Gesendet"
    assert "nach dem Klick" in tab.frame.locator("#status-text").inner_text()
    assert tab.buttons() == []
    clicks = tab.calls("decide_confirmation")
    assert len(clicks) == 1 and clicks[0]["result"]["structuredContent"]["confirmation"]["status"] == "sent"
    assert messages(server, text) == 1 and pending_status(server, confirmation["confirmation_id"]) == ("sent", "card")

    # the host pushes results again (the extension's interactive phase): this click's "Gesendet" stays
    tab.host.js("() => window.athausHost.pushResult()")
    tab.host.js("result => window.athausHost.pushResult(result)", draft)
    tab.host.page.wait_for_timeout(300)
    assert tab.frame.locator("#status-title").inner_text() == "Gesendet"
    assert "nach dem Klick" in tab.frame.locator("#status-text").inner_text()
    assert tab.buttons() == []

    # the same card shown again later (a conversation reopened): the server's state, no button, nothing twice
    again = card()
    again.show("draft_inquiry", result=draft)
    again.frame.locator("#status-title").filter(has_text=re.compile("^Bereits gesendet$")).wait_for()
    assert again.buttons() == [] and again.frame.locator("#expiry").is_hidden()
    assert [c["name"] for c in again.calls()] == ["get_confirmation"]
    assert messages(server, text) == 1
    assert tab.host.problems == [] and again.host.problems == []


def test_the_card_in_dark_mode_discards_and_nothing_goes_out(card: Any, server: LiveServer, tmp_path: Path) -> None:
    tab = card(scheme="dark")
    text = "Guten Abend, ich hätte Interesse an einer Besichtigung. (Kartentest dunkel, wird verworfen)"
    draft = tab.show("draft_inquiry", {"request_id": request_key(), "listing_id": published(server), "message": text}, theme="dark")
    discard = tab.frame.get_by_role("button", name="Verwerfen")
    discard.wait_for(state="visible")
    assert tab.frame.locator("html").get_attribute("data-theme") == "dark"
    # the card's background fills its frame: no strip of the browser's canvas beside it
    colours = tab.frame.locator("main").evaluate(
        "node => [getComputedStyle(document.documentElement).backgroundColor, getComputedStyle(document.body).backgroundColor, getComputedStyle(node).backgroundColor]"
    )
    assert colours[0] == colours[1] == colours[2] != "rgba(0, 0, 0, 0)", colours
    assert tab.frame.locator("main").evaluate("node => getComputedStyle(node).borderTopStyle") == "none"  # the host draws the frame
    shot = tmp_path / "bestaetigungskarte-dunkel.png"
    tab.host.page.locator("iframe").screenshot(path=str(shot))
    keep_screenshot(shot, "bestaetigungskarte-dunkel.png")
    tab.host.js("() => window.athausHost.setTheme('light')")  # the host's theme wins
    tab.frame.locator("html[data-theme='light']").wait_for(state="attached")
    assert tab.frame.locator("main").evaluate("node => getComputedStyle(node).backgroundColor") != colours[2]
    tab.host.js("() => window.athausHost.setTheme('dark')")
    tab.frame.locator("html[data-theme='dark']").wait_for(state="attached")

    tab.frame.get_by_role("button", name="Senden").focus()
    tab.host.page.keyboard.press("Tab")  # focus order: Senden, then Verwerfen
    assert tab.frame.locator(":focus").inner_text() == "Verwerfen"
    tab.host.page.keyboard.press("Space")
    tab.frame.locator("#status-title").filter(has_text=re.compile("^Verworfen$")).wait_for()
    assert [c["result"]["structuredContent"]["confirmation"]["status"] for c in tab.calls("decide_confirmation")] == ["discarded"], tab.calls()
    assert messages(server, text) == 0
    assert pending_status(server, draft["structuredContent"]["confirmation"]["confirmation_id"])[0] == "discarded"
    assert tab.host.problems == []


def test_an_error_result_shows_its_sentence_instead_of_loading_forever(card: Any, server: LiveServer) -> None:
    tab = card(broker=True)
    with server.db.read_only() as session:  # type: ignore[attr-defined]
        foreign = session.scalar(select(Inquiry.ref).where(Inquiry.office_id != OWNER.office_id).limit(1))
    result = tab.show("draft_reply", {"request_id": request_key(), "inquiry_id": foreign, "text": "Darf nicht vorbereitet werden."})
    assert result["isError"] is True and "structuredContent" not in result
    title, said = tab.status()
    assert title == "Nicht vorbereitet" and said == result["content"][0]["text"]
    assert "wird geladen" not in tab.frame.locator("h1").inner_text()
    assert tab.buttons() == [] and tab.calls() == []
    assert tab.host.problems == []


def test_a_draft_without_text_is_never_offered_for_sending(card: Any, server: LiveServer) -> None:
    """The server refuses such drafts now (tests/test_confirmations_http.py); a card of an older one offers no Senden."""
    drafted = card(broker=True).show("draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(server.db), "text": "Wird gleich geleert."})  # type: ignore[attr-defined]
    blank = json.loads(json.dumps(drafted))
    blank["structuredContent"]["text"] = " \n "
    tab = card(broker=True)
    tab.show("draft_reply", result=blank)
    tab.frame.get_by_role("button", name="Verwerfen").wait_for(state="visible")
    assert tab.buttons() == ["Verwerfen"]
    assert "keinen Text" in tab.frame.locator("#hint").inner_text()
    assert tab.calls("decide_confirmation") == []
    assert tab.host.problems == []


def test_a_card_shown_again_after_expiry_or_with_a_forged_token_sends_nothing(card: Any, server: LiveServer) -> None:
    tab = card()
    text = "Diese Nachricht darf nicht hinausgehen (gefälschtes Token, später abgelaufen)."
    draft = tab.show("draft_inquiry", {"request_id": request_key(), "listing_id": published(server), "message": text})
    forged = json.loads(json.dumps(draft))
    forged["_meta"]["athaus/confirmation"]["token"] = "gefaelscht-" + "x" * 32
    fake = card()
    fake.show("draft_inquiry", result=forged)
    fake.frame.get_by_role("button", name="Senden").click()
    alert = fake.frame.get_by_role("alert")
    alert.wait_for(state="visible")
    (click,) = fake.calls("decide_confirmation")
    assert click["result"]["isError"] is True and click["result"]["content"][0]["text"] in alert.inner_text()
    assert messages(server, text) == 0

    ref = draft["structuredContent"]["confirmation"]["confirmation_id"]
    with server.db.unit_of_work() as session:  # type: ignore[attr-defined]
        session.execute(update(PendingAction).where(PendingAction.ref == ref).values(expires_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1)))
    later = card()
    later.show("draft_inquiry", result=draft)
    later.frame.locator("#status-title").filter(has_text=re.compile("^Abgelaufen$")).wait_for()
    assert later.buttons() == []
    assert messages(server, text) == 0 and pending_status(server, ref)[0] == "pending"
    assert fake.host.problems == [] and later.host.problems == []


def test_end_to_end_inquiry_by_card_reply_in_the_web_app_across_both_servers(card: Any, browser: Any, server: LiveServer) -> None:  # noqa: F811
    """The issue's flow, as the two people do it: the seeker's card click sends an inquiry; the broker finds it with
    search_inquiries and in the situation report, drafts a reply, confirms it in the web app; the seeker reads it."""
    seeker = Seeker(server)
    broker = Seeker(server, OWNER, "makler", BROKER_SCOPES)
    listing = broker.call("search_listings", {"statuses": ["published"], "limit": 1})["structuredContent"]["items"][0]["listing_id"]
    before = broker.call("show_situation_report", {})["structuredContent"]

    question = "Guten Tag, ich möchte die Wohnung gern besichtigen. Geht es am Dienstagabend? (Ende-zu-Ende-Test)"
    tab = card()
    tab.show("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": question})
    tab.frame.get_by_role("button", name="Senden").click()
    tab.frame.locator(".status.done").wait_for(state="visible")
    inquiry_id = tab.calls("decide_confirmation")[0]["result"]["structuredContent"]["inquiry_id"]

    found = broker.call("search_inquiries", {"status": ["open"], "limit": 50})["structuredContent"]["items"]
    assert inquiry_id in [item["inquiry_id"] for item in found]
    assert question in json.dumps(broker.call("get_inquiry", {"inquiry_id": inquiry_id})["structuredContent"], ensure_ascii=False)
    after = broker.call("show_situation_report", {})["structuredContent"]
    section = {entry["section"]: entry for entry in after["sections"]}["inquiries"]
    assert section["total"] == {entry["section"]: entry for entry in before["sections"]}["inquiries"]["total"] + 1

    answer = "Guten Tag, Dienstag um 18 Uhr passt. Wir treffen uns vor dem Haus. (Ende-zu-Ende-Test)"
    reply = broker.call("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry_id, "text": answer})["structuredContent"]
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
    assert tab.host.problems == [] and app.problems == []
