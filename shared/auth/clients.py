"""OAuth clients: registered dynamically (RFC 7591) or identified by a Client ID Metadata Document URL.

Redirect URIs must be https, or http on a loopback address for native clients (RFC 8252 §7.3, where
the port may differ from the registered one). That covers ChatGPT
(`https://chatgpt.com/connector_platform_oauth_redirect`, `https://chat.openai.com/aip/…/oauth/callback`)
and Claude (`https://claude.ai/api/mcp/auth_callback`, `https://claude.com/api/mcp/auth_callback`).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import logging
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import anyio.to_thread
from mcp.server.auth.provider import RegistrationError
from mcp.shared.auth import OAuthClientInformationFull

from shared.auth import throttle
from shared.outbound import FetchRefused, fetch_public
from shared.auth.models import OAuthClient
from shared.auth.tokens import digest
from shared.db.models import utcnow
from shared.db.session import Database

log = logging.getLogger("athaus.oauth")

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})
DOCUMENT_MAX_BYTES = 64 * 1024
DOCUMENT_TTL_SECONDS = 300  # "briefly": a changed document is seen within five minutes
DOCUMENT_MAX_TTL_SECONDS = 3600
MAX_AGE = re.compile(r"max-age=(\d+)")
DOCUMENT_URL_MAX_CHARS = 500  # the client_id column
DOCUMENT_CACHE_ENTRIES = 1000
CLIENT_NAME_MAX_CHARS = 100
REDIRECT_URIS_MAX = 10
REDIRECT_URI_MAX_CHARS = 500
REGISTRATION_MAX_BYTES = 16 * 1024  # the whole registration request


@dataclass(frozen=True)
class Client:
    client_id: str
    name: str | None
    redirect_uris: tuple[str, ...]
    grant_types: tuple[str, ...]
    secret_hash: str | None  # None: a public client, which authenticates with nothing but PKCE

    @property
    def display_name(self) -> str:
        return self.name or (urlsplit(self.client_id).hostname or self.client_id)

    def redirect_uri_for(self, presented: str | None) -> str | None:
        """The redirect URI to answer at, or None if `presented` is not one of this client's (or has a fragment)."""
        if presented is not None and "#" in presented:
            return None
        if presented is None:
            return self.redirect_uris[0] if len(self.redirect_uris) == 1 else None
        if any(_same_redirect(registered, presented) for registered in self.redirect_uris):
            return presented
        return None


def redirect_uri_allowed(uri: str) -> bool:
    parts = urlsplit(uri)
    if parts.fragment or not parts.hostname or parts.username or parts.password:
        return False
    return parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)


def _same_redirect(registered: str, presented: str) -> bool:
    if registered == presented:
        return True
    a, b = urlsplit(registered), urlsplit(presented)
    # Native apps get a fresh loopback port each run; everything but the port must still match.
    return (
        a.scheme == b.scheme == "http"
        and a.hostname in LOOPBACK_HOSTS
        and a.hostname == b.hostname
        and (a.path, a.query) == (b.path, b.query)
    )


def document_url_allowed(url: str) -> bool:
    """A Client ID Metadata Document URL: https with a path, no credentials or fragment, not too long, and no host we
    would not fetch from by its name (the addresses it resolves to are checked by shared.outbound)."""
    if len(url) > DOCUMENT_URL_MAX_CHARS:
        return False
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  (raises on a malformed port)
    except ValueError:
        return False
    if parts.scheme != "https" or parts.path in ("", "/") or parts.fragment or parts.username or not parts.hostname:
        return False
    return not (parts.hostname == "localhost" or parts.hostname.endswith(".localhost"))


class ClientRegistry:
    """Finds clients; the SDK's registration handler stores new ones through `register_client`."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._documents: dict[str, tuple[float, Client]] = {}

    async def get(self, client_id: str) -> Client | None:
        if client_id.startswith("https://"):
            return await self._document(client_id)
        return await anyio.to_thread.run_sync(self._stored, client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        uris = [str(uri) for uri in client_info.redirect_uris or []]
        if len(client_info.client_name or "") > CLIENT_NAME_MAX_CHARS:
            raise RegistrationError("invalid_client_metadata", f"client_name hat höchstens {CLIENT_NAME_MAX_CHARS} Zeichen.")
        if len(uris) > REDIRECT_URIS_MAX or any(len(uri) > REDIRECT_URI_MAX_CHARS for uri in uris):
            raise RegistrationError(
                "invalid_redirect_uri",
                f"Höchstens {REDIRECT_URIS_MAX} redirect_uris mit je höchstens {REDIRECT_URI_MAX_CHARS} Zeichen.",
            )
        refused = [uri for uri in uris if not redirect_uri_allowed(uri)]
        if not uris or refused:
            raise RegistrationError(
                "invalid_redirect_uri",
                "Nur https-Adressen oder http auf 127.0.0.1/localhost sind als redirect_uris erlaubt"
                + (f"; abgelehnt: {', '.join(refused)}" if refused else "."),
            )
        registration = client_info.model_dump(mode="json", exclude_none=True, exclude={"client_secret"})
        secret_hash = digest(client_info.client_secret) if client_info.client_secret else None

        def store() -> None:
            with self.db.unit_of_work() as session:
                session.add(OAuthClient(client_id=client_info.client_id, secret_hash=secret_hash, registration=registration))

        await anyio.to_thread.run_sync(store)

    async def authenticate(self, form: Mapping[str, object], authorization: str | None) -> Client | None:
        """The client a token or revocation request comes from, if its credentials hold (RFC 6749 §2.3.1)."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.lower().startswith("basic "):
            try:
                basic_id, _, basic_secret = base64.b64decode(authorization[6:]).decode().partition(":")
            except (binascii.Error, UnicodeDecodeError):
                return None
            if client_id is not None and client_id != unquote(basic_id):
                return None
            client_id, secret = unquote(basic_id), unquote(basic_secret)
        if not isinstance(client_id, str) or not client_id:
            return None
        client = await self.get(client_id)
        if client is None:
            return None
        if client.secret_hash is None:
            return client
        if not isinstance(secret, str) or not hmac.compare_digest(digest(secret), client.secret_hash):
            return None
        return client

    def _stored(self, client_id: str) -> Client | None:
        with self.db.read_only() as session:
            row = session.get(OAuthClient, client_id)
            if row is None:
                return None
            info = OAuthClientInformationFull.model_validate(row.registration)
            return Client(
                client_id=row.client_id,
                name=info.client_name,
                redirect_uris=tuple(str(uri) for uri in info.redirect_uris or []),
                grant_types=tuple(info.grant_types),
                secret_hash=row.secret_hash,
            )

    def _fetch_allowed(self, url: str) -> int | None:
        """Every fetch of a metadata document is counted before it is made: per host named and overall, so new
        client_id URLs at /authorize cannot turn this server into a stream of outbound requests."""
        checks = [(throttle.METADATA_FETCH_PER_HOST, urlsplit(url).hostname or ""), (throttle.METADATA_FETCH_OVERALL, "")]
        with self.db.unit_of_work() as session:
            return throttle.attempt(session, checks, utcnow())

    async def _document(self, url: str) -> Client | None:
        cached = self._documents.get(url)
        if cached and cached[0] > time.monotonic():
            return cached[1]
        if not document_url_allowed(url):
            log.warning(json.dumps({"event": "client_document_refused", "client_id": url[:DOCUMENT_URL_MAX_CHARS], "reason": "url"}))
            return None
        wait = await anyio.to_thread.run_sync(self._fetch_allowed, url)
        if wait is not None:
            log.warning(json.dumps({"event": "client_document_throttled", "client_id": url, "retry_after": wait}))
            return None
        try:
            fetched = await fetch_public(url, max_bytes=DOCUMENT_MAX_BYTES, purpose="client_document")
        except FetchRefused as failure:
            log.warning(json.dumps({"event": "client_document_unreachable", "client_id": url, "error": failure.kind}))
            return None
        ok = fetched.status == 200 and len(fetched.body) <= DOCUMENT_MAX_BYTES
        client = _client_from_document(url, fetched.body) if ok else None
        if client is None:
            log.warning(json.dumps({"event": "client_document_refused", "client_id": url, "status": fetched.status}))
            return None
        found = MAX_AGE.search(fetched.cache_control)
        ttl = min(int(found.group(1)), DOCUMENT_MAX_TTL_SECONDS) if found else DOCUMENT_TTL_SECONDS
        if len(self._documents) >= DOCUMENT_CACHE_ENTRIES:
            self._documents.clear()
        self._documents[url] = (time.monotonic() + ttl, client)
        return client


def _client_from_document(url: str, body: bytes) -> Client | None:
    """Validates a Client ID Metadata Document (MCP client-registration, draft-ietf-oauth-client-id-metadata-document)."""
    try:
        document = json.loads(body)
    except ValueError:
        return None
    if not isinstance(document, dict) or document.get("client_id") != url:
        return None
    name, uris = document.get("client_name"), document.get("redirect_uris")
    if not isinstance(name, str) or not name.strip() or not isinstance(uris, list) or not uris:
        return None
    if not all(isinstance(uri, str) and redirect_uri_allowed(uri) for uri in uris):
        return None
    # Such a client has no secret with us; private_key_jwt is not supported, so only "none" fits.
    if document.get("token_endpoint_auth_method", "none") != "none":
        return None
    grant_types = document.get("grant_types", ["authorization_code", "refresh_token"])
    if not isinstance(grant_types, list):
        return None
    return Client(client_id=url, name=name.strip(), redirect_uris=tuple(uris), grant_types=tuple(map(str, grant_types)), secret_hash=None)
