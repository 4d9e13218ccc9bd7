"""Shared fixtures. The suite runs against SQLite by default and against PostgreSQL when
ATHAUS_TEST_DATABASE_URL names a server (each run creates and drops its own database there)."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import socket
import sqlite3
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
import uvicorn
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from athaus.app import create_app
from athaus.connections import uvicorn_options
from athaus.docs import build_docs
from athaus.docs.examples import ExampleCalls, dump_calls, load_calls, run_examples
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.demo import DEMO_NOW, seed_demo
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import ToolRunner
from shared.runtime.context import ToolContext
from shared.runtime.definition import ServerDefinition
from shared.runtime.read_cache import forget_all
from shared.settings import Settings

# Limits on use (shared/runtime/limits.py) count in the database against a clock many tests freeze: the suite calls
# tools far more often per account than a person does, so they are off here; tests/test_limits.py switches them on.
for _kind in ("calls", "writes"):
    for _scope in ("person", "client", "office"):
        os.environ.setdefault(f"ATHAUS_LIMIT_{_kind.upper()}_PER_{_scope.upper()}_PER_MINUTE", "0")

DEMO_LISTINGS = 2400  # the embedded default's catalog; recall floors are measured against it
FIXED_NOW = DEMO_NOW + dt.timedelta(days=1)


# Names the tests' client metadata documents live under, with the addresses they resolve to (no DNS in tests).
TEST_NAMES: dict[str, list[str]] = {
    "client.example": ["93.184.215.14"],
    "internal.example": ["192.168.1.5"],
    "mixed.example": ["93.184.215.14", "10.0.0.1"],
    "metadata.example": ["169.254.169.254"],
    "feed.example.org": ["93.184.215.14"],  # an office's OpenImmo feed (tests/test_import_listings.py, tests/test_outbound.py)
    "mirror.example.org": ["93.184.215.15"],
}


@pytest.fixture(autouse=True)
def _fresh_read_caches() -> None:
    """Every test starts without kept answers (shared/runtime/read_cache.py): tests patch what answers are made from."""
    forget_all()


@pytest.fixture(autouse=True)
def test_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hosts of client metadata documents and feeds resolve through TEST_NAMES; everything else through the system resolver."""
    import socket

    from shared import outbound as fetch

    real = fetch.lookup

    async def lookup(host: Any, port: Any, **options: Any) -> Any:
        if host in TEST_NAMES:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in TEST_NAMES[host]]
        return await real(host, port, **options)

    monkeypatch.setattr(fetch, "lookup", lookup)


@pytest.fixture(scope="session")
def backend() -> str:
    return "postgresql" if os.environ.get("ATHAUS_TEST_DATABASE_URL") else "sqlite"


def request_key() -> str:
    """A fresh idempotency key: every creating tool requires one (`request_id`), and each call here is a new order."""
    return f"test-{uuid.uuid4().hex}"


def _fresh_database_url(tmp: Path, name: str, copy_of: str | None = None) -> tuple[str, Any]:
    """A new, empty database (or a copy of the database at `copy_of`: SQLite's backup API, PostgreSQL's template)
    and how to drop it."""
    server_url = os.environ.get("ATHAUS_TEST_DATABASE_URL")
    original = make_url(copy_of).database if copy_of else None
    if not server_url:
        target = tmp / f"{name}.sqlite3"
        if original:
            tmp.mkdir(parents=True, exist_ok=True)
            with closing(sqlite3.connect(original)) as source, closing(sqlite3.connect(str(target))) as copy:
                source.backup(copy)
        return f"sqlite:///{target}", lambda: None
    database = f"athaus_{name}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{database}"' + (f' TEMPLATE "{original}"' if original else "")))
        # Thrown away after the run: a commit need not wait for the WAL to reach the disk (about 3.5 ms per commit on
        # this kind of machine, 0.8 ms without). A copy does not inherit the setting, so every database gets it.
        connection.execute(text(f'ALTER DATABASE "{database}" SET synchronous_commit TO off'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)'))
        admin.dispose()

    return make_url(server_url).set(database=database).render_as_string(hide_password=False), drop


@pytest.fixture(scope="session")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """The demo catalog, migrated by Alembic and seeded once per run. Tests must not write to it."""
    url, drop = _fresh_database_url(tmp_path_factory.mktemp("demo"), "demo")
    db = Database.from_url(url)
    upgrade(db.engine)
    seed_demo(db.engine, listings=DEMO_LISTINGS)
    yield db
    db.engine.dispose()
    drop()


# Migrating and seeding a catalog takes seconds, and a few hundred tests want one of their own: each size is made once
# per test process and copied (SQLite's backup API; PostgreSQL's CREATE DATABASE … TEMPLATE).
_templates: dict[int, tuple[str, Any]] = {}  # listings → (URL of the seeded original, how to drop it)
_template_folder: Path | None = None


def _seeded_template(listings: int) -> str:
    global _template_folder
    if listings not in _templates:
        if _template_folder is None:
            _template_folder = Path(tempfile.mkdtemp(prefix="athaus-templates-"))
        url, drop = _fresh_database_url(_template_folder, f"template{listings}")
        original = Database.from_url(url)
        upgrade(original.engine)
        seed_demo(original.engine, listings=listings)
        original.engine.dispose()  # PostgreSQL copies a template only while nobody is connected to it
        _templates[listings] = (url, drop)
    return _templates[listings][0]


# Files with a test of 15 s or more (a real server started and stopped, a browser crawl, a soak; `scripts/test
# --durations=20` lists them). Each file runs whole in one test process (scripts/test: --dist loadfile), handed out in
# collection order: started first, they run beside the many short files instead of alone at the end.
LONG_FILES = frozenset({
    "test_busy_worker.py", "test_docs_browser.py", "test_demo_bulk.py", "test_soak.py", "test_read_cache.py",
    "test_behind_proxy.py", "test_new_matches_agree.py", "test_catalog_search.py", "test_accounts_browser.py",
    "test_http.py", "test_instances.py", "test_import_publish_agrees.py", "test_restore.py",
})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: item.path.name not in LONG_FILES)  # stable: the order within a file stays


def pytest_sessionfinish(session: pytest.Session) -> None:
    for _, drop in _templates.values():
        drop()
    _templates.clear()
    if _template_folder is not None:
        shutil.rmtree(_template_folder, ignore_errors=True)


@contextmanager
def seeded_database(tmp: Path, name: str, listings: int = 300) -> Iterator[Database]:
    """A demo catalog of its own (migrated, seeded: a copy of this process's original of that size), dropped
    afterwards: for tests that change data."""
    url, drop = _fresh_database_url(tmp, name, copy_of=_seeded_template(listings))
    db = Database.from_url(url)
    try:
        yield db
    finally:
        db.engine.dispose()
        drop()


@pytest.fixture
def scratch_db(tmp_path: Path) -> Iterator[Database]:
    """A small demo catalog of its own, for tests that change data."""
    with seeded_database(tmp_path, "scratch") as db:
        yield db


def make_context(db: Database, now: dt.datetime = FIXED_NOW) -> ToolContext:
    return ToolContext(
        db=db,
        settings=Settings(database_url=str(db.engine.url)),
        cursors=CursorCodec(b"test-secret", dt.timedelta(hours=1)),
        now=lambda: now,
    )


class Caller:
    """Calls contract tools in-process through the same runner the HTTP servers use (right check included)."""

    def __init__(
        self, definition: ServerDefinition, context: ToolContext, principal: Principal | None = None, meta: dict[str, Any] | None = None
    ) -> None:
        self.definition = definition
        self.runner = ToolRunner(definition, context)
        self.principal = principal
        self.meta = meta  # the request `_meta` of every call (e.g. a host that renders MCP Apps), unless a call names its own

    def as_(self, principal: Principal | None) -> Caller:
        """The same tools, called as `principal` (None: without login)."""
        return Caller(self.definition, self.runner.context, principal, self.meta)

    def raw(self, name: str, arguments: dict[str, Any] | None = None, meta: dict[str, Any] | None = None) -> Any:
        params = types.CallToolRequestParams(name=name, arguments=arguments or {})
        return anyio.run(self.runner.call, params, meta if meta is not None else self.meta, self.principal)

    def __call__(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = self.raw(name, arguments)
        assert isinstance(result, types.CallToolResult)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> tuple[str, str]:
        result = self.raw(name, arguments)
        assert isinstance(result, types.CallToolResult) and result.is_error, "expected an error result"
        assert result.structured_content is None
        return result.meta["athaus/code"], result.content[0].text


@pytest.fixture(scope="session")
def docs_calls(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> ExampleCalls:
    """Every example call of the docs, made against a fresh demo catalog as `athaus docs build` makes them: once
    per run, by the first worker that needs them; the others read what it saved (the run's shared temp folder)."""
    if worker_id == "master":
        return run_examples()
    shared = tmp_path_factory.getbasetemp().parent / "docs-example-calls.json"
    try:
        os.close(os.open(shared.with_suffix(".lock"), os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        deadline = time.monotonic() + 600
        while not shared.is_file():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{shared} never appeared") from None
            time.sleep(0.2)
        return load_calls(shared.read_text(encoding="utf-8"))
    calls = run_examples()
    partial = shared.with_suffix(".partial")
    partial.write_text(dump_calls(calls), encoding="utf-8")
    partial.replace(shared)
    return calls


@pytest.fixture(scope="session")
def docs_pages(docs_calls: ExampleCalls) -> dict[str, str]:
    """Every generated Markdown page, as `athaus docs build` writes it."""
    return build_docs(docs_calls)


@pytest.fixture(scope="session")
def search(demo_db: Database) -> Caller:
    return Caller(SEARCH, make_context(demo_db))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, db: Database, *, public_at_bind: bool = False, **changes: Any) -> None:
        """`public_at_bind`: the public URL is this server's own address, so the links it hands out open."""
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.database_url = db.engine.url.render_as_string(hide_password=False)  # for a CLI run against the same database
        if public_at_bind:
            changes["public_url"] = self.base_url
        settings = Settings(**{"database_url": str(db.engine.url), "secret_key": "live-test-secret", **changes})
        config = uvicorn.Config(create_app(settings, db), host="127.0.0.1", port=self.port, **uvicorn_options(settings))
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="session")
def live_server(demo_db: Database) -> Iterator[LiveServer]:
    """The real ASGI app over real HTTP on a free loopback port, on the demo catalog."""
    with LiveServer(demo_db) as server:
        yield server
