"""Origin on every state-changing route (issue 30: only the MCP endpoints checked it, though the README says other
origins get 403). Every route with a method other than GET/HEAD/OPTIONS, walked from the app itself: a foreign
`Origin` (and `null`) is 403 before anything is read; the deployment's own origin, and no `Origin` at all, reach the
route. The token endpoint, registration and revocation are called by servers and native clients without `Origin`
(accepted) and by browser-based MCP clients from ATHAUS_ALLOWED_ORIGINS (accepted there, as their CORS grant; a form
page refuses those)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from athaus.app import create_app
from shared.auth.cors import SAFE_METHODS, WRONG_ORIGIN
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.settings import Settings
from tests.conftest import _fresh_database_url
from tests.test_response_headers import app_routes

PUBLIC = "https://athaus.example"
BROWSER_CLIENT = "https://inspector.example"  # an allowed origin (a browser-based MCP client)
ENDPOINTS = {"/token", "/register", "/revoke"}
MCP = {"/makler/mcp", "/suche/mcp"}
PAGE_REFUSAL = "Anfrage abgelehnt"


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    url, drop = _fresh_database_url(Path(tmp_path_factory.mktemp("origin")), "origin")
    db = Database.from_url(url)
    upgrade(db.engine)
    settings = Settings(database_url=url, secret_key="origin-test", public_url=PUBLIC, development=False, allowed_origins=[BROWSER_CLIENT])
    with TestClient(create_app(settings, db), base_url=PUBLIC, follow_redirects=False) as client:
        yield client
    db.engine.dispose()
    drop()


def changing_routes(http: TestClient) -> list[tuple[str, str]]:
    """Every (method, path) that changes state, but the MCP endpoints: the MCP SDK checks their Origin against the same
    list once the token is checked (tests/test_cors.py)."""
    return sorted(
        (method, re.sub(r"\{[^}]+\}", "X-000001", path))
        for path, methods in app_routes(http).items()
        for method in methods - SAFE_METHODS
        if path not in MCP
    )


def refused(response: object) -> str | None:
    """How the origin check refused (the endpoint's JSON or the page), None when the request reached the route."""
    if response.status_code != 403:  # type: ignore[attr-defined]
        return None
    if response.headers.get("content-type", "").startswith("application/json"):  # type: ignore[attr-defined]
        body = response.json()  # type: ignore[attr-defined]
        return "endpoint" if body == {"error": "invalid_request", "error_description": WRONG_ORIGIN} else None
    text = response.text  # type: ignore[attr-defined]
    return "page" if f"<title>{PAGE_REFUSAL} · Athaus</title>" in text and WRONG_ORIGIN in text else None


def test_the_walk_covers_every_form_and_endpoint(http: TestClient) -> None:
    paths = {path for _, path in changing_routes(http)}
    assert {"/token", "/register", "/revoke", "/oauth/anmelden", "/oauth/zustimmung", "/oauth/konto-anlegen", "/oauth/passwort-vergessen",
            "/app/anmelden", "/app/abmelden", "/app/bestaetigungen", "/app/ohne-klick", "/app/meine-daten/loeschen"} <= paths
    assert MCP <= set(app_routes(http))


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "https://athaus.example.evil.example", "http://athaus.example:8443"])
def test_a_foreign_origin_is_refused_on_every_state_changing_route(http: TestClient, origin: str) -> None:
    answers = {}
    for method, path in changing_routes(http):
        response = http.request(method, path, headers={"Origin": origin, "Content-Type": "application/x-www-form-urlencoded"}, content=b"a=1")
        answers[(method, path)] = refused(response)
    assert answers == {(method, path): "endpoint" if path in ENDPOINTS else "page" for method, path in changing_routes(http)}


@pytest.mark.parametrize("origin", [PUBLIC, "https://ATHAUS.example:443", None])
def test_the_own_origin_and_none_reach_every_route(http: TestClient, origin: str | None) -> None:
    headers = {"Content-Type": "application/x-www-form-urlencoded"} | ({"Origin": origin} if origin else {})
    answers = {(method, path): refused(http.request(method, path, headers=headers, content=b"a=1")) for method, path in changing_routes(http)}
    assert answers == dict.fromkeys(answers)


def test_a_browser_client_from_the_allowed_origins_reaches_the_endpoints_but_no_form(http: TestClient) -> None:
    answers = {}
    for method, path in changing_routes(http):
        response = http.request(method, path, headers={"Origin": BROWSER_CLIENT, "Content-Type": "application/x-www-form-urlencoded"}, content=b"a=1")
        answers[(method, path)] = refused(response)
    assert answers == {(method, path): None if path in ENDPOINTS else "page" for method, path in answers}
    registered = http.post("/register", json={"redirect_uris": ["https://inspector.example/callback"]}, headers={"Origin": BROWSER_CLIENT})
    assert registered.status_code == 201 and registered.headers["access-control-allow-origin"] == BROWSER_CLIENT
    assert json.loads(registered.text)["client_id"]


def test_a_real_form_from_the_own_page_goes_through(http: TestClient) -> None:
    """The login of the web app as a browser sends it: its own origin, the CSRF cookie and token."""
    page = http.get("/app/anmelden")
    token = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    assert token is not None
    answer = http.post("/app/anmelden", data={"csrf_token": token.group(1), "email": "niemand@example.de", "password": "falsch"}, headers={"Origin": PUBLIC})
    assert answer.status_code == 400 and "E-Mail-Adresse oder Passwort stimmt nicht" in answer.text
    foreign = http.post("/app/anmelden", data={"csrf_token": token.group(1), "email": "niemand@example.de", "password": "falsch"}, headers={"Origin": "https://evil.example"})
    assert refused(foreign) == "page"
