"""The stack's floor: one trivial tool served by the same MCP SDK, transport and HTTP server as `athaus serve`.

    python -m bench.floor --port 8765 [--workers 2]

The tool `get_listing` answers every call with the same listing-sized result (text and structuredContent, no
database). It runs on the low-level `mcp.server.Server`, stateless Streamable HTTP with JSON responses, at
`/suche/mcp`, under uvicorn with `athaus serve`'s connection options (athaus/connections.py) and worker count.
`bench/load.py` drives it exactly as it drives Athaus, so the difference between the two is Athaus's own work per call
(routing, token lookup, validation, SQL, envelope, text), not the SDK's or the HTTP server's.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
import uvicorn
from mcp.server import Server
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from starlette.applications import Starlette
from starlette.routing import Route

from athaus.connections import uvicorn_options
from shared.settings import Settings

# About the size of one `get_listing` answer of the demo catalog: a fixed exposé, so the floor serialises as much.
LISTING: dict[str, Any] = {
    "listing_id": "A-0000001",
    "title": "Helle 3-Zimmer-Wohnung mit Südbalkon",
    "description": "Ruhige Lage, Parkett, Einbauküche, Keller. " * 8,
    "marketing_type": "rent",
    "property_type": "apartment",
    "address": {"postal_code": "04109", "city": "Leipzig", "district": "Zentrum", "state": "Sachsen"},
    "costs": {"price": 950.0, "service_charges": 180.0, "heating_costs": 70.0, "warm_rent": 1200.0},
    "areas": {"living_area": 72.5, "rooms": 3.0, "floor": 2},
    "energy": {"status": "present", "energy_class": "C", "energy_value": 84.0, "valid_until": "2031-05-31"},
    "features": ["balcony", "fitted_kitchen", "cellar"],
    "provider": {"name": "Hoffmann Immobilien", "city": "Leipzig"},
}
TEXT = json.dumps(LISTING, ensure_ascii=False, indent=1)
TOOL = types.Tool(
    name="get_listing",
    title="Exposé abrufen",
    description="Ein festes Exposé (Untergrenze des Stacks für bench/load.py).",
    input_schema={"type": "object", "properties": {"listing_id": {"type": "string"}}, "required": ["listing_id"]},
    annotations=types.ToolAnnotations(readOnlyHint=True, destructiveHint=False, idempotentHint=True, openWorldHint=False),
)


def create_floor_app() -> Starlette:
    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[TOOL])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=TEXT)], structured_content=LISTING)

    server = Server("floor", version="0", on_list_tools=list_tools, on_call_tool=call_tool)
    manager = StreamableHTTPSessionManager(app=server, stateless=True, json_response=True)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with manager.run():
            yield

    return Starlette(routes=[Route("/suche/mcp", StreamableHTTPASGIApp(manager), methods=["POST"])], lifespan=lifespan)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    options = {**uvicorn_options(Settings()), "log_level": "warning", "access_log": False}
    uvicorn.run("bench.floor:create_floor_app", factory=True, host="127.0.0.1", port=args.port, workers=args.workers, **options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
