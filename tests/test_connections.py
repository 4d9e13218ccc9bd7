"""Every request starts with its own deadline and its own context, however the connection was used before; reading a
request is bounded in time (athaus/connections.py, shared/runtime/edge.py; issue 18, item 8).

The probe app runs behind the real edge on uvicorn with the options of `athaus serve` (tests/test_public_url.py: the
same options with one worker and with several). Figures from the real server: bench/keepalive.py."""

from __future__ import annotations

import contextvars
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx
import pytest
import uvicorn

from athaus.connections import uvicorn_options
from shared.db import deadline
from shared.runtime.edge import Edge
from shared.settings import Settings
from tests.conftest import _free_port

MARK: contextvars.ContextVar[str | None] = contextvars.ContextVar("test_mark", default=None)
LARGE = 600_000  # past uvicorn's 64 KiB high-water mark: reading pauses and resumes inside the request


async def probe(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers what this request sees: the deadline left, and a mark an earlier request may have left in the context."""
    if scope["type"] != "http":
        return
    seen = {"remaining": deadline.remaining(), "mark": MARK.get()}
    MARK.set(scope["path"])
    payload = json.dumps(seen).encode()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": payload})


@contextmanager
def served(app: Any, settings: Settings) -> Iterator[str]:
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, **uvicorn_options(settings)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    started = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < started, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def test_a_small_request_after_a_large_one_on_one_connection_gets_a_fresh_deadline_and_context() -> None:
    settings = Settings(request_read_seconds=5)
    with served(Edge(probe, max_body_bytes=1_048_576, deadline_seconds=10), settings) as url, httpx.Client() as http:
        first = http.post(f"{url}/large", content=b"x" * LARGE).json()
        time.sleep(0.5)
        second = http.post(f"{url}/small", content=b"{}").json()
        third = http.post(f"{url}/small-again", content=b"{}").json()
    assert first["mark"] is None
    assert (second["mark"], third["mark"]) == (None, None)  # nothing of an earlier request reaches a later one
    for seen in (first, second, third):
        assert 9.5 < seen["remaining"] <= 10, seen


def test_the_edge_opens_a_deadline_of_its_own_whatever_the_context_holds() -> None:
    """Even a context that carries an earlier, passed deadline gives the request the full one."""
    answers: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            answers.append(json.loads(message["body"]))

    edge = Edge(probe, max_body_bytes=1000, deadline_seconds=10)
    with deadline.within(0.001):
        time.sleep(0.01)
        anyio.run(edge, {"type": "http", "path": "/", "headers": []}, receive, send)
    assert 9.5 < answers[0]["remaining"] <= 10


def _open(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=10)
    return sock


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """True when the server closes the connection within `seconds` (EOF or reset), False when it still holds it."""
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def test_half_a_body_half_the_headers_or_nothing_at_all_is_closed_after_the_read_time() -> None:
    settings = Settings(request_read_seconds=1)
    with served(Edge(probe, max_body_bytes=1_048_576, deadline_seconds=10), settings) as url:
        half_body, half_headers, silent = _open(url), _open(url), _open(url)
        half_body.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n" + b"x" * 500)
        half_headers.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        started = time.monotonic()
        assert all(_closed_within(sock, 4) for sock in (half_body, half_headers, silent))
        assert time.monotonic() - started < 3
        # a request that arrives whole in time is answered, also after a slow start within the time
        with _open(url) as slow:
            slow.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n")
            time.sleep(0.5)
            slow.sendall(b"{}")
            assert slow.recv(4096).startswith(b"HTTP/1.1 200 ")


def test_an_idle_keep_alive_connection_outlasts_the_clients_idle_reuse_and_the_read_time() -> None:
    """A client (httpx: 5 s) or proxy (nginx upstream: 60 s) reuses an idle connection for a while: the server must
    not close it first, or the next request is written into a closing connection (reset: ReadError, or a proxy's
    502). Idle time is not read time either: the read time starts with the next request's first byte."""
    assert uvicorn_options(Settings())["timeout_keep_alive"] > 60
    settings = Settings(request_read_seconds=1)
    with served(Edge(probe, max_body_bytes=1_048_576, deadline_seconds=10), settings) as url, _open(url) as sock:
        request = b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}"
        sock.sendall(request)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")
        assert not _closed_within(sock, 6)  # idle beyond uvicorn's default 5 s and six read times
        sock.settimeout(10)
        sock.sendall(request)
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")


def test_many_half_sent_bodies_do_not_starve_other_clients() -> None:
    settings = Settings(request_read_seconds=2)
    with served(Edge(probe, max_body_bytes=1_048_576, deadline_seconds=10), settings) as url:
        stalled = []
        for _ in range(300):
            sock = _open(url)
            sock.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n" + b"x" * 1000)
            stalled.append(sock)
        started = time.perf_counter()
        answer = httpx.post(f"{url}/other", content=b"{}", timeout=5)
        assert answer.status_code == 200
        assert time.perf_counter() - started < 3
        until = time.monotonic() + 6
        try:
            gone = sum(_closed_within(sock, max(0.01, until - time.monotonic())) for sock in stalled)
        finally:
            for sock in stalled:
                sock.close()
        assert gone == len(stalled)
