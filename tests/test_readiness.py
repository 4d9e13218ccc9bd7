"""Readiness (`/healthz/ready`) apart from liveness (`/healthz`), on the real database (SQLite, or PostgreSQL with
ATHAUS_TEST_DATABASE_URL): ready only when the database answers and its schema is at this code's head; a database
behind (`athaus db upgrade` due), at a revision this code does not know, or not answering is 503 with the reason in
German, while liveness answers 200 whenever the process does (it never asks the database: in an outage all instances
would be restarted at once). From SIGTERM on, readiness says `draining` (athaus/draining.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from athaus.app import create_app
from athaus.draining import CloseWhileDraining
from athaus.health import AHEAD, BEHIND, DRAINING, UNREACHABLE
from shared.db.migrate import alembic_config, head_revisions, upgrade
from shared.db.session import Database
from shared.settings import Settings
from tests.conftest import _fresh_database_url

BASE = "http://127.0.0.1:8000"


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Database]:
    url, drop = _fresh_database_url(tmp_path, "ready")
    db = Database.from_url(url)
    yield db
    db.engine.dispose()
    drop()


def answers(db: Database) -> tuple[tuple[int, dict[str, object], str | None], int]:
    """(status, body, Retry-After) of /healthz/ready, and the status of /healthz."""
    app = create_app(Settings(database_url=str(db.engine.url), secret_key="ready-test", outbox_worker=False), db)
    http = TestClient(app, base_url=BASE)
    ready = http.get("/healthz/ready")
    return (ready.status_code, ready.json(), ready.headers.get("retry-after")), http.get("/healthz").status_code


def previous_revision(db: Database) -> str:
    from alembic.script import ScriptDirectory

    (head,) = head_revisions(db.engine)
    down = ScriptDirectory.from_config(alembic_config(db.engine)).get_revision(head).down_revision
    assert isinstance(down, str)
    return down


def test_ready_when_the_schema_is_at_head(fresh: Database) -> None:
    upgrade(fresh.engine)
    assert answers(fresh) == ((200, {"status": "ready", "database": "ok", "migrations": "current"}, None), 200)


def test_not_ready_while_a_migration_is_due(fresh: Database) -> None:
    upgrade(fresh.engine, previous_revision(fresh))
    ready, alive = answers(fresh)
    assert ready == (503, {"status": "unavailable", "database": "ok", "migrations": "behind", "message": BEHIND}, "30")
    assert alive == 200  # liveness is not readiness: the process and the database answer
    upgrade(fresh.engine)
    assert answers(fresh)[0][0] == 200


def test_not_ready_on_a_database_never_migrated(fresh: Database) -> None:
    with fresh.engine.begin() as connection:  # the database exists and answers, but holds no schema at all
        connection.execute(text("SELECT 1"))
    app = create_app(Settings(database_url=str(fresh.engine.url), secret_key="ready-test", outbox_worker=False), fresh)
    ready = TestClient(app, base_url=BASE).get("/healthz/ready")
    assert (ready.status_code, ready.json()["migrations"], ready.json()["message"]) == (503, "behind", BEHIND)


def test_not_ready_on_a_schema_this_code_does_not_know(fresh: Database) -> None:
    upgrade(fresh.engine)
    with fresh.engine.begin() as connection:  # a newer instance migrated further (or another application's schema)
        connection.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    ready, alive = answers(fresh)
    assert ready == (503, {"status": "unavailable", "database": "ok", "migrations": "unknown", "message": AHEAD}, "30")
    assert alive == 200


def test_not_ready_when_the_database_does_not_answer(tmp_path: Path, backend: str) -> None:
    # Nothing listens there (PostgreSQL), or the "file" is a directory (SQLite).
    url = "postgresql+psycopg://athaus@127.0.0.1:9/athaus" if backend == "postgresql" else f"sqlite:///{tmp_path}"
    db = Database.from_url(url)
    ready, alive = answers(db)
    assert ready == (503, {"status": "unavailable", "database": "unreachable", "message": UNREACHABLE}, "30")
    assert alive == 200  # liveness does not depend on the database
    db.engine.dispose()


def test_not_ready_while_draining_and_alive_all_the_same(fresh: Database) -> None:
    upgrade(fresh.engine)
    app = create_app(Settings(database_url=str(fresh.engine.url), secret_key="ready-test", outbox_worker=False), fresh)
    http = TestClient(app, base_url=BASE)
    assert http.get("/healthz/ready").status_code == 200
    drain = next(m.kwargs["drain"] for m in app.user_middleware if m.cls is CloseWhileDraining)
    drain.begin()  # what SIGTERM does first
    ready, alive = http.get("/healthz/ready"), http.get("/healthz")
    assert (ready.status_code, ready.json(), ready.headers["retry-after"]) == (503, {"status": "draining", "message": DRAINING}, "30")
    assert (alive.status_code, alive.json()["status"]) == (200, "ok")
    assert ready.headers["connection"] == alive.headers["connection"] == "close"  # each answer closes its connection
