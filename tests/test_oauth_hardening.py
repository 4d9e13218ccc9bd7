"""The built-in authorization server under attack: development tokens, single-use authorization requests, redirect
URIs, client metadata documents from private addresses, login throttling, registration bounds, expiry and cleanup."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
from collections.abc import Iterator
from typing import Any
from urllib.parse import urljoin

import anyio
import httpx
import httpx2
import pytest
import respx
from sqlalchemy import select, update

from shared import outbound as fetch_module
from shared.outbound import FetchRefused, _PinnedTransport, address_is_global, fetch_public
from shared.auth.cleanup import remove_expired
from shared.auth.models import IssuedToken, OAuthClient, OAuthCode, OAuthGrant
from shared.auth.throttle import LOGIN_PER_ACCOUNT, LOGIN_PER_ADDRESS, METADATA_FETCH_PER_HOST
from shared.auth.tokens import DEVELOPMENT_CLIENT_ID, digest, mint_access_token, store_code
from shared.db.models import User, utcnow
from shared.auth import access as access_module
from shared.db.session import Database
from tests.test_oauth import (
    BROKER,
    CHATGPT_REDIRECT,
    PASSWORD,
    SEEKER,
    Browser,
    Connection,
    OAuthServer,
    authorization_url,
    form_fields,
    fresh_accounts,
    mcp_status,
    pkce,
    register,
    serve,
    start,
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


# --- client metadata documents: never from a private address ----------------------------------------------

PRIVATE_DOCUMENT_URLS = [
    "https://127.1:9443/client.json",
    "https://2130706433/client.json",
    "https://0x7f000001/client.json",
    "https://0177.0.0.1/client.json",
    "https://0.0.0.0/client.json",
    "https://10.0.0.8/client.json",
    "https://169.254.169.254/latest/meta-data",
    "https://100.64.0.1/client.json",
    "https://[::1]/client.json",
    "https://[::ffff:127.0.0.1]/client.json",
    "https://[::ffff:7f00:1]/client.json",
    "https://[fe80::1]/client.json",
    "https://[fd00::1]/client.json",
    "https://[2002:7f00:1::]/client.json",
    "https://[64:ff9b::a00:1]/client.json",
    "https://[::127.0.0.1]/client.json",
    "https://[::ffff:0:7f00:1]/client.json",
    "https://[64:ff9b:1::7f00:1]/client.json",
    "https://internal.example/client.json",
    "https://mixed.example/client.json",
    "https://metadata.example/client.json",
    "https://localhost/client.json",
    "https://nothing.invalid/client.json",
]
MALFORMED_DOCUMENT_URLS = [
    "https://[::1/client.json",
    "https://client.example:99999/client.json",
    "https://client.example:abc/client.json",
    "https://user@client.example/client.json",
    "https://client.example/" + "x" * 600,
    "https://client.example/client.json#frag",
]


@pytest.mark.parametrize("url", PRIVATE_DOCUMENT_URLS + MALFORMED_DOCUMENT_URLS)
def test_client_documents_are_never_fetched_from_private_or_malformed_addresses(athaus_server: OAuthServer, url: str) -> None:
    _, challenge = pkce()
    client = {"client_id": url, "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        route = mock.route().respond(json={"client_id": url, "client_name": "Böse", "redirect_uris": client["redirect_uris"]})
        response = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("suche")))
        token = token_request(athaus_server.base_url, client, grant_type="authorization_code", code="x", code_verifier="y")
    assert response.status_code == 400 and "Unbekannte Anwendung" in response.text
    assert token.status_code == 401 and token.json()["error"] == "invalid_client"
    assert not route.called


def test_metadata_document_fetches_are_rate_limited(fresh_server: OAuthServer) -> None:
    """Each new client_id URL at /authorize is a fetch; past the limit per host and minute nothing more is fetched."""
    _, challenge = pkce()
    urls = [f"https://client.example/many/{number}.json" for number in range(METADATA_FETCH_PER_HOST.attempts + 5)]
    with respx.mock(assert_all_called=False, assert_all_mocked=True) as mock:
        route = mock.route().respond(404)
        for url in urls:
            client = {"client_id": url, "redirect_uris": ["https://claude.ai/api/mcp/auth_callback"]}
            httpx2.get(authorization_url(fresh_server.base_url, client, challenge, resource=fresh_server.resource("suche")))
    assert route.call_count == METADATA_FETCH_PER_HOST.attempts


def test_every_hidden_form_of_a_private_address_is_not_global() -> None:
    for address in ("127.0.0.1", "::1", "::ffff:10.0.0.1", "2002:a00:1::", "64:ff9b::7f00:1", "2001:0:4136:e378:8000:63bf:f5ff:fffe", "ff02::1", "224.0.0.1",
                    "::127.0.0.1", "::ffff:0:7f00:1", "::ffff:0:a00:1", "64:ff9b:1::7f00:1", "64:ff9b:1::808:808", "::8.8.8.8"):
        assert not address_is_global(address), address
    for address in ("93.184.215.14", "2606:4700::1111"):
        assert address_is_global(address), address


def test_the_fetch_connects_to_the_checked_address(athaus_server: OAuthServer) -> None:
    """Whatever the URL's host resolves to later, the connection goes to the pinned address."""

    async def fetch() -> int:
        async with httpx.AsyncClient(transport=_PinnedTransport("127.0.0.1"), trust_env=False) as http:
            # The Host Athaus answers under (every route checks it); the URL's own host is never resolved.
            response = await http.get(f"http://elsewhere.invalid:{athaus_server.port}/healthz", headers={"Host": f"127.0.0.1:{athaus_server.port}"})
            return response.status_code

    assert anyio.run(fetch) == 200


def test_a_slow_document_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    async def slow(*args: Any, **kwargs: Any) -> Any:
        await anyio.sleep(10)

    monkeypatch.setattr(fetch_module, "lookup", slow)

    async def attempt() -> str:
        try:
            await fetch_public("https://client.example/client.json", max_bytes=100, timeout=0.2)
        except FetchRefused as refused:
            return str(refused)
        return "fetched"

    assert anyio.run(attempt) == "timed out"


# --- login throttling ------------------------------------------------------------------------------------------


@pytest.fixture
def fresh_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OAuthServer]:
    """A server on a database of its own: these tests use up the attempts of accounts and of the address."""
    for db in fresh_accounts(tmp_path_factory):
        yield from serve(db, registrations_per_minute=3)


class LoginForm:
    """One browser at the login page of one authorization request, sending the form again and again."""

    def __init__(self, athaus: OAuthServer) -> None:
        self.url = f"{athaus.base_url}/oauth/anmelden"
        self.browser, login = start(athaus)
        self.fields = form_fields(login.text)

    def __call__(self, email: str, password: str = "falsch") -> httpx2.Response:
        return self.browser.http.post(self.url, data={**self.fields, "email": email, "password": password})


def test_login_is_throttled_per_account_before_the_password_is_hashed(fresh_server: OAuthServer, monkeypatch: pytest.MonkeyPatch) -> None:
    hashed: list[str] = []
    real = access_module.verify_password
    monkeypatch.setattr(access_module, "verify_password", lambda password, stored: hashed.append(password) or real(password, stored))
    login_attempt = LoginForm(fresh_server)
    for _ in range(LOGIN_PER_ACCOUNT.attempts):
        assert login_attempt(BROKER).status_code == 400
    assert len(hashed) == LOGIN_PER_ACCOUNT.attempts
    throttled = login_attempt(BROKER.upper(), PASSWORD)  # the right password, too late
    assert throttled.status_code == 429 and 0 < int(throttled.headers["retry-after"]) <= 15 * 60
    assert "Zu viele Anmeldeversuche" in throttled.text and "Minuten erneut versuchen" in throttled.text
    assert len(hashed) == LOGIN_PER_ACCOUNT.attempts  # no scrypt for a throttled attempt
    # An address without an account is answered the same way: nothing tells whether the account exists.
    for _ in range(LOGIN_PER_ACCOUNT.attempts):
        login_attempt("niemand@example.de")
    unknown = login_attempt("niemand@example.de")
    assert unknown.status_code == 429 and unknown.text == throttled.text
    # Another account from the same address still signs in.
    assert login_attempt(SEEKER, PASSWORD).status_code == 303


def test_parallel_wrong_logins_get_exactly_the_limit_through(fresh_server: OAuthServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted before the hash in one statement: of 40 wrong logins sent at once, exactly the limit are hashed."""
    hashed: list[str] = []
    real = access_module.verify_password
    monkeypatch.setattr(access_module, "verify_password", lambda password, stored: hashed.append(password) or real(password, stored))
    login_attempt = LoginForm(fresh_server)
    with concurrent.futures.ThreadPoolExecutor(40) as pool:
        statuses = sorted(pool.map(lambda n: login_attempt(BROKER, f"falsch-{n}").status_code, range(40)))
    assert statuses == [400] * LOGIN_PER_ACCOUNT.attempts + [429] * (40 - LOGIN_PER_ACCOUNT.attempts)
    assert len(hashed) == LOGIN_PER_ACCOUNT.attempts


def test_login_is_throttled_per_address(fresh_server: OAuthServer) -> None:
    login_attempt = LoginForm(fresh_server)
    for number in range(LOGIN_PER_ADDRESS.attempts):
        assert login_attempt(f"person{number}@example.de").status_code == 400
    throttled = login_attempt(SEEKER, PASSWORD)
    assert throttled.status_code == 429 and "Retry-After" in throttled.headers


def test_the_login_form_is_not_read_beyond_its_bound(athaus_server: OAuthServer) -> None:
    browser, login = start(athaus_server)
    url = f"{athaus_server.base_url}/oauth/anmelden"
    # Over the form's own bound (16 KiB) but under the edge's (1 MiB): the form's checks answer.
    big = {**form_fields(login.text), "email": "x" * (64 * 1024), "password": "y"}
    assert browser.http.post(url, data=big).status_code == 413
    assert httpx2.post(url, data=big).status_code == 403  # no CSRF cookie: refused before the body is read
    # Over the edge's bound: refused before anything reads it, with or without the cookie.
    huge = {**form_fields(login.text), "email": "x" * (2 * 1024 * 1024), "password": "y"}
    assert browser.http.post(url, data=huge).status_code == 413
    assert httpx2.post(url, data=huge).status_code == 413


# --- registration: bounded in size and rate --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("metadata", "status"),
    [
        ({"client_name": "A" * 101}, 400),
        ({"redirect_uris": [f"https://app.example/cb{n}" for n in range(11)]}, 400),
        ({"redirect_uris": ["https://app.example/" + "x" * 600]}, 400),
        ({"client_name": "A" * 20_000}, 413),
    ],
)
def test_registration_is_bounded_in_size(athaus_server: OAuthServer, metadata: dict[str, Any], status: int) -> None:
    response = httpx2.post(f"{athaus_server.base_url}/register", json={"client_name": "ChatGPT", "redirect_uris": [CHATGPT_REDIRECT], **metadata})
    assert response.status_code == status, response.text


def test_registration_is_limited_per_address(fresh_server: OAuthServer) -> None:
    for _ in range(3):
        assert register(fresh_server.base_url).status_code == 201
    refused = register(fresh_server.base_url)
    assert refused.status_code == 429 and 0 < int(refused.headers["retry-after"]) <= 60
    assert refused.json()["error"] == "slow_down"


# --- cleanup ---------------------------------------------------------------------------------------------------


def test_parallel_registrations_get_exactly_the_limit(fresh_server: OAuthServer) -> None:
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        statuses = sorted(pool.map(lambda _: register(fresh_server.base_url).status_code, range(20)))
    assert statuses == [201] * 3 + [429] * 17


def test_expired_codes_tokens_and_unused_registrations_are_removed(fresh_server: OAuthServer) -> None:
    db = fresh_server.db
    connection = Connection(fresh_server)  # a used registration with a live grant
    unused = register(fresh_server.base_url).json()["client_id"]
    long_ago = utcnow() - dt.timedelta(days=2)
    with db.unit_of_work() as session:
        session.execute(update(OAuthClient).values(created_at=long_ago))
        user_id = session.scalars(select(User.id).where(User.email == BROKER)).one()
        old = mint_access_token(session, user_id=user_id, client_id="alt", resource=fresh_server.resource("makler"), scopes=["makler:lesen"])
        session.execute(update(IssuedToken).where(IssuedToken.token_hash == digest(old.access_token)).values(expires_at=long_ago))
        session.execute(update(OAuthGrant).where(OAuthGrant.client_id == "alt").values(created_at=long_ago))
        store_code(session, client_id=unused, user_id=user_id, redirect_uri=CHATGPT_REDIRECT, code_challenge="c" * 43, resource="r", scopes=[])
        session.execute(update(OAuthCode).where(OAuthCode.client_id == unused).values(expires_at=long_ago))
    with db.unit_of_work() as session:
        removed = remove_expired(session)
    assert removed["tokens"] == 1 and removed["codes"] == 1 and removed["grants"] == 1 and removed["registrations"] == 1
    with db.read_only() as session:
        clients = set(session.scalars(select(OAuthClient.client_id)))
        assert connection.client["client_id"] in clients and unused not in clients
        assert session.scalar(select(OAuthGrant.id).where(OAuthGrant.client_id == "alt")) is None
    assert mcp_status(fresh_server.resource("makler"), connection.tokens["access_token"]) == 200
