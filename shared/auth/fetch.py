"""Fetching a Client ID Metadata Document without becoming a proxy into the private network (SSRF).

The host is resolved first; if any address it resolves to is not global (loopback, private, link-local, shared,
reserved, multicast, and the same hidden in IPv4-mapped, -compatible or -translated, 6to4, Teredo or NAT64 IPv6 forms;
the local-use NAT64 prefix 64:ff9b:1::/48 and the deprecated IPv4-compatible ::/96 as a whole), nothing is fetched.
The resolver is the system's, so every notation of an address (`127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`,
`[::ffff:127.0.0.1]`) and every name that resolves to a private address is judged by the address it means. The
connection then goes to exactly the address that was checked (the hostname stays in the URL, so TLS verifies the
certificate and SNI for the name): a second resolution cannot swap it (DNS rebinding). No redirects, no proxies
from the environment, a total time and a size bound.
"""

from __future__ import annotations

import ipaddress
import socket
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpcore
import httpx

FETCH_SECONDS = 5.0
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052 well-known prefix: the IPv4 address is the last 32 bits
LOCAL_NAT64 = ipaddress.ip_network("64:ff9b:1::/48")  # RFC 8215 local-use prefix: translates into the local network
IPV4_COMPATIBLE = ipaddress.ip_network("::/96")  # deprecated ::a.b.c.d (RFC 4291 §2.5.5.1): never a real destination
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT ::ffff:0:a.b.c.d (RFC 2765)
lookup = anyio.getaddrinfo  # the system resolver (tests stand in names of their own here)


def address_is_global(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if address in LOCAL_NAT64 or address in IPV4_COMPATIBLE:
            return False
        embedded = address.ipv4_mapped or address.sixtofour or (address.teredo[1] if address.teredo else None)
        if embedded is None and (address in NAT64 or address in IPV4_TRANSLATED):
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and not address_is_global(str(embedded)):
            return False
    return address.is_global and not address.is_multicast


async def resolve_global(host: str, port: int) -> str | None:
    """The address to connect to, if `host` resolves and every address it resolves to is global."""
    try:
        infos = await lookup(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError, ValueError):
        return None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses or not all(address_is_global(address) for address in addresses):
        return None
    return addresses[0]


class _PinnedBackend(httpcore.AsyncNetworkBackend):
    """Opens every TCP connection to the one address that was checked, whatever host the URL names."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None, socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        return await self.inner.connect_tcp(self.address, port, timeout=timeout, local_address=local_address, socket_options=socket_options)

    async def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("no unix sockets")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


class _PinnedTransport(httpx.AsyncHTTPTransport):
    def __init__(self, address: str) -> None:
        super().__init__()
        self._pool = httpcore.AsyncConnectionPool(ssl_context=ssl.create_default_context(), network_backend=_PinnedBackend(address))


@dataclass(frozen=True)
class Fetched:
    status: int
    body: bytes  # at most max_bytes + 1 bytes: longer means too long
    cache_control: str


class FetchRefused(Exception):
    """The URL names a host that is not to be fetched from, or the fetch failed (the reason is for the log only)."""


async def fetch_public(url: str, *, max_bytes: int, timeout: float = FETCH_SECONDS) -> Fetched:
    """GET an https URL on a global address: resolved, checked, pinned, bounded in time and size."""
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port or 443
    except ValueError as malformed:
        raise FetchRefused(f"malformed URL: {malformed}") from None
    if parts.scheme != "https" or not host:
        raise FetchRefused("not an https URL with a host")
    try:
        with anyio.fail_after(timeout):
            address = await resolve_global(host, port)
            if address is None:
                raise FetchRefused("host does not resolve to global addresses only")
            async with (
                httpx.AsyncClient(transport=_PinnedTransport(address), timeout=timeout, follow_redirects=False, trust_env=False) as http,
                http.stream("GET", url, headers={"Accept": "application/json"}) as response,
            ):
                body = bytearray()
                if response.status_code == 200:
                    async for chunk in response.aiter_bytes():
                        body += chunk
                        if len(body) > max_bytes:
                            break
                return Fetched(response.status_code, bytes(body[: max_bytes + 1]), response.headers.get("cache-control", ""))
    except TimeoutError:
        raise FetchRefused("timed out") from None
    except (httpx.HTTPError, httpx.InvalidURL, OSError, ValueError) as failure:
        raise FetchRefused(f"{type(failure).__name__}: {failure}") from None
