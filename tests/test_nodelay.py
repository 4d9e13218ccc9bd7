"""Every connection of `athaus serve` has TCP_NODELAY, with one worker and with several (athaus/nodelay.py).

uvicorn binds the socket it shares between workers with protocol 0, and asyncio then leaves Nagle's algorithm on
for every connection it accepts: each response waited up to 40 ms for the client's delayed acknowledgement. The
first test shows that this is still how such a socket behaves (else the fix would guard nothing), the second that
no_delay switches it off there; tests/test_public_url.py that `athaus serve` hands uvicorn the protocol that calls it."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable

from athaus.nodelay import no_delay


def _accepted_nodelay(on_connection: Callable[[asyncio.BaseTransport], None]) -> int:
    """TCP_NODELAY of a connection accepted on a socket bound the way uvicorn binds it for its workers."""

    async def run() -> int:
        loop = asyncio.get_running_loop()
        listener = socket.socket(socket.AF_INET)  # protocol 0, as uvicorn's Config.bind_socket
        listener.bind(("127.0.0.1", 0))
        seen: asyncio.Future[int] = loop.create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                on_connection(transport)
                sock = transport.get_extra_info("socket")
                seen.set_result(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

        server = await loop.create_server(Probe, sock=listener)
        _, writer = await asyncio.open_connection(*listener.getsockname())
        try:
            return await asyncio.wait_for(seen, 5)
        finally:
            writer.close()
            server.close()

    return asyncio.run(run())


def test_asyncio_leaves_nagle_on_for_a_socket_bound_like_uvicorns() -> None:
    assert _accepted_nodelay(lambda transport: None) == 0


def test_no_delay_switches_nagle_off_there() -> None:
    assert _accepted_nodelay(no_delay) != 0
