"""Access tokens of an external authorization server (ATHAUS_OAUTH_ISSUER): JWTs checked against its JWKS.

A token is accepted when its signature verifies with a key of the JWKS (asymmetric algorithms only),
`iss` is the configured issuer, `aud` names this MCP server's resource URL (RFC 8707: a token for
/suche/mcp is refused at /makler/mcp), and it has not expired. `scope` is space-separated. The account
is found by e-mail address: the claim named by ATHAUS_OAUTH_USER_CLAIM (default `email`; set it to
`sub` where the authorization server puts the address there), compared case-insensitively. Athaus
user ids are never taken from a foreign token.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx
import jwt

from contract.rights import ServerName
from shared.auth.access import account_by_email, build_principal
from shared.auth.card_hosts import CardHosts
from shared.auth.principal import Principal
from shared.db.session import Database
from shared.identity import user_agent
from shared.settings import Settings

log = logging.getLogger("athaus.oauth")

ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
KEYS_TTL_SECONDS = 600
KEYS_MIN_REFETCH_SECONDS = 30  # an unknown kid triggers a refetch, but not a flood of them
LEEWAY_SECONDS = 30


class JwksKeys:
    """The issuer's signing keys, refetched after a while or when a token names an unknown key."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._keys: dict[str | None, jwt.PyJWK] = {}
        self._fetched_at = float("-inf")
        self._lock = anyio.Lock()

    async def key(self, kid: str | None) -> jwt.PyJWK | None:
        age = time.monotonic() - self._fetched_at
        if age > KEYS_TTL_SECONDS or (kid not in self._keys and age > KEYS_MIN_REFETCH_SECONDS):
            async with self._lock:
                await self._fetch()
        if kid is None and len(self._keys) == 1:
            return next(iter(self._keys.values()))
        return self._keys.get(kid)

    async def _fetch(self) -> None:
        try:
            async with httpx.AsyncClient(timeout=5.0, headers={"User-Agent": user_agent()}) as http:
                response = await http.get(self.url)
                response.raise_for_status()
            keys = jwt.PyJWKSet.from_dict(response.json()).keys
        except (httpx.HTTPError, ValueError, jwt.PyJWKSetError) as failure:
            status = failure.response.status_code if isinstance(failure, httpx.HTTPStatusError) else None
            log.warning(json.dumps({
                "event": "jwks_unavailable", "host": urlsplit(self.url).hostname, "error": type(failure).__name__, "status": status,
            }))
            return
        self._keys = {key.key_id: key for key in keys}
        self._fetched_at = time.monotonic()


class JwtTokenResolver:
    def __init__(self, settings: Settings, db: Database, keys: JwksKeys) -> None:
        self.settings = settings
        self.db = db
        self.keys = keys
        self.card_hosts = CardHosts.listing(settings.card_hosts)

    async def principal(self, token: str, server: ServerName) -> Principal | None:
        claims = await self._claims(token, self.settings.resource_url(server.value))
        if claims is None:
            return None
        email = claims.get(self.settings.oauth_user_claim)
        if not isinstance(email, str):
            return None
        scope = claims.get("scope", "")
        scopes = scope.split() if isinstance(scope, str) else []
        client_id = claims.get("client_id") or claims.get("azp")
        return await anyio.to_thread.run_sync(self._principal, email, scopes, server, client_id if isinstance(client_id, str) else None)

    async def _claims(self, token: str, resource: str) -> dict[str, Any] | None:
        try:
            header = jwt.get_unverified_header(token)
            key = await self.keys.key(header.get("kid"))
            if key is None:
                return None
            return jwt.decode(
                token,
                key=key.key,
                algorithms=ALGORITHMS,
                audience=resource,
                issuer=self.settings.oauth_issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.PyJWTError:
            return None

    def _principal(self, email: str, scopes: list[str], server: ServerName, client_id: str | None) -> Principal | None:
        resource = self.settings.resource_url(server.value)
        with self.db.read_only() as session:
            account = account_by_email(session, email)
        card_host = self.card_hosts.recognises(client_id)  # an external server's tokens name only the client
        return build_principal(account, scopes, server, resource, client_id, card_host=card_host) if account else None
