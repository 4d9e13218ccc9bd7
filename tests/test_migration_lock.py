"""Migrations run once, under a lock, however many processes start together (issue 34: the second of two instances
on an empty database died with `UniqueViolation … alembic_version`, as a raw traceback). Several `athaus db upgrade`
at once on an empty database (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL): all succeed, exactly one of them
migrates, the schema is at head once; a migration that cannot happen says so in one German sentence."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

from shared.db.migrate import FAILED, head_revisions
from tests.conftest import _fresh_database_url

TOGETHER = 4


def environment(database_url: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")}
    return env | {"ATHAUS_DATABASE_URL": database_url, "ATHAUS_LOG_FORMAT": "json"}


def test_several_upgrades_at_once_on_an_empty_database_all_succeed_and_one_migrates(tmp_path: Path) -> None:
    database_url, drop = _fresh_database_url(tmp_path, "lock")
    try:
        processes = [
            subprocess.Popen([sys.executable, "-m", "athaus.cli", "db", "upgrade"], env=environment(database_url),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(TOGETHER)
        ]
        outcomes = [(process.wait(300), *process.communicate()) for process in processes]
        engine = create_engine(database_url)
        with engine.connect() as connection:
            versions = connection.scalars(text("SELECT version_num FROM alembic_version")).all()
        heads = head_revisions(engine)
        engine.dispose()
    finally:
        drop()
    assert [code for code, _, _ in outcomes] == [0] * TOGETHER, [err[-2000:] for _, _, err in outcomes]
    assert not any("Traceback" in out + err for _, out, err in outcomes)
    migrated = [json.loads(line) for _, _, err in outcomes for line in err.splitlines() if '"event": "migrated"' in line]
    assert sorted(entry["steps"] > 0 for entry in migrated) == [False] * (TOGETHER - 1) + [True]  # once, by one of them
    assert sorted(versions) == sorted(heads)


def test_a_migration_that_cannot_happen_says_so_in_german_without_a_traceback() -> None:
    nobody = "postgresql+psycopg://athaus@127.0.0.1:9/athaus"  # nothing listens there
    done = subprocess.run([sys.executable, "-m", "athaus.cli", "db", "upgrade"], capture_output=True, text=True, timeout=120,
                          env=environment(nobody))
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == FAILED
    assert "Traceback" not in done.stderr + done.stdout
