"""What each call costs the database (issue 21): the SQL statements of the common tools, counted over real HTTP with
the official client (token lookup, right check, the tool, its audit line and commit included), and the statements
at checkout (ping, statement timeout: none once the pool is warm, shared.db.session). The counts are pinned so round
trips cannot creep back; a change that needs more says so here."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import event, select

from shared.auth.tokens import mint_access_token
from shared.db import session as session_module
from shared.db.models import User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import LiveServer

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
FIRST_FOUND = object()  # the first listing a search finds
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")


def _token(db: Database, email: str, server: str, scopes: list[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url(server)
        return mint_access_token(session, user_id=user_id, client_id="test", resource=resource, scopes=scopes).access_token


@contextmanager
def _counting(db: Database) -> Iterator[list[str]]:
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        # not counted: SQLite's explicit BEGIN (transactions are counted apart)
        if not statement.lstrip().upper().startswith("BEGIN"):
            statements.append(statement)

    def begin(conn: Any) -> None:
        # a statement read on its own (Database.read_alone) begins no transaction of the database's
        if not conn.get_execution_options().get(session_module.ALONE_OPTION, False):
            statements.append("(transaction)")

    real = session_module.checkout_statement

    def at_checkout(dbapi_connection: Any, statement: str) -> None:
        statements.append("(checkout)")
        real(dbapi_connection, statement)

    event.listen(db.engine, "before_cursor_execute", count)
    event.listen(db.engine, "begin", begin)
    session_module.checkout_statement = at_checkout  # type: ignore[assignment]
    try:
        yield statements
    finally:
        session_module.checkout_statement = real
        event.remove(db.engine, "before_cursor_execute", count)
        event.remove(db.engine, "begin", begin)


Counts = tuple[int, int] | tuple[int, int, int]
# What makes a call "new" (label "<tool> new"): arguments the warm call did not have, so the answer is made afresh
NEW_ARGUMENTS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "search_listings": lambda a: {**a, "limit": 9},
    "get_listing": lambda a: {"listing_id": a["listing_id"].lower()},  # the same listing, spelled as a person might
    "count_listings": lambda a: {**a, "city": a["city"].lower()},
}


@pytest.fixture(autouse=True)
def _no_idle_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded test machine may take longer than a second between two calls: the idle ping is not what is counted."""
    monkeypatch.setattr(session_module, "IDLE_PING_SECONDS", 60.0)


def _statements_per_call(server: LiveServer, db: Database, path: str, token: str, calls: dict[str, dict[str, Any]]) -> dict[str, Counts]:
    """(transactions, statements) per call, and the statements at checkout third where there were any."""

    async def run() -> dict[str, Counts]:
        counts: dict[str, Counts] = {}
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{server.base_url}{path}", http_client=http), mode="2026-07-28") as client:
                found = await client.call_tool("search_listings", {"limit": 1})
                first = found.structured_content["items"][0]["listing_id"]
                for label, arguments in calls.items():
                    name, _, variant = label.partition(" ")
                    arguments = {k: first if v is FIRST_FOUND else v for k, v in arguments.items()}
                    await client.call_tool(name, arguments)  # warm: first-call caches (gazetteer, term statistics)
                    if variant == "new":  # other arguments than the warm call: not answered from the read cache
                        arguments = NEW_ARGUMENTS[name](arguments)
                    with _counting(db) as statements:
                        result = await client.call_tool(name, arguments)
                    assert not result.is_error, (name, result.content[0].text)
                    transactions, checkouts = statements.count("(transaction)"), statements.count("(checkout)")
                    counted = (transactions, len(statements) - transactions - checkouts)
                    counts[label] = (*counted, checkouts) if checkouts else counted
        return counts

    return anyio.run(run)


def test_statements_per_seeker_call(live_server: LiveServer, demo_db: Database, backend: str) -> None:
    token = _token(demo_db, SEEKER.email, "suche", ["suche:konto"])
    counts = _statements_per_call(live_server, demo_db, "/suche/mcp", token, {
        "search_listings": {"query": "Balkon", "city": "Berlin", "limit": 10},
        "get_listing": {"listing_id": FIRST_FOUND},
        "count_listings": {"city": "Leipzig"},
        "search_listings new": {"query": "Balkon", "city": "Berlin", "limit": 10},
        "get_listing new": {"listing_id": FIRST_FOUND},
        "count_listings new": {"city": "Leipzig"},
        "list_search_orders": {},
    })
    # (transactions, statements): the token was looked up by the call before (shared.auth.resource.PrincipalCache), so
    # only the tool's own work. A public read the same as before reads the catalog revision alone, outside any
    # transaction (Database.read_alone: on PostgreSQL one round trip instead of BEGIN, read, ROLLBACK), and is answered
    # from the read cache (shared/runtime/read_cache.py); a new one reads the revision so (with the time of the
    # catalog's last change: the handler's snapshot, issue 35; was a second read in its transaction: 1 more each), then
    # runs its queries in its own transaction: the page with each listing's office joined (was a select of the offices
    # of its own: 1 more), the page's features, the count; SQLite's word search counts its terms first.
    # list_search_orders: the orders with their total as a window column (was a count of its own: 4), their new
    # matches, the account's name.
    search = 5 if backend == "sqlite" else 3
    assert counts == {
        "search_listings": (0, 1), "get_listing": (0, 1), "count_listings": (0, 1),
        "search_listings new": (1, 1 + search), "get_listing new": (1, 1 + 2), "count_listings new": (1, 1 + 6),
        "list_search_orders": (1, 3),
    }


def test_statements_per_broker_call(live_server: LiveServer, demo_db: Database, backend: str) -> None:
    token = _token(demo_db, OWNER.email, "makler", ["makler:lesen"])
    counts = _statements_per_call(live_server, demo_db, "/makler/mcp", token, {
        "search_listings": {"query": "Balkon", "limit": 10},
        "search_inquiries": {"limit": 10},
        "show_situation_report": {},
        "get_listing": {"listing_id": FIRST_FOUND},
    })
    # search_listings and search_inquiries name the office from their page (its listings' loaded office, the office
    # joined into the inquiries' select), a select of its own only for an empty page (was one always: 6 and 4)
    # search_inquiries: a second transaction for its audit lines (written before the result is handed out), one INSERT
    # for all inquiries shown; the page's listings are joined into its one select (was a second select of the listings:
    # 5 statements, broker_server/inquiries.py _SUMMARIES); the token is cached, as above
    # show_situation_report: the office's name and the checked count in one row, the key figures' activity in one
    # select (was 11: the name, the count and the activity's three selects each a statement)
    # get_listing (an own listing with comparables): the catalog snapshot, the listing with its office and features
    # joined (was the features a select of their own: 10), status history, the latest inquiries, open drafts and
    # proposals each with their counts as window columns (was a count and a select each, and the office a select of
    # its own: 14), the publishing check's comparables with what they leave out as flags in one select (was two
    # counts and the rows)
    # search_listings: the catalog snapshot, the page with its listings' office joined (was a select of its own: 1
    # more), their features, the count; SQLite's word search counts its terms first
    search = 6 if backend == "sqlite" else 4
    assert counts == {
        "search_listings": (1, search), "search_inquiries": (2, 3), "show_situation_report": (1, 8), "get_listing": (1, 7),
    }


def test_a_token_not_seen_for_a_while_is_looked_up_in_one_statement(live_server: LiveServer, demo_db: Database) -> None:
    token = _token(demo_db, SEEKER.email, "suche", ["suche:konto"])

    async def run() -> list[str]:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            with _counting(demo_db) as statements:
                async with Client(streamable_http_client(f"{live_server.base_url}/suche/mcp", http_client=http), mode="2026-07-28") as client:
                    await client.list_tools()  # reads nothing of its own
        return statements

    # on PostgreSQL the connection that minted the token (no deadline) gets its statement timeout at checkout
    statements = [statement for statement in anyio.run(run) if statement != "(checkout)"]
    assert statements.count("(transaction)") == 1 and len(statements) == 2, statements  # token, grant, user, office
