"""What kind of host a request comes from, and whether it gets the confirmation card (docs/engineering.md, "The click
boundary").

Two things must hold for the card's token and its click:
- the request says it comes from a host that shows MCP Apps: the extension `io.modelcontextprotocol/ui` declared in
  `_meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]` (2026-07-28 sends its capabilities with every
  request; the same key is honoured on 2025-11-25 requests), or at `initialize` on 2025-11-25 (carried by the session
  id, shared/runtime/sessions.py), or ChatGPT's markers (`openai/…` keys in `_meta`);
- and the caller's OAuth client is registered as a host that shows the card (`Principal.card_host`, decided by
  shared/auth/card_hosts.py from the registration, never from the request).
A host that shows the card keeps app-only tools (`_meta.ui.visibility: ["app"]`) away from the model, so the click
comes from the card a person saw. Every other client is sent to Athaus's own confirmation page instead."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from contract.confirmations import UI_EXTENSION, UI_EXTENSION_SETTINGS
from shared.auth.principal import Principal

CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
CHATGPT_META_PREFIX = "openai/"


def app_host_meta() -> dict[str, Any]:
    """The request `_meta` of a host that renders MCP Apps, as a 2026-07-28 client sends it (the docs' example calls)."""
    return {CLIENT_CAPABILITIES_META_KEY: {"extensions": {UI_EXTENSION: dict(UI_EXTENSION_SETTINGS)}}}


def client_capabilities(meta: Mapping[str, Any] | None) -> Mapping[str, Any]:
    capabilities = (meta or {}).get(CLIENT_CAPABILITIES_META_KEY)
    return capabilities if isinstance(capabilities, Mapping) else {}


def opens_pages(meta: Mapping[str, Any] | None) -> bool:
    """Does the client offer a server's URL to the person (URL-mode elicitation, declared per request in 2026-07-28)?"""
    elicitation = client_capabilities(meta).get("elicitation")
    return isinstance(elicitation, Mapping) and "url" in elicitation


def renders_apps(meta: Mapping[str, Any] | None, declared: Collection[str] = ()) -> bool:
    """Does the request say it comes from a host that shows MCP Apps? `declared`: the extensions the client declared
    at `initialize` (2025-11-25, carried by its session id)."""
    if UI_EXTENSION in declared:
        return True
    extensions = client_capabilities(meta).get("extensions")
    if isinstance(extensions, Mapping) and isinstance(extensions.get(UI_EXTENSION), Mapping):
        return True
    return any(isinstance(key, str) and key.startswith(CHATGPT_META_PREFIX) for key in (meta or {}))


def shows_card(meta: Mapping[str, Any] | None, declared: Collection[str], caller: Principal | None) -> bool:
    """Does this call get the card's token and may it make the card's click: a registered card host that says it
    shows MCP Apps in this request or session."""
    return caller is not None and caller.card_host and renders_apps(meta, declared)
