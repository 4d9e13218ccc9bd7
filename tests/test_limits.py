"""Limits on use (shared/runtime/limits.py): tool calls and writes per person, per client and per office, counted in
the database (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL) through the same runner the HTTP servers use."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import mcp_types as types
import pytest
from prometheus_client import REGISTRY
from sqlalchemy import select

from contract.errors import RETRY_AFTER_META_KEY
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import OfficeMember, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import ToolRunner
from shared.runtime.context import ToolContext
from shared.runtime.limits import LEASE_SHARE, UsageLedger, usage_checks
from shared.settings import Settings
from tests.conftest import request_key, seeded_database

SEEKERS = [a.email for a in DEMO_ACCOUNTS if a.office_role is None][:2]
RESOURCE = "http://127.0.0.1:8000/suche/mcp"
SCOPES = frozenset({"suche:konto", "suche:konto.schreiben"})
COUNT = ("count_listings", {"city": "Leipzig"})


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("limits"), "limits", listings=30) as database:
        yield database


def runner(db: Database, **limits: int) -> ToolRunner:
    every = {f"limit_{k}_per_{s}_per_minute": 0 for k in ("calls", "writes") for s in ("person", "client", "office")}
    settings = Settings(database_url=db.engine.url.render_as_string(hide_password=False), **{**every, **limits})
    return ToolRunner(SEARCH, ToolContext(db=db, settings=settings, cursors=CursorCodec(b"k", dt.timedelta(hours=1)), now=lambda: dt.datetime.now(dt.UTC)))


def seeker(db: Database, email: str, client: str) -> Principal:
    with db.read_only() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
    return Principal(user_id=user_id, kind="seeker", office_id=None, office_role=None, scopes=SCOPES, resource=RESOURCE, client_id=client)


def call(run: ToolRunner, who: Principal, tool: tuple[str, dict[str, Any]]) -> str:
    """The outcome code of one call ("OK" or its error code), checking a refusal's retry-after."""
    name, arguments = tool
    arguments = {**arguments, "request_id": request_key()} if name == "save_search_order" else arguments
    result = anyio.run(run.call, types.CallToolRequestParams(name=name, arguments=arguments), None, who)
    if not result.is_error:
        return "OK"
    code = result.meta["athaus/code"]
    if code == "RATE_LIMITED":
        assert 1 <= result.meta[RETRY_AFTER_META_KEY] <= 60
        assert "in der letzten Minute" in result.content[0].text
    return code


def parallel(run: ToolRunner, who: Principal, tool: tuple[str, dict[str, Any]], n: int) -> list[str]:
    with ThreadPoolExecutor(8) as pool:
        return sorted(pool.map(lambda _: call(run, who, tool), range(n)))


def refused_total() -> float:
    return sum(REGISTRY.get_sample_value("athaus_rate_limited_total", {"scope": s, "kind": k}) or 0
               for s in ("person", "client", "office") for k in ("calls", "writes"))


def test_parallel_calls_over_a_persons_limit_get_exactly_the_limit_through(db: Database) -> None:
    run = runner(db, limit_calls_per_person_per_minute=5)
    first, second = seeker(db, SEEKERS[0], "limits-a"), seeker(db, SEEKERS[1], "limits-a")
    before = refused_total()
    assert parallel(run, first, COUNT, 14) == ["OK"] * 5 + ["RATE_LIMITED"] * 9
    assert refused_total() - before == 9
    assert call(run, second, COUNT) == "OK"  # per person: the other seeker's calls are their own


def test_a_clients_limit_counts_every_person_of_that_client(db: Database) -> None:
    run = runner(db, limit_calls_per_client_per_minute=6)
    first, second = seeker(db, SEEKERS[0], "limits-b"), seeker(db, SEEKERS[1], "limits-b")
    assert parallel(run, first, COUNT, 4) == ["OK"] * 4
    assert parallel(run, second, COUNT, 4) == ["OK"] * 2 + ["RATE_LIMITED"] * 2
    assert call(run, seeker(db, SEEKERS[1], "limits-c"), COUNT) == "OK"  # another client


def test_writes_have_their_own_smaller_limit(db: Database) -> None:
    run = runner(db, limit_writes_per_person_per_minute=2, limit_calls_per_person_per_minute=50)
    who = seeker(db, SEEKERS[0], "limits-d")
    save = ("save_search_order", {"criteria": {"city": "Leipzig", "marketing_type": "buy"}})
    assert parallel(run, who, save, 5) == ["OK"] * 2 + ["RATE_LIMITED"] * 3
    assert call(run, who, COUNT) == "OK"  # reads still go through


def test_an_offices_limit_counts_each_of_its_brokers(db: Database) -> None:
    settings = Settings(database_url="sqlite://", limit_calls_per_office_per_minute=3, limit_calls_per_person_per_minute=0,
                        limit_calls_per_client_per_minute=0)
    with db.read_only() as session:
        members = session.execute(select(OfficeMember.user_id, OfficeMember.office_id).order_by(OfficeMember.office_id, OfficeMember.user_id)).all()
    office = members[0].office_id
    brokers = [Principal(m.user_id, "broker", m.office_id, "staff", frozenset(), RESOURCE, "limits-e") for m in members]
    same = [b for b in brokers if b.office_id == office][:2]
    other = next(b for b in brokers if b.office_id != office)
    spec = next(s for s in SEARCH.spec.tools if s.name == "count_listings")
    now = dt.datetime.now(dt.UTC)
    ledger = UsageLedger(db)
    outcomes = [ledger.charge(usage_checks(settings, spec, broker), now) for broker in (same[0], same[1], same[0], same[1])]
    assert [o is None for o in outcomes] == [True, True, True, False]
    assert (outcomes[3].check.kind, outcomes[3].check.scope) == ("calls", "office")
    assert ledger.charge(usage_checks(settings, spec, other), now) is None


def test_large_limits_are_claimed_in_leases_across_processes_never_over_the_limit(db: Database) -> None:
    """Two processes (two ledgers on one database) share a person's limit of 200: a lease is 200 / LEASE_SHARE = 4
    calls, so the database is written once per 4 calls, not per call, and of 300 calls alternating between the two
    never more than 200 run, at most one lease fewer (the share the other process claimed and could not use)."""
    settings = Settings(database_url="sqlite://", limit_calls_per_person_per_minute=200, limit_calls_per_client_per_minute=0,
                        limit_calls_per_office_per_minute=0)
    spec = next(s for s in SEARCH.spec.tools if s.name == "count_listings")
    checks = usage_checks(settings, spec, seeker(db, SEEKERS[0], "limits-f"))
    lease = 200 // LEASE_SHARE
    first, second = UsageLedger(db), UsageLedger(db)
    writes = [0]
    original = first._claim, second._claim

    def counting(claim):  # type: ignore[no-untyped-def]
        def claim_counted(*arguments):  # type: ignore[no-untyped-def]
            writes[0] += 1
            return claim(*arguments)
        return claim_counted

    first._claim, second._claim = counting(original[0]), counting(original[1])  # type: ignore[method-assign]
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(minutes=5)  # a window of its own
    admitted = [(first if i % 2 else second).charge(checks, now) is None for i in range(300)]
    assert 200 - lease <= sum(admitted) <= 200
    assert all(admitted[: 200 - lease]) and not any(admitted[200:])
    assert writes[0] <= 300 // lease
    later = now + dt.timedelta(minutes=1)  # the next window grants again
    assert first.charge(checks, later) is None and second.charge(checks, later) is None


def test_parallel_calls_in_two_processes_never_exceed_a_large_limit(db: Database) -> None:
    """Threads of two ledgers racing for one person's limit of 120: the database grants every lease atomically."""
    settings = Settings(database_url="sqlite://", limit_calls_per_person_per_minute=120, limit_calls_per_client_per_minute=0,
                        limit_calls_per_office_per_minute=0)
    spec = next(s for s in SEARCH.spec.tools if s.name == "count_listings")
    checks = usage_checks(settings, spec, seeker(db, SEEKERS[1], "limits-g"))
    ledgers = [UsageLedger(db), UsageLedger(db)]
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(minutes=10)
    with ThreadPoolExecutor(8) as pool:
        admitted = sum(pool.map(lambda i: ledgers[i % 2].charge(checks, now) is None, range(200)))
    assert 120 - 120 // LEASE_SHARE <= admitted <= 120


def test_a_lease_used_up_by_another_thread_while_claiming_is_claimed_again_not_refused(db: Database) -> None:
    """A write counts as a call and as a write. Its thread holds a lease of calls but none of writes, so it claims
    writes; meanwhile another thread of the process uses up the last call of the lease. Far under every limit, the
    write must get through (it was refused with "retry in 1 second": the shutdown test's writers saw it)."""
    settings = Settings(database_url="sqlite://", limit_calls_per_person_per_minute=100, limit_writes_per_person_per_minute=60,
                        limit_calls_per_client_per_minute=0, limit_writes_per_client_per_minute=0, limit_calls_per_office_per_minute=0,
                        limit_writes_per_office_per_minute=0)
    who = seeker(db, SEEKERS[0], "limits-h")
    save = next(s for s in SEARCH.spec.tools if s.name == "save_search_order")
    read = next(s for s in SEARCH.spec.tools if s.name == "count_listings")
    writes, reads = usage_checks(settings, save, who), usage_checks(settings, read, who)
    assert [(c.kind, c.lease) for c in writes] == [("calls", 2), ("writes", 1)]
    ledger = UsageLedger(db)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0) + dt.timedelta(minutes=15)  # a window of its own
    assert ledger.charge(writes, now) is None  # one lease each: one call of two left, no write left
    claim = ledger._claim

    claims: list[list[str]] = []

    def claim_while_another_reads(checks, at):  # type: ignore[no-untyped-def]
        claims.append([c.kind for c in checks])
        if len(claims) == 1:
            assert ledger.charge(reads, at) is None  # the other thread: takes that last call meanwhile
        return claim(checks, at)

    ledger._claim = claim_while_another_reads  # type: ignore[method-assign]
    assert ledger.charge(writes, now) is None
    assert claims == [["writes"], ["calls"]]  # the lease of calls covered the write when it claimed, then again
    ledger._claim = claim  # type: ignore[method-assign]
    admitted = [ledger.charge(writes, now) is None for _ in range(59)]  # the other 58 of the 60 writes, then no more
    assert admitted == [True] * 58 + [False]


def test_over_real_http_the_official_client_gets_rate_limited_with_the_wait(db: Database) -> None:
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from shared.auth.tokens import mint_access_token
    from tests.conftest import LiveServer

    broker = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == broker.email))
        token = mint_access_token(
            session, user_id=user_id, client_id="limits-http", resource=Settings().resource_url("makler"), scopes=["makler:lesen"]
        ).access_token
    outcomes: list[tuple[str, Any]] = []

    async def calls(base_url: str) -> None:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{base_url}/makler/mcp", http_client=http), mode="2026-07-28") as client:

                async def one() -> None:
                    result = await client.call_tool("list_valuations", {})
                    meta = result.meta or {}
                    outcomes.append((meta.get("athaus/code", "OK") if result.is_error else "OK", meta.get(RETRY_AFTER_META_KEY)))

                async with anyio.create_task_group() as group:
                    for _ in range(7):
                        group.start_soon(one)

    with LiveServer(db, limit_calls_per_person_per_minute=3) as server:
        anyio.run(calls, server.base_url)
    assert sorted(code for code, _ in outcomes) == ["OK"] * 3 + ["RATE_LIMITED"] * 4
    assert all(isinstance(wait, int) and 1 <= wait <= 60 for code, wait in outcomes if code == "RATE_LIMITED")
