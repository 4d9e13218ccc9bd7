"""What every HTTP connection of `athaus serve` gets, and the uvicorn options that give it (one place for the CLI, every
worker process and the tests' live servers).

- **A context of its own per request** (`reset_contextvars`). uvicorn starts each request's task in a copy of the
  context its read callback runs in, and asyncio creates that callback (on resuming reads) inside the previous
  request's task: the next request on a keep-alive connection inherited the previous one's context variables, among
  them its deadline (shared/db/deadline.py). Once that deadline had passed, the token lookup of the next request
  failed at once, 503 "Datenbank nicht erreichbar" from a healthy database (issue 18: 189 of 2,578 requests with one
  worker, bench/keepalive.py). The edge also opens each request's deadline as its own (shared/runtime/edge.py).
- **A bounded time to send the request.** From the connection's opening (or the first byte of the next request on
  a keep-alive connection) the client has `ATHAUS_REQUEST_READ_SECONDS` to send headers and the whole body; then the
  connection is closed. uvicorn bounds only the idle time between requests: a client that sent half a body (or half
  its headers) held its connection and a task for as long as it liked.
- **Keep-alive longer than the clients'** (`KEEP_ALIVE_SECONDS`): an idle connection is closed by the client or
  proxy, never just as it sends the next request on it.
- TCP_NODELAY (athaus/nodelay.py).
- **No worker killed for being busy.** With several workers, uvicorn's supervisor pings each one (a thread of the
  worker answers over a pipe) and kills one that does not answer within `timeout_worker_healthcheck`, 5 s by default,
  then starts a new one. On a saturated machine a busy or still starting worker misses that (answers took up to 12 s
  at the soak's start, issue 21): a serving worker was killed with its connections (requests it had not read yet are
  reset: the client's `ReadError`), and a new worker was killed again and again before it had started at all. The
  answer only shows the process is not hung: `WORKER_HEALTHCHECK_SECONDS` gives a hung worker a minute.
- **No keep-alive close of a request that has arrived.** A lagging event loop ran uvicorn's keep-alive timer before it
  read the next request that was already waiting; closing dropped it and reset the connection (`ReadError` again).
- **A clean stop**: on SIGTERM, after the drain (athaus/draining.py), the calls in flight get their deadline to finish
  (`timeout_graceful_shutdown`).
"""

from __future__ import annotations

import asyncio
import fcntl
import functools
import json
import logging
import math
import struct
import termios
from typing import Any

from athaus.nodelay import NoDelayHTTPProtocol
from shared.settings import Settings

log = logging.getLogger("athaus.connections")

# A worker that does not answer the supervisor's ping for this long is hung, not busy: it is killed and replaced.
WORKER_HEALTHCHECK_SECONDS = 60

# An idle keep-alive connection is closed after this long: longer than clients and proxies keep one for reuse (httpx
# 5 s, nginx's upstream keepalive_timeout 60 s, a cloud load balancer's idle timeout 60 s), so the client side always
# lets go first. With uvicorn's 5 s a client could write its next request just as the server closed (both count 5 s,
# from their own moment): reset, the client's ReadError, or a 502 from a proxy that reused the connection.
KEEP_ALIVE_SECONDS = 75


class BoundedReadHTTPProtocol(NoDelayHTTPProtocol):
    """uvicorn's HTTP protocol with a time limit on reading each request (headers and body)."""

    def __init__(self, *args: Any, read_seconds: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._read_seconds = read_seconds
        self._read_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._watch_read()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_read()

    def on_response_complete(self) -> None:
        """Between requests the connection idles: that is the keep-alive timer's to bound (KEEP_ALIVE_SECONDS), and the
        read time starts again with the next request's first byte (data_received)."""
        super().on_response_complete()
        self._stop_read_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_read_timer()
        super().connection_lost(exc)

    def timeout_keep_alive_handler(self) -> None:
        """uvicorn closes a connection idle for `timeout_keep_alive`; not one whose next request is already waiting.

        A worker's event loop that lags (a starved or briefly stopped process) runs the due timer before it reads what
        arrived meanwhile: closing then drops the request unread and the kernel resets the connection (the client's
        `ReadError`, tests/test_busy_worker.py). Data waiting: the read callback takes it next, and the timer again."""
        if self.transport is not None and not self.transport.is_closing() and _bytes_waiting(self.transport):
            self.timeout_keep_alive_task = asyncio.get_running_loop().call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)
            return
        super().timeout_keep_alive_handler()

    def _watch_read(self) -> None:
        """Waiting for (part of) a request: the timer runs; the request read whole, the app has it: it stops."""
        if self.transport is None or self.transport.is_closing():
            self._stop_read_timer()
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete and not cycle.more_body:
            self._stop_read_timer()
        elif self._read_timer is None:
            self._read_timer = asyncio.get_running_loop().call_later(self._read_seconds, self._read_timed_out)

    def _stop_read_timer(self) -> None:
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None

    def _read_timed_out(self) -> None:
        self._read_timer = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        part = "body" if cycle is not None and not cycle.response_complete and cycle.more_body else "headers"
        log.info(json.dumps({"event": "request_read_timeout", "seconds": self._read_seconds, "part": part}))
        self.transport.close()  # the app's receive() sees http.disconnect


def _bytes_waiting(transport: Any) -> bool:
    """Whether the connection's socket holds received bytes not read yet (FIONREAD: nothing is taken)."""
    sock = transport.get_extra_info("socket")
    if sock is None:
        return False
    try:
        return bool(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.FIONREAD, b"\0\0\0\0"))[0])
    except OSError:
        return False


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """The keyword arguments of `uvicorn.run` / `uvicorn.Config` besides the app, host, port and workers."""
    return {
        "http": functools.partial(BoundedReadHTTPProtocol, read_seconds=settings.request_read_seconds),
        "reset_contextvars": True,
        "timeout_worker_healthcheck": WORKER_HEALTHCHECK_SECONDS,
        "timeout_keep_alive": KEEP_ALIVE_SECONDS,
        # SIGTERM, once the drain is over (athaus/draining.py): no new connections; the calls in flight get their deadline to finish (then they are cancelled, and
        # a write cut off is rolled back whole: one transaction each); then the app's lifespan stops the outbox
        # worker and the listing events listener (athaus/app.py)
        "timeout_graceful_shutdown": math.ceil(settings.call_deadline_seconds) + 1,
        "log_config": None,
        "access_log": False,
    }
