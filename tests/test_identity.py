"""One version (issue 18): pyproject.toml's, read from the installed package's metadata, served by both MCP servers
(serverInfo.version, over real HTTP with the official client in both protocol eras), in /healthz and the OpenAPI
document, printed by `athaus --version`; a source checkout without metadata says 0.0.0+source. The outbound
User-Agent names that version and the public URL."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from shared import identity
from shared.db.session import Database
from tests.conftest import LiveServer
from tests.test_broker_http import OWNER, token_for

ROOT = Path(__file__).resolve().parents[1]


def declared() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"])


def test_the_version_is_pyproject_s_from_the_package_metadata() -> None:
    assert identity.version() == importlib.metadata.version("athaus-mcp") == declared()


def test_a_source_checkout_without_metadata_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(identity.importlib.metadata, "version", missing)
    assert identity.version() == "0.0.0+source"


def test_the_command_prints_the_version() -> None:
    done = subprocess.run([sys.executable, "-m", "athaus.cli", "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"athaus {declared()}")


async def identity_served(url: str, token: str | None, mode: str) -> dict[str, Any]:
    """The server's identity as the official client meets it: initialize's serverInfo (2025-11-25), or the serverInfo
    stamp in the `_meta` of a result (2026-07-28, where server/discover is not sent by default)."""
    stamps: list[dict[str, Any]] = []

    async def read(response: httpx2.Response) -> None:
        body = json.loads(await response.aread() or b"{}")
        if isinstance(body, dict) and isinstance(body.get("result"), dict):
            stamps.append(body["result"].get("_meta", {}).get("io.modelcontextprotocol/serverInfo"))

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, event_hooks={"response": [read]}, timeout=30) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            await client.list_prompts()
            if mode == "legacy":
                info = client.server_info
                assert info is not None
                return {"name": info.name, "title": info.title, "version": info.version}
    assert stamps and all(stamp == stamps[-1] for stamp in stamps)
    return stamps[-1]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_both_servers_and_health_serve_the_version(live_server: LiveServer, demo_db: Database, mode: str) -> None:
    search = anyio.run(identity_served, f"{live_server.base_url}/suche/mcp", None, mode)
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])
    broker = anyio.run(identity_served, f"{live_server.base_url}/makler/mcp", token, mode)
    assert search == {"name": "suche", "title": "Athaus Immobiliensuche", "version": declared()}
    assert broker == {"name": "makler", "title": "Athaus für Makler", "version": declared()}
    health = httpx.get(f"{live_server.base_url}/healthz").json()
    assert health["version"] == declared() and health["servers"] == ["/makler/mcp", "/suche/mcp"]
    with httpx.Client(base_url=live_server.base_url) as http:
        assert http.get("/openapi.json").json()["info"]["version"] == declared()


def test_outbound_requests_name_the_version_and_the_public_url() -> None:
    identity.announce("https://mcp.example.de/")
    try:
        assert identity.user_agent() == f"athaus-mcp/{declared()} (+https://mcp.example.de)"
    finally:
        identity.announce("")
