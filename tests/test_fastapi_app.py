"""The HTTP side is one FastAPI app (issue 18): its OpenAPI document covers the HTTP routes and never the MCP endpoints,
is served in development and in production only when configured, and nothing of FastAPI's own answers leaks onto the
wire (no JSON 404/405, no 422 validation body, no Swagger page at /docs, HEAD as Starlette answered it)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from starlette.testclient import TestClient

from athaus.app import create_app
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.identity import version
from shared.settings import Settings
from tests.conftest import _fresh_database_url

HTTP_PATHS = {
    "/.well-known/oauth-authorization-server": {"get"},
    "/.well-known/oauth-protected-resource/makler/mcp": {"get"},
    "/.well-known/oauth-protected-resource/suche/mcp": {"get"},
    "/token": {"post"},
    "/revoke": {"post"},
    "/register": {"post"},
    "/authorize": {"get"},
    "/oauth/anmelden": {"get", "post"},
    "/oauth/zustimmung": {"get", "post"},
    "/app": {"get"},
    "/app/": {"get"},
    "/app/anmelden": {"get", "post"},
    "/app/abmelden": {"post"},
    "/app/bestaetigungen": {"post"},
    "/app/ohne-klick": {"post"},
    "/inserate/{listing_id}": {"get"},
    "/app/bestand/{listing_id}": {"get"},
    "/app/anfragen/{inquiry_id}": {"get"},
    "/app/anfrage/{listing_id}": {"get", "post"},
    "/app/mitarbeitende": {"get"},
    "/app/mitarbeitende/einladen": {"post"},
    "/app/mitarbeitende/rolle": {"post"},
    "/app/mitarbeitende/entfernen": {"post"},
    "/app/meine-daten": {"get"},
    "/app/bestand.xml": {"get"},
    "/app/meine-daten/export.json": {"get"},
    "/app/meine-daten/loeschen": {"post"},
    "/oauth/konto-anlegen": {"get", "post"},
    "/oauth/konto-bestaetigen": {"get", "post"},
    "/oauth/passwort-vergessen": {"get", "post"},
    "/oauth/passwort-neu": {"get", "post"},
    "/oauth/einladung": {"get", "post"},
    "/healthz": {"get"},
    "/healthz/ready": {"get"},
    "/metrics": {"get"},
    "/inserate/{listing_id}": {"get"},
    "/app/anfragen/{inquiry_id}": {"get"},
    "/app/bestand/{listing_id}": {"get"},
}


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    url, drop = _fresh_database_url(Path(tmp_path_factory.mktemp("fastapi")), "fastapi")
    database = Database.from_url(url)
    upgrade(database.engine)
    yield database
    database.engine.dispose()
    drop()


def client(db: Database, **changes: object) -> TestClient:
    settings = Settings(**{"database_url": str(db.engine.url), "secret_key": "fastapi-test", **changes})  # type: ignore[arg-type]
    app = create_app(settings, db)
    assert isinstance(app, FastAPI)
    return TestClient(app, base_url=settings.public_url, follow_redirects=False)


def test_the_openapi_document_covers_the_http_routes_and_not_the_mcp_endpoints(db: Database) -> None:
    with client(db) as http:
        answer = http.get("/openapi.json")
        routes = http.app.state.allowed_methods  # type: ignore[attr-defined]
    assert answer.status_code == 200
    document = answer.json()
    assert document["info"]["version"] == version()
    documented = {path: set(operations) for path, operations in document["paths"].items()}
    # Every HTTP route of the app, with its methods (HEAD is GET's twin, not an operation of its own) ...
    hidden = {"/docs"}  # the redirect to the docs site
    assert documented == {path: {m.lower() for m in methods} - {"head"} for path, methods in routes.items() if path not in hidden}
    # ... at least these, and never an MCP endpoint.
    assert all(documented.get(path) == operations for path, operations in HTTP_PATHS.items())
    assert not {"/makler/mcp", "/suche/mcp"} & set(documented)
    # The forms are documented as the models the routes read them into.
    token_form = document["paths"]["/token"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert {"grant_type", "code", "code_verifier", "refresh_token", "resource", "client_id"} <= set(token_form["properties"])
    consent_form = document["paths"]["/oauth/zustimmung"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"]
    assert consent_form["schema"]["properties"]["scope"]["type"] == "array"
    authorize = {parameter["name"] for parameter in document["paths"]["/authorize"]["get"]["parameters"]}
    assert {"client_id", "redirect_uri", "code_challenge", "code_challenge_method", "resource", "scope", "state"} <= authorize


def test_production_serves_no_openapi_document_unless_configured(db: Database) -> None:
    production = {"public_url": "https://athaus.example", "development": False, "allowed_hosts": ["athaus.example"]}
    with client(db, **production) as http:
        answer = http.get("/openapi.json")
        assert (answer.status_code, answer.text, answer.headers["content-type"]) == (404, "Not Found", "text/plain; charset=utf-8")
    with client(db, **production, openapi=True) as http:
        assert http.get("/openapi.json").status_code == 200
    with client(db, openapi=False) as http:
        assert http.get("/openapi.json").status_code == 404


def test_no_answer_of_fastapi_s_own_reaches_the_wire(db: Database) -> None:
    with client(db) as http:
        unknown = http.get("/gibt-es-nicht")
        assert (unknown.status_code, unknown.text, unknown.headers["content-type"]) == (404, "Not Found", "text/plain; charset=utf-8")
        # A path with GET and POST routes names both (and HEAD) in its 405, in plain text like Starlette.
        wrong_method = http.put("/oauth/anmelden")
        assert (wrong_method.status_code, wrong_method.text, wrong_method.headers["allow"]) == (405, "Method Not Allowed", "GET, HEAD, POST")
        # A file where the form wants text is a missing value, not FastAPI's 422: the OAuth error as always.
        uploaded = http.post("/token", files={"client_id": ("id.txt", b"x")}, data={"grant_type": "authorization_code"})
        assert uploaded.status_code == 401 and uploaded.json()["error"] == "invalid_client"
        registered = http.post("/register", json={"redirect_uris": "keine Liste"})
        assert registered.status_code == 400 and registered.json()["error"] == "invalid_client_metadata"
        # /docs is the docs site, never Swagger UI.
        docs = http.get("/docs/")
        assert docs.status_code == 200 and "swagger" not in docs.text.lower()
        # GET routes answer HEAD as they did on Starlette.
        for path in ("/healthz", "/app/anmelden", "/authorize"):
            head, get = http.head(path), http.get(path)
            assert (head.status_code, head.content) == (get.status_code, b""), path
            assert head.headers["content-type"] == get.headers["content-type"], path
