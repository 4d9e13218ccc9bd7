"""Athaus für Makler where brokers meet it: the official client over real HTTP with a bearer token."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import jsonschema
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from contract.broker import SERVER as BROKER_SERVER
from shared.auth.tokens import mint_access_token
from shared.db.models import Listing, User
from shared.demo import DEMO_ACCOUNTS
from shared.runtime.adapter import mcp_tool
from shared.settings import Settings
from tests.conftest import LiveServer

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")


def token_for(db: Any, email: str, scopes: list[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url("makler")
        return mint_access_token(session, user_id=user_id, client_id="test", resource=resource, scopes=scopes).access_token


async def with_broker(server: LiveServer, token: str, mode: str, use: Any) -> Any:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
        async with Client(streamable_http_client(f"{server.base_url}/makler/mcp", http_client=http), mode=mode) as client:
            return await use(client)


def test_broker_lists_and_calls_every_read_tool(live_server: LiveServer, demo_db: Any) -> None:
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])

    async def use(client: Client) -> tuple[list[dict[str, Any]], dict[str, Any], Any]:
        tools = (await client.list_tools()).tools
        listed = [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]
        stock = await client.call_tool("search_listings", {"limit": 1})
        listing_id = stock.structured_content["items"][0]["listing_id"]
        inquiry = (await client.call_tool("search_inquiries", {"limit": 1})).structured_content["items"][0]["inquiry_id"]
        calls = {
            "show_situation_report": {},
            "search_listings": {"limit": 3},
            "get_listing": {"listing_id": listing_id},
            "check_listing": {"listing_id": listing_id},
            "search_inquiries": {"limit": 3},
            "get_inquiry": {"inquiry_id": inquiry},
            "estimate_value": {"listing_id": listing_id},
            "list_valuations": {},
            "list_proposals": {},
            "search": {"query": "Balkon"},
            "fetch": {"id": listing_id},
        }
        schemas = {t.name: t.output_schema for t in tools}
        results = {name: (schemas[name], await client.call_tool(name, args)) for name, args in calls.items()}
        prompt = await client.get_prompt("start_the_day", {})
        return listed, results, prompt

    listed, results, prompt = anyio.run(with_broker, live_server, token, "2026-07-28", use)
    assert listed == [mcp_tool(spec).model_dump(by_alias=True, mode="json", exclude_none=True) for spec in BROKER_SERVER.tools]
    # every reading tool a model may call (the card's own tools are the card's: tests/test_confirmations_http.py)
    read_tools = {s.name for s in BROKER_SERVER.tools if s.right.scope == "makler:lesen" and s.extra_meta.get("ui", {}).get("visibility") != ["app"]}
    assert set(results) == read_tools
    for name, (schema, result) in results.items():
        assert not result.is_error, (name, result.content[0].text)
        jsonschema.validate(result.structured_content, schema)
    assert "show_situation_report" in prompt.messages[0].content.text


def test_legacy_handshake_with_token(live_server: LiveServer, demo_db: Any) -> None:
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])

    async def use(client: Client) -> Any:
        return await client.call_tool("show_situation_report", {})

    result = anyio.run(with_broker, live_server, token, "legacy", use)
    assert not result.is_error and result.structured_content["status"] in {"complete", "partial"}


def test_makler_without_token_is_401_with_resource_metadata(live_server: LiveServer) -> None:
    response = httpx2.post(
        f"{live_server.base_url}/makler/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{Settings().resource_metadata_url("makler")}", scope="makler:lesen"'
    )


def test_office_resources_are_private_and_scoped(live_server: LiveServer, demo_db: Any) -> None:
    owner_token = token_for(demo_db, OWNER.email, ["makler:lesen"])
    other = next(a for a in DEMO_ACCOUNTS if a.office_id == 2)
    other_token = token_for(demo_db, other.email, ["makler:lesen"])

    async def own(client: Client) -> tuple[Any, Any, Any]:
        from mcp_types import ResourceTemplateReference

        listing_id = (await client.call_tool("search_listings", {"limit": 1})).structured_content["items"][0]["listing_id"]
        resource = await client.read_resource(f"athaus://makler/objekte/{listing_id}")
        completion = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="athaus://makler/objekte/{listing_id}"),
            {"name": "listing_id", "value": listing_id[:-1]},
        )
        return listing_id, resource, completion

    listing_id, resource, completion = anyio.run(with_broker, live_server, owner_token, "2026-07-28", own)
    assert (resource.ttl_ms, resource.cache_scope) == (60_000, "private")
    assert json.loads(resource.contents[1].text)["listing_id"] == listing_id
    assert listing_id in completion.completion.values
    with demo_db.read_only() as session:
        own_refs = set(session.scalars(select(Listing.ref).where(Listing.office_id == OWNER.office_id)))
    assert set(completion.completion.values) <= own_refs

    async def foreign(client: Client) -> Any:
        try:
            await client.read_resource(f"athaus://makler/objekte/{listing_id}")
        except Exception as refused:  # the SDK raises the JSON-RPC error
            return refused
        return None

    refused = anyio.run(with_broker, live_server, other_token, "2026-07-28", foreign)
    assert refused is not None and refused.error.data["athaus/code"] == "NOT_FOUND"
