"""Telling the other instances that a listing event happened: PostgreSQL NOTIFY on one channel, sent inside the
write's transaction (PostgreSQL delivers it on commit, never for a rolled-back write), and a listener that calls
back per notification (to wake an outbox, refresh a cache). On SQLite there is one instance and nothing to tell."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

CHANNEL = "athaus_listing_events"

# Called per notification by the listener the app starts on PostgreSQL (athaus/app.py): an outbox or a cache of this
# instance subscribes here to hear about events another instance made.
SUBSCRIBERS: list[Callable[[dict[str, Any]], None]] = []


def deliver(payload: dict[str, Any]) -> None:
    for subscriber in list(SUBSCRIBERS):
        subscriber(payload)


def notify(session: Session, payload: dict[str, Any]) -> None:
    if session.get_bind().dialect.name != "postgresql":
        return
    session.execute(text("SELECT pg_notify(:channel, :payload)"), {"channel": CHANNEL, "payload": json.dumps(payload, sort_keys=True)})


def conninfo(database_url: str) -> str:
    """A psycopg connection string from the SQLAlchemy URL (postgresql+psycopg://…)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """LISTEN on CHANNEL in a thread of its own; `callback(payload)` per notification until `stop()`."""

    def __init__(self, database_url: str, callback: Callable[[dict[str, Any]], None]) -> None:
        import psycopg  # only PostgreSQL deployments listen

        self._connection = psycopg.connect(conninfo(database_url), autocommit=True)
        self._connection.execute(f"LISTEN {CHANNEL}")
        self._callback = callback
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="athaus-listing-events", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            for note in self._connection.notifies(timeout=0.2):
                self._callback(json.loads(note.payload))

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        self._connection.close()
