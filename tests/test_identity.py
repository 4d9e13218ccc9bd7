"""One version (issue 18): pyproject.toml's, read from the installed package's metadata, with the commit it runs from
(issue 34: `0.2.0+g<12 hex digits>`, from ATHAUS_COMMIT as the image sets it, else git), served by both MCP servers
(serverInfo.version, over real HTTP with the official client in both protocol eras), in /healthz and the OpenAPI
document, printed by `athaus --version`; a source checkout without metadata says 0.0.0+source. The outbound
User-Agent names that version and the public URL."""

from __future__ import annotations

import importlib.metadata
import json
import os
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


def checked_out() -> str:
    return subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def expected() -> str:
    """pyproject.toml's version with this checkout's commit."""
    return f"{declared()}+g{checked_out()}"


def test_the_version_is_pyproject_s_from_the_package_metadata_with_the_commit() -> None:
    assert identity.package_version() == importlib.metadata.version("athaus-mcp") == declared()
    assert identity.version() == expected()


def test_a_source_checkout_without_metadata_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(identity.importlib.metadata, "version", missing)
    monkeypatch.setattr(identity, "commit", lambda: None)
    assert identity.version() == "0.0.0+source"
    monkeypatch.setattr(identity, "commit", lambda: "0123456789ab")
    assert identity.version() == "0.0.0+source.g0123456789ab"


def test_the_command_prints_the_version() -> None:
    done = subprocess.run([sys.executable, "-m", "athaus.cli", "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"athaus {expected()}")


@pytest.mark.parametrize(("given", "shown"), [("0123456789ABCDEF0123", "+g0123456789ab"), ("kein-commit", "")])
def test_an_image_names_its_commit_in_athaus_commit(given: str, shown: str) -> None:
    """The image has no .git: the build argument becomes ATHAUS_COMMIT (Dockerfile); a value that is no commit is ignored."""
    env = {**os.environ, "ATHAUS_COMMIT": given}
    done = subprocess.run([sys.executable, "-m", "athaus.cli", "--version"], capture_output=True, text=True, timeout=60, env=env, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"athaus {declared()}{shown}")


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
    assert search == {"name": "suche", "title": "Athaus Immobiliensuche", "version": expected()}
    assert broker == {"name": "makler", "title": "Athaus für Makler", "version": expected()}
    health = httpx.get(f"{live_server.base_url}/healthz").json()
    assert health["version"] == expected() and health["servers"] == ["/makler/mcp", "/suche/mcp"]
    with httpx.Client(base_url=live_server.base_url) as http:
        assert http.get("/openapi.json").json()["info"]["version"] == expected()


def test_outbound_requests_name_the_version_and_the_public_url() -> None:
    identity.announce("https://mcp.example.de/")
    try:
        assert identity.user_agent() == f"athaus-mcp/{expected()} (+https://mcp.example.de)"
    finally:
        identity.announce("")
