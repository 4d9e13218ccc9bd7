"""Several instances behind one address, as a load balancer without affinity puts them: every request goes to the next
instance in turn (round robin), so the requests of one session land on different instances. Plain HTTP on a free
loopback port; each request is forwarded whole and its answer returned whole (the MCP endpoints answer JSON), with the
headers the client sent (Origin and Authorization among them) and those the instance answered (CORS, Mcp-Session-Id).
`served` records which instance answered what."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host", "content-length"}


@dataclass
class Served:
    """One forwarded request: which instance (its index), method, path, the session id it carried, the status."""

    instance: int
    method: str
    session_id: str | None
    status: int
    body: bytes = field(repr=False, default=b"")


@dataclass
class OneAddress:
    url: str
    served: list[Served]


@contextmanager
def one_address(*instances: str) -> Iterator[OneAddress]:
    """A round-robin front for the base URLs `instances`; yields its base URL and the record of what each served."""
    turn = itertools.cycle(range(len(instances)))
    lock = threading.Lock()
    served: list[Served] = []
    http = httpx.Client(timeout=60)

    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            with lock:
                index = next(turn)
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
            answer = http.request(self.command, f"{instances[index]}{self.path}", headers=headers, content=body)
            served.append(Served(index, self.command, self.headers.get("mcp-session-id"), answer.status_code, body))
            self.send_response(answer.status_code)
            for name, value in answer.headers.multi_items():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-encoding":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        do_GET = do_POST = do_DELETE = do_OPTIONS = _forward

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield OneAddress(f"http://127.0.0.1:{server.server_address[1]}", served)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
        http.close()
