"""Frees threads stuck on a database that does not answer at all (hung, paused, a dead network path).

A statement timeout needs a server that still reads its socket; a hung one never answers, and the thread waiting
on it would wait forever (the kernel keeps acknowledging TCP, so keepalives see nothing). Every PostgreSQL
connection checked out under a deadline is registered here; once it is still checked out a grace period past that
deadline, its socket is shut down, the blocked read returns, the driver raises an OperationalError (mapped to
SOURCE_UNAVAILABLE) and the pool discards the connection. Work without a deadline (migrations, seeding) is never
touched."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from typing import Any

log = logging.getLogger("athaus.db")

GRACE_SECONDS = 1.0  # past the deadline: the statement timeout had its chance to answer first
_CHECK_EVERY = 0.25

_lock = threading.Lock()
_watched: dict[int, tuple[Any, float]] = {}  # id(dbapi connection) → (connection, monotonic time to give up)
_thread: threading.Thread | None = None


def watch(dbapi_connection: Any, deadline_at: float) -> None:
    _start()
    with _lock:
        _watched[id(dbapi_connection)] = (dbapi_connection, deadline_at + GRACE_SECONDS)


def release(dbapi_connection: Any) -> None:
    with _lock:
        _watched.pop(id(dbapi_connection), None)


def _shut(dbapi_connection: Any) -> None:
    """Shut the connection's socket down under the thread blocked on it (psycopg exposes the libpq socket)."""
    try:
        fd = dbapi_connection.pgconn.socket
    except Exception:  # noqa: BLE001  # lost already (psycopg raises OperationalError): nothing to shut, and this thread must live on
        return
    if fd < 0:
        return
    with contextlib.suppress(OSError):
        duplicate = socket.socket(fileno=os.dup(fd))
        try:
            duplicate.shutdown(socket.SHUT_RDWR)
        finally:
            duplicate.close()
    log.warning('{"event": "database_unresponsive", "action": "connection_closed"}')


def _run() -> None:
    while True:
        time.sleep(_CHECK_EVERY)
        now = time.monotonic()
        with _lock:
            overdue = [conn for key, (conn, at) in list(_watched.items()) if at <= now and _watched.pop(key, None)]
        for connection in overdue:
            _shut(connection)


def _start() -> None:
    global _thread
    if _thread is not None:
        return
    with _lock:
        if _thread is None:
            _thread = threading.Thread(target=_run, name="athaus-db-watchdog", daemon=True)
            _thread.start()
