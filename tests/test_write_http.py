"""Where broker and seeker meet, from outside: the official MCP client over real HTTP with bearer tokens, both servers
of one app on a demo catalog of its own. A seeker saves a search; a broker saves a listing, checks it, is refused
publishing with the failing rule named, fixes it and publishes; the seeker's search has its Treffer, the broker its
proposal; a retry with the same request_id changes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import httpx2
import jsonschema
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select

from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import LiveServer, request_key, seeded_database
from tests.test_stock_writes import complete_fields

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")


def token(db: Any, email: str, server: str, scopes: list[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url(server)
        return mint_access_token(session, user_id=user_id, client_id="test", resource=resource, scopes=scopes).access_token


async def session(server: LiveServer, bearer: str, path: str, use: Any) -> Any:
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {bearer}"}, timeout=60) as http:
        async with Client(streamable_http_client(f"{server.base_url}/{path}/mcp", http_client=http), mode="2026-07-28") as client:
            return await use(client)


def test_a_listing_saved_checked_fixed_and_published_is_found_by_a_saved_search(tmp_path: Path) -> None:
    with seeded_database(tmp_path, "writehttp", listings=200) as db, LiveServer(db) as server:
        broker_token = token(db, OWNER.email, "makler", ["makler:lesen", "makler:schreiben"])
        seeker_token = token(db, SEEKER.email, "suche", ["suche:konto", "suche:konto.schreiben"])
        fields = complete_fields(db, title="Wohnung am Elsterflutbett")

        async def seeker_saves(client: Client) -> dict[str, Any]:
            criteria = {"marketing_type": "buy", "city": "Leipzig", "query": "Elsterflutbett"}
            result = await client.call_tool("save_search_order", {"request_id": request_key(), "criteria": criteria, "approachable": True, "frequency": "sofort"})
            schema = next(t.output_schema for t in (await client.list_tools()).tools if t.name == "save_search_order")
            jsonschema.validate(result.structured_content, schema)
            return result.structured_content

        order = anyio.run(session, server, seeker_token, "suche", seeker_saves)

        async def broker_works(client: Client) -> dict[str, Any]:
            schemas = {t.name: t.output_schema for t in (await client.list_tools()).tools}
            saved = await client.call_tool("save_listing", {"request_id": request_key(), "fields": {**fields, "photos": []}})
            ref = saved.structured_content["listing_id"]
            checked = await client.call_tool("check_listing", {"listing_id": ref})
            refused = await client.call_tool("update_listing_status", {"listing_id": ref, "status": "published"})
            fixed = await client.call_tool("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 1, "fields": {"photos": fields["photos"]}})
            arguments = {"listing_id": ref, "status": "published", "version": 2, "request_id": "http-publish-0001"}
            published = await client.call_tool("update_listing_status", arguments)
            again = await client.call_tool("update_listing_status", arguments)
            proposals = await client.call_tool("list_proposals", {"listing_id": ref})
            for name, result in (("save_listing", saved), ("save_listing", fixed), ("update_listing_status", published), ("update_listing_status", again)):
                assert not result.is_error, result.content[0].text
                jsonschema.validate(result.structured_content, schemas[name])
            return {
                "ref": ref,
                "failed": [r["rule"] for r in checked.structured_content["rules"] if r["verdict"] == "failed" and r["blocking"]],
                "refused": (refused.is_error, (refused.meta or {}).get("athaus/code"), refused.content[0].text),
                "published": published.structured_content,
                "again": again.structured_content,
                "proposals": proposals.structured_content["total"],
            }

        seen = anyio.run(session, server, broker_token, "makler", broker_works)
        assert seen["failed"] == ["photos"]
        is_error, code, text = seen["refused"]
        assert (is_error, code) == (True, "CONFLICT") and "Fotos" in text
        assert (seen["published"]["new_status"], seen["published"]["in_catalog"], seen["again"]["replayed"]) == ("published", True, True)
        assert seen["again"]["version"] == seen["published"]["version"] == 3
        assert seen["proposals"] >= 1

        async def seeker_reads(client: Client) -> tuple[list[tuple[str, str]], dict[str, Any]]:
            matches = await client.call_tool("list_matches", {"search_order_id": order["search_order_id"]})
            items = matches.structured_content["items"]
            marked = await client.call_tool("update_match", {"match_id": items[0]["match_id"], "state": "interesting"})
            return [(m["kind"], m["listing_id"]) for m in items], marked.structured_content

        treffer, marked = anyio.run(session, server, seeker_token, "suche", seeker_reads)
        assert treffer == [("new_listing", seen["ref"])]
        assert (marked["match_state"], marked["listing_id"]) == ("interesting", seen["ref"])
