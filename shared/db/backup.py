"""A backup of the embedded default (SQLite) while it serves: `athaus db backup ZIEL` (docs/betrieb.md, "Sichern").

Copying the file is not a backup: the database runs in WAL mode, so the last commits live in `<file>-wal` until a
checkpoint, and a copy taken mid-write is torn. SQLite's online backup API copies a consistent state page by page
under a read transaction, which writers in WAL mode do not wait for. The copy is written beside the target and renamed
into place only once it is complete and passes `PRAGMA quick_check`: a target that exists is always a whole backup.
PostgreSQL is backed up with pg_dump (the runbook says how)."""

from __future__ import annotations

import os
import sqlite3
from contextlib import closing
from pathlib import Path

from sqlalchemy.engine import make_url


class BackupRefused(Exception):
    """Why no backup was written, in German, with the next step."""


def backup_sqlite(database_url: str, target: Path) -> int:
    """Copies the SQLite database at `database_url` to `target` (which must not exist yet); the copy's size in bytes."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        raise BackupRefused(
            "Die Datenbank ist PostgreSQL: Sie sichert pg_dump, etwa `pg_dump --format=custom --no-owner "
            "--file=athaus.dump …` (docs/betrieb.md, „Sichern“)."
        )
    if not url.database or url.database == ":memory:":
        raise BackupRefused("Eine Datenbank im Arbeitsspeicher lässt sich nicht sichern: ATHAUS_DATABASE_URL auf eine Datei zeigen lassen.")
    source = Path(url.database)
    if not source.is_file():
        raise BackupRefused(f"Die Datenbank {source} gibt es nicht: ATHAUS_DATABASE_URL prüfen.")
    if target.exists():
        raise BackupRefused(f"{target} gibt es schon; einen neuen Namen wählen, eine Sicherung wird nie überschrieben.")
    if not target.parent.is_dir():
        raise BackupRefused(f"Den Ordner {target.parent} gibt es nicht; erst anlegen.")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        # mode=rw: never create an empty database where the configured one is missing
        with closing(sqlite3.connect(f"file:{source}?mode=rw", uri=True, timeout=30)) as live, closing(sqlite3.connect(partial)) as copy:
            live.backup(copy)
            # the copy stands alone: one file, no -wal beside it, whoever opens it first
            copy.execute("PRAGMA journal_mode=DELETE")
            verdict = copy.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            raise BackupRefused(f"Die Kopie ist nicht in Ordnung ({verdict}); die Datenbank mit `sqlite3 {source} 'PRAGMA integrity_check'` prüfen.")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
    return target.stat().st_size
