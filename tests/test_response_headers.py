"""`X-Content-Type-Options: nosniff` on every response (issue 30: it was on the sign-in pages only, missing on
/healthz, /docs/, /.well-known/* and the MCP endpoints): every route of the app with every method it declares, the
docs site, and the answers no route gives (404, 405, the host check's 421, the edge's 413)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from athaus.app import create_app
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.settings import Settings
from tests.conftest import _fresh_database_url


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url, drop = _fresh_database_url(Path(tmp_path_factory.mktemp("headers")), "headers")
    db = Database.from_url(url)
    upgrade(db.engine)
    settings = Settings(database_url=url, secret_key="headers-test", metrics_token="m" * 32, max_request_bytes=4096)
    with TestClient(create_app(settings, db), base_url=settings.public_url, follow_redirects=False) as client:
        yield client
    db.engine.dispose()
    drop()


def app_routes(client: TestClient) -> dict[str, set[str]]:
    """Path → methods of every route of the app: the rooms' routers (`app.state.allowed_methods`), and the routes and
    mounts registered on the app itself (the MCP endpoints, the OpenAPI document, the docs site)."""
    app = client.app
    routes = {path: set(methods) for path, methods in app.state.allowed_methods.items()}  # type: ignore[attr-defined]
    for route in app.routes:  # type: ignore[attr-defined]
        if isinstance(route, Route):
            routes.setdefault(route.path, set()).update(route.methods or {"POST"})
        elif isinstance(route, Mount):
            routes.setdefault(f"{route.path}/", set()).update({"GET", "HEAD"})
    return routes


def _requests(client: TestClient) -> list[tuple[str, str]]:
    """(method, path) for every route with each of its methods and one it does not take (405), path parameters
    filled, and a file the docs site does not have (404)."""
    walked: list[tuple[str, str]] = [("GET", "/docs/gibt-es-nicht.html")]
    for path, methods in app_routes(client).items():
        filled = re.sub(r"\{[^}]+\}", "X-000001", path)
        walked += [(method, filled) for method in sorted(methods | {"GET", "DELETE"})]
    return walked


def test_every_route_answers_nosniff(http: TestClient) -> None:
    walked = _requests(http)
    paths = {path for _, path in walked}
    # the walk reaches what the issue named
    assert {"/healthz", "/docs/", "/.well-known/oauth-authorization-server", "/makler/mcp", "/suche/mcp", "/token", "/app/"} <= paths
    missing = []
    statuses = set()
    for method, path in walked:
        response = http.request(method, path, headers={"Origin": "http://127.0.0.1:8000"} if method == "POST" else {})
        statuses.add(response.status_code)
        if response.headers.get("x-content-type-options") != "nosniff":
            missing.append((method, path, response.status_code))
    assert missing == []
    assert {200, 404, 405} <= statuses  # answers of routes, of the docs site and of no route at all


def test_the_answers_no_route_gives_carry_it_too(http: TestClient) -> None:
    answers = {
        "unknown path": http.get("/gibt-es-nicht"),
        "wrong host": http.get("/healthz", headers={"Host": "evil.example"}),
        "too large": http.post("/token", content=b"x" * 5000, headers={"Content-Type": "application/x-www-form-urlencoded"}),
        "preflight": http.options("/makler/mcp", headers={"Origin": "https://claude.ai", "Access-Control-Request-Method": "POST"}),
    }
    assert {name: (r.status_code, r.headers.get("x-content-type-options")) for name, r in answers.items()} == {
        "unknown path": (404, "nosniff"),
        "wrong host": (421, "nosniff"),
        "too large": (413, "nosniff"),
        "preflight": (answers["preflight"].status_code, "nosniff"),
    }
    # one header, never two (the sign-in pages set it themselves)
    page = http.get("/oauth/passwort-vergessen")
    assert page.headers.get_list("x-content-type-options") == ["nosniff"]
