"""Who is calling: resolved once per HTTP request from the bearer token, read by the runtime's right check."""

from __future__ import annotations

from dataclasses import dataclass

# The ASGI scope key under which the resource-server middleware leaves the caller for the MCP handlers.
PRINCIPAL_SCOPE_KEY = "athaus.principal"


@dataclass(frozen=True)
class Principal:
    user_id: int
    kind: str  # seeker | broker
    office_id: int | None  # set for brokers: the office all their data is scoped to
    office_role: str | None  # owner | staff
    scopes: frozenset[str]
    resource: str  # the MCP server URL the token is bound to (RFC 8707)
    client_id: str | None = None
    # the token's OAuth client is registered as a host that shows the confirmation card (shared/auth/card_hosts.py):
    # only then may a call get the card's token or make the card's click
    card_host: bool = False
