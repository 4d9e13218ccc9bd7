"""The stack's floor: one trivial tool served by the same MCP SDK, transport and HTTP server as `athaus serve`.

    python -m bench.floor --port 8765 [--workers 2]
    python -m bench.floor --port 8765 --workers 2 --replay recording.json


The tool `get_listing` answers every call with the same listing-sized result (text and structuredContent, no
database). It runs on the low-level `mcp.server.Server`, stateless Streamable HTTP with JSON responses, at
`/suche/mcp`, under uvicorn with `athaus serve`'s connection options (athaus/connections.py) and worker count.
`bench/load.py` drives it exactly as it drives Athaus, so the difference between the two is Athaus's own work per call
(routing, token lookup, validation, SQL, envelope, text), not the SDK's or the HTTP server's.

With --replay it is the replay floor (issue 35): it serves, at each path of the recording (`/suche/mcp`,
`/makler/mcp`), exactly the `tools/list` Athaus answered there (output schemas included, so the client validates every
result as it does against Athaus), and answers each `tools/call` with the result Athaus answered for the same tool
and arguments (structuredContent, text and `_meta`), re-serialised by the same SDK into the same bytes; no database,
no auth. `bench/load.py --mixed --floor` records the file while it drives Athaus and then replays the same sessions'
call sequences against this floor. A call that was not recorded is answered as an error (the load counts it).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
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


REPLAY_ENV = "ATHAUS_BENCH_FLOOR_REPLAY"  # the recording's path, read by each uvicorn worker


def replay_key(tool: str, arguments: dict[str, Any] | None) -> str:
    """What a recorded answer is found by: the tool and its arguments, canonically written."""
    return tool + "\n" + json.dumps(arguments or {}, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


SERVER_INFO = "io.modelcontextprotocol/serverInfo"


def _unstamped(result: dict[str, Any], identity: dict[str, Any]) -> dict[str, Any]:
    """A recorded result without the SDK's serverInfo stamp (kept in `identity`): the floor's SDK stamps it again, in
    the same place of the same bytes as Athaus's did (after the result's own fields and `_meta` keys)."""
    meta = result.get("_meta")
    if not isinstance(meta, dict) or SERVER_INFO not in meta:
        return result
    identity.update(meta[SERVER_INFO])
    rest = {key: value for key, value in meta.items() if key != SERVER_INFO}
    return {key: value for key, value in result.items() if key != "_meta"} | ({"_meta": rest} if rest else {})


def _replay_server(path: str, tools: dict[str, Any], answers: dict[str, Any]) -> Server:
    """One endpoint's replay: its recorded tools/list pages (by cursor) and answers (by replay_key), served under the
    identity Athaus stamped into them (name, title, version)."""
    identity: dict[str, Any] = {}
    pages = {cursor: types.ListToolsResult.model_validate(_unstamped(page, identity)) for cursor, page in tools.items()}
    results = {key: types.CallToolResult.model_validate(_unstamped(result, identity)) for key, result in answers.items()}

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return pages[(params.cursor if params is not None else None) or ""]

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        found = results.get(replay_key(params.name, params.arguments))
        if found is None:
            return types.CallToolResult(content=[types.TextContent(type="text", text=f"not recorded: {params.name}")], is_error=True)
        return found

    name = identity.get("name", f"replay{path.replace('/', '-')}")
    return Server(name, version=identity.get("version", "0"), title=identity.get("title"), on_list_tools=list_tools, on_call_tool=call_tool)


class Recorder:
    """Every tools/list and tools/call answer, from the HTTP bodies, by path: what the replay floor serves.
    bench/load.py installs it as a response hook of each session's HTTP client (httpx2), on Athaus and on the replay
    floor alike (so the client does the same work on both sides); only the Athaus run's recording is kept."""

    def __init__(self) -> None:
        self.tools: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, dict[str, Any]] = {}

    async def hook(self, response: Any) -> None:
        try:
            message = json.loads(response.request.content)
        except (ValueError, TypeError):
            return
        method = message.get("method") if isinstance(message, dict) else None
        if method not in ("tools/list", "tools/call"):
            return
        await response.aread()
        result = json.loads(response.content).get("result") if response.headers.get("content-type", "").startswith("application/json") else None
        if result is None:
            return
        path, params = response.request.url.path, message.get("params") or {}
        if method == "tools/list":
            self.tools.setdefault(path, {})[params.get("cursor") or ""] = result
        else:
            self.answers.setdefault(path, {})[replay_key(params["name"], params.get("arguments"))] = result

    def as_json(self) -> dict[str, Any]:
        return {"tools": self.tools, "answers": self.answers}


def create_replay_app(recording: dict[str, Any] | None = None) -> Starlette:
    """The replay floor of a recording ({"tools": {path: {cursor: page}}, "answers": {path: {key: result}}})."""
    if recording is None:
        with open(os.environ[REPLAY_ENV], encoding="utf-8") as file:
            recording = json.load(file)
    managers = [
        (path, StreamableHTTPSessionManager(app=_replay_server(path, tools, recording["answers"].get(path, {})), stateless=True, json_response=True))
        for path, tools in recording["tools"].items()
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            for _, manager in managers:
                await stack.enter_async_context(manager.run())
            yield

    routes = [Route(path, StreamableHTTPASGIApp(manager), methods=["POST"]) for path, manager in managers]
    return Starlette(routes=routes, lifespan=lifespan)


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
    parser.add_argument("--replay", default=None, metavar="FILE", help="serve the tools/list and answers recorded in FILE (bench/load.py --mixed --floor)")
    args = parser.parse_args(argv)
    options = {**uvicorn_options(Settings()), "log_level": "warning", "access_log": False}
    factory = "bench.floor:create_floor_app"
    if args.replay:
        os.environ[REPLAY_ENV] = os.path.abspath(args.replay)  # inherited by uvicorn's worker processes
        factory = "bench.floor:create_replay_app"
    uvicorn.run(factory, factory=True, host="127.0.0.1", port=args.port, workers=args.workers, **options)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
