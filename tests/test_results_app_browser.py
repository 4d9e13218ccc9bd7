"""The search results as an app in the chat (issue 33, item 3) in a real MCP Apps host: the extension's host library
(@modelcontextprotocol/ext-apps, AppBridge) with the official TypeScript client in Chromium (tests/mcp_host.py), in both
protocol eras (2025-11-25, the extension declared at initialize; 2026-07-28, declared with every request).

The host calls search_listings as the model would and shows the app the tool names: the cards of the real result in
its order, "Weitere laden" fetches the next page through the host with the cursor, selecting a card shows the exposé
(get_listing through the host), "Anfrage stellen" drafts the inquiry (draft_inquiry through the host, a fresh
request_id) and shows the confirmation card inside the app, whose click sends, recorded as the card's.

Screenshots at 390 and 1280 px go to the test's temp folder and to ATHAUS_SCREENSHOTS (the docs' "Ansichten")."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from contract.catalog import RESULTS_CHATGPT_URI, RESULTS_URI
from contract.confirmations import SKYBRIDGE_MIME
from contract.vocabulary import PropertyType, label
from shared.db.models import Listing, PendingAction
from shared.settings import Settings
from tests.confirmation_helpers import CARD_HOST_CLIENT
from tests.conftest import LiveServer, seeded_database
from tests.mcp_host import HostPage, host_site, sandbox_url  # noqa: F401  (the page's fixtures)
from tests.test_confirmation_browser import CHATGPT_URL, SEEKER, SEEKER_SCOPES, Seeker, access_token, keep_screenshot
from tests.test_docs_browser import Visit
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)
from tests.test_expose_browser import change

STAND_IN = (  # a drawn "photo" answered for the image store's URLs (the app's test needs no stored JPEG): sky, a facade, windows
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600"><defs><linearGradient id="s" x1="0" y1="0" x2="0" y2="1">'
    '<stop offset="0" stop-color="#8fb8de"/><stop offset="1" stop-color="#dce9f5"/></linearGradient></defs>'
    '<rect width="800" height="600" fill="url(#s)"/><rect y="470" width="800" height="130" fill="#7a9a5b"/>'
    '<rect x="180" y="170" width="440" height="300" fill="#efe2cf"/><path d="M150 180L400 60l250 120z" fill="#8b3a2b"/>'
    + "".join(f'<rect x="{x}" y="{y}" width="60" height="70" fill="#4a6a8a"/>' for x in (230, 370, 510) for y in (220, 340))
    + "</svg>"
)


ERAS = ["2025-11-25", "2026-07-28"]
SEARCH = {"city": "Leipzig", "limit": 4, "include": {"photos": True}}


PUBLIC = Settings().public_url.rstrip("/")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A demo catalog of its own; its first Leipzig listing has photos in the image store (this deployment's address,
    a floor plan among them), the others only the demo's addresses elsewhere, which never load."""
    with seeded_database(tmp_path_factory.mktemp("results"), "results") as db, LiveServer(db, card_hosts=[CARD_HOST_CLIENT]) as live:
        live.db = db  # type: ignore[attr-defined]
        with db.read_only() as session:
            ref = session.scalars(select(Listing.ref).where(Listing.status == "published", Listing.city == "Leipzig").order_by(Listing.id).limit(1)).one()
        photos = [
            {"url": f"{PUBLIC}/bilder/{ref}/1.jpg", "caption": "Grundriss Erdgeschoss"},
            {"url": f"{PUBLIC}/bilder/{ref}/2.jpg", "caption": "Ansicht von der Straße"},
        ]
        change(db, ref, photos=photos)
        yield live


class ResultsTab:
    """A host tab showing the app of one search_listings call, as the seeker (a registered card host's token)."""

    def __init__(self, browser: Any, origin: str, sandbox: str, server: LiveServer, width: int = 1280, scheme: str = "light") -> None:
        self.server = server
        self.host = HostPage(browser, origin, scheme=scheme)
        self.host.page.set_viewport_size({"width": width, "height": 900})
        if width < 760:  # a phone: the host's column is the screen less its margin
            self.host.page.add_style_tag(content="#slot { width: 100% !important; } body { padding: 8px !important; }")
        self.sandbox = sandbox
        self.token = access_token(server, SEEKER.email, "suche", SEEKER_SCOPES)
        self.app = self.host.page.frame_locator("iframe").frame_locator("iframe")  # host → sandbox proxy → app
        # the image store's address answers with a drawn stand-in (the store is not part of this test)
        self.host.page.route(f"{PUBLIC}/bilder/**", lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=STAND_IN))

    def show(self, args: dict[str, Any], era: str) -> dict[str, Any]:
        setup = {"url": f"{self.server.base_url}/suche/mcp", "token": self.token, "tool": "search_listings", "args": args, "sandboxUrl": self.sandbox, "era": era}
        return dict(self.host.js("setup => window.athausHost.showCard(setup)", setup))

    def calls(self, name: str) -> list[dict[str, Any]]:
        return [c for c in self.host.js("() => window.athausHost.calls()") if c["name"] == name]

    def shown_ids(self) -> list[str]:
        return [str(a.get_attribute("data-listing")) for a in self.app.locator("article.hit").all()]

    def wait_for_cards(self, count: int) -> None:
        self.app.locator("article.hit").nth(count - 1).wait_for(state="visible")
        assert self.app.locator("article.hit").count() == count

    def shot(self, tmp_path: Path, name: str) -> None:
        time.sleep(0.3)  # the frame follows the app's last size report
        self.host.page.evaluate("window.scrollTo(0, 0)")
        frame = self.host.page.locator("iframe").first.bounding_box()
        assert frame is not None
        size = self.host.page.viewport_size or {"width": 1280}
        self.host.page.set_viewport_size({"width": size["width"], "height": max(900, int(frame["y"] + frame["height"]) + 40)})
        time.sleep(0.2)
        path = tmp_path / name
        self.host.page.locator("iframe").first.screenshot(path=str(path))
        keep_screenshot(path, name)


@pytest.fixture
def results(browser: Any, host_site: str, sandbox_url: str, server: LiveServer) -> Iterator[Any]:  # noqa: F811
    opened: list[ResultsTab] = []

    def open_tab(**options: Any) -> ResultsTab:
        tab = ResultsTab(browser, host_site, sandbox_url, server, **options)
        opened.append(tab)
        return tab

    yield open_tab
    for tab in opened:
        tab.host.page.close()


def pending(server: LiveServer, ref: str) -> tuple[str, str | None]:
    with server.db.read_only() as session:  # type: ignore[attr-defined]
        row = session.execute(select(PendingAction.status, PendingAction.via).where(PendingAction.ref == ref)).one()
        return row.status, row.via


def card_texts(tab: ResultsTab, index: int) -> list[str]:
    card = tab.app.locator("article.hit").nth(index)
    return [p.inner_text() for p in card.locator("h2, p").all()]


def money(value: float) -> str:
    return f"{value:,.0f}".replace(",", ".") + " €"


def expected_card(item: dict[str, Any]) -> list[str]:
    """What a card says of a hit, in the card's order (the compact form: an amount, or the field under `absent`)."""
    absent = item.get("absent", {})
    rent = item["marketing_type"] == "rent"
    if "price" in item:
        price = ("Kaltmiete " if rent else "Kaufpreis ") + money(item["price"]) + (f" · warm {money(item['warm_rent'])}" if rent and "warm_rent" in item else "")
    else:
        price = "Preis auf Anfrage" if absent.get("price") == "withheld" else "Preis: keine Angabe"
    number = lambda value: f"{value:g}".replace(".", ",")  # noqa: E731
    sizes = [f"{number(item['rooms'])} Zimmer"] if "rooms" in item else []
    sizes += [f"{number(item['living_area'])} m² Wohnfläche"] if "living_area" in item else []
    sizes += [f"{money(item['plot_area'])[:-2]} m² Grundstück"] if "plot_area" in item else []
    place = f"{item['postal_code']} {item['city']}" + (f", {item['district']}" if "district" in item else "")
    energy = f"Energieklasse {item['energy_class']}" if "energy_class" in item else "Energieklasse: keine Angabe"
    return [item["title"], price, *([" · ".join(sizes)] if sizes else []), place, energy]


def assert_pictures(tab: ResultsTab, items: list[dict[str, Any]]) -> None:
    """The title photo where the result has one on this deployment's address (never the floor plan), loaded; else the
    drawing labelled "Illustration", never a broken image."""
    for index, item in enumerate(items):
        card = tab.app.locator("article.hit").nth(index)
        own = [p for p in item.get("photos", []) if p["url"].startswith(PUBLIC + "/") and "Grundriss" not in (p["caption"] or "")]
        if own:
            image = card.locator("img")
            assert image.get_attribute("src") == own[0]["url"]
            image.evaluate("img => img.complete || new Promise(done => img.addEventListener('load', done))")
            assert image.evaluate("img => img.naturalWidth") > 0
            assert card.locator(".badge").count() == 0
        else:
            assert card.locator("img").count() == 0
            assert card.locator(".badge").inner_text() == "Illustration"
            assert card.locator(".pic").get_attribute("aria-label") == f"Illustration: {label(PropertyType(item['property_type']))}, kein Foto"


@pytest.mark.parametrize("era", ERAS)
def test_the_app_shows_the_hits_loads_more_opens_the_expose_and_drafts_through_the_card(
    results: Any, server: LiveServer, era: str, tmp_path: Path
) -> None:
    tab = results()
    result = tab.show(SEARCH, era)
    (connection,) = tab.host.js("() => window.athausHost.connections()")
    assert connection["era"] == era
    log = tab.host.js("() => window.athausHost.log()")
    assert log[0]["uri"] == RESULTS_URI and log[1]["appInfo"]["name"] == "athaus-treffer"
    first = result["structuredContent"]
    assert first["completeness"]["complete"] is False and len(first["items"]) == 4

    # the cards of the real result, in its order, each saying what the result says
    tab.wait_for_cards(4)
    assert tab.shown_ids() == [item["listing_id"] for item in first["items"]]
    assert [card_texts(tab, i) for i in range(4)] == [expected_card(item) for item in first["items"]]
    assert_pictures(tab, first["items"])
    assert tab.app.locator("#list-summary").inner_text() == f"Teilergebnis: 4 von {first['total']} Treffern gezeigt."
    if era == "2026-07-28":
        tab.shot(tmp_path, "treffer-app-1280.png")

    # "Weitere laden": the next page through the host, with the same arguments and the cursor
    tab.app.get_by_role("button", name="Weitere laden").click()
    tab.wait_for_cards(8)
    (more,) = tab.calls("search_listings")
    assert more["arguments"] == {**SEARCH, "cursor": first["completeness"]["next_cursor"]}
    second = more["result"]["structuredContent"]
    assert tab.shown_ids() == [item["listing_id"] for item in first["items"] + second["items"]]
    assert [card_texts(tab, i) for i in range(4, 8)] == [expected_card(item) for item in second["items"]]
    assert_pictures(tab, first["items"] + second["items"])
    assert tab.app.locator("article.hit img").count() == 1  # the one listing with photos in the store
    assert tab.app.locator("#list-summary").inner_text() == f"Alle {first['total']} Treffer." and first["total"] == 8
    assert tab.app.get_by_role("button", name="Weitere laden").count() == 0 or not tab.app.locator("#more-box").is_visible()

    # selecting a card shows the exposé (get_listing through the host)
    chosen = first["items"][1]
    tab.app.locator("article.hit").nth(1).get_by_role("button").click()
    tab.app.locator("#detail-view").wait_for(state="visible")
    (opened,) = tab.calls("get_listing")
    assert opened["arguments"] == {"listing_id": chosen["listing_id"]}
    detail = opened["result"]["structuredContent"]
    assert tab.app.locator("#d-title").inner_text() == detail["title"] == chosen["title"]
    facts = dict(zip(tab.app.locator("#d-facts dt").all_inner_texts(), tab.app.locator("#d-facts dd").all_inner_texts()))
    assert facts["Zimmer"] == f"{detail['areas']['rooms']:g}".replace(".", ",")
    assert tab.app.locator("#d-caption").inner_text() == "Illustration – noch kein Foto dieses Objekts"
    if era == "2026-07-28":
        tab.shot(tmp_path, "treffer-app-expose-1280.png")
    tab.app.get_by_role("button", name="Zurück zu den Treffern").click()
    tab.wait_for_cards(8)
    tab.app.locator("article.hit").nth(1).get_by_role("button").click()
    tab.app.locator("#detail-view").wait_for(state="visible")

    # "Anfrage stellen": draft_inquiry through the host with a fresh request_id, then the confirmation card in the app
    tab.app.get_by_role("button", name="Anfrage stellen").click()
    card = tab.app.frame_locator("#card-frame")
    send = card.get_by_role("button", name="Senden")
    send.wait_for(state="visible")
    (draft,) = tab.calls("draft_inquiry")
    assert draft["arguments"]["listing_id"] == chosen["listing_id"] and len(draft["arguments"]["request_id"]) >= 8
    confirmation = draft["result"]["structuredContent"]["confirmation"]
    assert card.locator("h1").inner_text() == confirmation["summary"]
    assert card.locator("#body").inner_text() == draft["arguments"]["message"]
    send.click()
    card.locator(".status.done").wait_for(state="visible")
    assert card.locator("#status-title").inner_text() == "Gesendet"
    (click,) = tab.calls("decide_confirmation")
    assert click["result"]["structuredContent"]["confirmation"]["status"] == "sent"
    assert pending(server, confirmation["confirmation_id"]) == ("sent", "card")
    if era == "2026-07-28":
        tab.shot(tmp_path, "treffer-app-anfrage-1280.png")
    problems = [p for p in tab.host.problems if not (era == "2025-11-25" and "405" in p)]
    assert problems == []


def test_the_app_on_a_phone_and_in_the_dark(results: Any, server: LiveServer, tmp_path: Path) -> None:
    tab = results(width=390, scheme="dark")
    result = tab.show({"city": "Leipzig", "limit": 3}, "2026-07-28")["structuredContent"]
    tab.wait_for_cards(3)
    assert tab.shown_ids() == [item["listing_id"] for item in result["items"]]
    frame = tab.host.page.locator("iframe").first.bounding_box()
    assert frame is not None and frame["width"] <= 390
    # one column on a phone: the cards stand one below the other, none wider than the frame
    boxes = [tab.app.locator("article.hit").nth(i).bounding_box() for i in range(3)]
    assert all(box is not None and box["width"] <= frame["width"] for box in boxes)
    assert len({round(box["x"]) for box in boxes if box}) == 1
    tab.host.js("() => window.athausHost.setTheme('dark')")
    tab.app.locator("html[data-theme='dark']").wait_for(state="attached")
    # the size the app reports is what it draws; the host sized its frame to it
    drawn = tab.app.locator("main").evaluate("node => { const b = node.getBoundingClientRect(); return {width: Math.ceil(b.width), height: Math.ceil(b.height)}; }")
    time.sleep(0.3)
    assert tab.host.js("() => window.athausHost.sizes()")[-1] == drawn
    tab.shot(tmp_path, "treffer-app-390-dunkel.png")
    tab.app.locator("article.hit").first.get_by_role("button").click()
    tab.app.locator("#detail-view").wait_for(state="visible")
    tab.shot(tmp_path, "treffer-app-expose-390-dunkel.png")
    assert tab.host.problems == []


def test_the_app_in_chatgpt_form_works_through_window_openai(browser: Any, server: LiveServer) -> None:  # noqa: F811
    """The Apps SDK form: ChatGPT hands the app toolInput and toolOutput and carries its calls (window.openai.callTool)."""
    seeker = Seeker(server)
    args = {"city": "Leipzig", "limit": 4}
    result = seeker.call("search_listings", args)
    body = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": RESULTS_CHATGPT_URI}}
    (content,) = httpx.post(f"{server.base_url}/suche/mcp", json=body, headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}).json()["result"]["contents"]
    assert content["mimeType"] == SKYBRIDGE_MIME
    visit = Visit(browser)
    stub = {"theme": "dark", "toolInput": args, "toolOutput": result["structuredContent"], "toolResponseMetadata": None}
    # ChatGPT puts window.openai into the app's frame only: Playwright runs an init script in every frame, the
    # confirmation card's frame inside the app included, which would make the card a ChatGPT app of its own
    visit.page.add_init_script(
        "if (window.parent === window) window.openai = Object.assign(" + json.dumps(stub) + ", {callTool: (name, args) => window.athausCallTool(name, args)});"
    )
    visit.page.expose_function("athausCallTool", seeker.call_from_card)
    visit.page.route(f"{PUBLIC}/bilder/**", lambda route: route.fulfill(status=200, content_type="image/svg+xml", body=STAND_IN))
    visit.page.route(CHATGPT_URL, lambda route: route.fulfill(status=200, content_type="text/html", body=content["text"]))
    try:
        assert visit.open(CHATGPT_URL) == 200
        assert visit.page.locator("html").get_attribute("data-theme") == "dark"
        visit.page.locator("article.hit").nth(3).wait_for(state="visible")
        first = result["structuredContent"]["items"]
        assert [a.get_attribute("data-listing") for a in visit.page.locator("article.hit").all()] == [i["listing_id"] for i in first]
        visit.page.get_by_role("button", name="Weitere laden").click()
        visit.page.locator("article.hit").nth(7).wait_for(state="visible")
        assert seeker.calls[0][0] == "search_listings"
        visit.page.locator("article.hit").nth(0).get_by_role("button").click()
        visit.page.locator("#detail-view").wait_for(state="visible")
        assert visit.page.locator("#d-title").inner_text() == first[0]["title"]
        visit.page.get_by_role("button", name="Anfrage stellen").click()
        card = visit.page.frame_locator("#card-frame")
        card.get_by_role("button", name="Senden").wait_for(state="visible")
        assert [name for name, _ in seeker.calls] == ["search_listings", "get_listing", "draft_inquiry", "get_confirmation"]
        card.get_by_role("button", name="Verwerfen").click()
        card.locator("#status-title").filter(has_text="Verworfen").wait_for(state="visible")
        assert seeker.calls[-1][0] == "decide_confirmation" and seeker.calls[-1][1]["structuredContent"]["confirmation"]["status"] == "discarded"
        assert visit.problems == []
    finally:
        visit.page.close()
