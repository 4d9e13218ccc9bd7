"""The search results as an app in the chat (issue 33, item 3), as a host finds it over real HTTP: tools/list names the
app on exactly search_listings and get_listing of /suche/mcp (MCP Apps `_meta.ui.resourceUri` and the Apps SDK's
`openai/outputTemplate`), resources/list and resources/read serve it in both forms with a CSP that declares exactly
the deployment's public origin for images, and the model's text of a search is the same as without the app.
The browser side (the cards, the next page, the exposé, the inquiry through the card) is tests/test_results_app_browser.py."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import httpx

from contract.broker import SERVER as BROKER
from contract.catalog import RESULTS_CHATGPT_URI, RESULTS_URI
from contract.confirmations import CARD_CHATGPT_URI, CARD_URI, MCP_APP_MIME, SKYBRIDGE_MIME
from shared.chatapps.results import results_html
from shared.settings import Settings
from tests.conftest import LiveServer

HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def rpc(server: LiveServer, path: str, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, **({"params": params} if params is not None else {})}
    answer = httpx.post(f"{server.base_url}{path}", json=body, headers=HEADERS).json()
    assert "result" in answer, answer
    return dict(answer["result"])


def public_origin() -> str:
    url = urlsplit(Settings().public_url)
    return f"{url.scheme}://{url.netloc}"


def test_tools_list_declares_the_results_app_on_exactly_search_listings_and_get_listing(live_server: LiveServer) -> None:
    tools = rpc(live_server, "/suche/mcp", "tools/list")["tools"]
    with_results = {t["name"]: {k: v for k, v in t["_meta"].items() if k != "securitySchemes"} for t in tools if t["_meta"].get("ui", {}).get("resourceUri") == RESULTS_URI}
    expected = {"ui": {"resourceUri": RESULTS_URI}, "openai/outputTemplate": RESULTS_CHATGPT_URI, "openai/widgetAccessible": True}
    assert with_results == {"search_listings": expected, "get_listing": expected}
    assert sorted(t["name"] for t in tools if t["_meta"].get("openai/outputTemplate") == RESULTS_CHATGPT_URI) == ["get_listing", "search_listings"]
    # the broker's stock search is no catalog: it declares no app
    assert [t.name for t in BROKER.tools if t.extra_meta.get("ui", {}).get("resourceUri") == RESULTS_URI] == []
    assert RESULTS_URI not in {app.uri for app in BROKER.apps}


def test_resources_read_serves_the_app_with_a_csp_of_exactly_the_public_origin(live_server: LiveServer) -> None:
    origin = public_origin()
    listed = {r["uri"]: r for r in rpc(live_server, "/suche/mcp", "resources/list")["resources"]}
    assert set(listed) == {CARD_URI, CARD_CHATGPT_URI, RESULTS_URI, RESULTS_CHATGPT_URI}
    ui = {"csp": {"connectDomains": [], "resourceDomains": [origin]}, "prefersBorder": True}
    assert listed[RESULTS_URI]["_meta"] == {"ui": ui} and listed[RESULTS_URI]["mimeType"] == MCP_APP_MIME
    # the card still loads nothing from anywhere
    assert listed[CARD_URI]["_meta"] == {"ui": {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}}

    (app,) = rpc(live_server, "/suche/mcp", "resources/read", {"uri": RESULTS_URI})["contents"]
    assert (app["uri"], app["mimeType"], app["_meta"]) == (RESULTS_URI, MCP_APP_MIME, {"ui": ui})
    assert f"var IMAGE_ORIGINS = {json.dumps([origin])};" in app["text"]  # the photos the app shows: exactly the CSP's
    assert app["text"] == results_html().replace("/*ATHAUS_RESOURCE_DOMAINS*/", json.dumps([origin]))
    (chatgpt,) = rpc(live_server, "/suche/mcp", "resources/read", {"uri": RESULTS_CHATGPT_URI})["contents"]
    assert chatgpt["mimeType"] == SKYBRIDGE_MIME and chatgpt["text"] == app["text"]
    assert chatgpt["_meta"] == {
        "openai/widgetDescription": listed[RESULTS_URI]["description"],
        "openai/widgetPrefersBorder": True,
        "openai/widgetCSP": {"connect_domains": [], "resource_domains": [origin]},
        "openai/widgetDomain": Settings().public_url.rstrip("/"),
    }


def test_the_app_is_german_loads_nothing_but_own_images_and_carries_the_unchanged_card() -> None:
    html = results_html()
    assert '<html lang="de">' in html
    for needle in ("http://", "https://", "<link", "@import", "fetch(", "XMLHttpRequest", "WebSocket"):
        # the one URL the app holds is the drawing's SVG namespace (an identifier, never loaded)
        assert html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace('xmlns=\\"http://www.w3.org/2000/svg\\"', "").count(needle) == 0, needle
    for german in ("Weitere laden", "Anfrage stellen", "Zurück zu den Treffern", "Illustration", "Teilergebnis"):
        assert german in html
    assert "absent" not in html.split("<script>")[0]  # no field names on the page itself


def test_the_models_text_is_the_same_with_the_app(live_server: LiveServer) -> None:
    args = {"city": "Leipzig", "limit": 3}
    plain = rpc(live_server, "/suche/mcp", "tools/call", {"name": "search_listings", "arguments": args})
    hosted = rpc(live_server, "/suche/mcp", "tools/call", {"name": "search_listings", "arguments": args, "_meta": {"openai/locale": "de-DE"}})
    assert hosted["content"] == plain["content"] and hosted["structuredContent"] == plain["structuredContent"]
    assert "_meta" not in plain or not plain["_meta"]
