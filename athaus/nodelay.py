"""Every HTTP connection of `athaus serve` without Nagle's algorithm (TCP_NODELAY), however many workers.

asyncio sets TCP_NODELAY only on connections of a socket created as IPPROTO_TCP. uvicorn binds the shared socket of
its worker processes as `socket.socket(family)` (protocol 0), so with `--workers 2` or more (the default on
PostgreSQL) no connection had it: the kernel held the body of every response until the client acknowledged the
headers, and a client that delays its acknowledgements (Linux: up to 40 ms) waited that long for every answer. One
`get_listing` through the official client took 52 ms with two workers and 10 ms with one (bench/README.md)."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

_TCP = (socket.AF_INET, socket.AF_INET6)


def no_delay(transport: asyncio.BaseTransport) -> None:
    """TCP_NODELAY on the connection of `transport` (a TCP one; a Unix socket has no Nagle to switch off)."""
    sock = transport.get_extra_info("socket")
    if sock is not None and sock.family in _TCP:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's HTTP protocol (the one it picks itself), with TCP_NODELAY set as each connection is made."""

    def connection_made(self, transport: Any) -> None:
        no_delay(transport)
        super().connection_made(transport)
