"""The official Python MCP client (mcp.client.auth) signs in by itself, from scratch, over real HTTP: the call of an
account tool is answered 401 with the scope it needs, the client discovers the authorization server, registers,
sends the person through the real German login and consent pages (driven by plain HTTP with cookies and the CSRF
token), redeems the code and repeats the call, which then runs."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

import anyio
import pytest

from shared.db.session import Database
from tests.test_oauth import (
    BROKER,
    CHATGPT_REDIRECT,
    SEEKER,
    Browser,
    MemoryStorage,
    OAuthServer,
    connected,
    fresh_accounts,
    oauth_client,
    serve,
)


@pytest.fixture(scope="module")
def accounts_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from fresh_accounts(tmp_path_factory)


@pytest.fixture(scope="module")
def athaus_server(accounts_db: Database) -> Iterator[OAuthServer]:
    yield from serve(accounts_db)


@pytest.mark.parametrize(
    ("server", "email", "tool", "right", "mode"),
    [
        ("suche", SEEKER, "list_inquiries", "suche:konto", "2025-11-25"),
        ("suche", SEEKER, "list_search_orders", "suche:konto", "2026-07-28"),
        ("makler", BROKER, "search_inquiries", "makler:lesen", "2025-11-25"),
        ("makler", BROKER, "show_situation_report", "makler:lesen", "2026-07-28"),
    ],
)
def test_the_official_client_signs_in_by_itself_and_calls_an_account_tool(
    athaus_server: OAuthServer, server: str, email: str, tool: str, right: str, mode: str
) -> None:
    url = athaus_server.resource(server)
    browser = Browser(email)  # consents to what the page ticks, as a person pressing "Erlauben"
    storage = MemoryStorage()
    auth = oauth_client(url, browser, storage, name="Python-Client", redirect_uri=CHATGPT_REDIRECT)

    async def session() -> tuple[bool, str | None]:
        async with connected(url, "legacy" if mode == "2025-11-25" else mode, auth=auth) as client:
            await client.list_tools()
            result = await client.call_tool(tool, {})
            return bool(result.is_error), (result.meta or {}).get("athaus/code")

    is_error, code = anyio.run(session)
    assert (is_error, code) == (False, None)
    assert len(browser.authorization_urls) == 1  # one sign-in, started by the client itself
    asked = dict(parse_qsl(urlsplit(browser.authorization_urls[0]).query))
    assert asked["resource"] == url and asked["scope"] == right and asked["code_challenge_method"] == "S256"
    assert storage.client_info is not None  # registered dynamically
    assert storage.tokens is not None and storage.tokens.scope == right and storage.tokens.refresh_token
