"""Soak: many official-client sessions for minutes against several instances on one PostgreSQL database.

    python -m bench.soak --sessions 100 --seconds 600 --instances 2 --workers 2
    python -m bench.soak --sessions 8 --seconds 30 --instances 2 --workers 1 --listings 300   (the CI form, tests/test_soak.py)

It creates a fresh database on --database-url's server, starts `athaus serve` --instances times on it (each with
--workers processes, development mode for the tokens, a local SMTP server for the outbox), and drives the mixed
workload of bench/load.py (70 % seekers, 30 % brokers, a fifth of calls writing), the sessions spread over the
instances. Beside it, a person confirms a drafted reply in the web app every --confirm-every seconds (login, the
form's Senden), and the office imports a small OpenImmo transfer every --import-every seconds.

Printed per minute (the last, shorter one included): calls, errors, p50/p99, the RSS of every server process, the
database connections in use. At the end: the outbox drained (bounded wait), the row count of every table before and
after, and the checks of issue 21: 0 errors, p99 of the last minute within 1.5× the first, every process's RSS in
the last minute within 10 % of the second, connections never more than the pools allow, no table grown by more than
the writes made. `run()` returns all of it for tests/test_soak.py; the exit code is 1 when a check fails.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import anyio
import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import create_engine, inspect, text

from bench.load import (
    BROKER,
    DEFAULT_POSTGRES_URL,
    Plan,
    Refs,
    _fresh_database,
    _free_port,
    _refs,
    _token,
    _wait_until_up,
    mixed_plan,
)
from shared.demo.openimmo import object_xml, transfer

DEMO_BROKER_PASSWORD = "makler-demo"  # the demo office owner's published demo password (README)
WRITING_TOOLS = {"save_search_order", "save_valuation", "draft_reply", "import_listings"}
# Tables the workload may grow, each by the writes that grow it (anything else growing is a leak).
GROWS_WITH_WRITES = {
    "search_orders", "valuations", "pending_actions", "inquiry_messages", "outbox", "audit_log", "idempotency_keys",
    "personal_data_reads", "listings", "listing_terms", "listing_features", "listing_events", "listing_status_changes",
    "matches", "proposals", "catalog_state", "oauth_tokens", "web_sessions", "auth_throttle_counters",
    "server_secrets",  # a deployment secret is created once, on its first use (e.g. the confirmations' key)
}
POOL_CONNECTIONS_PER_INSTANCE = 60  # athaus serve: 20 pooled + 40 overflow shared by its workers (README, How to size it)


@dataclass
class Call:
    at: float
    seconds: float
    tool: str
    ok: bool


@dataclass
class Recorder:
    started: float = field(default_factory=time.monotonic)
    calls: list[Call] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, tool: str, seconds: float, ok: bool, problem: str | None = None) -> None:
        with self.lock:
            self.calls.append(Call(time.monotonic() - self.started, seconds, tool, ok))
            if problem and len(self.problems) < 20:
                self.problems.append(problem)


# --- the servers ---------------------------------------------------------------------------------------------------


@contextlib.contextmanager
def smtp_server() -> Iterator[int]:
    """A local SMTP server (aiosmtpd) that accepts every message, so the outbox can drain."""
    from aiosmtpd.controller import Controller

    class Accept:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 OK"

    port = _free_port()
    controller = Controller(Accept(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()


@contextlib.contextmanager
def instances(database_url: str, count: int, workers: int, listings: int, smtp_port: int) -> Iterator[list[tuple[str, subprocess.Popen[bytes], dict[str, str]]]]:
    """`athaus serve` `count` times on one database; the first seeds the demo catalog, the others start after it."""
    started: list[tuple[str, subprocess.Popen[bytes], dict[str, str]]] = []
    ports = [_free_port() for _ in range(count)]
    try:
        for number, port in enumerate(ports):
            # One public URL for all: a token is bound to it (RFC 8707), and a load balancer would give them one.
            env = {
                **os.environ,
                "ATHAUS_PUBLIC_URL": f"http://127.0.0.1:{ports[0]}", "ATHAUS_DATABASE_URL": database_url, "ATHAUS_LOG_LEVEL": "WARNING", "ATHAUS_DEVELOPMENT": "true",
                "ATHAUS_HOST": "127.0.0.1", "ATHAUS_PORT": str(port), "ATHAUS_DEMO_SEED": "true", "ATHAUS_DEMO_LISTINGS": str(listings),
                "ATHAUS_SMTP_HOST": "127.0.0.1", "ATHAUS_SMTP_PORT": str(smtp_port), "ATHAUS_OUTBOX_POLL_SECONDS": "1",
                "ATHAUS_SECRET_KEY": "soak-shared-secret",
            }
            command = [sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", str(workers)]
            process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            started.append((f"http://127.0.0.1:{port}", process, env))
            _wait_until_up(process, f"http://127.0.0.1:{port}/healthz")
            deadline = time.monotonic() + 300
            while httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code != 200:
                if time.monotonic() > deadline:
                    raise SystemExit(f"instance {number + 1} never became healthy")
                time.sleep(0.5)
        yield started
    finally:
        for _, process, _ in started:
            process.terminate()
        for _, process, _ in started:
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()


def server_processes(roots: list[int]) -> list[int]:
    """The processes of each `athaus serve`: the parent and its descendants (uvicorn's workers)."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children[parent].append(int(entry))
    found, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return sorted(found)


def rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            match = re.search(r"VmRSS:\s+(\d+) kB", status.read())
    except OSError:
        return None
    return int(match.group(1)) / 1024 if match else None


# --- what the people do ----------------------------------------------------------------------------------------------


async def session(url: str, plan: Plan, until: float, seed: int, recorder: Recorder) -> None:
    rng = random.Random(seed)
    while time.monotonic() < until:
        # The SDK's client ends its whole session when a request's connection fails (the error surfaces from its task
        # group, not from call_tool): that counts as an error of the call in flight, and the person connects again.
        started = time.perf_counter()
        tool = "(connect)"
        try:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {plan.token}"}, timeout=60) as http:
                async with Client(streamable_http_client(f"{url}{plan.path}", http_client=http), mode="2026-07-28") as client:
                    await client.list_tools()
                    while time.monotonic() < until:
                        tool, arguments = plan.choose(rng)
                        started = time.perf_counter()
                        try:
                            result = await client.call_tool(tool, arguments)
                            problem = None if not result.is_error else f"{tool}: {(result.meta or {}).get('athaus/code')} {result.content[0].text[:200]}"
                        except Exception as error:  # a transport failure counts as an error too
                            problem = f"{tool}: {type(error).__name__} {error}"[:300]
                        recorder.add(tool, time.perf_counter() - started, problem is None, problem)
        except Exception as error:
            failures = error.exceptions if isinstance(error, BaseExceptionGroup) else [error]
            while failures and isinstance(failures[0], BaseExceptionGroup):
                failures = failures[0].exceptions
            first = failures[0] if failures else error
            recorder.add(tool, time.perf_counter() - started, False, f"{tool}: session lost, {type(first).__name__} {first}"[:300])


async def importer(url: str, token: str, until: float, every: float, recorder: Recorder) -> None:
    """The office's feed: a small partial transfer (TEIL) every `every` seconds, the same objects changed each time."""
    round_ = 0
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
        async with Client(streamable_http_client(f"{url}/makler/mcp", http_client=http), mode="2026-07-28") as client:
            await client.list_tools()
            while time.monotonic() < until:
                round_ += 1
                xml = transfer([object_xml(f"SOAK-{n}", n, price=250000 + 1000 * round_) for n in range(1, 6)], scope="TEIL")
                started = time.perf_counter()
                try:
                    result = await client.call_tool("import_listings", {"xml": xml})
                    problem = None if not result.is_error else f"import_listings: {result.content[0].text[:200]}"
                except Exception as error:
                    problem = f"import_listings: {type(error).__name__}"
                recorder.add("import_listings", time.perf_counter() - started, problem is None, problem)
                await anyio.sleep(max(0.0, min(every, until - time.monotonic())))


async def confirmer(url: str, token: str, refs: Refs, until: float, every: float, recorder: Recorder) -> None:
    """A person: a reply is drafted (MCP), then confirmed in the web app with the form's Senden (login, CSRF)."""
    rng = random.Random(7)
    async with httpx2.AsyncClient(base_url=url, timeout=60, follow_redirects=True) as browser:
        login = await browser.get("/app/anmelden")
        csrf = _hidden(login.text, "csrf_token")
        await browser.post("/app/anmelden", data={"csrf_token": csrf, "email": BROKER, "password": DEMO_BROKER_PASSWORD})
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
            async with Client(streamable_http_client(f"{url}/makler/mcp", http_client=http), mode="2026-07-28") as client:
                await client.list_tools()
                while time.monotonic() < until:
                    started = time.perf_counter()
                    problem = None
                    try:
                        draft = await client.call_tool(
                            "draft_reply", {"inquiry_id": rng.choice(refs.inquiries), "text": f"Guten Tag, Termin {uuid.uuid4().hex[:6]} passt.", "request_id": f"soak-{uuid.uuid4().hex}"}
                        )
                        number = (draft.structured_content or {}).get("confirmation", {}).get("confirmation_id")
                        page = await browser.get("/app/")
                        form = _form_of(page.text, number) if number else None
                        if form is None:
                            problem = f"web app: the draft {number} is not on the page"
                        else:
                            sent = await browser.post("/app/bestaetigungen", data={**form, "entscheidung": "send"})
                            problem = None if sent.status_code == 200 else f"web app: Senden answered {sent.status_code}"
                    except Exception as error:
                        problem = f"web app: {type(error).__name__} {error}"[:300]
                    recorder.add("web_app_confirm", time.perf_counter() - started, problem is None, problem)
                    await anyio.sleep(max(0.0, min(every, until - time.monotonic())))


def _hidden(page: str, name: str) -> str:
    match = re.search(rf'name="{name}" value="([^"]*)"', page)
    return match.group(1) if match else ""


def _form_of(page: str, confirmation_id: str) -> dict[str, str] | None:
    """The hidden fields of the form that confirms `confirmation_id` on the web app's list page."""
    for form in re.findall(r"<form[^>]*bestaetigungen[^>]*>(.*?)</form>", page, re.S):
        fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form))
        if fields.get("confirmation_id") == confirmation_id:
            return fields
    return None


# --- the database ----------------------------------------------------------------------------------------------------


def row_counts(database_url: str) -> dict[str, int]:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            tables = inspect(connection).get_table_names()
            return {table: int(connection.execute(text(f'SELECT count(*) FROM "{table}"')).scalar_one()) for table in sorted(tables)}
    finally:
        engine.dispose()


def connections_in_use(admin_url: str, database: str) -> int:
    engine = create_engine(admin_url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM pg_stat_activity WHERE datname = :d"), {"d": database}).scalar_one())
    finally:
        engine.dispose()


def outbox_waiting(database_url: str) -> int:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return int(connection.execute(text("SELECT count(*) FROM outbox WHERE status IN ('queued', 'sending')")).scalar_one())
    finally:
        engine.dispose()


# --- the run ---------------------------------------------------------------------------------------------------------


def run(sessions: int, seconds: float, instance_count: int, workers: int, listings: int, server_url: str,
        confirm_every: float = 20, import_every: float = 60) -> dict[str, Any]:
    recorder = Recorder()
    minutes: list[dict[str, Any]] = []
    with smtp_server() as smtp_port, _fresh_database("postgresql", server_url) as database_url, instances(
        database_url, instance_count, workers, listings, smtp_port
    ) as running:
        database = database_url.rsplit("/", 1)[1]
        urls = [url for url, _, _ in running]
        env = running[0][2]
        seeker = _token(env, "suchende@athaus-demo.example", "suche", ["suche:konto", "suche:konto.schreiben"])
        broker = _token(env, BROKER, "makler", ["makler:lesen", "makler:schreiben", "makler:senden"])
        refs = anyio.run(_refs, urls[0], broker)
        before = row_counts(database_url)
        roots = [process.pid for _, process, _ in running]
        plans = mixed_plan(seeker, broker, refs)
        recorder.started = time.monotonic()
        until = recorder.started + seconds
        peak_connections = 0

        def sample(minute: int) -> None:
            nonlocal peak_connections
            in_use = connections_in_use(server_url, database)
            peak_connections = max(peak_connections, in_use)
            rss = {pid: rss_mb(pid) for pid in server_processes(roots)}
            minutes.append({"minute": minute, "rss": {pid: value for pid, value in rss.items() if value is not None}, "connections": in_use})

        async def drive() -> None:
            async with anyio.create_task_group() as group:
                for seed in range(sessions):
                    group.start_soon(session, urls[seed % len(urls)], plans(seed), until, seed, recorder)
                group.start_soon(importer, urls[0], broker, until, import_every, recorder)
                group.start_soon(confirmer, urls[-1], broker, refs, until, confirm_every, recorder)
                minute = 0
                while time.monotonic() < until:
                    await anyio.sleep(min(60.0, max(0.0, until - time.monotonic()), 10.0 if seconds < 120 else 60.0))
                    minute += 1
                    await anyio.to_thread.run_sync(sample, minute)

        anyio.run(drive)
        drained_after = None
        waited = time.monotonic()
        while time.monotonic() - waited < 60:
            if outbox_waiting(database_url) == 0:
                drained_after = time.monotonic() - waited
                break
            time.sleep(1)
        after = row_counts(database_url)
        stderr_tail = []
        for _, process, _ in running:
            process.terminate()
        for _, process, _ in running:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(30)
            if process.stderr is not None:
                stderr_tail += [line for line in process.stderr.read().decode(errors="replace").splitlines() if '"level": "ERROR"' in line][:5]
    return summarise(recorder, minutes, before, after, drained_after, peak_connections, instance_count, seconds, stderr_tail)


def _buckets(recorder: Recorder, width: float, seconds: float) -> list[list[Call]]:
    """Calls by the slice they ended in; calls that ended after the run's end (its tail) are not a slice."""
    buckets: dict[int, list[Call]] = defaultdict(list)
    for call in recorder.calls:
        if call.at <= seconds:
            buckets[int(call.at // width)].append(call)
    return [buckets[key] for key in sorted(buckets)]


def _p(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] * 1000 if values else 0.0
    return statistics.quantiles(values, n=100)[q - 1] * 1000


def summarise(recorder: Recorder, minutes: list[dict[str, Any]], before: dict[str, int], after: dict[str, int],
              drained_after: float | None, peak_connections: int, instance_count: int, seconds: float,
              server_errors: list[str]) -> dict[str, Any]:
    width = 60.0 if seconds >= 120 else 10.0  # a short run (the test) is read in 10-second slices
    slices = [
        {"calls": len(b), "errors": sum(not c.ok for c in b), "p50": _p([c.seconds for c in b], 50), "p99": _p([c.seconds for c in b], 99)}
        for b in _buckets(recorder, width, seconds)
    ]
    errors = sum(not c.ok for c in recorder.calls)
    writes = sum(c.ok and c.tool in WRITING_TOOLS | {"web_app_confirm"} for c in recorder.calls)
    grown = {table: after.get(table, 0) - count for table, count in before.items() if after.get(table, 0) != count}
    unexpected = {table: delta for table, delta in grown.items() if table not in GROWS_WITH_WRITES or delta < 0}
    rss_first = minutes[1]["rss"] if len(minutes) > 1 else (minutes[0]["rss"] if minutes else {})
    rss_last = minutes[-1]["rss"] if minutes else {}
    rss_growth = {pid: rss_last[pid] / rss_first[pid] - 1 for pid in rss_last if pid in rss_first and rss_first[pid]}
    full = [s for s in slices if s["calls"] >= 5]
    checks = {
        "no_errors": errors == 0,
        "p99_stable": len(full) < 2 or full[-1]["p99"] <= 1.5 * full[0]["p99"],
        "rss_flat": all(growth <= 0.10 for growth in rss_growth.values()),
        "pool_never_exhausted": peak_connections < POOL_CONNECTIONS_PER_INSTANCE * instance_count,
        "outbox_drained": drained_after is not None,
        "rows_grow_only_by_writes": not unexpected and sum(max(0, d) for t, d in grown.items() if t in {"search_orders", "valuations"}) <= writes,
    }
    slowest = sorted(recorder.calls, key=lambda c: c.seconds, reverse=True)[:5]
    return {
        "slowest": [(c.tool, round(c.seconds, 2)) for c in slowest],
        "calls": len(recorder.calls), "errors": errors, "problems": recorder.problems, "server_errors": server_errors,
        "slices": slices, "slice_seconds": width, "minutes": minutes, "rss_growth": rss_growth, "peak_connections": peak_connections,
        "drained_after": drained_after, "grown": grown, "unexpected_growth": unexpected, "writes": writes, "checks": checks,
    }


def report(result: dict[str, Any]) -> None:
    print(f"calls {result['calls']}, errors {result['errors']}, writes {result['writes']}")
    print(f"{'slice':>5} {'calls':>7} {'errors':>6} {'p50_ms':>8} {'p99_ms':>8}")
    for number, row in enumerate(result["slices"], 1):
        print(f"{number:>5} {row['calls']:>7} {row['errors']:>6} {row['p50']:>8.1f} {row['p99']:>8.1f}")
    print(f"(slices of {result['slice_seconds']:g} s)")
    for row in result["minutes"]:
        rss = ", ".join(f"{value:.0f}" for _, value in sorted(row["rss"].items()))
        print(f"sample {row['minute']:>3}: RSS MB per process [{rss}], database connections {row['connections']}")
    print(f"peak database connections {result['peak_connections']}; outbox drained: "
          f"{'after %.1f s' % result['drained_after'] if result['drained_after'] is not None else 'NO'}")
    print(f"slowest calls (tool, s): {result['slowest']}")
    print(f"rows grown: {result['grown']}")
    if result["unexpected_growth"]:
        print(f"rows grown that no write explains: {result['unexpected_growth']}")
    for problem in result["problems"][:10]:
        print(f"error: {problem}")
    for check, ok in result["checks"].items():
        print(f"{'ok  ' if ok else 'FAIL'} {check}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=600)
    parser.add_argument("--instances", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--listings", type=int, default=2400, help="size of the demo catalog")
    parser.add_argument("--confirm-every", type=float, default=20)
    parser.add_argument("--import-every", type=float, default=60)
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL, help="PostgreSQL server (a fresh database is created on it)")
    args = parser.parse_args(argv)
    with open("/proc/loadavg", encoding="ascii") as load:
        print(f"{args.sessions} sessions, {args.seconds:g} s, {args.instances} instances × {args.workers} workers, load {load.read().split()[0]}")
    result = run(args.sessions, args.seconds, args.instances, args.workers, args.listings, args.database_url, args.confirm_every, args.import_every)
    report(result)
    with open("/proc/loadavg", encoding="ascii") as load:
        print(f"load after: {load.read().split()[0]} on {os.cpu_count()} cores")
    return 0 if all(result["checks"].values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
