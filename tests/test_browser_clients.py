"""Browser clients of 2026-07-28: the official TypeScript SDK client (@modelcontextprotocol/client, pinned to
2026-07-28) runs in a page in Chromium on an allowed origin and calls both servers over real HTTP: /suche/mcp
anonymously, /makler/mcp with a token minted by `athaus token`. Its requests carry the revision's headers (Mcp-Method,
Mcp-Name, MCP-Protocol-Version, Authorization), so each call passes the CORS preflight only if the server grants them.
From an origin that is not allowed, the browser keeps the answer from the page. Both servers declare the MCP Apps
extension in the capabilities the client sees."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract.confirmations import MCP_APP_MIME, UI_EXTENSION
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import LiveServer
from tests.mcp_host import HostPage, foreign_site, host_site  # noqa: F401  (the page's fixtures)
from tests.test_docs_browser import browser  # noqa: F401  (the module's Chromium fixture)

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)


def minted_token(server: LiveServer, email: str, endpoint: str) -> str:
    """A token as an operator mints it: the `athaus token` command against the server's database."""
    env = {**os.environ, "ATHAUS_DATABASE_URL": server.database_url}
    command = [str(Path(sys.executable).with_name("athaus")), "token", "--user", email, "--server", endpoint]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def page(browser: Any, host_site: str) -> Iterator[HostPage]:  # noqa: F811
    tab = HostPage(browser, host_site)
    yield tab
    tab.page.close()


def test_the_typescript_client_in_a_page_calls_the_search_server_anonymously(page: HostPage, live_server: LiveServer) -> None:
    called = page.js(
        "([url, args]) => window.athausHost.call(url, null, 'count_listings', args)",
        [f"{live_server.base_url}/suche/mcp", {"city": "Leipzig"}],
    )
    assert not called["result"].get("isError"), called["result"]
    assert called["result"]["structuredContent"]["total"] > 0
    assert "count_listings" in called["tools"]
    assert called["capabilities"]["extensions"] == {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}
    call = next(h for h in page.sent_headers if h.get("mcp-name") == "count_listings")
    assert call["mcp-method"] == "tools/call" and call["mcp-protocol-version"] == "2026-07-28"
    assert page.problems == []


def test_the_typescript_client_in_a_page_calls_the_broker_server_with_a_minted_token(page: HostPage, live_server: LiveServer) -> None:
    token = minted_token(live_server, OWNER.email, "makler")
    called = page.js(
        "([url, token]) => window.athausHost.call(url, token, 'search_listings', {limit: 1})",
        [f"{live_server.base_url}/makler/mcp", token],
    )
    assert not called["result"].get("isError"), called["result"]
    assert len(called["result"]["structuredContent"]["items"]) == 1
    assert called["capabilities"]["extensions"] == {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}
    call = next(h for h in page.sent_headers if h.get("mcp-name") == "search_listings")
    assert call["authorization"] == f"Bearer {token}" and call["mcp-method"] == "tools/call"
    assert page.problems == []


def test_a_page_on_a_foreign_origin_gets_no_answer(browser: Any, foreign_site: str, live_server: LiveServer) -> None:  # noqa: F811
    tab = HostPage(browser, foreign_site)
    try:
        failure = tab.js(
            "url => window.athausHost.call(url, null, 'count_listings', {}).then(() => 'beantwortet', e => String(e))",
            f"{live_server.base_url}/suche/mcp",
        )
        assert failure != "beantwortet", failure
        assert any("blocked by CORS policy" in problem for problem in tab.problems), tab.problems
    finally:
        tab.page.close()
