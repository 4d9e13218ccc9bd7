"""What a model reads, in bytes: `tools/list` of each server as served (minified JSON, per tool, and where its
bytes go: description, input schema, output schema, annotations, `_meta`) and a typical 10-hit `search_listings`
page (structuredContent as minified JSON, and the text), over real HTTP.

    python -m bench.model_budget

seeds a demo catalog in a temporary SQLite file, serves the real app on a loopback port and prints the figures
beside the budgets of SPEC section 10. tests/test_model_budget.py asserts the same budgets on every run.
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from sqlalchemy import select

from athaus.app import create_app
from shared.auth.tokens import mint_access_token
from shared.db.migrate import upgrade
from shared.db.models import OfficeMember, User
from shared.db.session import Database
from shared.demo import seed_demo
from shared.settings import Settings

TOOLS_LIST_AVERAGE = 2_800  # bytes per tool, the typed output schema included (issue 30: types and `required`)
TOOLS_LIST_MAX = 6_600
PAGE_STRUCTURED = 6_000  # a 10-hit search page
PAGE_TEXT = 3_000
# The parts of a tool in tools/list whose size is shown on their own; the rest (name, title, JSON punctuation) is
# "other". A part's size is its key and value as minified JSON.
TOOL_PARTS = ("description", "inputSchema", "outputSchema", "annotations", "_meta")
SEARCH_PAGES = {
    "Kauf": {"marketing_type": "buy", "query": "Balkon", "limit": 10},
    "Miete": {"marketing_type": "rent", "city": "Berlin", "limit": 10},
}
HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}


def minified(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


@dataclass(frozen=True)
class ServerBudget:
    path: str
    tool_bytes: dict[str, int]
    part_bytes: dict[str, dict[str, int]]  # tool -> part -> bytes (TOOL_PARTS and "other")

    @property
    def average(self) -> float:
        return sum(self.tool_bytes.values()) / len(self.tool_bytes)

    def part_average(self, part: str) -> float:
        return sum(parts[part] for parts in self.part_bytes.values()) / len(self.part_bytes)

    @property
    def largest(self) -> tuple[str, int]:
        return max(self.tool_bytes.items(), key=lambda item: item[1])


@dataclass(frozen=True)
class PageBudget:
    name: str
    hits: int
    structured: int
    text: int


def rpc(base_url: str, path: str, method: str, params: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    headers = {**HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = httpx.post(f"{base_url}/{path}/mcp", json=body, headers=headers, timeout=60)
    response.raise_for_status()
    return dict(response.json()["result"])


def tools_list(base_url: str, path: str, token: str | None) -> ServerBudget:
    tools = rpc(base_url, path, "tools/list", {}, token)["tools"]
    return ServerBudget(path, {tool["name"]: len(minified(tool)) for tool in tools}, {tool["name"]: tool_parts(tool) for tool in tools})


def tool_parts(tool: dict[str, Any]) -> dict[str, int]:
    """Bytes of each part of one tool as listed: `"key":value` (and its comma) for each of TOOL_PARTS, the rest as other."""
    parts = {part: len(minified({part: tool[part]})) - 1 if part in tool else 0 for part in TOOL_PARTS}
    return {**parts, "other": len(minified(tool)) - sum(parts.values())}


def search_pages(base_url: str) -> list[PageBudget]:
    pages = []
    for name, arguments in SEARCH_PAGES.items():
        result = rpc(base_url, "suche", "tools/call", {"name": "search_listings", "arguments": arguments})
        text = "".join(part["text"] for part in result["content"])
        structured = result["structuredContent"]
        pages.append(PageBudget(name, len(structured["items"]), len(minified(structured)), len(text.encode())))
    return pages


def broker_token(db: Database) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(OfficeMember.user_id).where(OfficeMember.role == "owner").order_by(OfficeMember.office_id).limit(1))
        scopes = ["makler:lesen", "makler:schreiben", "makler:senden"]
        issued = mint_access_token(session, user_id=user_id, client_id="bench", resource=Settings().resource_url("makler"), scopes=scopes)
        return issued.access_token


@contextmanager
def served(db: Database) -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = Settings(database_url=str(db.engine.url), secret_key="budget")
    server = uvicorn.Server(uvicorn.Config(create_app(settings, db), host="127.0.0.1", port=port, log_config=None, access_log=False))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def report(servers: list[ServerBudget], pages: list[PageBudget]) -> list[str]:
    lines = [f"{'server':<8} {'tools':>5} {'avg_bytes':>10} {'max_bytes':>10}  largest", "-" * 60]
    for server in servers:
        name, size = server.largest
        lines.append(f"{server.path:<8} {len(server.tool_bytes):>5} {server.average:>10.0f} {size:>10}  {name}")
    lines.append(f"budget: average ≤ {TOOLS_LIST_AVERAGE}, each ≤ {TOOLS_LIST_MAX}")
    lines.append("")
    lines.append("average bytes per tool, by part")
    lines.append(f"{'server':<8} " + " ".join(f"{part:>12}" for part in (*TOOL_PARTS, "other")))
    lines.extend(f"{s.path:<8} " + " ".join(f"{s.part_average(part):>12.0f}" for part in (*TOOL_PARTS, "other")) for s in servers)
    lines.append("")
    lines.append(f"{'page':<8} {'hits':>5} {'structured':>11} {'text':>6}")
    lines.extend(f"{page.name:<8} {page.hits:>5} {page.structured:>11} {page.text:>6}" for page in pages)
    lines.append(f"budget: structured ≤ {PAGE_STRUCTURED}, text ≤ {PAGE_TEXT}")
    lines.append("")
    lines.append(f"{'server':<8} {'tool':<26} {'bytes':>6} " + " ".join(f"{part:>12}" for part in TOOL_PARTS))
    lines.extend(
        f"{s.path:<8} {tool:<26} {size:>6} " + " ".join(f"{s.part_bytes[tool][part]:>12}" for part in TOOL_PARTS)
        for s in servers
        for tool, size in sorted(s.tool_bytes.items(), key=lambda i: -i[1])
    )
    return lines


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        db = Database.from_url(f"sqlite:///{Path(folder) / 'budget.sqlite3'}")
        upgrade(db.engine)
        seed_demo(db.engine, listings=2400)
        with served(db) as base_url:
            servers = [tools_list(base_url, "suche", None), tools_list(base_url, "makler", broker_token(db))]
            pages = search_pages(base_url)
        db.engine.dispose()
    print("\n".join(report(servers, pages)))
    over = [s.path for s in servers if s.average > TOOLS_LIST_AVERAGE or s.largest[1] > TOOLS_LIST_MAX]
    over += [p.name for p in pages if p.structured > PAGE_STRUCTURED or p.text > PAGE_TEXT]
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
