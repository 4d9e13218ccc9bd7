"""The card in an MCP Apps host of either revision, behind two instances (issue 30, item 1): the extension's host library
(@modelcontextprotocol/ext-apps, AppBridge) and the official TypeScript client in Debian's Chromium (tests/mcp_host.py),
in the client's default 2025-11-25 era (the extension declared once, at initialize, carried by the session id) and
pinned to 2026-07-28 (declared with every request), against two instances on one database behind one round-robin
address (tests/one_address.py), so the requests of one session reach both.

A host whose OAuth client is registered as a card host (ATHAUS_CARD_HOSTS lists the test's client) gets the token and
the person's click in the card sends, recorded as the card's; the same page with an unregistered client, or registered
but not declaring the extension, gets the page link and no token, in either era."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from contract.confirmations import CONFIRMATION_META_KEY, MCP_APP_MIME, UI_EXTENSION
from shared.auth.tokens import mint_access_token
from shared.db.models import PendingAction, User
from shared.db.session import Database
from shared.settings import Settings
from tests.confirmation_helpers import CARD_HOST_CLIENT, SEEKER, SEEKER_SCOPES, published_listing
from tests.conftest import LiveServer, request_key, seeded_database
from tests.mcp_host import HostPage, host_site, sandbox_url  # noqa: F401  (the page's fixtures)
from tests.one_address import OneAddress, one_address
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)

ERAS = ["2025-11-25", "2026-07-28"]


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OneAddress, Database]]:
    """Two instances on one database (secrets from it), the test's client listed as a card host, one address."""
    with seeded_database(tmp_path_factory.mktemp("cardbrowser"), "cardbrowser") as db:
        with LiveServer(db, card_hosts=[CARD_HOST_CLIENT], secret_key=None) as a, LiveServer(db, card_hosts=[CARD_HOST_CLIENT], secret_key=None) as b:
            with one_address(a.base_url, b.base_url) as front:
                yield front, db


def bearer(db: Database, client: str) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == SEEKER.email))
        resource = Settings().resource_url("suche")
        return mint_access_token(session, user_id=user_id, client_id=client, resource=resource, scopes=sorted(SEEKER_SCOPES)).access_token


def recorded(db: Database, ref: str) -> tuple[str, str | None]:
    with db.read_only() as session:
        status, via = session.execute(select(PendingAction.status, PendingAction.via).where(PendingAction.ref == ref)).one()
        return status, via


@pytest.fixture
def tab(browser: Any, host_site: str) -> Iterator[HostPage]:  # noqa: F811
    page = HostPage(browser, host_site)
    yield page
    page.page.close()


@pytest.mark.parametrize("era", ERAS)
def test_the_card_of_a_registered_host_sends_in_either_era_across_two_instances(
    tab: HostPage, sandbox_url: str, pair: tuple[OneAddress, Database], era: str  # noqa: F811
) -> None:
    front, db = pair
    before = len(front.served)
    setup = {
        "url": f"{front.url}/suche/mcp", "token": bearer(db, CARD_HOST_CLIENT), "tool": "draft_inquiry", "sandboxUrl": sandbox_url, "era": era,
        "args": {"request_id": request_key(), "listing_id": published_listing(db), "message": f"Ist die Wohnung noch frei? (Karte, {era})"},
    }
    draft = tab.js("setup => window.athausHost.showCard(setup)", setup)
    (connection,) = tab.js("() => window.athausHost.connections()")
    assert connection["era"] == era
    assert (connection["sessionId"] is not None) is (era == "2025-11-25")
    card = draft["_meta"][CONFIRMATION_META_KEY]
    assert len(card["token"]) > 16
    frame = tab.page.frame_locator("iframe").frame_locator("iframe")  # host → sandbox proxy → card
    send = frame.get_by_role("button", name="Senden")
    send.wait_for(state="visible")
    send.click()
    deadline = time.monotonic() + 20
    clicks: list[dict[str, Any]] = []
    while not clicks:  # the host has the click's answer (the database has it a moment earlier)
        assert time.monotonic() < deadline, recorded(db, card["confirmation_id"])
        time.sleep(0.2)
        clicks = [c for c in tab.js("() => window.athausHost.calls()") if c["name"] == "decide_confirmation"]
    assert recorded(db, card["confirmation_id"]) == ("sent", "card")
    assert len(clicks) == 1 and not clicks[0]["result"].get("isError"), clicks
    assert clicks[0]["result"]["structuredContent"]["confirmation"]["confirmed_via"] == "card"
    posts = [served for served in front.served[before:] if served.method == "POST"]
    assert {served.instance for served in posts} == {0, 1}
    carried = [served for served in posts if served.session_id]
    if era == "2025-11-25":  # the session's requests (the card's click among them) carried its id to both instances
        assert {served.session_id for served in carried} == {connection["sessionId"]}
        assert {served.instance for served in carried} == {0, 1} and all(served.status in (200, 202) for served in carried)
    else:
        assert carried == []
    assert without_the_refused_stream(tab.problems, era) == []


def without_the_refused_stream(problems: list[str], era: str) -> list[str]:
    """The page's problems less the 405 of the standalone GET stream a 2025-11-25 client opens once it has a session
    (the revision lets a server that offers no stream answer exactly that; the stateless servers offer none)."""
    return [problem for problem in problems if not (era == "2025-11-25" and ("HTTP 405" in problem or "405 (Method Not Allowed)" in problem))]


@pytest.mark.parametrize("era", ERAS)
def test_a_page_that_is_not_a_registered_host_or_does_not_declare_gets_the_link(tab: HostPage, pair: tuple[OneAddress, Database], era: str) -> None:
    front, db = pair
    for client, declare in (("some-other-client", True), (CARD_HOST_CLIENT, False)):
        args = {"request_id": request_key(), "listing_id": published_listing(db), "message": f"Nur der Link ({era}, {client}, {declare})"}
        called = tab.js(
            "([url, token, args, options]) => window.athausHost.call(url, token, 'draft_inquiry', args, options)",
            [f"{front.url}/suche/mcp", bearer(db, client), args, {"era": era, "declareUi": declare}],
        )
        result = called["result"]
        assert not result.get("isError"), result
        block = result["structuredContent"]["confirmation"]
        assert "token" not in result["_meta"][CONFIRMATION_META_KEY]
        assert block["confirm_url"] == f"{Settings().public_url.rstrip('/')}/app/bestaetigungen/{block['confirmation_id']}"
        assert recorded(db, block["confirmation_id"]) == ("pending", None)
        # the server states the extension in either era (2025-11-25: in initialize, 2026-07-28: server/discover)
        assert called["capabilities"]["extensions"] == {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}
    assert [c["era"] for c in tab.js("() => window.athausHost.connections()")] == [era, era]
    assert without_the_refused_stream(tab.problems, era) == []
