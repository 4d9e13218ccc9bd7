"""Where clients meet the server: the official MCP client over real HTTP, in both protocol eras."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from mcp import Client

from contract.search import SERVER as SEARCH_SERVER
from shared.runtime.adapter import mcp_tool
from tests.conftest import LiveServer

ERAS = ["legacy", "2026-07-28"]


def run(coro_fn: Any, *args: Any) -> Any:
    return anyio.run(coro_fn, *args)


def contract_tools() -> list[dict[str, Any]]:
    return [mcp_tool(spec).model_dump(by_alias=True, mode="json", exclude_none=True) for spec in SEARCH_SERVER.tools]





@pytest.mark.parametrize("mode", ERAS)
def test_served_tools_list_equals_the_contract(live_server: LiveServer, mode: str) -> None:
    async def listed() -> tuple[str, list[dict[str, Any]]]:
        async with Client(f"{live_server.base_url}/suche/mcp", mode=mode) as client:
            result = await client.list_tools()
            return client.protocol_version, [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in result.tools]

    version, served = run(listed)
    assert version == ("2025-11-25" if mode == "legacy" else mode)
    assert served == contract_tools()
    assert [t["name"] for t in served] == [s.name for s in SEARCH_SERVER.tools]
    for tool in served:
        assert set(tool["annotations"]) == {"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


@pytest.mark.parametrize("mode", ERAS)
def test_every_tool_answers_valid_structured_content(live_server: LiveServer, mode: str) -> None:
    calls = {
        "search_listings": {"query": "Balkon", "city": "Berlin", "limit": 3},
        "count_listings": {"city": "Berlin"},
        "calculate_purchase_costs": {"price": 400000, "state": "Bayern", "contract_date": "2026-11-30"},
    }

    async def call_all() -> dict[str, Any]:
        async with Client(f"{live_server.base_url}/suche/mcp", mode=mode) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            first = await client.call_tool("search_listings", calls["search_listings"])
            results = {name: await client.call_tool(name, args) for name, args in calls.items()}
            listing_id = first.structured_content["items"][0]["listing_id"]
            results["get_listing"] = await client.call_tool("get_listing", {"listing_id": listing_id})
            results["search"] = await client.call_tool("search", {"query": "Balkon Berlin"})
            results["fetch"] = await client.call_tool("fetch", {"id": listing_id})
            return {name: (tools[name].output_schema, result) for name, result in results.items()}

    results = run(call_all)
    assert set(results) == {s.name for s in SEARCH_SERVER.tools if s.right.scope is None}
    for name, (schema, result) in results.items():
        assert not result.is_error, (name, result.content)
        jsonschema.validate(result.structured_content, schema)
        assert result.content[0].type == "text" and result.content[0].text


def test_error_reaches_the_client_as_a_result_with_code(live_server: LiveServer) -> None:
    async def call() -> Any:
        async with Client(f"{live_server.base_url}/suche/mcp", mode="2026-07-28") as client:
            return await client.call_tool("get_listing", {"listing_id": "A-9999999"})

    result = run(call)
    assert result.is_error and result.structured_content is None
    assert result.meta["athaus/code"] == "NOT_FOUND"
    assert "search_listings" in result.content[0].text


def test_list_results_carry_honest_cache_hints(live_server: LiveServer) -> None:
    async def listed() -> Any:
        async with Client(f"{live_server.base_url}/suche/mcp", mode="2026-07-28", cache=None) as client:
            return await client.list_tools(), await client.read_resource("athaus://suche/inserate/A-0000001")

    tools, resource = run(listed)
    assert (tools.ttl_ms, tools.cache_scope) == (600_000, "public")
    assert (resource.ttl_ms, resource.cache_scope) == (60_000, "public")


def test_resource_prompt_and_completion(live_server: LiveServer) -> None:
    async def use() -> tuple[Any, Any, Any, Any]:
        async with Client(f"{live_server.base_url}/suche/mcp", mode="2026-07-28") as client:
            templates = await client.list_resource_templates()
            search = await client.call_tool("search_listings", {"city": "Leipzig", "limit": 1})
            uri = f"athaus://suche/inserate/{search.structured_content['items'][0]['listing_id']}"
            resource = await client.read_resource(uri)
            prompt = await client.get_prompt("start_home_search", {"place": "Leipzig", "marketing_type": "rent"})
            from mcp_types import PromptReference

            completion = await client.complete(PromptReference(type="ref/prompt", name="start_home_search"), {"name": "place", "value": "Mü"})
            return templates, resource, prompt, completion

    templates, resource, prompt, completion = run(use)
    assert [t.uri_template for t in templates.resource_templates] == [
        "athaus://suche/inserate/{listing_id}",
        "athaus://suche/anfragen/{inquiry_id}",
    ]
    assert [c.mime_type for c in resource.contents] == ["text/markdown", "application/json"]
    assert json.loads(resource.contents[1].text)["address"]["city"] == "Leipzig"
    assert "Leipzig" in prompt.messages[0].content.text
    assert "München" in completion.completion.values and "Münster (Nordrhein-Westfalen)" in completion.completion.values
    assert all(v.startswith("Mü") for v in completion.completion.values)


@pytest.mark.parametrize(
    ("headers", "status"),
    [({"Host": "evil.example"}, 421), ({"Origin": "http://evil.example"}, 403), ({"Origin": "http://127.0.0.1:9"}, 200)],
)
def test_host_and_origin_allow_lists(live_server: LiveServer, headers: dict[str, str], status: int) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    response = httpx.post(
        f"{live_server.base_url}/suche/mcp",
        json=body,
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", **headers},
    )
    assert response.status_code == status


def test_raw_tools_list_equals_the_contract_with_security_schemes(live_server: LiveServer) -> None:
    response = httpx.post(
        f"{live_server.base_url}/suche/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    tools = response.json()["result"]["tools"]
    assert tools == contract_tools()
    assert [t["_meta"]["securitySchemes"] for t in tools] == [s.security_schemes() for s in SEARCH_SERVER.tools]


def test_account_resource_without_login_is_refused_with_the_challenge(live_server: LiveServer) -> None:
    read = {"jsonrpc": "2.0", "id": 1, "method": "resources/read", "params": {"uri": "athaus://suche/anfragen/I-000001"}}
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    refused = httpx.post(f"{live_server.base_url}/suche/mcp", json=read, headers=headers)
    assert refused.status_code == 401
    assert 'scope="suche:konto"' in refused.headers["www-authenticate"]
    # A ChatGPT-style host gets the challenge in the error's data instead.
    hosted = {**read, "params": {**read["params"], "_meta": {"openai/locale": "de-DE"}}}
    answer = httpx.post(f"{live_server.base_url}/suche/mcp", json=hosted, headers=headers).json()
    assert answer["error"]["data"]["athaus/code"] == "MISSING_RIGHT"
    assert 'scope="suche:konto"' in answer["error"]["data"]["mcp/www_authenticate"]


def test_health(live_server: LiveServer) -> None:
    response = httpx.get(f"{live_server.base_url}/healthz")
    assert response.status_code == 200 and response.json()["status"] == "ok"


def test_tools_list_is_stable_across_processes_and_hash_seeds() -> None:
    script = "import json; from tests.test_http import contract_tools; print(json.dumps(contract_tools(), sort_keys=True))"
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": seed}, capture_output=True, text=True, check=True
        ).stdout
        for seed in ("0", "1", "4242")
    }
    assert len(outputs) == 1
