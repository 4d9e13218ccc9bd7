"""A worker that cannot answer for a while is busy, not hung: it keeps its connections (athaus/connections.py, issue 21).

uvicorn's supervisor kills a worker that does not answer its ping within `timeout_worker_healthcheck` (5 s by default)
and resets every connection the worker holds. On a saturated machine a serving worker missed that in the soak's first
minutes: sessions lost with `ReadError`. Here a real `athaus serve --workers 2` holds a keep-alive connection, the
worker that serves it is stopped (SIGSTOP: it answers nothing, as a starved process) longer than uvicorn's default,
the next request is sent meanwhile, and the worker resumed: it answers that request, and it is the same process.
Resumed, its event loop finds the keep-alive timer of the connection (5 s) due and the request waiting unread: closing
then would reset the connection too (it did on PostgreSQL, where the worker's loop has more timers)."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import _free_port, _fresh_database_url

STOPPED_SECONDS = 9  # past uvicorn's default (5 s ping timeout, pinged every 0.5 s), far inside ours (60 s)


def _children(parent: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                    if int(stat.read().rsplit(")", 1)[1].split()[1]) == parent:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return found


def _owner_of(server_port: int, client_port: int, candidates: list[int]) -> int:
    """The process holding the server's end of the TCP connection from `client_port` (via /proc/net/tcp's inode)."""
    wanted = f":{server_port:04X}", f":{client_port:04X}"
    inode = None
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table, encoding="ascii") as rows:
            for row in rows.readlines()[1:]:
                fields = row.split()
                if fields[1].endswith(wanted[0]) and fields[2].endswith(wanted[1]):
                    inode = fields[9]
    assert inode is not None, "the server's end of the connection is not listed"
    for pid in candidates:
        try:
            if any(os.readlink(f"/proc/{pid}/fd/{fd}") == f"socket:[{inode}]" for fd in os.listdir(f"/proc/{pid}/fd")):
                return pid
        except OSError:
            continue
    raise AssertionError("no worker holds the connection")


def test_a_worker_that_answers_nothing_for_a_while_keeps_its_connection_and_answers(tmp_path: Path) -> None:
    database_url, drop = _fresh_database_url(tmp_path, "busy_worker")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")}
    env |= {"ATHAUS_DATABASE_URL": database_url, "ATHAUS_DEMO_SEED": "false", "ATHAUS_LOG_FORMAT": "json"}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", "2"], env=env, stderr=out)
    stopped: int | None = None
    try:
        until = time.monotonic() + 180
        while b'"event": "serving"' not in log.read_bytes():
            assert process.poll() is None and time.monotonic() < until, log.read_text()
            time.sleep(0.2)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/healthz")
        first = connection.getresponse()
        first.read()
        assert first.status == 200
        workers = [pid for pid in _children(process.pid) if b"spawn_main" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        assert connection.sock is not None
        stopped = _owner_of(port, connection.sock.getsockname()[1], workers)

        os.kill(stopped, signal.SIGSTOP)
        connection.request("GET", "/healthz")  # waits in the stopped worker's socket, unread
        time.sleep(STOPPED_SECONDS)
        # before: killed as hung and replaced; its connection reset with the request unread (the soak's ReadError)
        assert stopped in _children(process.pid), "the stopped worker was killed"
        os.kill(stopped, signal.SIGCONT)
        second = connection.getresponse()
        second.read()
        connection.close()

        assert second.status == 200
        assert b"died" not in log.read_bytes()
    finally:
        if stopped is not None and stopped in _children(process.pid):
            os.kill(stopped, signal.SIGCONT)
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
        drop()
