"""CORS on the MCP and OAuth endpoints from the allowed origins only, over real HTTP; GET on an MCP endpoint is 405."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from shared.auth.cors import OriginPolicy
from shared.db.session import Database
from tests.test_oauth import OAuthServer, fresh_accounts, serve

LOCAL_APP = "http://localhost:5173"
CONFIGURED_APP = "https://inspector.example"
FOREIGN = "https://evil.example"
# What the Streamable HTTP clients send: 2026-07-28 (MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-{Name}) and
# 2025-11-25 (Mcp-Session-Id, Last-Event-ID); the TypeScript SDK client in Chromium: tests/test_browser_clients.py.
WANTED_HEADERS = ["authorization", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name", "mcp-param-region", "mcp-session-id", "last-event-id"]
ENDPOINTS = [
    ("/suche/mcp", "POST"),
    ("/makler/mcp", "POST"),
    ("/token", "POST"),
    ("/register", "POST"),
    ("/revoke", "POST"),
    ("/.well-known/oauth-authorization-server", "GET"),
    ("/.well-known/oauth-protected-resource/suche/mcp", "GET"),
    ("/.well-known/oauth-protected-resource/makler/mcp", "GET"),
]
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


@pytest.fixture(scope="module")
def accounts_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from fresh_accounts(tmp_path_factory)


@pytest.fixture(scope="module")
def athaus_server(accounts_db: Database) -> Iterator[OAuthServer]:
    origins = ["http://127.0.0.1:*", "http://localhost:*", CONFIGURED_APP]
    yield from serve(accounts_db, allowed_origins=origins)


def preflight(base: str, path: str, method: str, origin: str) -> httpx2.Response:
    return httpx2.options(
        f"{base}{path}",
        headers={"Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": ", ".join(WANTED_HEADERS)},
    )


@pytest.mark.parametrize(("path", "method"), ENDPOINTS)
@pytest.mark.parametrize("origin", [LOCAL_APP, CONFIGURED_APP])
def test_a_preflight_from_an_allowed_origin_is_granted(athaus_server: OAuthServer, path: str, method: str, origin: str) -> None:
    response = preflight(athaus_server.base_url, path, method, origin)
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == origin
    assert method in response.headers["access-control-allow-methods"]
    allowed = [name.strip().lower() for name in response.headers["access-control-allow-headers"].split(",")]
    assert all(name in allowed for name in WANTED_HEADERS)
    exposed = response.headers["access-control-expose-headers"].lower()
    assert "www-authenticate" in exposed and "mcp-session-id" in exposed
    assert "access-control-allow-credentials" not in response.headers


@pytest.mark.parametrize(("path", "method"), ENDPOINTS)
def test_a_foreign_origin_gets_no_grant(athaus_server: OAuthServer, path: str, method: str) -> None:
    response = preflight(athaus_server.base_url, path, method, FOREIGN)
    assert response.status_code == 403
    assert not [name for name in response.headers if name.startswith("access-control-")]


def test_the_401_of_an_account_tool_is_readable_by_an_allowed_browser_client(athaus_server: OAuthServer) -> None:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_inquiries", "arguments": {}}}
    response = httpx2.post(athaus_server.resource("suche"), json=call, headers={**MCP_HEADERS, "Origin": LOCAL_APP})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == LOCAL_APP
    assert "WWW-Authenticate" in response.headers["access-control-expose-headers"]
    public = {**call, "params": {"name": "count_listings", "arguments": {}}}
    answered = httpx2.post(athaus_server.resource("suche"), json=public, headers={**MCP_HEADERS, "Origin": LOCAL_APP})
    assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == LOCAL_APP
    token = httpx2.post(f"{athaus_server.base_url}/token", data={"grant_type": "authorization_code"}, headers={"Origin": LOCAL_APP})
    assert token.headers["access-control-allow-origin"] == LOCAL_APP


def test_a_foreign_origin_gets_no_grant_on_the_real_request(athaus_server: OAuthServer) -> None:
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    response = httpx2.post(athaus_server.resource("suche"), json=listing, headers={**MCP_HEADERS, "Origin": FOREIGN})
    assert response.status_code == 403  # the transport's origin check (DNS rebinding protection)
    assert "access-control-allow-origin" not in response.headers
    metadata = httpx2.get(f"{athaus_server.base_url}/.well-known/oauth-authorization-server", headers={"Origin": FOREIGN})
    assert metadata.status_code == 200 and "access-control-allow-origin" not in metadata.headers


@pytest.mark.parametrize("server", ["suche", "makler"])
@pytest.mark.parametrize("method", ["GET", "DELETE", "PUT"])
def test_an_mcp_endpoint_takes_only_post(athaus_server: OAuthServer, server: str, method: str) -> None:
    response = httpx2.request(method, athaus_server.resource(server), headers={"Accept": "text/event-stream"}, timeout=5)
    assert response.status_code == 405 and response.headers["allow"] == "POST"


def test_origin_patterns() -> None:
    policy = OriginPolicy(["http://127.0.0.1:*", "https://app.example"])
    assert policy.allows("http://127.0.0.1:6274") and policy.allows("http://127.0.0.1") and policy.allows("https://app.example")
    for origin in ("http://127.0.0.1.evil.example", "https://app.example.evil", "http://app.example", "null", None, ""):
        assert not policy.allows(origin), origin
