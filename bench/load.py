"""Load: N concurrent official-client sessions doing a mixed workload against the real server.

    python -m bench.load --clients 8 20 50 --seconds 30 --backend postgresql|sqlite [--workers W] [--url URL]

Without --url it creates a fresh database (PostgreSQL: a new database on --database-url's server; SQLite: a
temporary file), starts `athaus serve` on it (migrations, demo catalog, --workers processes), mints a development
token for the demo seeker and drives it; with --url it drives a running server (then --token for the account tool).
Each client is one `mcp.Client` session (2026-07-28) that calls, one after the other, a mix of search_listings,
get_listing, count_listings and the account tool list_search_orders. Printed per client count: calls, calls per
second, p50/p95/p99 latency and errors; beside it the floor: one client calling get_listing of a fixed id.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SEEKER = "suchende@athaus-demo.example"
QUERIES = ["Balkon", "Altbau Parkett", "Garten", '"mit Balkon"', "Dachgeschoss*", "Einbauküche OR Aufzug"]
CITIES = ["Berlin", "Leipzig", "Köln", "München", "Hamburg", "Dresden"]
# (weight, tool): searches dominate, as they do for a person looking for a home
MIX = [(40, "search_listings"), (25, "get_listing"), (20, "count_listings"), (15, "list_search_orders")]


def _arguments(tool: str, rng: random.Random, listing_ids: list[str]) -> dict[str, Any]:
    if tool == "search_listings":
        return {"query": rng.choice(QUERIES), "city": rng.choice(CITIES), "limit": 10}
    if tool == "get_listing":
        return {"listing_id": rng.choice(listing_ids)}
    if tool == "count_listings":
        return {"city": rng.choice(CITIES), "marketing_type": rng.choice(["buy", "rent"])}
    return {}


@contextmanager
def _fresh_database(backend: str, server_url: str) -> Iterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/load.sqlite3"
        return
    name = f"athaus_load_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def _server(database_url: str, workers: int | None) -> Iterator[tuple[str, str]]:
    """`athaus serve` on a free port; yields its URL and a development token of the demo seeker."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # The bind goes into the environment of `athaus token` too: a token is issued for the server's public URL, which
    # follows the bind (without it the token names port 8000 and every call is refused).
    env = {
        **os.environ, "ATHAUS_DATABASE_URL": database_url, "ATHAUS_LOG_LEVEL": "WARNING", "ATHAUS_DEVELOPMENT": "true",
        "ATHAUS_HOST": "127.0.0.1", "ATHAUS_PORT": str(port),
    }
    command = [sys.executable, "-m", "athaus.cli", "serve", "--port", str(port)] + (["--workers", str(workers)] if workers else [])
    process = subprocess.Popen(command, env=env)
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.5)
        token = subprocess.run(
            [sys.executable, "-m", "athaus.cli", "token", "--user", SEEKER, "--server", "suche"],
            env=env, check=True, capture_output=True, text=True,
        ).stdout.strip()
        yield f"http://127.0.0.1:{port}", token
    finally:
        process.terminate()
        process.wait(30)


async def _client(url: str, token: str, seconds: float, seed: int, listing_ids: list[str], only: str | None = None) -> tuple[list[float], int]:
    rng = random.Random(seed)
    tools = [tool for _, tool in MIX]
    weights = [weight for weight, _ in MIX]
    latencies: list[float] = []
    errors = 0
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=60) as http:
        async with Client(streamable_http_client(f"{url}/suche/mcp", http_client=http), mode="2026-07-28") as client:
            await client.list_tools()  # a 2026-07-28 client calls only tools it has listed
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                tool = only or rng.choices(tools, weights)[0]
                arguments = {"listing_id": listing_ids[0]} if only else _arguments(tool, rng, listing_ids)
                started = time.perf_counter()
                try:
                    result = await client.call_tool(tool, arguments)
                    errors += bool(result.is_error)
                except Exception:
                    errors += 1
                latencies.append(time.perf_counter() - started)
    return latencies, errors


async def _run(url: str, token: str, clients: int, seconds: float, listing_ids: list[str], only: str | None = None) -> dict[str, Any]:
    results: list[tuple[list[float], int]] = []

    async def one(seed: int) -> None:
        results.append(await _client(url, token, seconds, seed, listing_ids, only))

    started = time.monotonic()
    async with anyio.create_task_group() as group:
        for seed in range(clients):
            group.start_soon(one, seed)
    elapsed = time.monotonic() - started
    latencies = sorted(latency for run, _ in results for latency in run)
    quantiles = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [latencies[0]] * 99
    return {
        "clients": clients,
        "calls": len(latencies),
        "calls_per_s": len(latencies) / elapsed,
        "p50": quantiles[49] * 1000,
        "p95": quantiles[94] * 1000,
        "p99": quantiles[98] * 1000,
        "errors": sum(errors for _, errors in results),
    }


async def _listing_ids(url: str) -> list[str]:
    async with Client(f"{url}/suche/mcp", mode="2026-07-28") as client:
        result = await client.call_tool("search_listings", {"limit": 50})
        return [item["listing_id"] for item in result.structured_content["items"]]


def measure(url: str, token: str, client_counts: list[int], seconds: float) -> list[dict[str, Any]]:
    listing_ids = anyio.run(_listing_ids, url)
    rows = [anyio.run(_run, url, token, 1, min(seconds, 10), listing_ids, "get_listing")]
    rows[0]["clients"] = "floor"
    if rows[0]["errors"] == rows[0]["calls"]:  # nothing to measure: a refused call is fast and would pass for speed
        raise SystemExit(f"every call of the floor failed ({rows[0]['calls']}): check the server and the token")
    for clients in client_counts:
        rows.append(anyio.run(_run, url, token, clients, seconds, listing_ids))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 20, 50])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL, help="PostgreSQL server (a fresh database is created on it)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: athaus serve's own)")
    parser.add_argument("--url", default=None, help="drive a running server instead of starting one")
    parser.add_argument("--token", default="", help="with --url: bearer token of a seeker for the account tool")
    args = parser.parse_args(argv)

    def report(rows: list[dict[str, Any]]) -> None:
        print(f"{'clients':>7} {'calls':>7} {'calls/s':>8} {'p50_ms':>8} {'p95_ms':>8} {'p99_ms':>8} {'errors':>6}")
        for row in rows:
            print(
                f"{row['clients']!s:>7} {row['calls']:>7} {row['calls_per_s']:>8.1f} {row['p50']:>8.1f} {row['p95']:>8.1f} "
                f"{row['p99']:>8.1f} {row['errors']:>6}"
            )
        print("floor: one client calling get_listing of a fixed id (10 s at most); the other rows: the mixed workload")

    if args.url:
        report(measure(args.url.rstrip("/"), args.token, args.clients, args.seconds))
        return 0
    with _fresh_database(args.backend, args.database_url) as database_url, _server(database_url, args.workers) as (url, token):
        print(f"backend {args.backend}, workers {args.workers or 'default'}, {os.cpu_count()} cores, {args.seconds:g} s per run")
        report(measure(url, token, args.clients, args.seconds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
