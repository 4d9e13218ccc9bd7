"""Which OAuth clients are hosts that show the confirmation card: decided by the client's registration, never by what
a request says about itself (docs/engineering.md, "The click boundary").

A client is a card host when
- its client_id is a Client ID Metadata Document of such a host (built in: ChatGPT's and Claude's chat apps), or
- every redirect URI it registered (RFC 7591) is such a host's callback (built in: ChatGPT's and Claude's): the
  authorization code, and so every token of the client, can only have reached that host; one address of any other
  kind (a loopback port, another site) and the client is not one, or
- the operator lists it (`ATHAUS_CARD_HOSTS`): an exact redirect URI, a metadata document's URL or a client_id (for an
  external authorization server, whose tokens name only the client).

A metadata document's own redirect URIs do not count: its owner may change them after a token was issued, so only the
document's address, which names who publishes it, does. Registrations by DCR are never changed after the fact.

Sources of the built-in addresses: OpenAI's Apps SDK (ChatGPT connectors call back to
`https://chatgpt.com/connector_platform_oauth_redirect`, or, without RFC 9207 `iss` in the answer, to a per-connector
`https://chatgpt.com/connector/oauth/{id}`; ChatGPT's document is `https://chatgpt.com/oauth/client.json`) and
Anthropic's connector docs (Claude calls back to `https://claude.ai/api/mcp/auth_callback` and
`https://claude.com/api/mcp/auth_callback`; Claude's document is `https://claude.ai/oauth/mcp-oauth-client-metadata`).
Documents of the same vendors' command-line clients (Codex `https://chatgpt.com/oauth/codex/client.json`, Claude Code
`https://claude.ai/oauth/claude-code-client-metadata`) show no card and are not on the list."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

HOST_REDIRECTS = frozenset({
    "https://chatgpt.com/connector_platform_oauth_redirect",
    "https://claude.ai/api/mcp/auth_callback",
    "https://claude.com/api/mcp/auth_callback",
})
# ChatGPT's per-connector callback: one path segment of its own after the fixed prefix, nothing else
HOST_REDIRECT_PATTERNS = (re.compile(r"https://chatgpt\.com/connector/oauth/[A-Za-z0-9_-]{1,100}"),)
HOST_DOCUMENTS = frozenset({
    "https://chatgpt.com/oauth/client.json",
    "https://claude.ai/oauth/mcp-oauth-client-metadata",
    "https://claude.com/oauth/mcp-oauth-client-metadata",
})


def host_redirect(uri: str) -> bool:
    """Is `uri` a built-in card host's callback (exactly)?"""
    return uri in HOST_REDIRECTS or any(pattern.fullmatch(uri) for pattern in HOST_REDIRECT_PATTERNS)


@dataclass(frozen=True)
class CardHosts:
    """The built-in card hosts and the operator's list (`ATHAUS_CARD_HOSTS`)."""

    listed: frozenset[str] = frozenset()

    @classmethod
    def listing(cls, entries: Iterable[str]) -> CardHosts:
        return cls(frozenset(entry.strip() for entry in entries if entry.strip()))

    def recognises(self, client_id: str | None, redirect_uris: Sequence[str] | None = None) -> bool:
        """Does the client `client_id`, registered with `redirect_uris` (None: no registration is stored here, as for a
        metadata document's client or an external authorization server's), show the card?"""
        if not client_id:
            return False
        if client_id in HOST_DOCUMENTS or client_id in self.listed:
            return True
        if client_id.startswith("https://") or not redirect_uris:
            return False
        return all(host_redirect(uri) or uri in self.listed for uri in redirect_uris)
