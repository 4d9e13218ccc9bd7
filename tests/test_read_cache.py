"""The read cache of public catalog reads (shared/runtime/read_cache.py): a repeated read is the same answer, and no read
started after a committed listing write answers from before it, in one process (SQLite and PostgreSQL, with a race)
and across instances on one PostgreSQL database. Account reads are never kept."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import replace
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from sqlalchemy import update

from search_server.server import DEFINITION as SEARCH
from shared.catalog.indexing import bump_revision
from shared.db.models import Listing
from shared.db.session import Database
from shared.runtime.definition import ServerDefinition
from shared.runtime.read_cache import ReadCache
from tests.conftest import Caller, make_context, seeded_database

SEARCH_ARGS = {"city": "Berlin", "limit": 5}


def _retitle(db: Database, ref: str, title: str) -> None:
    """A listing write as every write path makes it: the change and the catalog revision bump in one transaction."""
    with db.unit_of_work() as session:
        session.execute(update(Listing).where(Listing.ref == ref).values(title=title))
        bump_revision(session)


@pytest.fixture
def caller(scratch_db: Database) -> Caller:
    return Caller(SEARCH, make_context(scratch_db))


def test_a_repeated_public_read_is_the_kept_answer(caller: Caller) -> None:
    first = caller.raw("search_listings", SEARCH_ARGS)
    assert caller.raw("search_listings", dict(SEARCH_ARGS)) is first
    ref = first.structured_content["items"][0]["listing_id"]
    detail = caller.raw("get_listing", {"listing_id": ref})
    assert caller.raw("get_listing", {"listing_id": ref}) is detail
    assert len(caller.runner.read_cache) == 2


def test_the_read_cache_is_off_with_no_entries(scratch_db: Database) -> None:
    """ATHAUS_READ_CACHE_ENTRIES=0 (bench/search_latency.py measures the engine so): every read is made afresh."""
    context = make_context(scratch_db)
    caller = Caller(SEARCH, replace(context, settings=context.settings.model_copy(update={"read_cache_entries": 0})))
    first = caller.raw("search_listings", SEARCH_ARGS)
    again = caller.raw("search_listings", dict(SEARCH_ARGS))
    assert again is not first and again.structured_content == first.structured_content
    assert caller.runner.read_cache is None


def test_a_write_is_seen_by_the_next_read(caller: Caller, scratch_db: Database) -> None:
    ref = caller("search_listings", SEARCH_ARGS)["items"][0]["listing_id"]
    before = caller("get_listing", {"listing_id": ref})
    counted = caller("count_listings", {"city": "Berlin"})
    _retitle(scratch_db, ref, "Neu betitelte Wohnung am Park")
    assert caller("search_listings", SEARCH_ARGS)["items"][0]["title"] == "Neu betitelte Wohnung am Park"
    after = caller("get_listing", {"listing_id": ref})
    assert after["title"] == "Neu betitelte Wohnung am Park" and before["title"] != after["title"]
    assert caller("count_listings", {"city": "Berlin"})["total"] == counted["total"]


def test_account_reads_and_errors_are_not_kept(caller: Caller) -> None:
    code, _ = caller.error("get_listing", {"listing_id": "A-9999999"})
    assert code == "NOT_FOUND" and len(caller.runner.read_cache) == 0
    with pytest.raises(ValueError, match="public reads that are no public tools"):
        ServerDefinition(**{**SEARCH.__dict__, "public_reads": frozenset({"list_search_orders"})})


def test_an_answer_is_made_again_after_its_age_or_day() -> None:
    cache = ReadCache(entries=2, max_age=dt.timedelta(seconds=30))
    made = dt.datetime(2026, 12, 1, 23, 59, 40, tzinfo=dt.UTC)
    answer: Any = object()
    cache.put("k", 7, made, answer)
    assert cache.get("k", 7, made + dt.timedelta(seconds=10)) is answer
    assert cache.get("k", 8, made + dt.timedelta(seconds=10)) is None  # another revision
    cache.put("k", 7, made, answer)
    assert cache.get("k", 7, made + dt.timedelta(seconds=25)) is None  # past midnight: another day
    earlier = made - dt.timedelta(hours=1)
    cache.put("k", 7, earlier, answer)
    assert cache.get("k", 7, earlier + dt.timedelta(seconds=20)) is answer
    assert cache.get("k", 7, earlier - dt.timedelta(seconds=1)) is None  # a clock set back
    cache.put("k", 7, earlier, answer)
    assert cache.get("k", 7, earlier + dt.timedelta(seconds=40)) is None  # older than 30 s
    for key in ("a", "b", "c"):
        cache.put(key, 7, made, answer)
    assert len(cache) == 2 and cache.get("a", 7, made) is None  # bounded: the least recently used goes first


def test_no_read_after_a_commit_answers_from_before_it(scratch_db: Database) -> None:
    """Readers in threads search while a writer retitles one listing again and again: a search that starts after
    version k was committed shows version k or later, never an earlier one."""
    caller = Caller(SEARCH, make_context(scratch_db))
    ref = caller("search_listings", SEARCH_ARGS)["items"][0]["listing_id"]
    committed = [0]
    stale: list[tuple[int, int]] = []
    done = threading.Event()

    def write() -> None:
        for version in range(1, 16):
            _retitle(scratch_db, ref, f"Fassung {version}")
            committed[0] = version
            time.sleep(0.01)
        done.set()

    def read() -> None:
        while not done.is_set():
            floor = committed[0]
            title = caller("get_listing", {"listing_id": ref})["title"]
            seen = int(title.split()[-1]) if title.startswith("Fassung") else 0
            if seen < floor:
                stale.append((floor, seen))

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert stale == []
    assert caller("get_listing", {"listing_id": ref})["title"] == "Fassung 15"


@pytest.fixture(scope="module")
def two_instances(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Database, list[str]]]:
    if not os.environ.get("ATHAUS_TEST_DATABASE_URL"):
        pytest.skip("several instances share one database server (PostgreSQL)")
    from tests.test_instances import running_instances

    with seeded_database(Path(tmp_path_factory.mktemp("read_cache")), "read_cache", listings=100) as db:
        with running_instances(db.engine.url.render_as_string(hide_password=False)) as urls:
            yield db, urls


def _calls(base_url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    async def run() -> list[dict[str, Any]]:
        async with Client(f"{base_url}/suche/mcp", mode="2026-07-28") as client:
            results = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content[0].text
                results.append(result.structured_content)
            return results

    return anyio.run(run)


def test_a_write_is_seen_at_every_instance_and_worker(two_instances: tuple[Database, list[str]]) -> None:
    """Each instance's workers have kept the answers (several calls each, so both workers of the first); a write
    committed elsewhere is in the very next answer of every one of them."""
    db, urls = two_instances
    ref = _calls(urls[0], [("search_listings", SEARCH_ARGS)])[0]["items"][0]["listing_id"]
    reads = [("search_listings", SEARCH_ARGS), ("get_listing", {"listing_id": ref})] * 4
    for url in urls:
        _calls(url, reads)
    _retitle(db, ref, "Nach dem Schreiben")
    for url in urls:
        for answer in _calls(url, reads):
            title = answer["items"][0]["title"] if "items" in answer else answer["title"]
            assert title == "Nach dem Schreiben"
