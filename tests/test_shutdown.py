"""SIGTERM to a real `athaus serve` mid-load (issue 18, item 9): the writes in flight finish, the process ends within the
call deadline, the outbox worker and (on PostgreSQL) the listing events listener stop with the app, and nothing is
half-written: every write that was answered is stored with its audit row, and no stored write lacks its audit row.

The test database's backend (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL); a small demo catalog."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, func, select

from shared.db.models import AuditEntry, SearchOrder
from tests.conftest import _free_port, _fresh_database_url

SEEKER = "suchende@athaus-demo.example"
MCP = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
DEADLINE = 5
DRAIN = 1  # ATHAUS_DRAIN_SECONDS: still serving this long after SIGTERM (athaus/draining.py)


def test_sigterm_mid_load_finishes_the_writes_in_flight_and_stops_cleanly(tmp_path: Path) -> None:
    database_url, drop = _fresh_database_url(tmp_path, "shutdown")
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {key: value for key, value in os.environ.items() if not key.startswith("ATHAUS_")}
    env |= {
        "ATHAUS_DATABASE_URL": database_url, "ATHAUS_DEMO_LISTINGS": "60", "ATHAUS_CALL_DEADLINE_SECONDS": str(DEADLINE), "ATHAUS_DRAIN_SECONDS": str(DRAIN),
        "ATHAUS_LOG_FORMAT": "json", "ATHAUS_OUTBOX_WORKER": "true", "ATHAUS_SMTP_HOST": "127.0.0.1", "ATHAUS_SMTP_PORT": "9",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", "1"], env=env, stderr=out)
    answered: list[str] = []
    failed: list[str] = []
    try:
        until = time.monotonic() + 120
        while b'"event": "serving"' not in log.read_bytes():
            assert process.poll() is None and time.monotonic() < until, log.read_text()
            time.sleep(0.2)
        token = subprocess.run(
            [sys.executable, "-m", "athaus.cli", "token", "--user", SEEKER, "--server", "suche", "--port", str(port)],
            env=env, capture_output=True, text=True, check=True, timeout=60,
        ).stdout.strip()
        stop = threading.Event()

        def writer(n: int) -> None:
            with httpx.Client(headers={**MCP, "Authorization": f"Bearer {token}"}, timeout=30) as http:
                for i in range(200):
                    if stop.is_set():
                        return
                    name = f"Abschaltung {n}-{i}"
                    call = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "save_search_order", "arguments": {
                        "request_id": f"abschaltung-{n}-{i}", "name": name, "criteria": {"marketing_type": "rent", "city": "Leipzig", "max_price": 900 + i}}}}
                    try:
                        result = http.post(f"{base}/suche/mcp", json=call).json()["result"]
                    except (httpx.HTTPError, ValueError, KeyError):
                        failed.append(name)
                        return  # the server closed: this writer is done
                    (failed if result.get("isError") else answered).append(json.dumps(result)[:300] if result.get("isError") else name)

        writers = [threading.Thread(target=writer, args=(n,)) for n in range(4)]
        for thread in writers:
            thread.start()
        until = time.monotonic() + 60
        while len(answered) < 8:  # under load: the writers are saving
            assert time.monotonic() < until and not failed, (failed[:3], log.read_text()[-3000:])
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        sent_at = time.monotonic()
        code = process.wait(DRAIN + DEADLINE + 15)
        stopped_after = time.monotonic() - sent_at
        stop.set()
        for thread in writers:
            thread.join(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    try:
        engine = create_engine(database_url)
        with engine.connect() as connection:
            stored = set(connection.scalars(select(SearchOrder.name).where(SearchOrder.name.like("Abschaltung %"))))
            refs = set(connection.scalars(select(SearchOrder.ref).where(SearchOrder.name.like("Abschaltung %"))))
            audited = set(connection.scalars(select(AuditEntry.subject_ref).where(AuditEntry.action == "search_order.create")))
            audit_rows = connection.scalar(select(func.count()).select_from(AuditEntry).where(AuditEntry.action == "search_order.create"))
        engine.dispose()
    finally:
        drop()
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert code in (0, -signal.SIGTERM), log.read_text()
    assert DRAIN <= stopped_after < DRAIN + DEADLINE + 3, stopped_after
    assert set(answered) <= stored  # every answered write is there
    assert refs <= audited and audit_rows == len(audited)  # each with its one audit row, nothing half-written
    assert [line["event"] for line in lines if line.get("event") in ("draining", "stopped")] == ["draining", "stopped"]  # lifespan ended: outbox, listener
    assert not any(line.get("level") == "error" for line in lines), [line for line in lines if line.get("level") == "error"]


def test_the_spans_of_the_last_requests_are_exported_before_the_process_ends(tmp_path: Path) -> None:
    """uvicorn ends the process by raising SIGTERM again, so no atexit hook runs: the lifespan's end flushes the span
    processor (issue 34: the spans of the last requests were never exported). A collector stand-in on loopback."""
    import http.server

    received: list[int] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append(len(self.rfile.read(int(self.headers.get("content-length", 0)))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    database_url, drop = _fresh_database_url(tmp_path, "flush")
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ATHAUS_", "OTEL_"))}
    env |= {"ATHAUS_DATABASE_URL": database_url, "ATHAUS_DEMO_LISTINGS": "20", "ATHAUS_LOG_FORMAT": "json", "ATHAUS_OUTBOX_WORKER": "false",
            "ATHAUS_DRAIN_SECONDS": "0.5", "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}"}
    log = tmp_path / "serve.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "athaus.cli", "serve", "--port", str(port), "--workers", "1"], env=env, stderr=out)
    try:
        until = time.monotonic() + 120
        while b'"event": "serving"' not in log.read_bytes():
            assert process.poll() is None and time.monotonic() < until, log.read_text()
            time.sleep(0.2)
        before = len(received)  # whatever the start exported on its own schedule
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        assert httpx.post(f"http://127.0.0.1:{port}/suche/mcp", json=call, headers=MCP, timeout=30).status_code == 200
        process.send_signal(signal.SIGTERM)  # well within the batch processor's 5 s delay
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        collector.shutdown()
        drop()
    assert len(received) > before and received[-1] > 0, log.read_text()[-2000:]
