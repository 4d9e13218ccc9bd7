"""One committed snapshot per tool of what `tools/list` serves over HTTP (minified JSON, both servers).

A difference fails the test: the wire a model reads changes only on purpose. To change it on purpose, run

    ATHAUS_UPDATE_SNAPSHOTS=1 scripts/test tests/test_tool_snapshots.py

and commit the files under tests/snapshots/tools/ with the change that explains them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import select

from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import LiveServer

SNAPSHOTS = Path(__file__).parent / "snapshots" / "tools"
UPDATE = os.environ.get("ATHAUS_UPDATE_SNAPSHOTS") == "1"
BROKER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")


def minified(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def served_tools(server: LiveServer, path: str, token: str | None) -> list[dict[str, Any]]:
    """The tools of `path` exactly as the server sends them (the raw JSON-RPC result, not a client's model)."""
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = httpx2.post(
        f"{server.base_url}/{path}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=headers, timeout=30
    )
    assert response.status_code == 200, response.text
    return list(response.json()["result"]["tools"])


def broker_token(db: Any) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == BROKER.email))
        resource = Settings().resource_url("makler")
        return mint_access_token(session, user_id=user_id, client_id="snapshots", resource=resource, scopes=["makler:lesen"]).access_token


@pytest.mark.parametrize("path", ["suche", "makler"])
def test_tools_list_matches_the_committed_snapshots(live_server: LiveServer, demo_db: Any, path: str) -> None:
    tools = served_tools(live_server, path, broker_token(demo_db) if path == "makler" else None)
    folder = SNAPSHOTS / path
    served = {tool["name"]: minified(tool) + "\n" for tool in tools}
    if UPDATE:
        folder.mkdir(parents=True, exist_ok=True)
        for stale in folder.glob("*.json"):
            if stale.stem not in served:
                stale.unlink()
        for name, text in served.items():
            (folder / f"{name}.json").write_text(text, encoding="utf-8")
    committed = {file.stem: file.read_text(encoding="utf-8") for file in sorted(folder.glob("*.json"))}
    assert sorted(committed) == sorted(served), "tools added or removed: regenerate the snapshots on purpose"
    changed = [name for name in served if served[name] != committed[name]]
    assert not changed, f"tools/list changed for {changed}: regenerate the snapshots on purpose (see the module docstring)"
