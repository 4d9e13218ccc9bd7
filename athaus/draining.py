"""A restart nobody notices (issue 34, item 3): SIGTERM first drains, then stops.

uvicorn alone stops accepting at SIGTERM and closes idle keep-alive connections at once: a proxy that had just written
a request on one got a reset, and it does not retry a POST (every MCP call) once the request was sent. So:

1. SIGTERM: `/healthz/ready` answers 503 at once (a load balancer that reads readiness takes the instance out), and
   every answer carries `Connection: close`, so the proxy's pooled connections to this instance end one by one after
   an answer, never under a request.
2. For `ATHAUS_DRAIN_SECONDS` the instance still serves new requests as usual (a proxy that reads no readiness, like
   nginx, keeps sending until connecting fails).
3. Then uvicorn's own stop: the listening socket closes (a proxy's connect is refused, which nginx retries on the
   other instance for every method: nothing was sent), the calls in flight finish within their deadline, the lifespan
   ends (outbox, listener, telemetry flushed: athaus/app.py), the process exits.

A second SIGTERM, or SIGINT (Ctrl+C), stops without draining. The drain wraps the handler uvicorn installed in each
worker process; with several workers uvicorn's supervisor passes SIGTERM on to each, and `Supervisor` lets go of its
own copy of the listening socket, so the socket closes when the workers close theirs."""

from __future__ import annotations

import functools
import json
import logging
import signal
import threading
import time
from types import FrameType
from typing import Any

from uvicorn.supervisors.multiprocess import Multiprocess

log = logging.getLogger("athaus.app")


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
        timer = threading.Timer(self.seconds, stop, (sig, None))  # uvicorn's handler only sets flags its loop polls
        timer.daemon = True
        timer.start()


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
