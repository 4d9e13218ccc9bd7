"""Several processes on one PostgreSQL database answer alike, cursors included: a walk started at one instance
continues at another. Both instances are real `athaus serve` processes; one of them runs two workers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from shared.db.session import Database
from tests.conftest import _free_port

pytestmark = pytest.mark.skipif(
    not os.environ.get("ATHAUS_TEST_DATABASE_URL"), reason="several instances share one database server (PostgreSQL); SQLite serves one process"
)


def _serve(url: str, port: int, workers: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ATHAUS_DATABASE_URL": url, "ATHAUS_DEMO_SEED": "false", "ATHAUS_LOG_LEVEL": "WARNING"}
    env.pop("ATHAUS_SECRET_KEY", None)  # the secrets come from the database, as in a deployment behind a load balancer
    command = [sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", str(workers)]
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@contextmanager
def running_instances(database_url: str) -> Iterator[list[str]]:
    """Two `athaus serve` processes on one database (two workers and one), their base URLs once both answer."""
    ports = [_free_port(), _free_port()]
    processes = [_serve(database_url, ports[0], 2), _serve(database_url, ports[1], 1)]
    try:
        deadline = time.monotonic() + 120
        for port in ports:
            while True:
                try:
                    if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, "instance did not start"
                time.sleep(0.3)
        yield [f"http://127.0.0.1:{port}" for port in ports]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(20)


@pytest.fixture(scope="module")
def instances(demo_db: Database) -> Iterator[list[str]]:
    with running_instances(demo_db.engine.url.render_as_string(hide_password=False)) as urls:
        yield urls


def _page(base_url: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async def call() -> dict[str, Any]:
        async with Client(f"{base_url}/suche/mcp", mode="2026-07-28") as client:
            result = await client.call_tool("search_listings", arguments)
            assert not result.is_error, result.content[0].text
            return result.structured_content

    return anyio.run(call)


def _without_cursor(page: dict[str, Any]) -> dict[str, Any]:
    """The page without its next cursor (which carries its issue time, so two calls a second apart differ there)."""
    return {**page, "completeness": {k: v for k, v in page["completeness"].items() if k != "next_cursor"}}


def test_a_walk_started_at_one_instance_continues_at_the_other(instances: list[str]) -> None:
    a, b = instances
    search = {"query": "Balkon", "city": "Berlin", "limit": 3}
    first_a, first_b = _page(a, search), _page(b, search)
    assert _without_cursor(first_a) == _without_cursor(first_b)
    cursor = first_a["completeness"]["next_cursor"]
    second_at_b = _page(b, {**search, "cursor": cursor})
    second_at_a = _page(a, {**search, "cursor": cursor})
    assert _without_cursor(second_at_b) == _without_cursor(second_at_a)
    ids = [item["listing_id"] for item in first_a["items"]] + [item["listing_id"] for item in second_at_b["items"]]
    assert len(ids) == len(set(ids)) == 6
    # the cursor B issued continues at A, and A's at B
    third_at_a = _page(a, {**search, "cursor": second_at_b["completeness"]["next_cursor"]})
    third_at_b = _page(b, {**search, "cursor": second_at_a["completeness"]["next_cursor"]})
    assert _without_cursor(third_at_a) == _without_cursor(third_at_b)
    # the instance with two workers answers alike from either worker: ask it a few times
    assert all(_without_cursor(_page(a, {**search, "cursor": cursor})) == _without_cursor(second_at_b) for _ in range(4))
