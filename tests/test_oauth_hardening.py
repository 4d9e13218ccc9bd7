"""The built-in authorization server under attack: development tokens, single-use authorization requests, redirect
URIs, client metadata documents from private addresses, login throttling, registration bounds, expiry and cleanup."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import httpx2
import pytest
from sqlalchemy import select

from shared.auth.tokens import DEVELOPMENT_CLIENT_ID, mint_access_token
from shared.db.models import User
from shared.db.session import Database
from tests.test_oauth import (
    BROKER,
    CHATGPT_REDIRECT,
    Browser,
    OAuthServer,
    authorization_url,
    form_fields,
    fresh_accounts,
    mcp_status,
    pkce,
    register,
    serve,
    token_request,
)


@pytest.fixture(scope="module")
def accounts_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from fresh_accounts(tmp_path_factory)


@pytest.fixture(scope="module")
def athaus_server(accounts_db: Database) -> Iterator[OAuthServer]:
    yield from serve(accounts_db)


@pytest.fixture(scope="module")
def production_server(accounts_db: Database) -> Iterator[OAuthServer]:
    """The same database served with development mode off."""
    yield from serve(accounts_db, development=False)


def development_token(db: Database, server: OAuthServer) -> str:
    with db.unit_of_work() as session:
        user = session.scalars(select(User).where(User.email == BROKER)).one()
        resource = server.resource("makler")
        return mint_access_token(session, user_id=user.id, client_id=DEVELOPMENT_CLIENT_ID, resource=resource, scopes=["makler:lesen"]).access_token


def test_development_tokens_work_only_in_development_mode(
    athaus_server: OAuthServer, production_server: OAuthServer, accounts_db: Database
) -> None:
    assert mcp_status(athaus_server.resource("makler"), development_token(accounts_db, athaus_server)) == 200
    assert mcp_status(production_server.resource("makler"), development_token(accounts_db, production_server)) == 401


def consent_form(athaus: OAuthServer, **params: str | None) -> tuple[Browser, dict[str, Any], str, dict[str, Any]]:
    """A registered client at the consent page: the browser, the client, the PKCE verifier and the form to send."""
    client = register(athaus.base_url).json()
    verifier, challenge = pkce()
    browser = Browser(BROKER)
    page = browser.sign_in(authorization_url(athaus.base_url, client, challenge, resource=athaus.resource("makler"), **params))
    assert page.status_code == 200, page.text
    return browser, client, verifier, {**form_fields(page.text), "entscheidung": "erlauben", "scope": ["makler:lesen"]}


def test_an_authorization_request_is_decided_once(athaus_server: OAuthServer) -> None:
    browser, _, _, form = consent_form(athaus_server)
    first = browser.http.post(urljoin(athaus_server.base_url, "/oauth/zustimmung"), data=form)
    assert first.status_code == 303 and "code=" in first.headers["location"]
    replay = browser.http.post(urljoin(athaus_server.base_url, "/oauth/zustimmung"), data=form)
    assert replay.status_code == 400 and "Über diese Anmeldung wurde schon entschieden" in replay.text


def redeem(athaus: OAuthServer, browser: Browser, client: dict[str, Any], verifier: str, form: dict[str, Any], **extra: str) -> httpx2.Response:
    answer = browser.http.post(urljoin(athaus.base_url, "/oauth/zustimmung"), data=form)
    code = dict(pair.split("=", 1) for pair in answer.headers["location"].split("?", 1)[1].split("&"))["code"]
    return token_request(athaus.base_url, client, grant_type="authorization_code", code=code, code_verifier=verifier, **extra)


def test_redirect_uri_is_required_at_the_token_endpoint_when_it_was_sent(athaus_server: OAuthServer) -> None:
    without = redeem(athaus_server, *consent_form(athaus_server))
    assert without.status_code == 400 and without.json()["error"] == "invalid_grant"
    assert "redirect_uri ist Pflicht" in without.json()["error_description"]
    given = redeem(athaus_server, *consent_form(athaus_server), redirect_uri=CHATGPT_REDIRECT)
    assert given.status_code == 200 and given.json()["access_token"]


def test_redirect_uri_may_be_left_out_at_both_ends(athaus_server: OAuthServer) -> None:
    response = redeem(athaus_server, *consent_form(athaus_server, redirect_uri=None))
    assert response.status_code == 200 and response.json()["scope"] == "makler:lesen"


def test_a_redirect_uri_with_a_fragment_is_refused(athaus_server: OAuthServer) -> None:
    client = register(athaus_server.base_url, "http://127.0.0.1:33418/callback").json()
    _, challenge = pkce()
    for uri in ("http://127.0.0.1:40000/callback#frag", "http://127.0.0.1:33418/callback#"):
        page = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, redirect_uri=uri, resource=athaus_server.resource("makler")))
        assert page.status_code == 400 and "Ungültige Rücksprungadresse" in page.text, uri
    assert register(athaus_server.base_url, "https://app.example/cb#x").status_code == 400
