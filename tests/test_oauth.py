"""The built-in authorization server, driven the way ChatGPT and Claude drive it.

The official MCP client's OAuth support runs the whole flow over real HTTP (discovery, registration or a
Client ID Metadata Document, PKCE, token, refresh); a browser stand-in signs in and decides on the consent
page by plain HTTP with the CSRF token, as a person would. What no honest client does (replaying codes and
refresh tokens, plain PKCE, forged forms) is sent directly.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import html
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

import anyio
import anyio.to_thread
import httpx2
import pytest
import respx
import uvicorn
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from sqlalchemy import select, update
from starlette.testclient import TestClient

from athaus.app import create_app
from athaus.cli import parser
from contract.broker import SERVER as BROKER_SERVER
from contract.search import SERVER as SEARCH_SERVER
from contract.tool import ToolSpec
from shared.auth.models import IssuedToken, OAuthCode
from shared.auth.passwords import hash_password
from shared.auth.tokens import digest
from shared.db.migrate import upgrade
from shared.db.models import Office, OfficeMember, User, utcnow
from shared.db.session import Database
from shared.settings import Settings
from tests.test_webapp import set_cookies
from tests.conftest import LiveServer, _free_port, _fresh_database_url

PASSWORD = "Dachgeschoss-mit-Blick-7"
BROKER = "maklerin@example.de"
SEEKER = "suchende@example.de"
BROKER_WITHOUT_OFFICE = "ohne-buero@example.de"
BROKER_SCOPES = ["makler:lesen", "makler:schreiben", "makler:senden"]
SEARCH_SCOPES = ["suche:konto", "suche:konto.schreiben", "suche:anfragen"]

CHATGPT_REDIRECT = "https://chatgpt.com/connector_platform_oauth_redirect"
CLAUDE_REDIRECT = "https://claude.ai/api/mcp/auth_callback"
CLIENT_DOCUMENT_URL = "https://client.example/oauth/metadata.json"


def client_document(**changes: Any) -> dict[str, Any]:
    """A Client ID Metadata Document shaped like the example in the MCP specification 2026-07-28,
    basic/authorization/client-registration.mdx ("Example Metadata Document"), with Claude's redirect URI."""
    return {
        "client_id": CLIENT_DOCUMENT_URL,
        "client_name": "Claude",
        "client_uri": "https://client.example",
        "redirect_uris": [CLAUDE_REDIRECT],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        **changes,
    }


class OAuthServer(LiveServer):
    """The app over real HTTP whose public URL is its own address, so issuer, resource and metadata URLs are real."""

    def __init__(self, db: Database, **settings: Any) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.db = db
        settings = {"registrations_per_minute": 10_000, **settings}  # tests register many clients from one address
        self.settings = Settings(database_url=str(db.engine.url), secret_key="oauth-test-secret", public_url=self.base_url, **settings)
        config = uvicorn.Config(create_app(self.settings, db), host="127.0.0.1", port=self.port, log_config=None, access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def resource(self, server: str) -> str:
        return self.settings.resource_url(server)


def create_accounts(db: Database) -> None:
    with db.unit_of_work() as session:
        office = Office(name="Immobilien Lindenau", city="Leipzig")
        broker = User(email=BROKER, name="Marta Makler", password_hash=hash_password(PASSWORD), kind="broker")
        loner = User(email=BROKER_WITHOUT_OFFICE, name="Olaf Ohnebüro", password_hash=hash_password(PASSWORD), kind="broker")
        seeker = User(email=SEEKER, name="Sina Suchend", password_hash=hash_password(PASSWORD), kind="seeker")
        session.add_all([office, broker, loner, seeker])
        session.flush()
        session.add(OfficeMember(office_id=office.id, user_id=broker.id, role="owner"))


def fresh_accounts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A database of its own with the test accounts (tests here revoke, expire and change things)."""
    url, drop = _fresh_database_url(tmp_path_factory.mktemp("oauth"), "oauth")
    db = Database.from_url(url)
    upgrade(db.engine)
    create_accounts(db)
    yield db
    db.engine.dispose()
    drop()


def serve(db: Database, **settings: Any) -> Iterator[OAuthServer]:
    server = OAuthServer(db, **settings)
    with server:
        yield server


@pytest.fixture(scope="module")
def accounts_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from fresh_accounts(tmp_path_factory)


@pytest.fixture(scope="module")
def athaus_server(accounts_db: Database) -> Iterator[OAuthServer]:
    yield from serve(accounts_db)


# --- a person in a browser -------------------------------------------------------------------------------


def form_fields(page: str) -> dict[str, str]:
    return {name: html.unescape(value) for name, value in re.findall(r'name="(csrf_token|anfrage)" value="([^"]*)"', page)}


def offered_rights(page: str) -> list[str]:
    return re.findall(r'type="checkbox" name="scope" value="([^"]+)"', page)


class Browser:
    """Follows the authorization URL, signs in and decides on the consent page, by plain HTTP with cookies."""

    def __init__(self, email: str, *, password: str = PASSWORD, grant: Sequence[str] | None = None, decision: str = "erlauben") -> None:
        self.email = email
        self.password = password
        self.grant = grant
        self.decision = decision
        self.http = httpx2.Client(follow_redirects=False)
        self.authorization_urls: list[str] = []
        self.answer: dict[str, str] = {}

    def sign_in(self, authorization_url: str) -> httpx2.Response:
        """From the authorization URL to the page after login (consent, or the refusal)."""
        self.authorization_urls.append(authorization_url)
        page = self.follow(self.http.get(authorization_url))
        if urlsplit(str(page.url)).path == "/oauth/anmelden":
            assert page.status_code == 200, page.text
            login = {**form_fields(page.text), "email": self.email, "password": self.password}
            page = self.follow(self.http.post(urljoin(str(page.url), "/oauth/anmelden"), data=login))
        return page

    def decide(self, page: httpx2.Response) -> dict[str, str]:
        """Sends the consent form; returns the parameters of the redirect back to the client."""
        granted = offered_rights(page.text) if self.grant is None else list(self.grant)
        form = {**form_fields(page.text), "entscheidung": self.decision, "scope": granted}
        response = self.http.post(urljoin(str(page.url), "/oauth/zustimmung"), data=form)
        assert response.status_code == 303, response.text
        self.answer = dict(parse_qsl(urlsplit(response.headers["location"]).query))
        self.answer["redirect_uri"] = response.headers["location"].split("?")[0]
        return self.answer

    def authorize(self, authorization_url: str) -> dict[str, str]:
        return self.decide(self.sign_in(authorization_url))

    def follow(self, response: httpx2.Response) -> httpx2.Response:
        """Follows redirects within the Athaus server; the redirect to the client is the client's business."""
        origin = urlsplit(str(response.url)).netloc
        while response.status_code in (302, 303) and urlsplit(urljoin(str(response.url), response.headers["location"])).netloc == origin:
            response = self.http.get(urljoin(str(response.url), response.headers["location"]))
        return response

    # The OAuth client's redirect and callback handlers: the user's browser, then the redirect URI.
    async def open(self, authorization_url: str) -> None:
        await anyio.to_thread.run_sync(self.authorize, authorization_url)

    async def callback(self) -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=self.answer["code"], state=self.answer.get("state"), iss=self.answer.get("iss"))


# --- the client side ---------------------------------------------------------------------------------------


class MemoryStorage:
    """The client's token storage (mcp.client.auth.TokenStorage)."""

    def __init__(self, tokens: OAuthToken | None = None) -> None:
        self.tokens = tokens
        self.client_info: OAuthClientInformationFull | None = None
        self.history: list[OAuthToken] = []  # every token set, oldest first

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens
        self.history.append(tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


def oauth_client(
    server_url: str, browser: Browser, storage: MemoryStorage, *, name: str, redirect_uri: str, client_metadata_url: str | None = None
) -> OAuthClientProvider:
    """The SDK's OAuth support as a remote connector host uses it (a web application with an https redirect URI)."""
    metadata = OAuthClientMetadata.model_validate({"client_name": name, "redirect_uris": [redirect_uri], "application_type": "web"})
    return OAuthClientProvider(
        server_url=server_url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
        client_metadata_url=client_metadata_url,
    )


@asynccontextmanager
async def connected(url: str, mode: str, *, auth: httpx2.Auth | None = None, token: str | None = None) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        httpx2.AsyncClient(auth=auth, headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        yield client


def scoped_tools(tools: Sequence[ToolSpec]) -> list[ToolSpec]:
    return [spec for spec in tools if spec.right.scope is not None]


async def assert_rights(client: Client, tools: Sequence[ToolSpec], granted: set[str]) -> None:
    """Every tool runs exactly when its right was granted; without it the call is refused (HTTP 403
    insufficient_scope, which the client reports as an error).

    The right check comes before argument validation, so empty arguments are enough to see it."""
    for spec in scoped_tools(tools):
        if spec.right.scope in granted:
            result = await client.call_tool(spec.name, {})
            assert (result.meta or {}).get("athaus/code") != "MISSING_RIGHT", spec.name
        else:
            with pytest.raises(MCPError):
                await client.call_tool(spec.name, {})


# --- direct HTTP helpers -----------------------------------------------------------------------------------


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    return verifier, base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def register(base_url: str, *redirect_uris: str, **metadata: Any) -> httpx2.Response:
    return httpx2.post(f"{base_url}/register", json={"client_name": "ChatGPT", "redirect_uris": list(redirect_uris or [CHATGPT_REDIRECT]), **metadata})


def authorization_url(base_url: str, client: dict[str, Any], challenge: str, **params: str | None) -> str:
    query = {
        "response_type": "code",
        "client_id": client["client_id"],
        "redirect_uri": client["redirect_uris"][0],
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "zustand-42",
        **params,
    }
    return f"{base_url}/authorize?{urlencode({k: v for k, v in query.items() if v is not None})}"


def token_request(base_url: str, client: dict[str, Any], **form: str) -> httpx2.Response:
    data = {"client_id": client["client_id"], **form}
    if client.get("client_secret"):
        data["client_secret"] = client["client_secret"]
    return httpx2.post(f"{base_url}/token", data=data)


class Connection:
    """A client registered by DCR that went through login and consent and holds the token response."""

    def __init__(self, athaus: OAuthServer, *, email: str = BROKER, server: str = "makler", grant: Sequence[str] | None = None) -> None:
        self.athaus = athaus
        self.client = register(athaus.base_url).json()
        self.verifier, challenge = pkce()
        self.answer = Browser(email, grant=grant).authorize(authorization_url(athaus.base_url, self.client, challenge, resource=athaus.resource(server)))
        self.exchange = self.redeem()
        self.tokens = self.exchange.json()

    def redeem(self, **overrides: str) -> httpx2.Response:
        form = {"grant_type": "authorization_code", "code": self.answer["code"], "code_verifier": self.verifier}
        return token_request(self.athaus.base_url, self.client, **{**form, "redirect_uri": self.client["redirect_uris"][0], **overrides})

    def refresh(self, refresh_token: str, **form: str) -> httpx2.Response:
        return token_request(self.athaus.base_url, self.client, grant_type="refresh_token", refresh_token=refresh_token, **form)


def mcp_status(url: str, token: str) -> int:
    """The HTTP status of a tools/list request with `token`."""
    response = httpx2.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    return response.status_code


def expire(db: Database, model: type[IssuedToken] | type[OAuthCode], secret: str) -> None:
    column = IssuedToken.token_hash if model is IssuedToken else OAuthCode.code_hash
    with db.unit_of_work() as session:
        session.execute(update(model).where(column == digest(secret)).values(expires_at=utcnow() - dt.timedelta(seconds=1)))


# --- metadata ----------------------------------------------------------------------------------------------


def test_authorization_server_metadata(athaus_server: OAuthServer) -> None:
    metadata = httpx2.get(f"{athaus_server.base_url}/.well-known/oauth-authorization-server").json()
    base = athaus_server.base_url
    assert metadata["issuer"] == base
    assert (metadata["authorization_endpoint"], metadata["token_endpoint"]) == (f"{base}/authorize", f"{base}/token")
    assert (metadata["registration_endpoint"], metadata["revocation_endpoint"]) == (f"{base}/register", f"{base}/revoke")
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["response_types_supported"] == ["code"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["client_id_metadata_document_supported"] is True
    assert "none" in metadata["token_endpoint_auth_methods_supported"]
    assert metadata["scopes_supported"] == BROKER_SCOPES + SEARCH_SCOPES


# --- the whole flow with the official client ---------------------------------------------------------------


def test_broker_connects_like_chatgpt_with_dynamic_registration(athaus_server: OAuthServer) -> None:
    makler = athaus_server.resource("makler")
    browser = Browser(BROKER)
    storage = MemoryStorage()
    auth = oauth_client(makler, browser, storage, name="ChatGPT", redirect_uri=CHATGPT_REDIRECT)

    async def session() -> list[str]:
        async with connected(makler, "2026-07-28", auth=auth) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            await assert_rights(client, BROKER_SERVER.tools, set(BROKER_SCOPES))
            return names

    assert anyio.run(session) == [spec.name for spec in BROKER_SERVER.tools]
    # Discovery from the 401 led to this server's metadata, DCR, PKCE S256 and the resource indicator.
    authorize = dict(parse_qsl(urlsplit(browser.authorization_urls[0]).query))
    assert authorize["resource"] == makler and authorize["code_challenge_method"] == "S256"
    assert storage.client_info is not None and storage.client_info.client_secret
    assert authorize["client_id"] == storage.client_info.client_id
    assert browser.answer["iss"] == athaus_server.base_url  # RFC 9207
    assert browser.answer["redirect_uri"] == CHATGPT_REDIRECT
    # The 401 asked for the server's reading right only, and the consent page ticked just that; the first writing
    # tool's 403 insufficient_scope widened it step by step, each time through the consent page again.
    scopes = [token.scope for token in storage.history]
    assert scopes == ["makler:lesen", "makler:lesen makler:schreiben", "makler:lesen makler:schreiben makler:senden"]
    first = storage.tokens
    assert first is not None and first.expires_in == 3600 and first.refresh_token
    logins = len(browser.authorization_urls)
    assert logins == len(scopes)

    # The access token runs out: the client refreshes, and the refresh token is rotated.
    auth.context.token_expiry_time = time.time() - 1

    async def again() -> int:
        async with connected(makler, "2026-07-28", auth=auth) as client:
            return len((await client.list_tools()).tools)

    assert anyio.run(again) == len(BROKER_SERVER.tools)
    second = storage.tokens
    assert second is not None and second.access_token != first.access_token
    assert second.refresh_token and second.refresh_token != first.refresh_token
    assert len(browser.authorization_urls) == logins  # the refresh needs no login


def test_seeker_connects_like_claude_with_a_client_id_metadata_document_and_grants_less(athaus_server: OAuthServer) -> None:
    suche = athaus_server.resource("suche")
    browser = Browser(SEEKER, grant=["suche:konto"])
    # The token from an earlier connection is no longer valid: the 401 sends the client through discovery again.
    storage = MemoryStorage(OAuthToken(access_token="laengst-abgelaufen"))
    auth = oauth_client(suche, browser, storage, name="Claude", redirect_uri=CLAUDE_REDIRECT, client_metadata_url=CLIENT_DOCUMENT_URL)

    async def session() -> list[str]:
        async with connected(suche, "legacy", auth=auth) as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            await assert_rights(client, SEARCH_SERVER.tools, {"suche:konto"})
            return names

    with respx.mock(assert_all_mocked=True) as mock:
        document = mock.get(CLIENT_DOCUMENT_URL).respond(json=client_document())
        names = anyio.run(session)
    assert names == [spec.name for spec in SEARCH_SERVER.tools]
    assert document.called
    assert storage.client_info is not None and storage.client_info.client_id == CLIENT_DOCUMENT_URL  # no registration
    assert dict(parse_qsl(urlsplit(browser.authorization_urls[0]).query))["resource"] == suche
    assert storage.tokens is not None and storage.tokens.scope == "suche:konto"


# --- registration and client documents ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "redirect_uri",
    [
        CHATGPT_REDIRECT,
        "https://chat.openai.com/aip/g-7f3a9c/oauth/callback",
        CLAUDE_REDIRECT,
        "https://claude.com/api/mcp/auth_callback",
        "http://127.0.0.1:33418/callback",
        "http://localhost:8976/oauth/callback",
    ],
)
def test_registration_accepts_the_redirect_uris_of_chatgpt_claude_and_native_clients(athaus_server: OAuthServer, redirect_uri: str) -> None:
    response = register(athaus_server.base_url, redirect_uri, token_endpoint_auth_method="none")
    assert response.status_code == 201, response.text
    registered = response.json()
    assert registered["redirect_uris"] == [redirect_uri] and "client_secret" not in registered


@pytest.mark.parametrize(
    "redirect_uri", ["http://chatgpt.com/connector_platform_oauth_redirect", "http://192.168.1.20/callback", "cursor://oauth/callback"]
)
def test_registration_refuses_other_redirect_uris(athaus_server: OAuthServer, redirect_uri: str) -> None:
    response = register(athaus_server.base_url, CLAUDE_REDIRECT, redirect_uri)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_redirect_uri"


def test_a_native_client_may_come_back_on_another_loopback_port(athaus_server: OAuthServer) -> None:
    client = register(athaus_server.base_url, "http://127.0.0.1:33418/callback").json()
    _, challenge = pkce()
    resource = athaus_server.resource("makler")
    other_port = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, resource=resource, redirect_uri="http://127.0.0.1:51999/callback"))
    assert other_port.status_code == 303 and other_port.headers["location"].startswith("/oauth/zustimmung?")
    other_path = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, resource=resource, redirect_uri="http://127.0.0.1:51999/other"))
    assert other_path.status_code == 400


@pytest.mark.parametrize(
    ("changes", "reason"),
    [
        ({"client_id": "https://client.example/other.json"}, "client_id is not the document's own URL"),
        ({"redirect_uris": ["http://client.example/callback"]}, "plain http outside loopback"),
        ({"client_name": None}, "client_name is required"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "a CIMD client has no secret here"),
    ],
)
def test_client_id_metadata_documents_are_checked(athaus_server: OAuthServer, changes: dict[str, Any], reason: str) -> None:
    url = f"https://client.example/oauth/{next(iter(changes))}.json"  # its own URL per case: no cached document
    _, challenge = pkce()
    with respx.mock() as mock:
        mock.get(url).respond(json=client_document(**{"client_id": url, **changes}))
        client = {"client_id": url, "redirect_uris": [CLAUDE_REDIRECT]}
        response = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("suche")))
    assert response.status_code == 400, reason
    assert "Unbekannte Anwendung" in response.text


def test_client_id_metadata_documents_are_not_fetched_from_private_addresses(athaus_server: OAuthServer) -> None:
    _, challenge = pkce()
    with respx.mock(assert_all_called=False) as mock:
        route = mock.get("https://10.0.0.8/client.json").respond(json=client_document(client_id="https://10.0.0.8/client.json"))
        response = httpx2.get(
            authorization_url(
                athaus_server.base_url, {"client_id": "https://10.0.0.8/client.json", "redirect_uris": [CLAUDE_REDIRECT]}, challenge, resource=athaus_server.resource("suche")
            )
        )
    assert response.status_code == 400 and not route.called


# --- the authorization request -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "error"),
    [
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"code_challenge": None}, "invalid_request"),
        ({"resource": None}, "invalid_target"),
        ({"resource": "https://evil.example/makler/mcp"}, "invalid_target"),
        ({"scope": "suche:konto"}, "invalid_scope"),
        ({"response_type": "token"}, "unsupported_response_type"),
    ],
)
def test_authorization_errors_go_back_to_the_client_with_iss(athaus_server: OAuthServer, params: dict[str, str | None], error: str) -> None:
    client = register(athaus_server.base_url).json()
    _, challenge = pkce()
    query: dict[str, str | None] = {"resource": athaus_server.resource("makler"), **params}
    response = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, **query))
    assert response.status_code == 302
    location = response.headers["location"]
    assert location.startswith(CHATGPT_REDIRECT + "?")
    answer = dict(parse_qsl(urlsplit(location).query))
    assert (answer["error"], answer["state"], answer["iss"]) == (error, "zustand-42", athaus_server.base_url)
    assert "code" not in answer


@pytest.mark.parametrize(
    ("client", "title"),
    [
        ({"client_id": "unbekannt", "redirect_uris": [CHATGPT_REDIRECT]}, "Unbekannte Anwendung"),
        (None, "Ungültige Rücksprungadresse"),
    ],
)
def test_unknown_clients_and_redirect_uris_are_not_redirected_to(athaus_server: OAuthServer, client: dict[str, Any] | None, title: str) -> None:
    if client is None:
        client = {**register(athaus_server.base_url).json(), "redirect_uris": ["https://evil.example/callback"]}
    _, challenge = pkce()
    response = httpx2.get(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("makler")))
    assert response.status_code == 400 and "location" not in response.headers
    assert title in response.text and '<html lang="de">' in response.text
    assert response.headers["x-frame-options"] == "DENY"


# --- login and consent pages -------------------------------------------------------------------------------


def start(athaus: OAuthServer, server: str = "makler", scope: str | None = None) -> tuple[Browser, httpx2.Response]:
    """A fresh browser at the login page of a new authorization request."""
    client = register(athaus.base_url).json()
    _, challenge = pkce()
    browser = Browser(BROKER)
    page = browser.follow(browser.http.get(authorization_url(athaus.base_url, client, challenge, resource=athaus.resource(server), scope=scope)))
    return browser, page


def test_pages_forbid_framing_and_set_safe_cookies(athaus_server: OAuthServer) -> None:
    browser, login = start(athaus_server)
    assert login.status_code == 200 and "Bei Athaus anmelden" in login.text and "E-Mail-Adresse" in login.text
    assert login.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in login.headers["content-security-policy"]
    # plain http on loopback in development: not Secure (it would never come back), so without the __Host- prefix
    assert set_cookies(login) == {"athaus_csrf": {"httponly": "", "path": "/", "samesite": "lax"}}
    response = browser.http.post(f"{athaus_server.base_url}/oauth/anmelden", data={**form_fields(login.text), "email": BROKER, "password": PASSWORD})
    assert response.status_code == 303
    assert set_cookies(response) == {
        "athaus_sitzung": {"httponly": "", "max-age": "43200", "path": "/", "samesite": "lax"},
        "athaus_geraet": {"httponly": "", "max-age": "15552000", "path": "/", "samesite": "lax"},  # a known browser from now on
    }
    consent = browser.follow(response)
    assert consent.headers["x-frame-options"] == "DENY" and "frame-ancestors 'none'" in consent.headers["content-security-policy"]


def test_cookies_are_secure_outside_local_development(accounts_db: Database) -> None:
    settings = Settings(database_url=str(accounts_db.engine.url), secret_key="s", public_url="https://athaus.example", development=False)
    with TestClient(create_app(settings, accounts_db), base_url="https://athaus.example") as http:
        client = http.post("/register", json={"redirect_uris": [CHATGPT_REDIRECT]}).json()
        _, challenge = pkce()
        login = http.get(authorization_url("", client, challenge, resource=settings.resource_url("makler")), follow_redirects=True)
        assert login.status_code == 200 and "Bei Athaus anmelden" in login.text
        assert set_cookies(login) == {"__Host-athaus_csrf": {"httponly": "", "path": "/", "samesite": "lax", "secure": ""}}
        # the prefixed cookie is the one read: the form goes through with it
        response = http.post("/oauth/anmelden", data={**form_fields(login.text), "email": BROKER, "password": PASSWORD}, follow_redirects=False)
    assert response.status_code == 303, response.text
    assert set_cookies(response) == {
        "__Host-athaus_sitzung": {"httponly": "", "max-age": "43200", "path": "/", "samesite": "lax", "secure": ""},
        "__Host-athaus_geraet": {"httponly": "", "max-age": "15552000", "path": "/", "samesite": "lax", "secure": ""},
    }


@pytest.mark.parametrize("page", ["/oauth/anmelden", "/oauth/zustimmung"])
@pytest.mark.parametrize("csrf", [None, "gefaelscht"])
def test_forms_without_the_csrf_token_are_refused(athaus_server: OAuthServer, page: str, csrf: str | None) -> None:
    browser, login = start(athaus_server)
    fields = form_fields(login.text)
    if page == "/oauth/zustimmung":
        browser.follow(browser.http.post(f"{athaus_server.base_url}/oauth/anmelden", data={**fields, "email": BROKER, "password": PASSWORD}))
    form = {"anfrage": fields["anfrage"], "email": BROKER, "password": PASSWORD, "entscheidung": "erlauben", "scope": BROKER_SCOPES}
    if csrf:
        form["csrf_token"] = csrf
    response = browser.http.post(f"{athaus_server.base_url}{page}", data=form)
    assert response.status_code == 403
    assert "Formular abgelehnt" in response.text and "location" not in response.headers
    assert response.headers["x-frame-options"] == "DENY"


def test_a_wrong_password_is_refused(athaus_server: OAuthServer) -> None:
    browser, login = start(athaus_server)
    response = browser.http.post(f"{athaus_server.base_url}/oauth/anmelden", data={**form_fields(login.text), "email": BROKER, "password": "falsch"})
    assert response.status_code == 400
    assert "E-Mail-Adresse oder Passwort stimmt nicht." in response.text
    assert "athaus_sitzung" not in response.headers.get("set-cookie", "")


def test_the_consent_page_names_client_server_and_rights(athaus_server: OAuthServer) -> None:
    browser, login = start(athaus_server, scope="makler:lesen makler:senden")
    consent = browser.follow(browser.http.post(f"{athaus_server.base_url}/oauth/anmelden", data={**form_fields(login.text), "email": BROKER, "password": PASSWORD}))
    assert consent.status_code == 200
    for text in ("Zugriff erlauben?", "ChatGPT", "Athaus für Makler", "Marta Makler", "chatgpt.com", "Büro lesen", "Hinausgehen lassen (mit deinem Klick)"):
        assert text in consent.text
    assert offered_rights(consent.text) == ["makler:lesen", "makler:senden"]  # only what was asked for
    assert "Bestand und Entwürfe bearbeiten" not in consent.text


def test_without_a_scope_the_consent_page_offers_the_reading_right(athaus_server: OAuthServer) -> None:
    browser, login = start(athaus_server)
    consent = browser.follow(browser.http.post(f"{athaus_server.base_url}/oauth/anmelden", data={**form_fields(login.text), "email": BROKER, "password": PASSWORD}))
    assert offered_rights(consent.text) == ["makler:lesen"]


@pytest.mark.parametrize(
    ("email", "server", "explanation"),
    [
        (SEEKER, "makler", "ist für Maklerinnen und Makler eines Büros"),
        (BROKER_WITHOUT_OFFICE, "makler", "gehört zu keinem Maklerbüro"),
        (BROKER, "suche", "verbindet die Konten von Suchenden"),
    ],
)
def test_an_account_of_the_other_kind_is_told_so_and_the_client_gets_access_denied(
    athaus_server: OAuthServer, email: str, server: str, explanation: str
) -> None:
    client = register(athaus_server.base_url).json()
    _, challenge = pkce()
    browser = Browser(email)
    page = browser.sign_in(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource(server)))
    assert page.status_code == 403 and explanation in page.text and "Dieses Konto passt nicht" in page.text
    assert offered_rights(page.text) == []
    browser.grant = SEARCH_SCOPES if server == "suche" else BROKER_SCOPES  # a forged form grants nothing either
    answer = browser.decide(page)
    assert (answer["error"], answer["state"], answer["iss"]) == ("access_denied", "zustand-42", athaus_server.base_url)
    assert "code" not in answer


@pytest.mark.parametrize("decision", ["erlauben", "ablehnen"])
def test_a_consent_without_any_right_is_access_denied(athaus_server: OAuthServer, decision: str) -> None:
    client = register(athaus_server.base_url).json()
    _, challenge = pkce()
    grant: list[str] = [] if decision == "erlauben" else BROKER_SCOPES
    answer = Browser(BROKER, grant=grant, decision=decision).authorize(
        authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("makler"))
    )
    assert (answer["error"], answer["iss"]) == ("access_denied", athaus_server.base_url)


# --- tokens ------------------------------------------------------------------------------------------------


def test_fewer_rights_on_the_consent_page_mean_a_token_with_only_those(athaus_server: OAuthServer) -> None:
    connection = Connection(athaus_server, grant=["makler:lesen"])
    assert connection.tokens["scope"] == "makler:lesen"
    assert connection.answer["iss"] == athaus_server.base_url and connection.answer["state"] == "zustand-42"
    refreshed = connection.refresh(connection.tokens["refresh_token"], scope="makler:lesen makler:senden")
    assert refreshed.status_code == 400 and refreshed.json()["error"] == "invalid_scope"


def test_a_token_from_the_flow_works_only_at_the_server_it_was_asked_for(athaus_server: OAuthServer) -> None:
    makler, suche = athaus_server.resource("makler"), athaus_server.resource("suche")
    broker = Connection(athaus_server, email=BROKER, server="makler").tokens["access_token"]
    seeker = Connection(athaus_server, email=SEEKER, server="suche").tokens["access_token"]
    assert (mcp_status(makler, broker), mcp_status(suche, broker)) == (200, 401)
    assert (mcp_status(suche, seeker), mcp_status(makler, seeker)) == (200, 401)


def test_codes_and_tokens_are_stored_as_digests_with_their_lifetimes(athaus_server: OAuthServer, accounts_db: Database) -> None:
    connection = Connection(athaus_server)
    access, refresh = connection.tokens["access_token"], connection.tokens["refresh_token"]
    with accounts_db.read_only() as session:
        code = session.get(OAuthCode, digest(connection.answer["code"]))
        rows = {row.kind: row for row in session.scalars(select(IssuedToken).where(IssuedToken.token_hash.in_([digest(access), digest(refresh)])))}
        stored = {row.token_hash for row in session.scalars(select(IssuedToken))} | {row.code_hash for row in session.scalars(select(OAuthCode))}
        assert code is not None and code.used_at is not None
        issued_at = rows["access"].created_at
        assert abs(rows["access"].expires_at - issued_at - dt.timedelta(hours=1)) < dt.timedelta(seconds=5)
        assert abs(rows["refresh"].expires_at - issued_at - dt.timedelta(days=30)) < dt.timedelta(seconds=5)
        assert dt.timedelta(minutes=4) < code.expires_at - issued_at <= dt.timedelta(minutes=5)
    assert {access, refresh, connection.answer["code"]}.isdisjoint(stored)
    assert connection.tokens["expires_in"] == 3600 and connection.tokens["token_type"] == "Bearer"


def test_a_code_is_single_use_and_a_replay_revokes_what_it_gave(athaus_server: OAuthServer) -> None:
    connection = Connection(athaus_server)
    assert mcp_status(athaus_server.resource("makler"), connection.tokens["access_token"]) == 200
    replay = connection.redeem()
    assert replay.status_code == 400 and replay.json()["error"] == "invalid_grant"
    assert replay.headers["cache-control"] == "no-store"
    assert mcp_status(athaus_server.resource("makler"), connection.tokens["access_token"]) == 401
    assert connection.refresh(connection.tokens["refresh_token"]).json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"code_verifier": "x" * 64}, "invalid_grant"),
        ({"redirect_uri": "https://chatgpt.com/anderswo"}, "invalid_grant"),
        ({"resource": "SUCHE"}, "invalid_target"),
    ],
)
def test_the_code_is_bound_to_verifier_redirect_and_resource(athaus_server: OAuthServer, overrides: dict[str, str], error: str) -> None:
    client = register(athaus_server.base_url).json()
    verifier, challenge = pkce()
    answer = Browser(BROKER).authorize(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("makler")))
    if overrides.get("resource") == "SUCHE":
        overrides = {"resource": athaus_server.resource("suche")}
    form = {"grant_type": "authorization_code", "code": answer["code"], "code_verifier": verifier, "redirect_uri": CHATGPT_REDIRECT}
    response = token_request(athaus_server.base_url, client, **{**form, **overrides})
    assert response.status_code == 400 and response.json()["error"] == error


def test_an_expired_code_is_refused(athaus_server: OAuthServer, accounts_db: Database) -> None:
    client = register(athaus_server.base_url).json()
    verifier, challenge = pkce()
    answer = Browser(BROKER).authorize(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("makler")))
    expire(accounts_db, OAuthCode, answer["code"])
    response = token_request(athaus_server.base_url, client, grant_type="authorization_code", code=answer["code"], code_verifier=verifier)
    assert response.json()["error"] == "invalid_grant"


def test_a_code_of_another_client_and_a_wrong_secret_are_refused(athaus_server: OAuthServer) -> None:
    connection = Connection(athaus_server)
    stranger = register(athaus_server.base_url).json()
    form = {"grant_type": "refresh_token", "refresh_token": connection.tokens["refresh_token"]}
    assert token_request(athaus_server.base_url, stranger, **form).json()["error"] == "invalid_grant"
    wrong_secret = token_request(athaus_server.base_url, {**connection.client, "client_secret": "geraten"}, **form)
    assert wrong_secret.status_code == 401 and wrong_secret.json()["error"] == "invalid_client"


def test_refresh_rotates_and_a_reused_refresh_token_revokes_the_family(athaus_server: OAuthServer) -> None:
    makler = athaus_server.resource("makler")
    connection = Connection(athaus_server)
    first = connection.tokens
    second = connection.refresh(first["refresh_token"], resource=makler).json()
    assert second["refresh_token"] != first["refresh_token"] and second["access_token"] != first["access_token"]
    assert second["scope"] == "makler:lesen"  # no scope asked for: the reading right
    assert mcp_status(makler, second["access_token"]) == 200

    reuse = connection.refresh(first["refresh_token"])
    assert reuse.status_code == 400 and reuse.json()["error"] == "invalid_grant"
    # The whole family is gone: the thief's copy and the owner's current tokens alike.
    assert mcp_status(makler, second["access_token"]) == 401
    assert mcp_status(makler, first["access_token"]) == 401
    assert connection.refresh(second["refresh_token"]).json()["error"] == "invalid_grant"


def test_refresh_keeps_the_resource(athaus_server: OAuthServer) -> None:
    connection = Connection(athaus_server)
    response = connection.refresh(connection.tokens["refresh_token"], resource=athaus_server.resource("suche"))
    assert response.json()["error"] == "invalid_target"


def test_an_expired_refresh_token_is_refused(athaus_server: OAuthServer, accounts_db: Database) -> None:
    connection = Connection(athaus_server)
    expire(accounts_db, IssuedToken, connection.tokens["refresh_token"])
    assert connection.refresh(connection.tokens["refresh_token"]).json()["error"] == "invalid_grant"


@pytest.mark.parametrize("which", ["access_token", "refresh_token"])
def test_revocation_ends_the_whole_grant(athaus_server: OAuthServer, which: str) -> None:
    makler = athaus_server.resource("makler")
    connection = Connection(athaus_server)
    tokens = connection.tokens
    assert mcp_status(makler, tokens["access_token"]) == 200
    response = httpx2.post(
        f"{athaus_server.base_url}/revoke",
        data={"token": tokens[which], "client_id": connection.client["client_id"], "client_secret": connection.client["client_secret"]},
    )
    assert response.status_code == 200
    assert mcp_status(makler, tokens["access_token"]) == 401
    assert connection.refresh(tokens["refresh_token"]).json()["error"] == "invalid_grant"


def test_a_public_client_may_revoke_and_unknown_tokens_are_fine(athaus_server: OAuthServer) -> None:
    client = register(athaus_server.base_url, token_endpoint_auth_method="none").json()
    verifier, challenge = pkce()
    answer = Browser(SEEKER).authorize(authorization_url(athaus_server.base_url, client, challenge, resource=athaus_server.resource("suche")))
    form = {"grant_type": "authorization_code", "code": answer["code"], "code_verifier": verifier, "redirect_uri": CHATGPT_REDIRECT}
    tokens = token_request(athaus_server.base_url, client, **form).json()
    assert tokens["scope"] == "suche:konto"
    for token in ("unbekannt", tokens["refresh_token"]):
        assert httpx2.post(f"{athaus_server.base_url}/revoke", data={"token": token, "client_id": client["client_id"]}).status_code == 200
    assert mcp_status(athaus_server.resource("suche"), tokens["access_token"]) == 401


def test_an_expired_access_token_is_refused(athaus_server: OAuthServer, accounts_db: Database) -> None:
    connection = Connection(athaus_server)
    expire(accounts_db, IssuedToken, connection.tokens["access_token"])
    assert mcp_status(athaus_server.resource("makler"), connection.tokens["access_token"]) == 401


# --- athaus token --------------------------------------------------------------------------------------------


def athaus(argv: list[str]) -> int:
    """`athaus …` as the console script runs it, minus its log setup (which would write into the captured stderr)."""
    args = parser().parse_args(argv)
    return int(args.run(args, Settings()))


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, athaus_server: OAuthServer) -> pytest.MonkeyPatch:
    monkeypatch.setenv("ATHAUS_DATABASE_URL", str(athaus_server.db.engine.url.render_as_string(hide_password=False)))
    monkeypatch.setenv("ATHAUS_PUBLIC_URL", athaus_server.base_url)
    monkeypatch.setenv("ATHAUS_DEVELOPMENT", "true")
    return monkeypatch


def test_athaus_token_mints_a_token_bound_to_one_server(cli_env: pytest.MonkeyPatch, athaus_server: OAuthServer, capsys: pytest.CaptureFixture[str]) -> None:
    assert athaus(["token", "--user", BROKER, "--server", "makler", "--rights", "makler:lesen"]) == 0
    token = capsys.readouterr().out.strip()

    async def listed() -> tuple[int, Any]:
        async with connected(athaus_server.resource("makler"), "2026-07-28", token=token) as client:
            tools = await client.list_tools()
            await assert_rights(client, BROKER_SERVER.tools, {"makler:lesen"})
            return len(tools.tools), tools

    assert anyio.run(listed)[0] == len(BROKER_SERVER.tools)
    assert mcp_status(athaus_server.resource("suche"), token) == 401
    assert athaus(["token", "--user", SEEKER.upper(), "--server", "suche"]) == 0
    assert mcp_status(athaus_server.resource("suche"), capsys.readouterr().out.strip()) == 200


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user", SEEKER, "--server", "makler"], "kann auf Athaus für Makler diese Rechte nicht erhalten"),
        (["--user", BROKER, "--server", "makler", "--rights", "suche:konto"], "diese Rechte nicht erhalten: suche:konto"),
        (["--user", "niemand@example.de", "--server", "suche"], "Kein Konto mit der E-Mail-Adresse"),
    ],
)
def test_athaus_token_refuses_rights_the_account_cannot_have(
    cli_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert athaus(["token", *args]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err


def test_athaus_token_refuses_outside_development(cli_env: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    cli_env.setenv("ATHAUS_DEVELOPMENT", "false")
    assert athaus(["token", "--user", BROKER, "--server", "makler"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "nur im Entwicklungsmodus" in captured.err
