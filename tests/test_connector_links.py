"""The links `search` and `fetch` hand out open for a person (Debian's Chromium): a catalog result opens the public
exposé without a login; an office's listing or inquiry opens in the web app after the login, which continues to the
record; another office's record is a German 404; reading an inquiry there writes the personal-data audit."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select, text

from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.db.session import Database
from tests.conftest import LiveServer, seeded_database
from tests.test_broker_http import OWNER
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)


@pytest.fixture(scope="module")
def links_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("links"), "links") as db:
        yield db


@pytest.fixture(scope="module")
def server(links_db: Database) -> Iterator[LiveServer]:
    with LiveServer(links_db, public_at_bind=True) as live:
        yield live


def results(server: LiveServer, db: Database) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """What ChatGPT gets: a catalog search, an office search that finds listings and inquiries, a fetched listing."""
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == OWNER.email))
        token = mint_access_token(
            session, user_id=user_id, client_id="test", resource=f"{server.base_url}/makler/mcp", scopes=["makler:lesen"]
        ).access_token

    with db.read_only() as session:
        inquiry = session.execute(
            text("SELECT i.ref FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 1 ORDER BY i.id LIMIT 1")
        ).scalar_one()

    async def calls() -> tuple[Any, Any, Any]:
        async with Client(f"{server.base_url}/suche/mcp", mode="2026-07-28") as client:
            catalog = await client.call_tool("search", {"query": "Balkon"})
            expose = await client.call_tool("fetch", {"id": catalog.structured_content["results"][0]["id"]})
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{server.base_url}/makler/mcp", http_client=http), mode="2026-07-28") as client:
                stock = await client.call_tool("search", {"query": "Balkon"})
                by_number = await client.call_tool("search", {"query": inquiry})
        office = stock.structured_content["results"][:1] + by_number.structured_content["results"]
        return catalog.structured_content, expose.structured_content, {"results": office}

    # in a thread of its own: Playwright's sync API keeps an event loop running in this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, calls).result()


def heading(page: Any, url: str) -> tuple[int, str]:
    response = page.goto(url)
    return response.status, page.locator("h1").inner_text()


def _unframed(title: str) -> str:
    """A result's title without the frame of quoted text («…») the page heading does not carry."""
    before, opened, rest = title.partition("«")
    inner, closed, after = rest.rpartition("»")
    return before + inner + after if opened and closed else title


def test_every_link_of_a_result_opens_for_a_person(server: LiveServer, links_db: Database, browser: Any) -> None:  # noqa: F811
    catalog, expose, office = results(server, links_db)
    page = browser.new_page()
    try:
        first = catalog["results"][0]
        assert first["url"] == f"{server.base_url}/inserate/{first['id']}"
        status, title = heading(page, first["url"])
        # the result frames the provider's title as quoted text («…»); the page shows it as its heading
        assert (status, f"«{title}» ({expose['metadata']['postal_code']} {expose['metadata']['city']})") == (200, first["title"])
        # the exposé as a portal shows it, not the text a model reads
        assert page.locator("#eckdaten").count() == 1 and page.locator(".body").count() == 0

        listing = next(r for r in office["results"] if r["kind"] == "listing")
        inquiry = next(r for r in office["results"] if r["kind"] == "inquiry")
        page.goto(listing["url"])  # not signed in: the web app's login, which continues to the record
        assert page.url.startswith(f"{server.base_url}/app/anmelden?weiter=")
        page.fill("#email", OWNER.email)
        page.fill("#password", OWNER.password)
        page.click("button[type=submit]")
        page.wait_for_load_state()
        assert (page.url, page.locator("h1").inner_text()) == (listing["url"], _unframed(listing["title"].rsplit(" (", 1)[0]))
        status, title = heading(page, inquiry["url"])
        # the inquiry page quotes the listing's title in German quotation marks, the result in « »
        assert (status, title) == (200, inquiry["title"].rsplit(" (", 1)[0].replace("«", "„").replace("»", "“"))
        with links_db.read_only() as session:
            tools = session.execute(
                text("SELECT tool FROM personal_data_reads WHERE record_ref = :ref ORDER BY id"), {"ref": inquiry["id"]}
            ).scalars().all()
        assert tools[-1] == "web_app"

        with links_db.read_only() as session:
            foreign = session.execute(text("SELECT ref FROM listings WHERE office_id = 2 ORDER BY id LIMIT 1")).scalar_one()
        status, title = heading(page, f"{server.base_url}/app/bestand/{foreign}")
        assert (status, title) == (404, "Nicht gefunden")
        status, title = heading(page, f"{server.base_url}/inserate/A-9999999")
        assert (status, title) == (404, "Nicht gefunden")
    finally:
        page.close()


def test_the_login_continues_only_within_the_web_app(server: LiveServer) -> None:
    with httpx2.Client(base_url=server.base_url) as http:
        for onward in ("https://evil.example/", "//evil.example/app/", "/docs/", "/app/\\\\evil"):
            form = http.get("/app/anmelden", params={"weiter": onward})
            assert 'name="weiter"' not in form.text, onward
