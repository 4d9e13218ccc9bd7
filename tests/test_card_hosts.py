"""The card in the hosts people use, in both revisions, and only in real ones (issue 30, item 1).

- Which OAuth clients are card hosts: ChatGPT's and Claude's redirect addresses and metadata documents built in, the
  operator's list (ATHAUS_CARD_HOSTS) for others; a registration through the real /register and consent flow makes a
  ChatGPT- or Claude-registered client one, a registration with any other address beside theirs does not.
- 2025-11-25: an `initialize` that declares the MCP Apps extension gets a signed, expiring `Mcp-Session-Id` that carries
  the declaration; any instance verifies it; an altered, expired or other server's id is 404; `initialize` states the
  extension in the server's capabilities.
- Two instances behind one address (round robin, no affinity), the official Python client in both eras as a
  registered card host: the token, the click, the record says "card"; the same client unregistered gets the link.
On SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
import respx
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from contract.confirmations import CONFIRMATION_META_KEY, MCP_APP_MIME, UI_EXTENSION, UI_EXTENSION_SETTINGS
from contract.rights import ServerName
from shared.auth.card_hosts import CardHosts
from shared.auth.principal import Principal
from shared.auth.resource import StoredTokenResolver
from shared.auth.signing import Signer
from shared.auth.tokens import mint_access_token
from shared.db.models import PendingAction, User
from shared.db.session import Database
from shared.runtime.hosts import app_host_meta, shows_card
from shared.runtime.sessions import SESSION_SECONDS, DeclaredSessions, declared_at_initialize
from shared.settings import Settings
from tests.conftest import TEST_NAMES, LiveServer, request_key, seeded_database
from tests.confirmation_helpers import BROKER_SCOPES, OWNER, SEEKER, SEEKER_SCOPES, click, published_listing
from tests.one_address import OneAddress, one_address
from tests.test_oauth import CHATGPT_REDIRECT, CLAUDE_REDIRECT, OAuthServer, accounts_db, athaus_server  # noqa: F401  (fixtures)
from tests.test_oauth import SEEKER as OAUTH_SEEKER
from tests.test_oauth import Browser, authorization_url, pkce, register, token_request

ERAS = ["legacy", "2026-07-28"]
HOST = "card-host-of-the-test"  # listed in ATHAUS_CARD_HOSTS by the instances below
CHATGPT_META = {"openai/locale": "de-DE", "openai/userAgent": "ChatGPT/1.0"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "clientInfo": {"name": "t", "version": "1"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


# --- who is a card host ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("client_id", "redirect_uris", "host"),
    [
        ("dcr-1", ["https://chatgpt.com/connector_platform_oauth_redirect"], True),
        ("dcr-2", ["https://chatgpt.com/connector/oauth/eaQ3VyiNzLuI"], True),
        ("dcr-3", ["https://claude.ai/api/mcp/auth_callback", "https://claude.com/api/mcp/auth_callback"], True),
        ("https://chatgpt.com/oauth/client.json", None, True),
        ("https://claude.ai/oauth/mcp-oauth-client-metadata", None, True),
        # ChatGPT's callback beside one of another kind: a code could go there, so not a card host
        ("dcr-4", ["https://chatgpt.com/connector_platform_oauth_redirect", "http://127.0.0.1:8976/callback"], False),
        ("dcr-5", ["https://chatgpt.com/connector/oauth/a/b"], False),
        ("dcr-6", ["https://chatgpt.com.evil.example/connector_platform_oauth_redirect"], False),
        ("dcr-7", ["https://claude.ai/api/mcp/auth_callback?next=x"], False),
        ("dcr-8", [], False),
        # the same vendors' command-line clients show no card
        ("https://chatgpt.com/oauth/codex/client.json", None, False),
        ("https://claude.ai/oauth/claude-code-client-metadata", None, False),
        # a metadata document is judged by its address, never by the redirect URIs it lists (its owner may change them)
        ("https://client.example/oauth/metadata.json", ["https://claude.ai/api/mcp/auth_callback"], False),
        ("athaus-cli", None, False),
        (None, None, False),
    ],
)
def test_built_in_card_hosts(client_id: str | None, redirect_uris: list[str] | None, host: bool) -> None:
    assert CardHosts().recognises(client_id, redirect_uris) is host


def test_the_operators_list_names_redirect_uris_documents_and_client_ids() -> None:
    hosts = CardHosts.listing(["https://host.example/oauth/callback", "https://host.example/client.json", "external-client", " "])
    assert hosts.recognises("dcr", ["https://host.example/oauth/callback"])
    assert hosts.recognises("dcr", ["https://host.example/oauth/callback", CLAUDE_REDIRECT])
    assert not hosts.recognises("dcr", ["https://host.example/oauth/callback", "https://other.example/cb"])
    assert hosts.recognises("https://host.example/client.json") and hosts.recognises("external-client")
    assert not hosts.recognises("https://host.example/other.json") and not hosts.recognises("")
    assert Settings(card_hosts=["external-client"]).card_hosts == ["external-client"]


def caller(card_host: bool) -> Principal:
    return Principal(user_id=1, kind="seeker", office_id=None, office_role=None, scopes=frozenset(), resource="r", card_host=card_host)


def test_the_card_needs_both_a_registered_host_and_its_declaration() -> None:
    for meta, declared in ((app_host_meta(), ()), (CHATGPT_META, ()), ({}, {UI_EXTENSION})):
        assert shows_card(meta, declared, caller(True))
        assert not shows_card(meta, declared, caller(False)) and not shows_card(meta, declared, None)
    assert not shows_card({}, (), caller(True)) and not shows_card({"other": 1}, {"io.example/other"}, caller(True))


# --- the session id of 2025-11-25 -----------------------------------------------------------------------------


def test_the_session_id_carries_the_declaration_signed_for_one_server() -> None:
    search, broker = DeclaredSessions(None, server="suche", secret="s"), DeclaredSessions(None, server="makler", secret="s")  # type: ignore[arg-type]
    session_id = search.issue(frozenset({UI_EXTENSION}))
    assert search.verify(session_id) == {UI_EXTENSION} and search.issue(frozenset({UI_EXTENSION})) != session_id
    assert broker.verify(session_id) is None  # another server's
    assert DeclaredSessions(None, server="suche", secret="other").verify(session_id) is None  # type: ignore[arg-type]
    body, _, mac = session_id.partition(".")
    assert search.verify(f"{body}x.{mac}") is None and search.verify("") is None
    expired = Signer("s", "mcp-session").dumps({"srv": "suche", "ext": [UI_EXTENSION], "n": "1"}, -1)
    assert search.verify(expired) is None
    assert 23 * 3600 < SESSION_SECONDS <= 7 * 24 * 3600


def test_only_an_initialize_declares() -> None:
    def body(message: dict[str, Any]) -> bytes:
        return json.dumps(message).encode()

    declaring = {**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": {"extensions": {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}}}}
    assert declared_at_initialize(body(declaring)) == {UI_EXTENSION}
    assert declared_at_initialize(body({**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": {}}})) == frozenset()
    other = {**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": {"extensions": {UI_EXTENSION: True, "io.example/x": {}}}}}
    assert declared_at_initialize(body(other)) == frozenset()
    assert declared_at_initialize(body({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "initialize"}})) is None
    assert declared_at_initialize(b'{"method": "initialize"') is None


# --- two instances behind one address -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OneAddress, Database]]:
    """Two instances on one database, their secrets from it (no ATHAUS_SECRET_KEY), behind one round-robin address."""
    with seeded_database(tmp_path_factory.mktemp("cardhosts"), "cardhosts") as db:
        with LiveServer(db, card_hosts=[HOST], secret_key=None) as a, LiveServer(db, card_hosts=[HOST], secret_key=None) as b:
            with one_address(a.base_url, b.base_url) as front:
                yield front, db


def bearer(db: Database, client: str, email: str = SEEKER.email, server: str = "suche") -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource, scopes = Settings().resource_url(server), (SEEKER_SCOPES if server == "suche" else BROKER_SCOPES)
        return mint_access_token(session, user_id=user_id, client_id=client, resource=resource, scopes=sorted(scopes)).access_token


def initialize(front: OneAddress, capabilities: dict[str, Any], server: str = "suche", token: str | None = None) -> httpx2.Response:
    message = {**INITIALIZE, "params": {**INITIALIZE["params"], "capabilities": capabilities}}
    headers = {**HEADERS, "Authorization": f"Bearer {token}"} if token else HEADERS
    return httpx2.post(f"{front.url}/{server}/mcp", json=message, headers=headers)


def tools_list(front: OneAddress, session_id: str, server: str = "suche", token: str | None = None) -> httpx2.Response:
    headers = {**HEADERS, "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": session_id}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx2.post(f"{front.url}/{server}/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers)


def test_initialize_of_2025_11_25_states_the_extension_and_a_declaring_client_gets_a_session(pair: tuple[OneAddress, Database]) -> None:
    front, db = pair
    declared = initialize(front, {"extensions": {UI_EXTENSION: dict(UI_EXTENSION_SETTINGS)}})
    plain = initialize(front, {})
    for answer in (declared, plain):
        assert answer.status_code == 200
        result = answer.json()["result"]
        assert result["protocolVersion"] == "2025-11-25"
        assert result["capabilities"]["extensions"] == {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}
    assert "mcp-session-id" not in plain.headers
    session_id = declared.headers["mcp-session-id"]
    assert all(0x21 <= ord(c) <= 0x7E for c in session_id) and len(session_id) < 200
    # every instance verifies it (the two answers come from the two instances in turn)
    before = len(front.served)
    assert [tools_list(front, session_id).status_code for _ in range(2)] == [200, 200]
    assert {served.instance for served in front.served[before:]} == {0, 1}
    # altered, expired, or the other server's: a session the server does not know
    expired = session_signer(pair).dumps({"srv": "suche", "ext": [UI_EXTENSION], "n": "1"}, -1)
    broker = bearer(db, HOST, OWNER.email, "makler")
    assert tools_list(front, initialize(front, {"extensions": {UI_EXTENSION: {}}}, "makler", broker).headers["mcp-session-id"], "makler", broker).status_code == 200
    for unknown, server in ((session_id[:-2] + "AA", "suche"), (expired, "suche"), (session_id, "makler")):
        refused = tools_list(front, unknown, server, broker if server == "makler" else None)
        assert refused.status_code == 404, refused.text
        assert refused.json()["error"]["message"].startswith("Diese Sitzung kennt der Server nicht")


def session_signer(pair: tuple[OneAddress, Database]) -> Signer:
    """The instances' session signer: keyed by the secret both read from their database."""
    from athaus.app import auth_secret

    return Signer(auth_secret(Settings(database_url=str(pair[1].engine.url)), pair[1]), "mcp-session")


def call(front: OneAddress, token: str, tool: str, arguments: dict[str, Any], *, mode: str, apps: bool, meta: dict[str, Any] | None = None) -> types.CallToolResult:
    """One call with the official client through the one address; `apps`: it declares the MCP Apps extension (per
    request in 2026-07-28, at initialize in 2025-11-25)."""
    extensions = [advertise(UI_EXTENSION, dict(UI_EXTENSION_SETTINGS))] if apps else None

    async def run() -> types.CallToolResult:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{front.url}/suche/mcp", http_client=http), mode=mode, extensions=extensions) as client:
                return await client.call_tool(tool, arguments, meta=meta)

    return anyio.run(run)


def recorded(db: Database, ref: str) -> tuple[str, str | None]:
    with db.read_only() as session:
        return tuple(session.execute(select(PendingAction.status, PendingAction.via).where(PendingAction.ref == ref)).one())  # type: ignore[return-value]


@pytest.mark.parametrize("mode", ERAS)
def test_a_registered_host_of_either_era_gets_the_card_across_instances(pair: tuple[OneAddress, Database], mode: str) -> None:
    front, db = pair
    before = len(front.served)
    drafted = call(front, bearer(db, HOST), "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": f"Karte {mode}"}, mode=mode, apps=True)
    assert not drafted.is_error, drafted.content[0].text
    card = dict(drafted.meta[CONFIRMATION_META_KEY])
    assert len(card["token"]) > 16
    clicked = call(front, bearer(db, HOST), "decide_confirmation", click(card), mode=mode, apps=True)
    assert not clicked.is_error, clicked.content[0].text
    assert clicked.structured_content["confirmation"]["confirmed_via"] == "card"
    assert recorded(db, card["confirmation_id"]) == ("sent", "card")
    posts = [served for served in front.served[before:] if served.method == "POST"]
    assert {served.instance for served in posts} == {0, 1}
    if mode == "legacy":  # the session's requests carried its id, and both instances took it
        carried = [served for served in posts if served.session_id]
        assert {served.instance for served in carried} == {0, 1} and all(served.status in (200, 202) for served in carried)
    else:
        assert not any(served.session_id for served in posts)


@pytest.mark.parametrize("mode", ERAS)
def test_a_client_that_only_says_so_gets_the_link(pair: tuple[OneAddress, Database], mode: str) -> None:
    front, db = pair
    drafted = call(front, bearer(db, "any-client"), "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": f"Nur behauptet {mode}"}, mode=mode, apps=True, meta=CHATGPT_META)
    assert not drafted.is_error, drafted.content[0].text
    block = drafted.structured_content["confirmation"]
    assert "token" not in (drafted.meta or {}).get(CONFIRMATION_META_KEY, {})
    assert block["confirm_url"] == f"{Settings().public_url.rstrip('/')}/app/bestaetigungen/{block['confirmation_id']}"
    assert block["confirm_url"] in drafted.content[0].text


# --- a registration makes the host --------------------------------------------------------------------------


def registered_token(athaus: OAuthServer, *redirect_uris: str, client_id: str | None = None) -> str:
    """An access token of the search server for a client registered with `redirect_uris` (or the metadata document
    `client_id`), through the consent page and the code exchange."""
    client = {"client_id": client_id, "redirect_uris": list(redirect_uris)} if client_id else register(athaus.base_url, *redirect_uris).json()
    verifier, challenge = pkce()
    answer = Browser(OAUTH_SEEKER).authorize(authorization_url(athaus.base_url, client, challenge, resource=athaus.resource("suche")))
    form = {"grant_type": "authorization_code", "code": answer["code"], "code_verifier": verifier, "redirect_uri": client["redirect_uris"][0]}
    response = token_request(athaus.base_url, client, **form)
    assert response.status_code == 200, response.text
    return str(response.json()["access_token"])


def card_host_of(athaus: OAuthServer, db: Database, token: str) -> bool:
    principal = anyio.run(StoredTokenResolver(athaus.settings, db, cache_seconds=0).principal, token, ServerName.search)
    assert principal is not None
    return principal.card_host


def test_a_client_registered_with_chatgpts_or_claudes_address_is_a_card_host(athaus_server: OAuthServer, accounts_db: Database) -> None:  # noqa: F811
    assert card_host_of(athaus_server, accounts_db, registered_token(athaus_server, CHATGPT_REDIRECT))
    assert card_host_of(athaus_server, accounts_db, registered_token(athaus_server, CLAUDE_REDIRECT, "https://claude.com/api/mcp/auth_callback"))
    # ChatGPT's address beside one the registrant controls: the code may reach the registrant
    assert not card_host_of(athaus_server, accounts_db, registered_token(athaus_server, CHATGPT_REDIRECT, "http://127.0.0.1:8976/callback"))
    assert not card_host_of(athaus_server, accounts_db, registered_token(athaus_server, "https://app.example/oauth/callback"))


@pytest.mark.parametrize(("document", "host"), [("https://claude.ai/oauth/mcp-oauth-client-metadata", True), ("https://claude.ai/oauth/claude-code-client-metadata", False)])
def test_claudes_metadata_document_makes_a_card_host_and_claude_codes_does_not(
    athaus_server: OAuthServer, accounts_db: Database, monkeypatch: pytest.MonkeyPatch, document: str, host: bool  # noqa: F811
) -> None:
    monkeypatch.setitem(TEST_NAMES, "claude.ai", ["160.79.104.10"])
    body = {"client_id": document, "client_name": "Claude", "redirect_uris": [CLAUDE_REDIRECT], "token_endpoint_auth_method": "none"}
    with respx.mock(assert_all_mocked=True) as mock:  # the server's fetch of the document (the client speaks httpx2)
        mock.get(document).respond(json=body)
        token = registered_token(athaus_server, CLAUDE_REDIRECT, client_id=document)
    assert card_host_of(athaus_server, accounts_db, token) is host


def test_the_session_expires(monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = DeclaredSessions(None, server="suche", secret="s")  # type: ignore[arg-type]
    session_id = sessions.issue(frozenset({UI_EXTENSION}))
    now = time.time()
    monkeypatch.setattr(time, "time", lambda: now + SESSION_SECONDS - 5)
    assert sessions.verify(session_id) == {UI_EXTENSION}
    monkeypatch.setattr(time, "time", lambda: now + SESSION_SECONDS + 5)
    assert sessions.verify(session_id) is None
