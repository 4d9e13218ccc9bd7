"""Load: N concurrent official-client sessions doing a mixed workload against the real server, beside the stack's floor.

    python -m bench.load --clients 8 20 50 --seconds 30 --backend postgresql|sqlite [--workers W] [--url URL]
    python -m bench.load --mixed --floor --clients 20 --seconds 30 --backend postgresql --workers 2

With --mixed the sessions are the whole product's: 70 % seekers on /suche/mcp, 30 % brokers on /makler/mcp, and about
a fifth of all calls write (a saved search, a valuation, a reply drafted for the click). With --floor the same number
of sessions then drive bench/floor.py for as long, and the table ends with Athaus's calls per second as a share of
the floor's. With --mixed that floor is the replay floor (issue 35): while the sessions drive Athaus, every tools/list
and tools/call answer is recorded (from the HTTP bodies) with each session's call sequence; bench/floor.py --replay then
serves exactly that tools/list and those answers, and the same sessions (same paths, tokens, seeds) replay the same
call sequences against it, cyclically, for as long; both sides' calls/s and CPU per call (server, client, database)
are printed. The client does the same work on both sides (it validates each result against the same output schema,
and the recording hook parses every answer on both). Without --mixed the floor is one trivial tool (issue 21).

The arguments are drawn with a seeded RNG per session from a realistic spread: the demo catalog's places (weighted
by size) and districts, rent and purchase price ranges, words and phrases of listings; each row prints the share of
public catalog reads whose tool and arguments repeat a call of the last 30 s (an upper bound of the read cache's hits:
each worker keeps its own cache, and a write empties it).

Without --url it creates a fresh database (PostgreSQL: a new database on --database-url's server; SQLite: a
temporary file), starts `athaus serve` on it (migrations, demo catalog, --workers processes), mints a development
token for the demo seeker and drives it; with --url it drives a running server (then --token for the account tool).
Each client is one `mcp.Client` session (2026-07-28) that calls, one after the other, a mix of search_listings,
get_listing, count_listings and the account tool list_search_orders. Printed per client count: calls, calls per
second, p50/p95/p99 latency, errors and the server's CPU milliseconds per call (its process tree, from /proc: less
dependent on other load than calls per second); beside it the floor: one client calling get_listing of a fixed id.
Then the client's own CPU per call (this process) and the database server's (every `postgres` process), and the
bound the three set together: client, server and database share the machine's cores, so calls per second can be at
most cores × 1000 / (their milliseconds per call added up).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from bench.floor import Recorder, replay_key
from shared.catalog.places import PlaceMatch, classify_place
from shared.demo.places import DEMO_PLACES, DemoPlace

DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SEEKER = "suchende@athaus-demo.example"
# A realistic spread (issue 35): words and phrases people search for, every place of the demo catalog weighted by its
# size, its districts, and price ranges around what rents and purchases cost; so a run measures the engine, and the
# read cache answers only what people really repeat.
QUERIES = [
    "Balkon", "Altbau Parkett", "Garten", '"mit Balkon"', "Dachgeschoss*", "Einbauküche OR Aufzug", "Terrasse", "Keller",
    "saniert", "Neubau", "Stellplatz", "Kamin", "ruhig", "Aufzug", "Fußbodenheizung", "barrierefrei", "Altbau*",
    "Tiefgarage", "Einbauküche", "Gäste-WC", "Garten -Erdgeschoss", "hell", "Wannenbad", "Loggia",
]


def filter_name(place: DemoPlace) -> str:
    """A place as a filter names it: with its Bundesland where namesakes share the name ("Neunkirchen (Saarland)"), as
    the tools' own answers do; the bare name would be asked back (INPUT_REQUIRED), not searched."""
    match = classify_place(place.name)
    return match.name if isinstance(match, PlaceMatch) else f"{place.name} ({place.state})"


CITIES = [filter_name(place) for place in DEMO_PLACES]
CITY_WEIGHTS = [place.residents**0.5 for place in DEMO_PLACES]
DISTRICTS = [district for place in DEMO_PLACES for district in place.districts]
PUBLIC_READS = {"search_listings", "count_listings", "get_listing", "search", "fetch"}  # search_server/server.py
REPEAT_WINDOW = 30.0  # seconds an answer is kept at most (shared/runtime/read_cache.py DEFAULT_MAX_AGE)
# (weight, tool): searches dominate, as they do for a person looking for a home
MIX = [(40, "search_listings"), (25, "get_listing"), (20, "count_listings"), (15, "list_search_orders")]


BROKER = "inhaberin@athaus-demo.example"
SEEKER_RIGHTS = ["suche:konto", "suche:konto.schreiben"]
BROKER_RIGHTS = ["makler:lesen", "makler:schreiben"]
SEEKER_SHARE = 0.7  # of the mixed sessions; the rest are brokers
# (weight, tool) of each side in the mixed workload; a fifth of all calls write (seekers 20 %, brokers 20 %)
SEEKER_MIX = [(35, "search_listings"), (20, "get_listing"), (15, "count_listings"), (10, "list_search_orders"), (20, "save_search_order")]
BROKER_MIX = [
    (25, "search_listings"), (20, "get_listing"), (20, "search_inquiries"), (15, "show_situation_report"),
    (10, "draft_reply"), (10, "save_valuation"),
]


@dataclass
class Refs:
    """Ids the sessions call with, read once from the server itself."""

    listings: list[str]  # published catalog listings
    office_listings: list[str] = field(default_factory=list)  # the demo office's stock
    inquiries: list[str] = field(default_factory=list)  # inquiries to the demo office


def _broker_arguments(tool: str, rng: random.Random, refs: Refs) -> dict[str, Any]:
    if tool == "search_listings":
        return {"query": rng.choice(QUERIES), "limit": 10}  # the office's own stock
    if tool == "get_listing":
        return {"listing_id": rng.choice(refs.office_listings)}
    if tool == "search_inquiries":
        return {"limit": 10}
    if tool == "draft_reply":
        return {"inquiry_id": rng.choice(refs.inquiries), "text": "Guten Tag, die Wohnung ist noch frei. Passt Ihnen Freitag um 17 Uhr?", "request_id": f"load-{uuid.uuid4().hex}"}
    if tool == "save_valuation":
        return {
            "owner_name": "Lasttest", "postal_code": "04109", "city": "Leipzig", "property_type": "apartment", "marketing_type": "buy",
            "living_area": rng.randrange(40, 140), "value_low": 200000, "value_high": 240000, "request_id": f"load-{uuid.uuid4().hex}",
        }
    return {}


def _seeker_arguments(tool: str, rng: random.Random, refs: Refs) -> dict[str, Any]:
    if tool == "save_search_order":
        criteria = {"city": _city(rng), "marketing_type": "rent", "max_price": rng.randrange(400, 2500, 50)}
        return {"criteria": criteria, "frequency": "weekly", "request_id": f"load-{uuid.uuid4().hex}"}
    return _arguments(tool, rng, refs.listings)


def _city(rng: random.Random) -> str:
    return rng.choices(CITIES, CITY_WEIGHTS)[0]


def _filters(rng: random.Random) -> dict[str, Any]:
    """Filters as people combine them: mostly a place, often rent or buy, sometimes a price cap, a lower bound or words."""
    found: dict[str, Any] = {}
    if rng.random() < 0.8:
        found["city"] = _city(rng)
    if rng.random() < 0.7:
        found["marketing_type"] = rng.choice(["buy", "rent"])
    if rng.random() < 0.4:
        rent = found.get("marketing_type", "rent") == "rent"
        found["max_price"] = rng.randrange(400, 2500, 50) if rent else rng.randrange(100_000, 1_200_000, 10_000)
        if rng.random() < 0.3:
            found["min_price"] = found["max_price"] // 3
    return found


def _arguments(tool: str, rng: random.Random, listing_ids: list[str]) -> dict[str, Any]:
    if tool == "search_listings":
        arguments = {**_filters(rng), "limit": 10}
        if rng.random() < 0.6:
            arguments["query"] = rng.choice(QUERIES)
        if rng.random() < 0.2:
            arguments["include"] = {"photos": True}
        return arguments
    if tool == "get_listing":
        return {"listing_id": rng.choice(listing_ids)}
    if tool == "count_listings":
        return _filters(rng)
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


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_up(process: subprocess.Popen[bytes], url: str, method: str = "GET", seconds: float = 300) -> None:
    """Until `url` answers at all (any HTTP status); the process ending first, or the time running out, ends the run."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            httpx.request(method, url, timeout=2)
            return
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the server at {url} did not start")
        time.sleep(0.5)


def _token(env: dict[str, str], user: str, server: str, rights: list[str] | None = None) -> str:
    command = [sys.executable, "-m", "athaus.cli", "token", "--user", user, "--server", server]
    command += ["--rights", *rights] if rights else []
    return subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]


@contextmanager
def _server(database_url: str, workers: int | None) -> Iterator[tuple[str, dict[str, str]]]:
    """`athaus serve` on a free port; yields its URL and development tokens: the demo seeker's for the catalog workload
    (`seeker`), with write rights for the mixed one (`seeker_writes`), and the demo office owner's (`broker`)."""
    port = _free_port()
    # The bind goes into the environment of `athaus token` too: a token is issued for the server's public URL, which
    # follows the bind (without it the token names port 8000 and every call is refused).
    env = {
        **os.environ, "ATHAUS_DATABASE_URL": database_url, "ATHAUS_LOG_LEVEL": "WARNING", "ATHAUS_DEVELOPMENT": "true",
        "ATHAUS_HOST": "127.0.0.1", "ATHAUS_PORT": str(port), "ATHAUS_DEMO_SEED": "true",
        # Every session is one of two demo accounts, where production spreads the same calls over many people: the
        # limits on use stay on (their counting is part of each call's cost) but high enough never to refuse.
        **{f"ATHAUS_LIMIT_{kind}_PER_{scope}_PER_MINUTE": "1000000000" for kind in ("CALLS", "WRITES") for scope in ("PERSON", "CLIENT", "OFFICE")},
    }
    command = [sys.executable, "-m", "athaus.cli", "serve", "--port", str(port)] + (["--workers", str(workers)] if workers else [])
    process = subprocess.Popen(command, env=env)
    try:
        _wait_until_up(process, f"http://127.0.0.1:{port}/healthz")
        while httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code != 200:
            time.sleep(0.5)
        tokens = {
            "seeker": _token(env, SEEKER, "suche"),
            "seeker_writes": _token(env, SEEKER, "suche", SEEKER_RIGHTS),
            "broker": _token(env, BROKER, "makler", BROKER_RIGHTS),
        }
        SERVER_PIDS["athaus"] = process.pid
        yield f"http://127.0.0.1:{port}", tokens
    finally:
        process.terminate()
        process.wait(30)


def _processes() -> list[tuple[int, int, str, float]]:
    """(pid, parent pid, command name, user + system CPU seconds) of every process, read from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as stat:
                head, rest = stat.read().rsplit(")", 1)
        except OSError:
            continue
        fields = rest.split()
        found.append((int(entry), int(fields[1]), head.split("(", 1)[1], (int(fields[11]) + int(fields[12])) / tick))
    return found


def _tree_cpu_seconds(root: int) -> float:
    """User + system CPU seconds of a process and all its descendants (uvicorn's workers)."""
    processes = _processes()
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, ppid, _, _ in processes if ppid == parent and pid not in tree]
        tree.update(children)
        frontier += children
    return sum(seconds for pid, _, _, seconds in processes if pid in tree)


def _machine_ticks() -> list[int]:
    """The machine's CPU time since boot from /proc/stat, in ticks: [busy, idle (with I/O wait), stolen by the host]."""
    with open("/proc/stat", encoding="ascii") as stat:
        user, nice, system, idle, iowait, irq, softirq, steal = (int(v) for v in stat.readline().split()[1:9])
    return [user + nice + system + irq + softirq, idle + iowait, steal]


def _database_cpu_seconds() -> float:
    """CPU seconds of every PostgreSQL server process on this machine (0 where none runs: SQLite is in the server's
    own processes). Another client of the same database server counts too: read it on an idle machine."""
    return sum(seconds for _, _, name, seconds in _processes() if name == "postgres")


Choose = Callable[[random.Random], tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class Plan:
    """What one session does: which endpoint, with which token, and how it picks its next call."""

    path: str
    token: str
    choose: Choose


SERVER_PIDS: dict[str, int] = {}  # the server driven: its process tree's CPU time per call is printed beside the table
PROBLEMS: set[str] = set()  # what the failed calls said (printed after the table: an error must be explained)


@dataclass
class Tally:
    """Calls of one run: the sessions' call sequences by seed (what the replay floor replays), and how many public
    catalog reads repeated a call of the last REPEAT_WINDOW seconds (what a read cache could have answered)."""

    sequences: dict[int, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    recent: dict[str, float] = field(default_factory=dict)
    public: int = 0
    repeats: int = 0

    def count(self, path: str, tool: str, arguments: dict[str, Any]) -> None:
        if path != "/suche/mcp" or tool not in PUBLIC_READS or arguments.get("cursor"):
            return
        now, key = time.monotonic(), replay_key(tool, arguments)
        self.public += 1
        self.repeats += now - self.recent.get(key, -REPEAT_WINDOW - 1) <= REPEAT_WINDOW
        self.recent[key] = now


async def _session(url: str, plan: Plan, seconds: float, seed: int, tally: Tally, recorder: Recorder | None, script: list[tuple[str, dict[str, Any]]] | None) -> tuple[list[float], int]:
    """One session: its plan's calls (or, with `script`, that call sequence over and over) for `seconds`."""
    rng = random.Random(seed)
    latencies: list[float] = []
    errors = 0
    sequence = tally.sequences.setdefault(seed, [])
    headers = {"Authorization": f"Bearer {plan.token}"} if plan.token else {}
    hooks = {"response": [recorder.hook]} if recorder else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60, event_hooks=hooks) as http:
        async with Client(streamable_http_client(f"{url}{plan.path}", http_client=http), mode="2026-07-28") as client:
            await client.list_tools()  # a 2026-07-28 client calls only tools it has listed
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                tool, arguments = script[len(sequence) % len(script)] if script else plan.choose(rng)
                sequence.append((tool, arguments))
                tally.count(plan.path, tool, arguments)
                started = time.perf_counter()
                try:
                    result = await client.call_tool(tool, arguments)
                    if result.is_error:
                        errors += 1
                        PROBLEMS.add(f"{tool}: {(result.meta or {}).get('athaus/code')} {result.content[0].text[:200]}")
                except Exception as error:
                    errors += 1
                    PROBLEMS.add(f"{tool}: {type(error).__name__} {error}"[:300])
                latencies.append(time.perf_counter() - started)
    return latencies, errors


def _weighted(mix: list[tuple[int, str]], arguments: Callable[[str, random.Random], dict[str, Any]]) -> Choose:
    tools, weights = [tool for _, tool in mix], [weight for weight, _ in mix]

    def choose(rng: random.Random) -> tuple[str, dict[str, Any]]:
        tool = rng.choices(tools, weights)[0]
        return tool, arguments(tool, rng)

    return choose


def catalog_plan(token: str, refs: Refs) -> Callable[[int], Plan]:
    """The original workload: seekers only, reads and their one account read."""
    plan = Plan("/suche/mcp", token, _weighted(MIX, lambda tool, rng: _arguments(tool, rng, refs.listings)))
    return lambda seed: plan


def fixed_plan(token: str, listing_id: str) -> Callable[[int], Plan]:
    """One call over and over: get_listing of one id (the floor's own tool has the same name and arguments)."""
    plan = Plan("/suche/mcp", token, lambda rng: ("get_listing", {"listing_id": listing_id}))
    return lambda seed: plan


def mixed_plan(seeker_token: str, broker_token: str, refs: Refs) -> Callable[[int], Plan]:
    """70 % seeker sessions, 30 % broker sessions (by seed, so every run has the same split); a fifth of calls write."""
    seeker = Plan("/suche/mcp", seeker_token, _weighted(SEEKER_MIX, lambda tool, rng: _seeker_arguments(tool, rng, refs)))
    broker = Plan("/makler/mcp", broker_token, _weighted(BROKER_MIX, lambda tool, rng: _broker_arguments(tool, rng, refs)))
    return lambda seed: broker if (seed * 7) % 10 >= round(SEEKER_SHARE * 10) else seeker


def _run(
    url: str, plans: Callable[[int], Plan], clients: int, seconds: float, server: int | None = None,
    recorder: Recorder | None = None, scripts: dict[int, list[tuple[str, dict[str, Any]]]] | None = None,
) -> dict[str, Any]:
    """One run; with the server's pid also its CPU milliseconds per call (all its processes; robust to other load).
    With a recorder every answer is recorded; with scripts each session replays its seed's call sequence."""
    cpu = _tree_cpu_seconds(server) if server else None
    client, database, machine = time.process_time(), _database_cpu_seconds(), _machine_ticks()
    tally = Tally()
    row = anyio.run(_drive, url, plans, clients, seconds, tally, recorder, scripts)
    row["sequences"] = tally.sequences
    row["repeat_share"] = tally.repeats / tally.public if tally.public else None
    row["machine"] = [after - before for before, after in zip(machine, _machine_ticks(), strict=True)]
    per_call = 1000 / max(1, row["calls"])
    row["cpu_ms"] = (_tree_cpu_seconds(server) - cpu) * per_call if server and cpu is not None else None
    row["client_ms"] = (time.process_time() - client) * per_call
    row["database_ms"] = (_database_cpu_seconds() - database) * per_call
    return row


async def _drive(
    url: str, plans: Callable[[int], Plan], clients: int, seconds: float, tally: Tally, recorder: Recorder | None = None,
    scripts: dict[int, list[tuple[str, dict[str, Any]]]] | None = None,
) -> dict[str, Any]:
    results: list[tuple[list[float], int]] = []

    async def one(seed: int) -> None:
        results.append(await _session(url, plans(seed), seconds, seed, tally, recorder, scripts[seed] if scripts else None))

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


async def _refs(url: str, broker_token: str | None) -> Refs:
    async with Client(f"{url}/suche/mcp", mode="2026-07-28") as client:
        result = await client.call_tool("search_listings", {"limit": 50})
        refs = Refs([item["listing_id"] for item in result.structured_content["items"]])
    if broker_token:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {broker_token}"}, timeout=60) as http:
            async with Client(streamable_http_client(f"{url}/makler/mcp", http_client=http), mode="2026-07-28") as client:
                stock = await client.call_tool("search_listings", {"limit": 50})
                inquiries = await client.call_tool("search_inquiries", {"status": ["open", "answered"], "limit": 50})  # a closed one takes no reply
                refs.office_listings = [item["listing_id"] for item in stock.structured_content["items"]]
                refs.inquiries = [item["inquiry_id"] for item in inquiries.structured_content["items"]]
    return refs


def measure(url: str, token: str, client_counts: list[int], seconds: float) -> list[dict[str, Any]]:
    refs = anyio.run(_refs, url, None)
    rows = [_run(url, fixed_plan(token, refs.listings[0]), 1, min(seconds, 10), SERVER_PIDS.get("athaus"))]
    rows[0]["clients"] = "floor"
    if rows[0]["errors"] == rows[0]["calls"]:  # nothing to measure: a refused call is fast and would pass for speed
        raise SystemExit(f"every call of the floor failed ({rows[0]['calls']}): check the server and the token")
    for clients in client_counts:
        rows.append(_run(url, catalog_plan(token, refs), clients, seconds, SERVER_PIDS.get("athaus")))
    return rows


def measure_mixed(
    url: str, seeker_token: str, broker_token: str, client_counts: list[int], seconds: float, recorder: Recorder | None = None,
) -> list[dict[str, Any]]:
    """The mixed workload; with a recorder, every answer is recorded for the replay floor (rows keep their sequences)."""
    refs = anyio.run(_refs, url, broker_token)
    rows = []
    for clients in client_counts:
        plans = mixed_plan(seeker_token, broker_token, refs)
        row = _run(url, plans, clients, seconds, SERVER_PIDS.get("athaus"), recorder)
        rows.append({**row, "clients": f"{clients} mixed", "plans": plans})
    return rows


@contextmanager
def _floor(workers: int, replay: str | None = None) -> Iterator[tuple[str, int]]:
    """bench/floor.py (with `replay`: the replay floor of that recording) with the same worker count, on a free port."""
    port = _free_port()
    command = [sys.executable, "-m", "bench.floor", "--port", str(port), "--workers", str(workers)]
    process = subprocess.Popen(command + (["--replay", replay] if replay else []))
    try:
        _wait_until_up(process, f"http://127.0.0.1:{port}/suche/mcp", method="POST")
        yield f"http://127.0.0.1:{port}", process.pid
    finally:
        process.terminate()
        process.wait(30)


def measure_floor(workers: int, client_counts: list[int], seconds: float) -> list[dict[str, Any]]:
    """bench/floor.py's one trivial tool with the same worker count, driven by as many sessions for as long."""
    with _floor(workers) as (url, pid):
        rows = []
        for clients in client_counts:
            row = _run(url, fixed_plan("", "A-0000001"), clients, seconds, pid)
            rows.append({**row, "clients": f"{clients} floor"})
        return rows


def measure_replay(workers: int, recorder: Recorder, athaus_rows: list[dict[str, Any]], seconds: float) -> list[dict[str, Any]]:
    """The replay floor of the recording, driven by the same sessions (paths, tokens, seeds) replaying the call
    sequences each session made against Athaus, for as long (issue 35)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "recording.json")
        with open(path, "w", encoding="utf-8") as file:
            json.dump(recorder.as_json(), file, ensure_ascii=False)
        with _floor(workers, path) as (url, pid):
            rows = []
            for ours in athaus_rows:
                scripts = {seed: sequence for seed, sequence in ours["sequences"].items() if sequence}
                clients = len(scripts)
                row = _run(url, ours["plans"], clients, seconds, pid, Recorder(), scripts)
                rows.append({**row, "clients": f"{clients} replay"})
            return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="+", default=[8, 20, 50])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL, help="PostgreSQL server (a fresh database is created on it)")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: athaus serve's own)")
    parser.add_argument("--mixed", action="store_true", help="seekers and brokers, a fifth of the calls writing")
    parser.add_argument("--floor", action="store_true", help="then the same sessions against bench/floor.py, and the ratio")
    parser.add_argument("--url", default=None, help="drive a running server instead of starting one")
    parser.add_argument("--token", default="", help="with --url: bearer token of a seeker for the account tool")
    args = parser.parse_args(argv)

    def report(rows: list[dict[str, Any]]) -> None:
        print(f"{'clients':>10} {'calls':>7} {'calls/s':>8} {'p50_ms':>8} {'p95_ms':>8} {'p99_ms':>8} {'errors':>6} {'cpu_ms':>7} "
              f"{'client_ms':>9} {'db_ms':>6} {'repeats':>7}")
        for row in rows:
            cpu = "" if row.get("cpu_ms") is None else f"{row['cpu_ms']:.1f}"
            repeats = "" if row.get("repeat_share") is None else f"{100 * row['repeat_share']:.0f} %"
            print(
                f"{row['clients']!s:>10} {row['calls']:>7} {row['calls_per_s']:>8.1f} {row['p50']:>8.1f} {row['p95']:>8.1f} "
                f"{row['p99']:>8.1f} {row['errors']:>6} {cpu:>7} {row['client_ms']:>9.1f} {row['database_ms']:>6.1f} {repeats:>7}"
            )
        print("repeats: public catalog reads repeating a call of the last 30 s, the most the read cache can have answered")

    if args.url:
        report(measure(args.url.rstrip("/"), args.token, args.clients, args.seconds))
        print("floor: one client calling get_listing of a fixed id (10 s at most); the other rows: the catalog workload")
        return 0
    workers = args.workers or (1 if args.backend == "sqlite" else max(1, os.cpu_count() or 1))
    with _fresh_database(args.backend, args.database_url) as database_url, _server(database_url, workers) as (url, tokens):
        print(f"backend {args.backend}, {workers} workers, {os.cpu_count()} cores, {args.seconds:g} s per run, load {_load()}")
        recorder = Recorder() if args.mixed and args.floor else None
        if args.mixed:
            rows = measure_mixed(url, tokens["seeker_writes"], tokens["broker"], args.clients, args.seconds, recorder)
        else:
            rows = measure(url, tokens["seeker"], args.clients, args.seconds)
    if args.floor:
        floor = measure_replay(workers, recorder, rows, args.seconds) if recorder else measure_floor(workers, args.clients, args.seconds)
        rows += floor
    report(rows)
    if args.floor:
        for ours, theirs in zip(rows[-2 * len(floor) : -len(floor)], floor, strict=True):
            print(f"{ours['clients']}: {ours['calls_per_s'] / theirs['calls_per_s']:.2f} x the floor's calls per second")
            if ours.get("cpu_ms") and theirs.get("cpu_ms"):
                print(f"{ours['clients']}: server CPU per call {ours['cpu_ms']:.1f} ms against the floor's {theirs['cpu_ms']:.1f} ms "
                      f"({ours['cpu_ms'] / theirs['cpu_ms']:.2f} x); client {ours['client_ms']:.1f} against {theirs['client_ms']:.1f} ms, "
                      f"database {ours['database_ms']:.1f} against {theirs['database_ms']:.1f} ms")
        for row in rows:
            if row.get("cpu_ms"):
                print(f"{row['clients']}: {_ceiling(row)}")
    print(f"load after: {_load()}")
    for problem in sorted(PROBLEMS)[:10]:
        print(f"error: {problem}")
    return 0


def _ceiling(row: dict[str, Any]) -> str:
    """Client, server and database share the machine's cores: their CPU per call bounds the calls per second."""
    total = row["cpu_ms"] + row["client_ms"] + row["database_ms"]
    cores = os.cpu_count() or 1
    busy, idle, stolen = row["machine"]
    shares = "; the cores were {:.0f} % busy, {:.0f} % idle, {:.0f} % taken by the host".format(
        *(100 * part / max(1, busy + idle + stolen) for part in (busy, idle, stolen)))
    return (f"CPU per call {row['cpu_ms']:.1f} server + {row['client_ms']:.1f} client + {row['database_ms']:.1f} database "
            f"= {total:.1f} ms; {cores} cores allow at most {cores * 1000 / total:.0f} calls/s{shares}")


def _load() -> str:
    """The 1-minute load average and the core count: whether the machine was idle while this ran."""
    with open("/proc/loadavg", encoding="ascii") as averages:
        return f"{averages.read().split()[0]} on {os.cpu_count()} cores"


if __name__ == "__main__":
    raise SystemExit(main())
