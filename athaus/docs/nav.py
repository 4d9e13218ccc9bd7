"""The site's navigation: the hand-written pages in their places, each server with its tools grouped by right
(in the order of the rights table, then tools/list order). MkDocs reads it through athaus/docs/hooks.py."""

from __future__ import annotations

from typing import Any

from athaus.docs.research_page import PATH as RESEARCH_PAGE
from athaus.docs.server_pages import tool_path, tools_of
from contract.server import ServerSpec
from contract.servers import SERVERS

# Pages written by hand under docs/ (how-tos, the confirmation card, running it, the changelog).
CONNECT_PAGES = (
    ("Übersicht und Anmeldung", "verbinden/index.md"),
    ("Claude", "verbinden/claude.md"),
    ("ChatGPT", "verbinden/chatgpt.md"),
    ("ChatGPT: Recherche", RESEARCH_PAGE),
    ("MCP Inspector", "verbinden/inspector.md"),
    ("Python-Client", "verbinden/python.md"),
    ("TypeScript-Client", "verbinden/typescript.md"),
)
HAND_WRITTEN = (
    *(path for _, path in CONNECT_PAGES if path != RESEARCH_PAGE),
    "bestaetigungskarte.md",
    "ansichten.md",
    "sicherheit.md",
    "betrieb.md",
    "aenderungen.md",
)

NavItem = str | dict[str, Any]


def _server_nav(server: ServerSpec) -> dict[str, list[NavItem]]:
    items: list[NavItem] = [{"Übersicht": server.docs_page}]
    for right in server.rights:
        tools = tools_of(server, right)
        if tools:
            items.append({right.label: [{spec.title: tool_path(server, spec)} for spec in tools]})
    return {server.title: items}


def site_nav() -> list[NavItem]:
    return [
        {"Start": "index.md"},
        {"Verbinden": [{title: path} for title, path in CONNECT_PAGES]},
        *(_server_nav(server) for server in SERVERS.values()),
        {"Grundlagen": [{"Werkzeuge": "werkzeuge.md"}, {"Rechte": "rechte.md"}, {"Bestätigungskarte": "bestaetigungskarte.md"}, {"Was Menschen sehen": "ansichten.md"}, {"Sicherheit": "sicherheit.md"}]},
        {"Betrieb": [{"Betrieb": "betrieb.md"}, {"Konfiguration": "konfiguration.md"}]},
        {"Änderungen": "aenderungen.md"},
    ]
