"""A restart nobody notices (issue 34, item 3): SIGTERM first drains, then stops.

uvicorn alone stops accepting at SIGTERM and closes idle keep-alive connections at once: a proxy that had just written
a request on one got a reset, and it does not retry a POST (every MCP call) once the request was sent. So:

1. SIGTERM: `/healthz/ready` answers 503 at once (a load balancer that reads readiness takes the instance out), and
   every answer carries `Connection: close`, so the proxy's pooled connections to this instance end one by one after
   an answer, never under a request.
2. For `ATHAUS_DRAIN_SECONDS` the instance still serves new requests as usual (a proxy that reads no readiness, like
   nginx, keeps sending until connecting fails).
3. Then the listening socket stops taking new connections (Linux: it drops their SYNs, `refuse_new_connections`)
   while the ones already queued are still accepted and served for a moment: closing a socket with connections in
   its queue resets them after the proxy sent its request there, a 502 nginx does not retry for a POST (during the
   drain every answer closes its connection, so nginx connects anew for each request, and one often waits in the
   queue). A dropped SYN is sent again by the proxy's kernel a second later and finds the socket closed: refused,
   nothing was sent, nginx retries on the other instance for every method.
4. Then uvicorn's own stop: the listening socket closes, the calls in flight finish within their deadline, the lifespan
   ends (outbox, listener, telemetry flushed: athaus/app.py), the process exits.

A second SIGTERM, or SIGINT (Ctrl+C), stops without draining. The drain wraps the handler uvicorn installed in each
worker process; with several workers uvicorn's supervisor passes SIGTERM on to each, and `Supervisor` lets go of its
own copy of the listening socket, so the socket closes when the workers close theirs."""

from __future__ import annotations

import ctypes
import functools
import json
import logging
import os
import signal
import socket
import struct
import sys
import threading
import time
from types import FrameType
from typing import Any

from uvicorn.supervisors.multiprocess import Multiprocess

log = logging.getLogger("athaus.app")
QUEUE_SECONDS = 0.25  # after the SYNs are dropped: the connections already queued are accepted and read meanwhile
SO_ATTACH_FILTER = 26  # Linux, <asm-generic/socket.h>
# A classic BPF program of one instruction, `ret #0`: every packet dropped (struct sock_filter: code, jt, jf, k).
_DROP_ALL = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))


def refuse_new_connections() -> int:
    """Every listening TCP socket of this process drops incoming SYNs from now on; connections already in its queue
    are still accepted. The socket is shared by the worker processes, so one worker's call covers all. Linux only
    (elsewhere nothing changes: 0); how many sockets."""
    if not sys.platform.startswith("linux"):
        return 0
    program = struct.pack("HP", 1, ctypes.addressof(_DROP_ALL))  # struct sock_fprog
    done = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=int(name))
        except (OSError, ValueError):
            continue  # not a socket (or gone)
        try:
            if sock.family in (socket.AF_INET, socket.AF_INET6) and sock.type == socket.SOCK_STREAM and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
                sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, program)
                done += 1
        except OSError:
            pass
        finally:
            sock.detach()  # the descriptor stays open: it is uvicorn's
    return done


class Drain:
    """This process's drain: whether it has begun, and the signal handler that begins it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.began: float | None = None

    @property
    def draining(self) -> bool:
        return self.began is not None

    def install(self) -> bool:
        """Wraps the SIGTERM handler uvicorn installed (only the main thread has signal handlers); True if it did."""
        if threading.current_thread() is not threading.main_thread():
            return False
        stop = signal.getsignal(signal.SIGTERM)
        if not callable(stop):
            return False
        signal.signal(signal.SIGTERM, functools.partial(self._on_sigterm, stop))
        return True

    def begin(self) -> None:
        """Readiness turns 503 and every answer closes its connection from now on."""
        if self.began is None:
            self.began = time.monotonic()
            log.info(json.dumps({"event": "draining", "seconds": self.seconds, "text": f"Athaus läuft aus: noch {self.seconds:g} s "
                                 "neue Anfragen, dann keine mehr; laufende Aufrufe werden beendet."}, ensure_ascii=False))

    def _on_sigterm(self, stop: Any, sig: int, frame: FrameType | None) -> None:
        if self.began is not None or self.seconds <= 0:
            self.begin()
            stop(sig, frame)  # a second SIGTERM, or no drain: uvicorn's own stop now
            return
        self.begin()
        timer = threading.Timer(self.seconds, self._stop, (stop, sig))
        timer.daemon = True
        timer.start()

    @staticmethod
    def _stop(stop: Any, sig: int) -> None:
        """The drain is over: no new connections, the queued ones served, then uvicorn's stop (its handler only sets
        flags its loop polls, so calling it from this thread is safe)."""
        if refuse_new_connections():
            time.sleep(QUEUE_SECONDS)
        stop(sig, None)


class CloseWhileDraining:
    """ASGI middleware: while draining, every HTTP answer says `Connection: close` (uvicorn then closes after it)."""

    def __init__(self, app: Any, drain: Drain) -> None:
        self.app = app
        self.drain = drain

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def closing(message: Any) -> None:
            if message["type"] == "http.response.start" and self.drain.draining:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"connection"]
                message = {**message, "headers": [*headers, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, receive, closing)


class Supervisor(Multiprocess):
    """uvicorn's supervisor of several workers, which lets go of the listening socket as it tells them to stop.

    The supervisor holds a copy of the socket the workers accept on; kept open while the workers drain and stop, the
    kernel went on queueing connections nobody would accept (reset when the supervisor exits: the proxy's request was
    sent by then, a 502). Closed here, the socket closes when the last worker closes its own, and a connect is refused."""

    def terminate_all(self) -> None:
        super().terminate_all()
        for sock in self.sockets:
            sock.close()
