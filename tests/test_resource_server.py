"""Both MCP servers as OAuth resource servers: RFC 9728 metadata, 401 challenges, audience binding, the
Principal handed to the runtime, and JWT access tokens of an external authorization server."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import jwt
import pytest
import respx
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm
from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls
from sqlalchemy import delete, select
from starlette.responses import JSONResponse
from starlette.testclient import TestClient
from starlette.types import Receive, Scope, Send

from contract.broker import SERVER as BROKER_SERVER
from contract.rights import ServerName
from contract.search import SERVER as SEARCH_SERVER
from contract.servers import SERVERS
from shared.auth.challenge import RightsMap
from shared.auth.external import JwksKeys, JwtTokenResolver
from shared.auth.principal import PRINCIPAL_SCOPE_KEY
from shared.auth.resource import BearerAuthentication, StoredTokenResolver, TokenResolver
from shared.auth import tokens
from shared.auth.access import ACCESS_CHANGED
from shared.auth.tokens import mint_access_token
from shared.matching import notify
from shared.db.models import OfficeMember, User
from shared.db.session import Database
from shared.settings import Settings
from tests.test_oauth import (
    BROKER,
    BROKER_SCOPES,
    SEARCH_SCOPES,
    SEEKER,
    OAuthServer,
    assert_rights,
    connected,
    fresh_accounts,
    mcp_status,
    scoped_tools,
    serve,
)

ISSUER = "https://login.example"
JWKS_URL = "https://login.example/.well-known/jwks.json"


@pytest.fixture(scope="module")
def accounts_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    yield from fresh_accounts(tmp_path_factory)


@pytest.fixture(scope="module")
def athaus_server(accounts_db: Database) -> Iterator[OAuthServer]:
    yield from serve(accounts_db)


def mint(db: Database, settings: Settings, email: str, server: str, scopes: list[str]) -> str:
    with db.unit_of_work() as session:
        user = session.scalars(select(User).where(User.email == email)).one()
        return mint_access_token(session, user_id=user.id, client_id="test", resource=settings.resource_url(server), scopes=scopes).access_token


def challenge(response: httpx2.Response) -> str:
    assert response.status_code == 401, response.text
    return response.headers["www-authenticate"]


def post_mcp(url: str, headers: dict[str, str] | None = None) -> httpx2.Response:
    return httpx2.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", **(headers or {})},
    )


# --- built-in authorization server -------------------------------------------------------------------------


@pytest.mark.parametrize(("server", "scopes", "name"), [("makler", BROKER_SCOPES, "Athaus für Makler"), ("suche", SEARCH_SCOPES, "Athaus Immobiliensuche")])
def test_protected_resource_metadata(athaus_server: OAuthServer, server: str, scopes: list[str], name: str) -> None:
    # Where a client without a 401 challenge looks first (RFC 9728 path insertion), as the SDK builds it.
    url = build_protected_resource_metadata_discovery_urls(None, athaus_server.resource(server))[0]
    assert url == f"{athaus_server.base_url}/.well-known/oauth-protected-resource/{server}/mcp"
    response = httpx2.get(url)
    assert response.status_code == 200
    assert response.json() == {
        "resource": f"{athaus_server.base_url}/{server}/mcp",
        "authorization_servers": [athaus_server.base_url],
        "scopes_supported": scopes,
        "bearer_methods_supported": ["header"],
        "resource_name": name,
    }


def test_the_broker_server_without_a_token_answers_401_with_the_bare_challenge(athaus_server: OAuthServer) -> None:
    response = post_mcp(athaus_server.resource("makler"))
    metadata = f"{athaus_server.base_url}/.well-known/oauth-protected-resource/makler/mcp"
    assert challenge(response) == f'Bearer resource_metadata="{metadata}", scope="makler:lesen"'
    assert "Anmeldung" in response.json()["error_description"]


def test_the_search_server_without_a_token_serves_its_public_tools(athaus_server: OAuthServer) -> None:
    suche = athaus_server.resource("suche")

    async def anonymous() -> tuple[list[str], dict[str, Any], list[Any]]:
        async with connected(suche, "2026-07-28") as client:
            names = [tool.name for tool in (await client.list_tools()).tools]
            costs = await client.call_tool("calculate_purchase_costs", {"price": 300000, "state": "Sachsen"})
            # ChatGPT-style hosts (openai/… in _meta) get the challenge in the tool result, not as HTTP 401.
            meta = {"openai/userAgent": "ChatGPT/1.0", "openai/locale": "de-DE"}
            account = [await client.call_tool(spec.name, {}, meta=meta) for spec in scoped_tools(SEARCH_SERVER.tools)]
            return names, costs.structured_content or {}, account

    names, costs, account = anyio.run(anonymous)
    assert names == [spec.name for spec in SEARCH_SERVER.tools]
    assert costs
    metadata = f"{athaus_server.base_url}/.well-known/oauth-protected-resource/suche/mcp"
    for spec, result in zip(scoped_tools(SEARCH_SERVER.tools), account, strict=True):
        assert result.meta["athaus/code"] == "MISSING_RIGHT"
        assert result.meta["mcp/www_authenticate"] == f'Bearer resource_metadata="{metadata}", scope="{spec.right.scope}"'


def call_tool(url: str, name: str, headers: dict[str, str] | None = None, meta: dict[str, Any] | None = None) -> httpx2.Response:
    params: dict[str, Any] = {"name": name, "arguments": {}, **({"_meta": meta} if meta else {})}
    return httpx2.post(
        url,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", **(headers or {})},
    )


@pytest.mark.parametrize("server", ["makler", "suche"])
def test_a_call_that_needs_a_right_without_a_token_is_401_with_its_scope(athaus_server: OAuthServer, server: str) -> None:
    url = athaus_server.resource(server)
    metadata = f"{athaus_server.base_url}/.well-known/oauth-protected-resource/{server}/mcp"
    for spec in scoped_tools(BROKER_SERVER.tools if server == "makler" else SEARCH_SERVER.tools):
        response = call_tool(url, spec.name)
        assert response.status_code == 401, spec.name
        assert response.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}", scope="{spec.right.scope}"'
        assert "Anmeldung" in response.json()["error_description"]


def test_public_tools_and_lists_stay_anonymous(athaus_server: OAuthServer) -> None:
    suche = athaus_server.resource("suche")
    assert call_tool(suche, "calculate_purchase_costs").status_code == 200
    assert post_mcp(suche).status_code == 200
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "athaus://suche/anfragen/I-000001"}}
    refused = httpx2.post(suche, json=read, headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"})
    assert refused.status_code == 401 and 'scope="suche:konto"' in refused.headers["www-authenticate"]


@pytest.mark.parametrize(
    ("server", "email", "granted", "tool_scope"),
    [("suche", SEEKER, ["suche:anfragen"], "suche:konto"), ("makler", BROKER, ["makler:schreiben"], "makler:lesen")],
)
def test_a_token_without_the_right_is_403_insufficient_scope(
    athaus_server: OAuthServer, accounts_db: Database, server: str, email: str, granted: list[str], tool_scope: str
) -> None:
    token = mint(accounts_db, athaus_server.settings, email, server, granted)
    url = athaus_server.resource(server)
    metadata = f"{athaus_server.base_url}/.well-known/oauth-protected-resource/{server}/mcp"
    tools = BROKER_SERVER.tools if server == "makler" else SEARCH_SERVER.tools
    spec = next(spec for spec in tools if spec.right.scope == tool_scope)
    refused = call_tool(url, spec.name, {"Authorization": f"Bearer {token}"})
    assert refused.status_code == 403
    assert refused.headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}", scope="{tool_scope}", error="insufficient_scope"'
    assert refused.json()["error"] == "insufficient_scope"
    # The same call from a ChatGPT-style host: the tool result carries the challenge instead.
    hosted = call_tool(url, spec.name, {"Authorization": f"Bearer {token}"}, meta={"openai/subject": "v1/abc"})
    assert hosted.status_code == 200
    result = hosted.json()["result"]
    assert result["_meta"]["athaus/code"] == "MISSING_RIGHT"
    assert 'error="insufficient_scope"' in result["_meta"]["mcp/www_authenticate"]
    # The token itself is fine: a request that needs no right passes with it.
    assert post_mcp(url, {"Authorization": f"Bearer {token}"}).status_code == 200


@pytest.mark.parametrize("server", ["makler", "suche"])
@pytest.mark.parametrize("authorization", ["Bearer unsinn", "Bearer", "Basic bWFrbGVyaW46Z2VoZWlt", "bearer x.y.z"])
def test_bad_tokens_are_refused_with_invalid_token(athaus_server: OAuthServer, server: str, authorization: str) -> None:
    response = post_mcp(athaus_server.resource(server), {"Authorization": authorization})
    basic = "makler:lesen" if server == "makler" else "suche:konto"
    metadata = f"{athaus_server.base_url}/.well-known/oauth-protected-resource/{server}/mcp"
    expected = f'Bearer resource_metadata="{metadata}", scope="{basic}", error="invalid_token"'
    assert challenge(response) == expected
    assert response.json()["error"] == "invalid_token"


def test_a_token_is_refused_by_the_other_server(athaus_server: OAuthServer, accounts_db: Database) -> None:
    broker_token = mint(accounts_db, athaus_server.settings, BROKER, "makler", BROKER_SCOPES)
    seeker_token = mint(accounts_db, athaus_server.settings, SEEKER, "suche", SEARCH_SCOPES)
    assert (mcp_status(athaus_server.resource("makler"), broker_token), mcp_status(athaus_server.resource("suche"), seeker_token)) == (200, 200)
    assert 'error="invalid_token"' in challenge(post_mcp(athaus_server.resource("suche"), {"Authorization": f"Bearer {broker_token}"}))
    assert 'error="invalid_token"' in challenge(post_mcp(athaus_server.resource("makler"), {"Authorization": f"Bearer {seeker_token}"}))


@pytest.mark.parametrize(("server", "email", "granted"), [("makler", BROKER, {"makler:lesen"}), ("suche", SEEKER, {"suche:konto", "suche:anfragen"})])
def test_a_token_with_too_few_rights_gets_missing_right(
    athaus_server: OAuthServer, accounts_db: Database, server: str, email: str, granted: set[str]
) -> None:
    token = mint(accounts_db, athaus_server.settings, email, server, sorted(granted))

    async def calls() -> None:
        async with connected(athaus_server.resource(server), "2026-07-28", token=token) as client:
            await assert_rights(client, BROKER_SERVER.tools if server == "makler" else SEARCH_SERVER.tools, granted)

    anyio.run(calls)


async def echo_principal(scope: Scope, receive: Receive, send: Send) -> None:
    """Stands in for the MCP endpoint: answers with the Principal the middleware left in the scope."""
    principal = scope.get(PRINCIPAL_SCOPE_KEY)
    body = None if principal is None else {**vars(principal), "scopes": sorted(principal.scopes)}
    await JSONResponse(body)(scope, receive, send)


def principal_seen(settings: Settings, resolver: TokenResolver, server: ServerName, token: str | None, *, require: bool = True) -> tuple[int, Any]:
    app = BearerAuthentication(
        echo_principal, server=server, settings=settings, resolver=resolver, require_token=require, rights=RightsMap(SERVERS[server])
    )
    response = TestClient(app).post("/", headers={"Authorization": f"Bearer {token}"} if token else {})
    return response.status_code, response.json() if response.status_code == 200 else None


def test_the_principal_carries_user_office_role_rights_and_resource(athaus_server: OAuthServer, accounts_db: Database) -> None:
    settings = athaus_server.settings
    resolver = StoredTokenResolver(settings, accounts_db)
    with accounts_db.read_only() as session:
        broker_id, office_id = session.execute(select(User.id, OfficeMember.office_id).join(OfficeMember).where(User.email == BROKER)).one()
        seeker_id = session.scalars(select(User.id).where(User.email == SEEKER)).one()

    token = mint(accounts_db, settings, BROKER, "makler", ["makler:lesen", "makler:senden"])
    assert principal_seen(settings, resolver, ServerName.broker, token) == (
        200,
        {
            "user_id": broker_id,
            "kind": "broker",
            "office_id": office_id,
            "office_role": "owner",
            "scopes": ["makler:lesen", "makler:senden"],
            "resource": settings.resource_url("makler"),
            "client_id": "test",
            "card_host": False,  # a client named "test" with no registration: not a host that shows the card
        },
    )
    token = mint(accounts_db, settings, SEEKER, "suche", ["suche:konto"])
    status, principal = principal_seen(settings, resolver, ServerName.search, token, require=False)
    assert (status, principal["user_id"], principal["kind"], principal["office_id"], principal["scopes"]) == (200, seeker_id, "seeker", None, ["suche:konto"])
    assert principal_seen(settings, resolver, ServerName.search, None, require=False) == (200, None)
    assert principal_seen(settings, resolver, ServerName.broker, token)[0] == 401


def test_a_broker_who_left_the_office_keeps_no_broker_rights(athaus_server: OAuthServer, accounts_db: Database) -> None:
    settings = athaus_server.settings
    with accounts_db.read_only() as session:
        broker_id, office_id = session.execute(select(User.id, OfficeMember.office_id).join(OfficeMember).where(User.email == BROKER)).one()
    token = mint(accounts_db, settings, BROKER, "makler", BROKER_SCOPES)
    resolver = StoredTokenResolver(settings, accounts_db)
    assert principal_seen(settings, resolver, ServerName.broker, token)[1]["scopes"] == BROKER_SCOPES  # now cached
    with accounts_db.unit_of_work() as session:
        session.execute(delete(OfficeMember).where(OfficeMember.user_id == broker_id))
    try:
        status, principal = principal_seen(settings, resolver, ServerName.broker, token)
        assert (status, principal["office_id"], principal["scopes"]) == (200, None, [])
    finally:
        with accounts_db.unit_of_work() as session:
            session.add(OfficeMember(office_id=office_id, user_id=broker_id, role="owner"))


def test_a_revoked_token_stops_at_once_though_its_principal_was_cached(athaus_server: OAuthServer, accounts_db: Database) -> None:
    """The principal cache (issue 21) empties on the revoking commit in this process, and on the NOTIFY of another
    worker's or instance's commit (here a second Database, as another process has, whose commit this one only hears)."""
    settings = athaus_server.settings
    resolver = StoredTokenResolver(settings, accounts_db)
    token = mint(accounts_db, settings, SEEKER, "suche", ["suche:konto"])
    assert principal_seen(settings, resolver, ServerName.search, token)[0] == 200
    with accounts_db.unit_of_work() as session:
        tokens.revoke(session, token=token, client_id="test")
    assert principal_seen(settings, resolver, ServerName.search, token)[0] == 401

    token = mint(accounts_db, settings, SEEKER, "suche", ["suche:konto"])
    assert principal_seen(settings, resolver, ServerName.search, token)[0] == 200
    other = Database.from_url(accounts_db.engine.url.render_as_string(hide_password=False))
    try:
        with other.unit_of_work() as session:
            tokens.revoke(session, token=token, client_id="test")
    finally:
        other.engine.dispose()
    assert principal_seen(settings, resolver, ServerName.search, token)[0] == 200  # cached: not heard of yet
    notify.deliver({"event": ACCESS_CHANGED})  # what the listener of this process hands on (PostgreSQL)
    assert principal_seen(settings, resolver, ServerName.search, token)[0] == 401


def test_resolvers_share_one_set_of_access_listeners_and_a_gone_one_is_not_kept(
    athaus_server: OAuthServer, accounts_db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every app built on a database makes a resolver: the database's session listeners are registered once, and a
    resolver nobody holds any more is neither kept alive by them nor called (before, each resolver added four
    listeners and a subscriber for good, and every flush walked its rows once per resolver ever built)."""
    settings = athaus_server.settings
    first = StoredTokenResolver(settings, accounts_db)
    registered: list[str] = []
    listen_writes = accounts_db.listen_writes
    monkeypatch.setattr(accounts_db, "listen_writes", lambda name, listener: (registered.append(name), listen_writes(name, listener)))
    gone = weakref.ref(StoredTokenResolver(settings, accounts_db))
    gc.collect()
    assert (gone(), registered) == (None, [])

    token = mint(accounts_db, settings, SEEKER, "suche", ["suche:konto"])
    assert principal_seen(settings, first, ServerName.search, token)[0] == 200
    with accounts_db.unit_of_work() as session:
        tokens.revoke(session, token=token, client_id="test")
    assert principal_seen(settings, first, ServerName.search, token)[0] == 401  # the one still held still hears
    notify.deliver({"event": ACCESS_CHANGED})
    assert [ref() is not None for ref in notify.SUBSCRIBERS] == [True] * len(notify.SUBSCRIBERS)  # gone ones dropped on delivery


# --- an external authorization server ----------------------------------------------------------------------


class Issuer:
    """The external authorization server: an RSA key, its JWKS, and tokens signed with it."""

    def __init__(self, kid: str = "schluessel-1") -> None:
        self.kid = kid
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def jwks(self) -> dict[str, Any]:
        public = RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**public, "kid": self.kid, "use": "sig", "alg": "RS256"}]}

    def token(self, **claims: Any) -> str:
        now = int(time.time())
        defaults = {"iss": ISSUER, "sub": "idp-user-4711", "iat": now, "exp": now + 600, "azp": "chatgpt-connector"}
        return jwt.encode({**defaults, **claims}, self.key, algorithm="RS256", headers={"kid": self.kid})


@pytest.fixture(scope="module")
def issuer() -> Issuer:
    return Issuer()


@pytest.fixture(scope="module")
def jwks(issuer: Issuer) -> Iterator[respx.Route]:
    """The issuer's JWKS, served by respx: Athaus fetches it with httpx; the tests' own traffic (httpx2) is not mocked."""
    with respx.mock(assert_all_called=False) as mock:
        yield mock.get(JWKS_URL).respond(json=issuer.jwks())


@pytest.fixture(scope="module")
def external_server(accounts_db: Database, jwks: respx.Route) -> Iterator[OAuthServer]:
    yield from serve(accounts_db, oauth_issuer=ISSUER, oauth_jwks_url=JWKS_URL)


def test_with_an_external_issuer_the_metadata_points_there_and_the_built_in_server_is_gone(external_server: OAuthServer) -> None:
    base = external_server.base_url
    for server in ("makler", "suche"):
        assert httpx2.get(f"{base}/.well-known/oauth-protected-resource/{server}/mcp").json()["authorization_servers"] == [ISSUER]
    for path in ("/.well-known/oauth-authorization-server", "/authorize", "/oauth/anmelden", "/oauth/zustimmung"):
        assert httpx2.get(f"{base}{path}").status_code == 404, path
    for path in ("/token", "/register", "/revoke"):
        assert httpx2.post(f"{base}{path}").status_code == 404, path


def test_an_external_jwt_for_this_server_is_accepted(external_server: OAuthServer, issuer: Issuer) -> None:
    token = issuer.token(aud=external_server.resource("makler"), email=BROKER.upper(), scope="makler:lesen")

    async def calls() -> int:
        async with connected(external_server.resource("makler"), "2026-07-28", token=token) as client:
            count = len((await client.list_tools()).tools)
            await assert_rights(client, BROKER_SERVER.tools, {"makler:lesen"})
            return count

    assert anyio.run(calls) == len(BROKER_SERVER.tools)


def refused_claims(server: OAuthServer) -> list[tuple[str, dict[str, Any]]]:
    makler, suche = server.resource("makler"), server.resource("suche")
    now = int(time.time())
    return [
        ("for the other server", {"aud": suche, "email": BROKER}),
        ("expired", {"aud": makler, "email": BROKER, "exp": now - 120}),
        ("another issuer", {"aud": makler, "email": BROKER, "iss": "https://login.evil.example"}),
        ("no such account", {"aud": makler, "email": "fremd@example.de"}),
        ("no e-mail claim", {"aud": makler}),
    ]


def test_external_jwts_are_refused_when_audience_expiry_issuer_or_account_do_not_fit(external_server: OAuthServer, issuer: Issuer) -> None:
    for reason, claims in refused_claims(external_server):
        token = issuer.token(scope="makler:lesen", **claims)
        assert mcp_status(external_server.resource("makler"), token) == 401, reason
    forged = Issuer(kid=issuer.kid).token(aud=external_server.resource("makler"), email=BROKER, scope="makler:lesen")
    assert mcp_status(external_server.resource("makler"), forged) == 401
    built_in = mint(external_server.db, external_server.settings, BROKER, "makler", BROKER_SCOPES)
    assert mcp_status(external_server.resource("makler"), built_in) == 401


def test_an_external_jwt_becomes_a_principal(accounts_db: Database, issuer: Issuer, jwks: respx.Route) -> None:
    settings = Settings(
        database_url=str(accounts_db.engine.url), public_url="https://athaus.example", oauth_issuer=ISSUER, oauth_jwks_url=JWKS_URL, oauth_user_claim="sub"
    )
    resolver = JwtTokenResolver(settings, accounts_db, JwksKeys(JWKS_URL))
    token = issuer.token(aud=[settings.resource_url("suche"), "https://other.example"], sub=SEEKER, scope="suche:konto suche:anfragen makler:lesen")
    status, principal = principal_seen(settings, resolver, ServerName.search, token)
    with accounts_db.read_only() as session:
        seeker_id = session.scalars(select(User.id).where(User.email == SEEKER)).one()
    assert status == 200
    # Rights of the other server in a foreign token are dropped: a seeker holds seeker rights only.
    assert principal == {
        "user_id": seeker_id,
        "kind": "seeker",
        "office_id": None,
        "office_role": None,
        "scopes": ["suche:anfragen", "suche:konto"],
        "resource": settings.resource_url("suche"),
        "client_id": "chatgpt-connector",
        "card_host": False,  # an external server's client id counts only when ATHAUS_CARD_HOSTS lists it
    }


def test_settings_name_the_external_issuer_and_its_keys_together() -> None:
    with pytest.raises(ValueError, match="ATHAUS_OAUTH_JWKS_URL"):
        Settings(oauth_issuer=ISSUER)
    assert Settings(oauth_issuer=ISSUER, oauth_jwks_url=JWKS_URL).issuer == ISSUER
    assert Settings(public_url="https://athaus.example/").issuer == "https://athaus.example"
