"""Latency of search_listings over real HTTP through the official MCP client, next to the SQL it runs.

For each backend and catalog size this seeds a demo catalog, serves the real app on a loopback port and
times (1) a mix of searches through `mcp.Client`, (2) the floor of that path: `get_listing` of a fixed id
and a raw `tools/list`, and (3) the database work of the same searches in-process. Every call of a scenario has
its own arguments (another word, place, price or radius, drawn in a fixed order), and the server runs with the
per-revision read cache off (ATHAUS_READ_CACHE_ENTRIES=0): the `mcp` rows and the p95 ratio between sizes are the
engine's (issue 35). The `hot` rows, from a second server with the cache on, repeat one argument set per scenario:
what a repeated read costs. Scenarios include the connector's one-line `search` (a line with a place and a price,
and one naming a district) and a search with photos in its results; those have no SQL row. The server's resident
memory is printed per process. It then prints the
page query's plan for two searches on the largest catalog and exits non-zero when a plan scans the whole
`listings` table. Usage and how to read the output: bench/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from sqlalchemy import Connection, Select, create_engine, event, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from bench.load import filter_name
from contract.catalog import SearchListingsInput
from contract.vocabulary import ListingStatus
from search_server.catalog import Scope
from shared.catalog import search as engine
from shared.catalog.rows import listing_rows
from shared.db.migrate import upgrade
from shared.db.models import Listing
from shared.db.session import Database
from shared.demo import seed_demo
from shared.demo.places import DEMO_PLACES

PROTOCOL_VERSION = "2026-07-28"
WARMUP_ROUNDS = 5
DEFAULT_POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("sqlite", "postgresql")
HEADER = f"{'backend':<10} {'size':>7} {'layer':<5} {'scenario':<11} {'hits':>6} {'p50_ms':>8} {'p95_ms':>8} {'mean_ms':>8} {'n':>5}"


@dataclass(frozen=True)
class Scenario:
    name: str
    arguments: dict[str, Any]
    second_page: bool = False  # measured with the next_cursor of the first page
    vary: Callable[[int], dict[str, Any]] | None = None  # the arguments of the n-th call (none: always `arguments`)
    tool: str = "search_listings"

    def call(self, n: int) -> dict[str, Any]:
        return self.vary(n) if self.vary else self.arguments


# What the calls vary over: words, prefixes, places, districts and prices of the demo catalog.
WORDS = ("Balkon", "Garten", "Terrasse", "Parkett", "Keller", "Aufzug", "Einbauküche", "Kamin", "saniert", "Stellplatz", "Altbau", "Loggia")
PREFIXES = ("Dachgeschoss*", "Altbau*", "Balk*", "Garte*", "Terr*", "Einbau*", "Park*", "Stell*")
PLACES = tuple(filter_name(place) for place in DEMO_PLACES)  # a namesake with its Bundesland, or it is asked back
DISTRICT_LINES = tuple(f"Wohnung in {district}, {place.name}" for place in DEMO_PLACES for district in place.districts[:2])


HOUSES_BY_PRICE: dict[str, Any] = {"marketing_type": "buy", "property_types": ["house"], "sort": "price_asc"}
HOUSES_DEAREST_FIRST: dict[str, Any] = {**HOUSES_BY_PRICE, "sort": "price_desc"}
SCENARIOS = (
    Scenario("fulltext", {"query": "Balkon"}, vary=lambda n: {"query": WORDS[n % len(WORDS)]}),
    Scenario(
        "city_price", {"city": "Leipzig", "marketing_type": "rent", "min_price": 500, "max_price": 1200},
        vary=lambda n: {"city": PLACES[n % len(PLACES)], "marketing_type": "rent", "min_price": 300 + n % 7 * 50, "max_price": 900 + n % 11 * 100},
    ),
    Scenario("radius", {"near": {"place": "Köln", "radius_km": 15}}, vary=lambda n: {"near": {"place": PLACES[n % len(PLACES)], "radius_km": 5 + n % 21}}),
    Scenario("prefix", {"query": "Dachgeschoss*"}, vary=lambda n: {"query": PREFIXES[n % len(PREFIXES)]}),
    Scenario("sort_price", HOUSES_BY_PRICE, vary=lambda n: {**HOUSES_BY_PRICE, "min_price": 50_000 + n * 1_000}),
    Scenario("page_2", HOUSES_BY_PRICE, second_page=True),  # a cursor's call is never kept: one argument set is the engine's
    Scenario("price_desc", HOUSES_DEAREST_FIRST, vary=lambda n: {**HOUSES_DEAREST_FIRST, "max_price": 2_000_000 - n * 1_000}),
    Scenario("photos", {"city": "Berlin", "include": {"photos": True}}, vary=lambda n: {"city": PLACES[n % len(PLACES)], "include": {"photos": True}}),
    Scenario(
        "line", {"query": "Wohnung mieten in Leipzig bis 1200 Euro"}, tool="search",
        vary=lambda n: {"query": f"Wohnung mieten in {PLACES[n % len(PLACES)]} bis {800 + n % 13 * 100} Euro"},
    ),
    Scenario("district", {"query": DISTRICT_LINES[0]}, tool="search", vary=lambda n: {"query": DISTRICT_LINES[n % len(DISTRICT_LINES)]}),
)
SQL_SCENARIOS = tuple(scenario for scenario in SCENARIOS if scenario.tool == "search_listings")
FLOOR = "get_listing"

# A plan line that reads the whole listings table instead of going through an index.
FULL_SCAN = {
    "sqlite": re.compile(r"\bSCAN (TABLE )?listings\b(?!.*\bUSING\b)"),
    "postgresql": re.compile(r"\bSeq Scan on listings\b"),
}
SMALL_SORT = 1_000
# A plan line that sorts the match set instead of reading the order from an index.
FULL_SORT = {
    "sqlite": re.compile(r"USE TEMP B-TREE FOR (RIGHT PART OF )?ORDER BY"),
    "postgresql": re.compile(r"^\s*(->\s+)?Sort\b"),
}

Probe = Callable[[], Awaitable[int | None]]
"""One timed call; returns the number of matching listings when it is a search."""


@dataclass
class Measurement:
    samples_ms: list[float] = field(default_factory=list)
    hits: int | None = None


@dataclass
class Plan:
    backend: str
    size: int
    scenario: str
    lines: list[str]
    hits: int = 0  # matches of the scenario (up to the count cap): a sort of a few rows costs nothing

    @property
    def full_scans(self) -> list[str]:
        return [line for line in self.lines if FULL_SCAN[self.backend].search(line)]

    @property
    def sorts(self) -> list[str]:
        """Sorts of a match set larger than SMALL_SORT (sorting the handful of a narrow search is no cost)."""
        if self.hits < SMALL_SORT:  # the count cap is SMALL_SORT: a capped count says "at least"
            return []
        return [line for line in self.lines if FULL_SORT[self.backend].search(line)]


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- catalogs --------------------------------------------------------------------------------------------


def fill(db: Database, label: str, size: int) -> None:
    """Migrate and seed `size` demo listings, unless a kept SQLite file already holds exactly them."""
    upgrade(db.engine)
    with db.read_only() as session:
        present = session.scalar(select(func.count()).select_from(Listing)) or 0
    if present == size:
        progress(f"{label}: reusing {size} seeded listings")
        return
    if present:
        raise RuntimeError(f"{label}: the database holds {present} listings, not {size}; delete it and run again")
    started = time.monotonic()
    progress(f"{label}: seeding {size} listings (bulk load, shared.demo.bulk)")
    seed_demo(db.engine, listings=size)
    progress(f"{label}: seeded {size} listings in {time.monotonic() - started:.0f} s")


@contextlib.contextmanager
def sqlite_catalog(size: int, keep_data: Path | None) -> Iterator[Database]:
    with contextlib.ExitStack() as stack:
        directory = keep_data or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="athaus-bench-")))
        directory.mkdir(parents=True, exist_ok=True)
        db = Database.from_url(f"sqlite:///{directory / f'search-latency-{size}.sqlite3'}")
        stack.callback(db.engine.dispose)
        fill(db, f"sqlite {size}", size)
        yield db


@contextlib.contextmanager
def postgresql_catalog(size: int, server_url: str, keep: bool = False) -> Iterator[Database]:
    """A fresh database on the server, dropped afterwards (with `keep`: athaus_bench_<size>, kept and reused);
    vacuumed and analysed as autovacuum would."""
    name = f"athaus_bench_{size}" if keep else f"athaus_bench_{size}_{uuid.uuid4().hex[:8]}"
    label = f"postgresql {size}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with contextlib.ExitStack() as stack:
        stack.callback(admin.dispose)
        with admin.connect() as connection:
            exists = connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
            if not exists:
                connection.execute(text(f'CREATE DATABASE "{name}"'))

        def drop() -> None:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

        if not keep:
            stack.callback(drop)
        db = Database.from_url(make_url(server_url).set(database=name).render_as_string(hide_password=False))
        stack.callback(db.engine.dispose)
        fill(db, label, size)
        started = time.monotonic()
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
        progress(f"{label}: VACUUM ANALYZE ({time.monotonic() - started:.0f} s)")
        yield db


def catalog(backend: str, size: int, options: argparse.Namespace) -> contextlib.AbstractContextManager[Database]:
    if backend == "sqlite":
        return sqlite_catalog(size, options.keep_data)
    return postgresql_catalog(size, options.postgres_url, keep=options.keep_data is not None)


# --- the three layers ------------------------------------------------------------------------------------


async def time_probes(probes: Mapping[str, Probe], rounds: int) -> dict[str, Measurement]:
    """Warm up, then call the probes round-robin, so drift and noise spread evenly over them."""
    for _ in range(WARMUP_ROUNDS):
        for probe in probes.values():
            await probe()
    measurements = {name: Measurement() for name in probes}
    for _ in range(rounds):
        for name, probe in probes.items():
            started = time.perf_counter()
            hits = await probe()
            measurements[name].samples_ms.append((time.perf_counter() - started) * 1000)
            measurements[name].hits = hits
    return measurements


@dataclass
class Server:
    url: str
    pid: int

    def memory_mb(self) -> list[tuple[str, float, float]]:
        """Resident memory now and at its peak (VmRSS, VmHWM, in MB) of each process of the server: the one started
        and, with `--workers` above 1 (the default on PostgreSQL), uvicorn's worker processes below it."""
        found = []
        for pid in _process_tree(self.pid):
            status = Path(f"/proc/{pid}/status").read_text()
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
            role = "main" if pid == self.pid else "tracker" if b"resource_tracker" in command else "worker"
            found.append((role, *(int(fields[key].split()[0]) / 1024 for key in ("VmRSS", "VmHWM"))))
        return found  # type: ignore[return-value]


def _process_tree(pid: int) -> list[int]:
    """`pid` and its descendants (Linux: /proc/<pid>/task/*/children)."""
    tree = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        for child in children:
            tree.extend(_process_tree(int(child)))
    return tree


def memory_line(backend: str, size: int, processes: list[tuple[str, float, float]]) -> str:
    """The server's memory: the largest process (now and peak), each process, and all of them together."""
    largest = max(processes, key=lambda process: process[2])
    each = ", ".join(f"{role} {rss:.0f}/{peak:.0f}" for role, rss, peak in processes)
    total = sum(rss for _, rss, _ in processes)
    return (
        f"{backend:<10} {size:>7} server RSS {largest[1]:.0f} MB (peak {largest[2]:.0f} MB) in its largest process while "
        f"serving; {len(processes)} processes (MB now/peak: {each}), {total:.0f} MB together"
    )


@contextlib.contextmanager
def serve(db: Database, read_cache: bool = False) -> Iterator[Server]:
    """The real server (`athaus serve suche`) in a process of its own on a free loopback port, so its resident
    memory is the server's alone; yields its MCP URL and process id. Without `read_cache` the per-revision read
    cache is off (ATHAUS_READ_CACHE_ENTRIES=0): every call is the engine's work."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    environment = {
        **os.environ,
        "ATHAUS_DATABASE_URL": db.engine.url.render_as_string(hide_password=False),
        "ATHAUS_SECRET_KEY": "bench-secret",
        "ATHAUS_DEMO_SEED": "false",
        "ATHAUS_LOG_LEVEL": "WARNING",
        "ATHAUS_READ_CACHE_ENTRIES": "256" if read_cache else "0",
    }
    command = [sys.executable, "-c", "import sys; from athaus.cli import main; sys.exit(main())", "serve", "suche", "--port", str(port)]
    process = subprocess.Popen(command, env=environment)
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the server did not start")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
            time.sleep(0.1)
        yield Server(f"http://127.0.0.1:{port}/suche/mcp", process.pid)
    finally:
        process.terminate()
        process.wait(timeout=20)


async def measure_mcp(url: str, listing_id: str, rounds: int, distinct: bool = True) -> dict[str, Measurement]:
    """Searches, get_listing and tools/list through one Client over HTTP; with `distinct` each call of a scenario has
    its own arguments (Scenario.vary), else every call repeats the scenario's one argument set."""
    async with Client(url, mode=PROTOCOL_VERSION) as client:
        await client.list_tools()  # a 2026-07-28 client sends tools/call only for tools it has listed

        async def call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(name, arguments)
            if result.is_error or result.structured_content is None:
                raise RuntimeError(f"{name} {arguments} failed: {result.content[0].text if result.content else result}")
            return result.structured_content

        def search(scenario: Scenario, arguments: dict[str, Any] | None) -> Probe:
            calls = iter(range(10**9))

            async def probe() -> int:
                result = await call(scenario.tool, arguments if arguments is not None else scenario.call(next(calls)))
                return int(result["total"] if result["total"] is not None else result["total_at_least"])

            return probe

        async def get_listing() -> None:
            await call("get_listing", {"listing_id": listing_id})

        async def list_tools() -> None:
            await client.list_tools(cache_mode="bypass")  # the client would otherwise serve it from its cache

        probes: dict[str, Probe] = {}
        for scenario in SCENARIOS:
            arguments = scenario.arguments
            if scenario.second_page:
                cursor = (await call("search_listings", arguments))["completeness"]["next_cursor"]
                if cursor is None:
                    raise RuntimeError(f"{scenario.name}: the first page is the last one")
                arguments = {**arguments, "cursor": cursor}
            probes[scenario.name] = search(scenario, None if distinct and not scenario.second_page else arguments)
        probes["get_listing"] = get_listing
        probes["tools/list"] = list_tools
        return await time_probes(probes, rounds)


def page_query(scope: Scope, args: SearchListingsInput, position: list[Any] | None) -> Select[Any]:
    """The page query of search_server.catalog.search_listings (shared.catalog.scope.ListingScope.page_select) in its
    order and limit, after `position` (a cursor's keyset predicate) if given."""
    order = engine.SORTS[args.sort]
    statement = scope.page_select(args.include)
    if position is not None:
        statement = statement.where(order.after(position))
    return statement.order_by(*order.order_by()).limit(args.limit + 1)


def search_sql(db: Database, args: SearchListingsInput, position: list[Any] | None) -> tuple[int, list[Any] | None]:
    """The database work of search_listings, statement for statement: snapshot, scope (place lookup and
    counts of listings without a value in a range filter), the count up to engine.COUNT_CAP, the page as rows with
    the office's name, and its features. Returns the total (or its lower bound) and the position after the page
    (what the next cursor carries), if there is more."""
    with db.read_only() as session:
        engine.snapshot(session)
        scope = Scope(session, args)
        counted = engine.count_up_to(session, scope.count_alternatives(session), engine.COUNT_CAP)
        total = counted.counted
        found = session.connection().execute(page_query(scope, args, position)).all()
        rows = listing_rows(session, found, with_features=args.include.features)
        after_page = engine.SORTS[args.sort].position_of(rows[args.limit - 1]) if len(rows) > args.limit else None
    return total, after_page


async def measure_sql(db: Database, rounds: int) -> dict[str, Measurement]:
    """The same searches in-process; only the database work (as search_sql runs it) is timed."""

    def search(scenario: Scenario, position: list[Any] | None) -> Probe:
        calls = iter(range(10**9))

        async def probe() -> int:  # blocking on purpose: nothing else runs on this loop
            arguments = scenario.arguments if scenario.second_page else scenario.call(next(calls))
            return search_sql(db, SearchListingsInput.model_validate(arguments), position)[0]

        return probe

    probes: dict[str, Probe] = {}
    for scenario in SQL_SCENARIOS:  # the same argument sequence as measure_mcp's
        position = None
        if scenario.second_page:
            _, position = search_sql(db, SearchListingsInput.model_validate(scenario.arguments), None)
            if position is None:
                raise RuntimeError(f"{scenario.name}: the first page is the last one")
        probes[scenario.name] = search(scenario, position)
    return await time_probes(probes, rounds)


def published_listing_id(db: Database) -> str:
    with db.read_only() as session:
        ref = session.scalar(
            select(Listing.ref).where(Listing.status == ListingStatus.published.value).order_by(Listing.id).limit(1)
        )
    if ref is None:
        raise RuntimeError("the catalog has no published listing")
    return ref


# --- plans -----------------------------------------------------------------------------------------------


def driver_statement(session: Session, query: Select[Any]) -> tuple[str, Any]:
    """The SQL text and parameters exactly as the driver receives them when `query` runs."""
    seen: list[tuple[str, Any]] = []

    def capture(conn: Connection, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        seen.append((statement, parameters))

    connection = session.connection()
    event.listen(connection, "before_cursor_execute", capture)
    try:
        session.execute(query).all()
    finally:
        event.remove(connection, "before_cursor_execute", capture)
    [(statement, parameters)] = seen
    return statement, parameters


def explain(db: Database, backend: str, size: int, scenario: Scenario) -> Plan:
    """EXPLAIN QUERY PLAN (SQLite) or EXPLAIN (PostgreSQL) of the scenario's page query (the second page with
    the keyset predicate of its cursor)."""
    args = SearchListingsInput.model_validate(scenario.arguments)
    position = search_sql(db, args, None)[1] if scenario.second_page else None
    with db.read_only() as session:
        statement, parameters = driver_statement(session, page_query(Scope(session, args), args, position))
        connection = session.connection()
        if backend == "sqlite":
            depths: dict[int, int] = {}
            lines = []
            for node, parent, _, detail in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", parameters):
                depths[node] = depths.get(parent, -1) + 1
                lines.append("  " * depths[node] + detail)
        else:
            lines = [line for (line,) in connection.exec_driver_sql(f"EXPLAIN {statement}", parameters)]
    return Plan(backend, size, scenario.name, lines)


# --- output ----------------------------------------------------------------------------------------------


def table_row(backend: str, size: int, layer: str, scenario: str, measurement: Measurement) -> str:
    samples = measurement.samples_ms
    cuts = statistics.quantiles(samples, n=100, method="inclusive")
    hits = "-" if measurement.hits is None else str(measurement.hits)
    return (
        f"{backend:<10} {size:>7} {layer:<5} {scenario:<11} {hits:>6} "
        f"{cuts[49]:>8.2f} {cuts[94]:>8.2f} {statistics.fmean(samples):>8.2f} {len(samples):>5}"
    )


def at_least_two(value: str) -> int:
    number = int(value)
    if number < 2:
        raise argparse.ArgumentTypeError("needs at least 2 requests for percentiles")
    return number


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.search_latency", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[10_000, 100_000], metavar="N", help="catalog sizes in listings (default: 10000 100000)"
    )
    parser.add_argument("--backends", nargs="+", choices=BACKENDS, default=list(BACKENDS), help="(default: both)")
    parser.add_argument(
        "--postgres-url",
        default=DEFAULT_POSTGRES_URL,
        help="PostgreSQL server; each run creates a fresh database there and drops it afterwards (default: %(default)s)",
    )
    parser.add_argument(
        "--requests", type=at_least_two, default=100, help="timed calls per scenario and layer (default: %(default)s)"
    )
    parser.add_argument(
        "--keep-data",
        type=Path,
        metavar="DIR",
        help="keep seeded SQLite catalogs here and PostgreSQL databases as athaus_bench_<size>, and reuse them",
    )
    return parser.parse_args(argv)


def summary_rows(backend: str, size: int, mcp: dict[str, Measurement], sql: dict[str, Measurement]) -> list[str]:
    """Per scenario: p50 and p95 over HTTP, the floor (get_listing over HTTP) and the SQL time at p50, and the
    ratio p50 / (floor + SQL) that the target bounds (≤ 1.3)."""
    floor = p(mcp[FLOOR], 50)
    rows = []
    for scenario in SCENARIOS:
        name = scenario.name
        http50, http95 = p(mcp[name], 50), p(mcp[name], 95)
        sql50 = f"{p(sql[name], 50):>7.1f}" if name in sql else f"{'-':>7}"
        ratio = f"{http50 / (floor + p(sql[name], 50)):>6.2f}" if name in sql else f"{'-':>6}"
        rows.append(f"{backend:<10} {size:>7} {name:<11} {mcp[name].hits or 0:>7} {http50:>8.1f} {http95:>8.1f} {floor:>7.1f} {sql50} {ratio}")
    return rows


SUMMARY_HEADER = f"{'backend':<10} {'size':>7} {'scenario':<11} {'hits':>7} {'p50_ms':>8} {'p95_ms':>8} {'floor':>7} {'sql_p50':>7} {'p50/(floor+sql)':>6}"


def p(measurement: Measurement, percent: int) -> float:
    return statistics.quantiles(measurement.samples_ms, n=100, method="inclusive")[percent - 1]


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    plans: list[Plan] = []
    summaries: list[str] = []
    p95: dict[tuple[str, int, str], float] = {}
    memory: list[str] = []
    print(HEADER, flush=True)
    for backend in options.backends:
        for size in options.sizes:
            with catalog(backend, size, options) as db:
                progress(f"{backend} {size}: {options.requests} calls per scenario over HTTP, distinct arguments, read cache off")
                with serve(db) as server:
                    mcp = anyio.run(measure_mcp, server.url, published_listing_id(db), options.requests)
                    processes = server.memory_mb()
                progress(f"{backend} {size}: {options.requests} calls per scenario over HTTP, one argument set each, read cache on")
                with serve(db, read_cache=True) as server:
                    hot = anyio.run(measure_mcp, server.url, published_listing_id(db), options.requests, False)
                progress(f"{backend} {size}: {options.requests} calls per scenario in SQL")
                sql = anyio.run(measure_sql, db, options.requests)
                for layer, measurements in (("mcp", mcp), ("hot", hot), ("sql", sql)):
                    for scenario, measurement in measurements.items():
                        print(table_row(backend, size, layer, scenario, measurement), flush=True)
                if disagreeing := [name for name in sql if sql[name].hits != mcp[name].hits]:
                    raise RuntimeError(f"{backend} {size}: the SQL layer is not the handler's search, totals differ for {disagreeing}")
                summaries.extend(summary_rows(backend, size, mcp, sql))
                p95.update({(backend, size, s.name): p(mcp[s.name], 95) for s in SCENARIOS})
                memory.append(memory_line(backend, size, processes))
                print(memory[-1], flush=True)
                for s in SQL_SCENARIOS:
                    plans.append(explain(db, backend, size, s))
                    plans[-1].hits = mcp[s.name].hits or 0
    print(f"\n{SUMMARY_HEADER}")
    print("\n".join(summaries))
    smallest = min(options.sizes)
    print(f"\np95 ratio to the smallest size ({smallest}), distinct arguments, read cache off: the engine's")
    for backend in options.backends:
        for size in sorted(options.sizes):
            if size != smallest:
                ratios = " ".join(f"{s.name} {p95[backend, size, s.name] / p95[backend, smallest, s.name]:.2f}" for s in SCENARIOS)
                print(f"{backend:<10} {size:>7} {ratios}")
    print()
    print("\n".join(memory))
    largest = max(options.sizes)
    for plan in plans:
        if plan.size == largest:
            print(f"\nEXPLAIN {plan.backend} {plan.size} {plan.scenario} (page query)")
            print("\n".join(f"  {line}" for line in plan.lines))
    failures = 0
    for plan in plans:
        if plan.full_scans:
            failures += 1
            print(f"FULL SCAN of listings: {plan.backend} {plan.size} {plan.scenario}: {'; '.join(line.strip() for line in plan.full_scans)}", file=sys.stderr)
        if plan.sorts:
            failures += 1
            print(f"SORT of the match set: {plan.backend} {plan.size} {plan.scenario}: {'; '.join(line.strip() for line in plan.sorts)}", file=sys.stderr)
    print(f"plan checks: {len(plans)} page queries, {failures} with a full scan or a sort", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
