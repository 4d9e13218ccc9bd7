"""A restore that was tried (issue 34, item 5): the runbook of docs/betrieb.md ("Sichern", "Wiederherstellen"), run
command for command as the page prints it (read from its code blocks, so page and test cannot drift apart), on a
database with real content, answers the same afterwards.

Each test: a demo catalog (`athaus demo seed`), `athaus serve` in production mode on it; through the official MCP client
over HTTP a broker saves a listing, a seeker saves a search order and drafts an inquiry; then a fixed set of calls is
answered (public search, a second page through a cursor, an exposé, the broker's own listing and stock, the seeker's
search orders, inquiries and the drafted confirmation). The backup runs while the instance serves; after it the
seeker saves one more search order, and a new token is issued. The instance stops; the runbook restores (PostgreSQL:
into an empty cluster of its own, made with initdb, as its role `athaus`, not a superuser; SQLite: the backup file in
place of the live one); `athaus serve` starts on it. Then `/healthz/ready` says the migrations are current (and
`alembic_version` came along: serve would otherwise migrate on its own), and every call of the set gives the same
structuredContent, with the tokens issued before the backup and the cursor handed out before it: OAuth tokens are
kept as hashes and cursors are signed with a key from `server_secrets`, both inside the backup. What happened after
the backup is gone, as the runbook says: the later search order and the later token (401).

PostgreSQL runs when the suite runs on PostgreSQL (ATHAUS_TEST_DATABASE_URL): the backup is taken of a database on
that server, as in production; a SQLite run of the suite tries the SQLite runbook, which runs in either run. Skipped,
with the reason, without PostgreSQL 15's binaries."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import create_engine, select, text
from sqlalchemy.engine import make_url

from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import _free_port, _fresh_database_url, request_key
from tests.test_stock_writes import complete_fields

ROOT = Path(__file__).resolve().parent.parent
RUNBOOK = ROOT / "docs" / "betrieb.md"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
BIN = str(Path(sys.executable).parent)  # `athaus` as installed
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")
LISTINGS = "120"
SINCE = "2026-01-01T00:00:00Z"  # matches since a fixed time
ISO_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)")

# What the runbook's commands name, and what stands for it here.
SOURCE_URL = "postgresql://athaus@db:5432/athaus"  # the database pg_dump backs up
DATA_DIR = "/var/lib/athaus"  # where the SQLite file lives
DUMP_NAME = re.compile(r"athaus-\d{8}T\d{4}Z\.(dump|sqlite3)")  # a backup's name in the restore commands


# --- the runbook's commands ---------------------------------------------------------------------------------------


def runbook_blocks(heading: str) -> list[list[str]]:
    """The ```sh blocks under `### heading` of docs/betrieb.md, each as its command lines (comments dropped)."""
    page = RUNBOOK.read_text(encoding="utf-8")
    section = re.search(rf"^### {re.escape(heading)}\n(.*?)(?=^#{{1,3}} )", page, flags=re.S | re.M)
    assert section, f"docs/betrieb.md has no section „{heading}“"
    blocks = re.findall(r"```sh\n(.*?)```", section.group(1), flags=re.S)
    lines = [[line.split("  #")[0].strip() for line in block.splitlines()] for block in blocks]
    return [[line for line in block if line and not line.startswith("#")] for block in lines]


def runbook_commands(heading: str, first_word: str) -> list[str]:
    """The block under `heading` whose commands begin with `first_word` (pg_dump, athaus, createuser, mv …)."""
    found = [block for block in runbook_blocks(heading) if block and block[0].split()[0] == first_word]
    assert len(found) == 1, f"docs/betrieb.md, „{heading}“: one ```sh block beginning with {first_word} expected, found {len(found)}"
    return found[0]


def run(commands: list[str], replacements: dict[str, str], cwd: Path, env: dict[str, str]) -> list[str]:
    """Runs each command in bash as the runbook prints it, with the names it uses replaced by this test's; the
    commands as run."""
    ran = []
    for command in commands:
        for name, value in replacements.items():
            command = DUMP_NAME.sub(value, command) if name == "<backup>" else command.replace(name, value)
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
        ran.append(command)
    return ran


# --- an instance and what it answers ----------------------------------------------------------------------------


@dataclass
class Instance:
    """`athaus serve` in production mode, at one port, whatever database it is started on."""

    folder: Path
    port: int = field(default_factory=_free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self, database_url: str) -> dict[str, str]:
        env = {
            **os.environ, "ATHAUS_DATABASE_URL": database_url, "ATHAUS_PUBLIC_URL": self.base_url, "ATHAUS_DEVELOPMENT": "false",
            "ATHAUS_OUTBOX_WORKER": "false", "ATHAUS_DRAIN_SECONDS": "0", "ATHAUS_WORKERS": "1", "ATHAUS_LOG_LEVEL": "WARNING",
            "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
        }
        env.pop("ATHAUS_SECRET_KEY", None)  # the signing keys live in the database (server_secrets), as in production
        env.pop("PROMETHEUS_MULTIPROC_DIR", None)
        return env

    def start(self, database_url: str) -> None:
        log = (self.folder / f"serve-{self.port}.log").open("ab")
        self.process = subprocess.Popen([f"{BIN}/athaus", "serve", "--port", str(self.port)], env=self.env(database_url), stdout=log, stderr=log)
        deadline = time.monotonic() + 60
        while not self.answers():
            assert self.process.poll() is None and time.monotonic() < deadline, (self.folder / f"serve-{self.port}.log").read_text()[-3000:]
            time.sleep(0.2)

    def answers(self) -> bool:
        try:
            return httpx2.get(f"{self.base_url}/healthz", timeout=2).status_code == 200
        except httpx2.HTTPError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        self.process = None


def token(database_url: str, instance: Instance, email: str, server: str, scopes: list[str]) -> str:
    """An access token as the authorization server issues it (a grant and the token's hash in the database)."""
    db = Database.from_url(database_url)
    try:
        with db.unit_of_work() as session:
            user_id = session.scalar(select(User.id).where(User.email == email))
            resource = Settings(public_url=instance.base_url).resource_url(server)
            return mint_access_token(session, user_id=user_id, client_id="restore-test", resource=resource, scopes=scopes).access_token
    finally:
        db.engine.dispose()


async def calling(instance: Instance, path: str, bearer: str | None, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Each call's structuredContent (or, for an error, its code and text), through one session of the official client."""
    headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(f"{instance.base_url}/{path}/mcp", http_client=http), mode="2026-07-28") as client:
            answers = []
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                answers.append(result.structured_content if not result.is_error else {"error": (result.meta or {}).get("athaus/code"), "text": result.content[0].text})
            return answers


def call(instance: Instance, path: str, bearer: str | None, name: str, arguments: dict[str, Any]) -> Any:
    return anyio.run(calling, instance, path, bearer, [(name, arguments)])[0]


@dataclass
class Content:
    """What was written through the servers before the backup, and the tokens it was written with."""

    broker: str
    seeker: str
    listing_id: str
    search_order_id: str
    confirmation_id: str
    published: str
    cursor: str


def write_content(instance: Instance, database_url: str) -> Content:
    """A broker saves a listing, a seeker a search order and an inquiry's draft, all through HTTP."""
    broker = token(database_url, instance, OWNER.email, "makler", ["makler:lesen", "makler:schreiben"])
    seeker = token(database_url, instance, SEEKER.email, "suche", ["suche:konto", "suche:konto.schreiben", "suche:anfragen"])
    db = Database.from_url(database_url)
    try:
        fields = complete_fields(db, title="Altbauwohnung an der Sicherungsstraße")
    finally:
        db.engine.dispose()
    saved = call(instance, "makler", broker, "save_listing", {"request_id": request_key(), "fields": fields})
    criteria = {"marketing_type": "buy", "city": "Leipzig", "min_rooms": 2}
    order = call(instance, "suche", seeker, "save_search_order", {"request_id": request_key(), "criteria": criteria, "approachable": True, "frequency": "sofort"})
    page = call(instance, "suche", None, "search_listings", {"marketing_type": "buy", "limit": 3})
    published = page["items"][0]["listing_id"]
    draft = call(instance, "suche", seeker, "draft_inquiry", {"request_id": request_key(), "listing_id": published, "message": "Ist die Wohnung noch frei?", "about": "Zwei Personen, Einzug ab März"})
    for answer in (saved, order, page, draft):
        assert "error" not in answer, answer
    return Content(broker, seeker, saved["listing_id"], order["search_order_id"], draft["confirmation"]["confirmation_id"], published, page["completeness"]["next_cursor"])


def answers(instance: Instance, content: Content) -> dict[str, str]:
    """The fixed set of calls the restore must answer alike, as comparable JSON text."""
    began = dt.datetime.now(dt.UTC)
    public = anyio.run(calling, instance, "suche", None, [
        ("search_listings", {"marketing_type": "buy", "limit": 3}),
        ("search_listings", {"marketing_type": "buy", "limit": 3, "cursor": content.cursor}),  # a cursor issued before
        ("get_listing", {"listing_id": content.published}),
        ("count_listings", {"marketing_type": "buy"}),
    ])
    broker = anyio.run(calling, instance, "makler", content.broker, [
        ("get_listing", {"listing_id": content.listing_id}),
        ("search_listings", {"limit": 5}),
    ])
    seeker = anyio.run(calling, instance, "suche", content.seeker, [
        ("list_search_orders", {}),
        ("list_matches", {"search_order_id": content.search_order_id, "since": SINCE}),  # not the default: now - 14 days
        ("get_confirmation", {"confirmation_id": content.confirmation_id}),
    ])
    named = dict(zip(
        ["search", "search page 2", "exposé", "count", "own listing", "own stock", "search orders", "matches", "inquiry draft"],
        [*public, *broker, *seeker], strict=True,
    ))
    ended = dt.datetime.now(dt.UTC)
    for name, answer in named.items():
        assert isinstance(answer, dict) and "error" not in answer, (name, answer)
    return {name: comparable(answer, began, ended) for name, answer in named.items()}


def comparable(answer: dict[str, Any], began: dt.datetime, ended: dt.datetime) -> str:
    """The answer as JSON text (key order kept), without what legitimately differs between two calls a minute apart:
    a page's `next_cursor` carries the moment it was issued (shared/paging/cursor.py), and a time stamp that is the
    moment of the call itself ("checked_at" of check_listing, "data_as_of" of an account's own data, read live) lies
    between `began` and `ended` of the calls. Everything written before, catalog snapshots and created_at included,
    lies earlier and stays. Nothing else is taken out."""
    def strip(key: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(key, v) for v in value]
        if key == "next_cursor" and value:
            return "<cursor>"
        if isinstance(value, str) and ISO_TIME.fullmatch(value) and began <= dt.datetime.fromisoformat(value) <= ended:
            return "<now>"
        return value

    return json.dumps(strip("", answer), ensure_ascii=False)


def after_the_backup(instance: Instance, database_url: str, content: Content) -> str:
    """What happens after the backup and is gone after the restore: one more search order, and a token issued now."""
    later = call(instance, "suche", content.seeker, "save_search_order", {"request_id": request_key(), "criteria": {"marketing_type": "rent", "city": "Leipzig"}, "frequency": "sofort"})
    assert "error" not in later, later
    return token(database_url, instance, SEEKER.email, "suche", ["suche:konto"])


def ready(instance: Instance) -> tuple[int, dict[str, Any]]:
    answer = httpx2.get(f"{instance.base_url}/healthz/ready", timeout=10)
    return answer.status_code, answer.json()


def refused_with(instance: Instance, bearer: str) -> int:
    """The HTTP status of an MCP request with this token (401: the server does not know it)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "list_search_orders", "arguments": {}}}
    headers = {"Authorization": f"Bearer {bearer}", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    return httpx2.post(f"{instance.base_url}/suche/mcp", json=body, headers=headers, timeout=30).status_code


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Where the answers differ, as paths with both values (for the assertion's message)."""
    found: list[str] = []

    def walk(path: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys():
            for key in a:
                walk(f"{path}.{key}", a[key], b[key])
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(f"{path}[{index}]", x, y)
        elif a != b:
            found.append(f"{path}: {json.dumps(a, ensure_ascii=False)[:300]} → {json.dumps(b, ensure_ascii=False)[:300]}")

    for name in sorted(before.keys() | after.keys()):
        walk(name, json.loads(before.get(name, "null")), json.loads(after.get(name, "null")))
    return found


def alembic_revision(database_url: str) -> str:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return str(connection.scalar(text("SELECT version_num FROM alembic_version")))
    finally:
        engine.dispose()


def seed(database_url: str, folder: Path) -> None:
    """The demo catalog, as an operator loads it (migrates first)."""
    env = {**Instance(folder).env(database_url)}
    done = subprocess.run([f"{BIN}/athaus", "demo", "seed", "--listings", LISTINGS], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


# --- an empty PostgreSQL cluster of our own ------------------------------------------------------------------------


def as_postgres_user() -> list[str]:
    """Prefix that runs a command as the unprivileged `postgres` account when we are root (initdb and postgres refuse
    root); setpriv execs in place, so the process we start is postgres itself and takes our signals."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]


@contextmanager
def empty_cluster() -> Iterator[dict[str, str]]:
    """A new cluster (initdb, trust, superuser `postgres`) listening only on a unix socket in a temp folder; the
    libpq environment (PGHOST, PGPORT, PGUSER) that reaches it."""
    folder = Path(tempfile.mkdtemp(prefix="athaus-restore-"))  # not under pytest's root-only folder: postgres must enter it
    try:
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        data, socket_dir = folder / "data", folder / "sock"
        init = subprocess.run([*as_postgres_user(), str(PG_BIN / "initdb"), "-D", str(data), "--auth=trust", "-U", "postgres",
                               "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"], capture_output=True, text=True, timeout=120)
        assert init.returncode == 0, init.stderr
        subprocess.run([*as_postgres_user(), "mkdir", str(socket_dir)], check=True)
        port = str(_free_port())
        server = subprocess.Popen(
            [*as_postgres_user(), str(PG_BIN / "postgres"), "-D", str(data), "-p", port, "-c", "listen_addresses=",
             "-c", f"unix_socket_directories={socket_dir}", "-c", "fsync=off"],
            stdout=subprocess.DEVNULL, stderr=(folder / "postgres.log").open("ab"),
        )
        env = {"PGHOST": str(socket_dir), "PGPORT": port, "PGUSER": "postgres"}
        try:
            deadline = time.monotonic() + 30
            while subprocess.run([str(PG_BIN / "pg_isready"), "-q"], env={**os.environ, **env}).returncode != 0:
                assert server.poll() is None and time.monotonic() < deadline, (folder / "postgres.log").read_text()
                time.sleep(0.1)
            yield env
        finally:
            server.send_signal(signal.SIGINT)  # fast shutdown
            try:
                server.wait(30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def pg_missing() -> str | None:
    missing = [name for name in ("initdb", "postgres", "pg_isready", "pg_dump", "pg_restore", "createdb", "createuser") if not (PG_BIN / name).is_file()]
    if missing:
        return f"PostgreSQL 15 fehlt auf dieser Maschine ({', '.join(missing)} nicht in {PG_BIN}): apt-get install postgresql-15"
    if os.geteuid() == 0 and not shutil.which("setpriv"):
        return "als root braucht der Test setpriv (util-linux), um initdb und postgres als Nutzer postgres zu starten"
    return None


# --- the tests ------------------------------------------------------------------------------------------------


def test_the_runbook_restores_a_postgresql_dump_into_an_empty_cluster_that_answers_alike(tmp_path: Path) -> None:
    if not os.environ.get("ATHAUS_TEST_DATABASE_URL"):
        pytest.skip("PostgreSQL sichert der Test, wenn die Suite auf PostgreSQL läuft (ATHAUS_TEST_DATABASE_URL); unter SQLite prüft er das Sichern von SQLite")
    if reason := pg_missing():
        pytest.skip(reason)
    source, drop = _fresh_database_url(tmp_path, "restore")
    instance = Instance(tmp_path)
    pg_path = f"{PG_BIN}:{BIN}:{os.environ.get('PATH', '')}"
    try:
        seed(source, tmp_path)
        instance.start(source)
        content = write_content(instance, source)
        before = answers(instance, content)
        revision = alembic_revision(source)

        # Sichern: pg_dump while the instance serves, the database named as libpq names it
        backups = tmp_path / "backups"
        backups.mkdir()
        dump_env = {k: v for k, v in os.environ.items() if not k.startswith("PG")} | {"PATH": pg_path}
        libpq_source = make_url(source).set(drivername="postgresql").render_as_string(hide_password=False)
        run(runbook_commands("Sichern", "pg_dump"), {SOURCE_URL: libpq_source}, backups, dump_env)
        dump = next(backups.glob("athaus-*.dump"))
        later_token = after_the_backup(instance, source, content)
        instance.stop()

        # Wiederherstellen: into an empty cluster of its own, as the runbook says
        with empty_cluster() as cluster:
            restore = runbook_commands("Wiederherstellen", "createuser")
            run(restore, {"<backup>": dump.name}, backups, {**dump_env, **cluster})
            database = re.search(r"--dbname=(\S+)", restore[-1]).group(1)  # type: ignore[union-attr]
            role = re.search(r"--role=(\S+)", restore[-1]).group(1)  # type: ignore[union-attr]
            restored = f"postgresql+psycopg://{role}@/{database}?host={cluster['PGHOST']}&port={cluster['PGPORT']}"
            assert alembic_revision(restored) == revision  # before serve starts: serve would migrate an empty schema itself
            instance.start(restored)
            try:
                assert ready(instance) == (200, {"status": "ready", "database": "ok", "migrations": "current"})
                after = answers(instance, content)
                gone = refused_with(instance, later_token)
            finally:
                instance.stop()
    finally:
        instance.stop()
        drop()
    assert after == before, differences(before, after)
    assert gone == 401


def test_the_runbook_restores_a_sqlite_backup_taken_while_serving_that_answers_alike(tmp_path: Path) -> None:
    data = tmp_path / "lib"  # the runbook's /var/lib/athaus
    data.mkdir()
    live = f"sqlite:///{data / 'athaus.sqlite3'}"
    instance = Instance(tmp_path)
    backups = tmp_path / "backups"
    backups.mkdir()
    try:
        seed(live, tmp_path)
        instance.start(live)
        content = write_content(instance, live)
        before = answers(instance, content)

        # Sichern: `athaus db backup` while the instance serves (and writes: the WAL holds the latest commits)
        run(runbook_commands("Sichern", "athaus"), {}, backups, instance.env(live))
        backup = next(backups.glob("athaus-*.sqlite3"))
        later_token = after_the_backup(instance, live, content)
        instance.stop()

        run(runbook_commands("Wiederherstellen", "mkdir"), {DATA_DIR: str(data), "<backup>": backup.name}, backups, instance.env(live))
        assert sorted(p.name for p in data.iterdir()) == ["athaus.sqlite3", "vorher"]
        instance.start(live)
        assert ready(instance) == (200, {"status": "ready", "database": "ok", "migrations": "current"})
        after = answers(instance, content)
        gone = refused_with(instance, later_token)
    finally:
        instance.stop()
    assert after == before, differences(before, after)
    assert gone == 401
