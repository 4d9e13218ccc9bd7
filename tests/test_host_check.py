"""The Host header is checked on every route (issue 18): the OAuth endpoints and metadata, the sign-in pages, the web
app, health, the docs site, the OpenAPI document and both MCP endpoints answer only under the public URL's host and a
loopback name at the port the server listens on; a loopback name at another port or a foreign host is 421, over real
HTTP. The routes are read from the app itself, so a route added later is checked here too."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from starlette.routing import Mount, Route

from shared.db.session import Database
from shared.runtime.edge import AcceptedHosts
from tests.conftest import LiveServer


def every_route(app: FastAPI) -> dict[str, str]:
    """Path → a method it answers, for every route of the app (included routers, plain routes, mounts)."""
    routes = {path: ("GET" if "GET" in methods else methods[0]) for path, methods in app.state.allowed_methods.items()}
    for route in app.router.routes:
        if isinstance(route, Mount):
            routes[route.path + "/"] = "GET"
        elif isinstance(route, Route):
            routes[route.path] = "GET" if route.methods and "GET" in route.methods else "POST"
    return routes


@pytest.fixture(scope="module")
def server(demo_db: Database) -> Iterator[LiveServer]:
    # A public URL of its own (a proxy's name) and the loopback bind on a free port, as behind a local reverse proxy.
    with LiveServer(demo_db, public_url="https://athaus.example", development=False, openapi=True) as live:
        yield live


def test_every_route_answers_only_its_own_hosts(server: LiveServer) -> None:
    app = server.server.config.app
    routes = every_route(app)
    expected = {"/token", "/register", "/revoke", "/authorize", "/oauth/anmelden", "/oauth/zustimmung", "/app", "/app/",
                "/app/anmelden", "/app/abmelden", "/app/bestaetigungen", "/app/ohne-klick", "/healthz", "/healthz/ready", "/docs", "/docs/",
                "/openapi.json", "/makler/mcp", "/suche/mcp", "/.well-known/oauth-authorization-server"}
    assert expected <= set(routes)
    port = server.port
    refused = ["evil.example", f"evil.example:{port}", f"127.0.0.1:{port + 1}", f"localhost:{port - 1}", "127.0.0.1",
               "[::1]:8000", "athaus.example:8443", ""]
    accepted = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}", "athaus.example", "athaus.example:443", "ATHAUS.example"]
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        for path, method in sorted(routes.items()):
            for host in refused:
                answer = http.request(method, path, headers={"Host": host})
                assert answer.status_code == 421, (path, host, answer.status_code)
                assert answer.text.startswith("Diese Installation antwortet nur unter ihrer öffentlichen Adresse"), path
            for host in accepted:
                answer = http.request(method, path, headers={"Host": host, "Accept": "application/json, text/event-stream"})
                assert answer.status_code != 421, (path, host)


def test_the_accepted_hosts_are_port_exact_for_loopback() -> None:
    local = AcceptedHosts("http://127.0.0.1:8000", [])
    assert local.allows("127.0.0.1:8000", 8000) and local.allows("localhost:8000", 8000) and local.allows("[::1]:8000", 8000)
    assert not local.allows("127.0.0.1:8001", 8000) and not local.allows("localhost", 8000) and not local.allows("[::1]", 8000)
    # Listening on another port than the public URL names (a test server, --port 0): that port counts as well.
    assert local.allows("localhost:41234", 41234) and local.allows("127.0.0.1:8000", 41234)
    assert not local.allows(None, 8000) and not local.allows("evil.example:8000", 8000)
    configured = AcceptedHosts("https://mcp.example.de", ["intern.example.de", "proxy.example:*"])
    assert configured.allows("mcp.example.de", 8000) and configured.allows("mcp.example.de:443", 8000)
    assert not configured.allows("mcp.example.de:8443", 8000)
    assert configured.allows("intern.example.de", 8000) and not configured.allows("intern.example.de:81", 8000)
    assert configured.allows("proxy.example:9000", 8000) and configured.allows("proxy.example", 8000)
    assert configured.allows("localhost:80", 80) and configured.allows("localhost", 80)


@pytest.mark.parametrize("host", ["ATHAUS.EXAMPLE:443", "Athaus.Example", "LOCALHOST:{port}"])
def test_a_host_in_capitals_is_the_same_host_on_pages_and_mcp_endpoints(server: LiveServer, host: str) -> None:
    """Host names ignore case everywhere (issue 34: `MCP.EXAMPLE:443` passed the pages but got 421 from the MCP SDK)."""
    named = {"Host": host.format(port=server.port)}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    mcp_headers = {**named, "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        page = http.get("/app/anmelden", headers=named)
        listed = http.post("/suche/mcp", json=call, headers=mcp_headers)
        refused = http.post("/suche/mcp", json=call, headers={**mcp_headers, "Host": "EVIL.EXAMPLE"})
    assert page.status_code == 200, page.text[:300]
    assert listed.status_code == 200 and listed.json()["result"]["tools"], listed.text[:300]
    assert refused.status_code == 421
