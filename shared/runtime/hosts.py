"""What kind of host a request comes from, read from the request's own `_meta` (the stateless server keeps no
initialize state, so both protocol eras are read the same way).

A host renders MCP Apps when it declares the extension `io.modelcontextprotocol/ui` in
`_meta["io.modelcontextprotocol/clientCapabilities"]["extensions"]` (per request in 2026-07-28; honoured on 2025-11-25
requests too), or when it carries ChatGPT's markers (`openai/…` keys in `_meta`). Only such a host gets the card's
token, and only such a host may execute the card's click (`decide_confirmation`): a host that renders the card keeps
app-only tools (`_meta.ui.visibility: ["app"]`) away from the model, so the click comes from the card a person saw.
A client that shows no card is sent to Athaus's own confirmation page instead (docs/engineering.md, "The click
boundary")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contract.confirmations import UI_EXTENSION, UI_EXTENSION_SETTINGS

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


def renders_apps(meta: Mapping[str, Any] | None) -> bool:
    """Does the request come from a host that shows MCP Apps (the confirmation card)?"""
    extensions = client_capabilities(meta).get("extensions")
    if isinstance(extensions, Mapping) and isinstance(extensions.get(UI_EXTENSION), Mapping):
        return True
    return any(isinstance(key, str) and key.startswith(CHATGPT_META_PREFIX) for key in (meta or {}))
