"""Telling the other instances that a listing event happened: PostgreSQL NOTIFY on one channel, sent inside the
write's transaction (PostgreSQL delivers it on commit, never for a rolled-back write), and a listener that calls
back per notification (to wake an outbox, refresh a cache). On SQLite there is one instance and nothing to tell."""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import threading
import weakref
from collections.abc import Callable
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

CHANNEL = "athaus_listing_events"
log = logging.getLogger(__name__)

# Called per notification by the listener the app starts on PostgreSQL (athaus/app.py): an outbox or a cache of this
# instance subscribes here to hear about events another instance made.
SUBSCRIBERS: list[Callable[[], Callable[[dict[str, Any]], None] | None]] = []


def held_weakly(callback: Callable[..., None]) -> Callable[[], Callable[..., None] | None]:
    """A reference to `callback` that does not keep a bound method's object (a cache) alive: call it for the callback,
    or None once the object is gone."""
    if inspect.ismethod(callback):
        return weakref.WeakMethod(callback)
    return lambda: callback


def subscribe(callback: Callable[[dict[str, Any]], None]) -> None:
    """`callback(payload)` per notification, for as long as a bound method's object lives."""
    SUBSCRIBERS.append(held_weakly(callback))


def deliver(payload: dict[str, Any]) -> None:
    for ref in list(SUBSCRIBERS):
        subscriber = ref()
        if subscriber is None:
            with contextlib.suppress(ValueError):
                SUBSCRIBERS.remove(ref)
        else:
            subscriber(payload)


def notify_all(session: Session, payloads: list[dict[str, Any]]) -> None:
    """One notification per payload, in their order, in one statement."""
    if not payloads or session.get_bind().dialect.name != "postgresql":
        return
    session.execute(
        text("SELECT pg_notify(:channel, p.payload) FROM unnest(CAST(:payloads AS text[])) WITH ORDINALITY AS p(payload, n) ORDER BY p.n"),
        {"channel": CHANNEL, "payloads": [json.dumps(payload, sort_keys=True) for payload in payloads]},
    )


def conninfo(database_url: str) -> str:
    """A psycopg connection string from the SQLAlchemy URL (postgresql+psycopg://…)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


class Listener:
    """LISTEN on CHANNEL in a thread of its own; `callback(payload)` per notification until `stop()`.

    A lost connection (a database restart, a dropped network path) is opened again, after 0.5 s and then up to
    RECONNECT_MAX_SECONDS between tries, and LISTENs again: the instance hears the others again without a restart.
    What was notified while it was gone is not heard (NOTIFY keeps nothing); subscribers poll as well."""

    RECONNECT_FIRST_SECONDS = 0.5
    RECONNECT_MAX_SECONDS = 30.0

    def __init__(self, database_url: str, callback: Callable[[dict[str, Any]], None]) -> None:
        self._conninfo = conninfo(database_url)
        self._callback = callback
        self._stopped = threading.Event()
        self._connection = self._connect()
        self._thread = threading.Thread(target=self._run, name="athaus-listing-events", daemon=True)
        self._thread.start()

    def _connect(self) -> Any:
        import psycopg  # only PostgreSQL deployments listen

        connection = psycopg.connect(self._conninfo, autocommit=True, connect_timeout=5)
        connection.execute(f"LISTEN {CHANNEL}")
        return connection

    def _run(self) -> None:
        import psycopg

        while not self._stopped.is_set():
            try:
                for note in self._connection.notifies(timeout=0.2):
                    self._callback(json.loads(note.payload))
            except psycopg.OperationalError as lost:
                if self._stopped.is_set():
                    return
                log.warning('{"event": "listing_events_connection_lost", "detail": %s}', json.dumps(str(lost).splitlines()[0]))
                self._reconnect()

    def _reconnect(self) -> None:
        import psycopg

        with contextlib.suppress(psycopg.Error):
            self._connection.close()
        delay = self.RECONNECT_FIRST_SECONDS
        while not self._stopped.wait(delay):
            try:
                self._connection = self._connect()
            except psycopg.Error:
                delay = min(delay * 2, self.RECONNECT_MAX_SECONDS)
                continue
            log.info('{"event": "listing_events_listening_again"}')
            return

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        self._connection.close()
