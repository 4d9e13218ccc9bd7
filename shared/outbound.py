"""Every request this server makes to an address someone else named (a client's metadata document, an office's feed),
without becoming a proxy into the private network (SSRF).

The host is resolved first; if any address it resolves to is not global (loopback, private, link-local, shared,
reserved, multicast, and the same hidden in IPv4-mapped, IPv4-compatible, 6to4, Teredo or NAT64 IPv6 forms, the
local-use NAT64 prefix), nothing is fetched. The resolver is the system's, so every notation of an address (`127.1`,
`2130706433`, `0x7f000001`, `0177.0.0.1`, `[::ffff:127.0.0.1]`) and every name that resolves to a private address is
judged by the address it means. The connection then goes to exactly the address that was checked (the hostname stays
in the URL, so TLS verifies the certificate and SNI for the name): a second resolution cannot swap it (DNS rebinding).
https only (http only where the caller allows it: development), no proxies from the environment, one total time bound
over resolution, redirects and body, a size bound. A redirect is followed only where the caller allows it, and its
target is checked like the first URL (scheme, resolution, pinning). Every request says `athaus-mcp/<version>
(+<public URL>)`. A failure is logged with its type, the host and the status: never the URL (it may carry a secret).
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit

import anyio
import httpcore
import httpx

from shared.identity import user_agent

FETCH_SECONDS = 5.0
NAT64 = ipaddress.ip_network("64:ff9b::/96")
IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")  # SIIT (RFC 2765): ::ffff:0:127.0.0.1 is 127.0.0.1
NOT_GLOBAL_V6 = (
    ipaddress.ip_network("::/96"),  # IPv4-compatible (deprecated): ::127.0.0.1
    ipaddress.ip_network("64:ff9b:1::/48"),  # local-use NAT64 (RFC 8215)
)
REDIRECTS = frozenset({301, 302, 303, 307, 308})
lookup = anyio.getaddrinfo  # the system resolver (tests stand in names of their own here)
log = logging.getLogger("athaus.outbound")


def address_is_global(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address):
        if any(address in network for network in NOT_GLOBAL_V6):
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
    body: bytes  # at most max_bytes + 1 bytes (empty when a sink took the body): longer means too long
    cache_control: str
    too_large: bool = False  # the declared length or the body read exceeded max_bytes


class FetchRefused(Exception):
    """Not fetched: the URL names a host that is not to be fetched from, or the fetch failed.

    `kind` says which for the caller (`refused`: not https or not a global address, `timeout`, `unreachable`,
    `redirects`: more than allowed); the message is for the log only."""

    def __init__(self, kind: str, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind


def _target(url: str, *, allow_http: bool) -> tuple[str, int]:
    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as malformed:
        raise FetchRefused("refused", f"malformed URL: {malformed}") from None
    if parts.scheme not in (("https", "http") if allow_http else ("https",)) or not host:
        raise FetchRefused("refused", "not an https URL with a host")
    return host, port or (443 if parts.scheme == "https" else 80)


async def fetch_public(
    url: str,
    *,
    max_bytes: int,
    timeout: float = FETCH_SECONDS,
    accept: str = "application/json",
    redirects: int = 0,
    allow_http: bool = False,
    sink: Callable[[bytes], object] | None = None,
    purpose: str = "fetch",
) -> Fetched:
    """GET an https URL on a global address: resolved, checked, pinned, bounded in time and size.

    With `sink`, the body goes there chunk by chunk (at most max_bytes) instead of into `Fetched.body`."""
    host = ""
    status: int | None = None
    try:
        with anyio.fail_after(timeout):
            for hop in range(redirects + 1):
                host, port = _target(url, allow_http=allow_http)
                address = await resolve_global(host, port)
                if address is None:
                    raise FetchRefused("refused", "host does not resolve to global addresses only")
                async with (
                    httpx.AsyncClient(transport=_PinnedTransport(address), timeout=timeout, follow_redirects=False, trust_env=False) as http,
                    http.stream("GET", url, headers={"Accept": accept, "User-Agent": user_agent()}) as response,
                ):
                    status = response.status_code
                    if status in REDIRECTS and "location" in response.headers:
                        if hop == redirects:
                            raise FetchRefused("redirects", f"more than {redirects} redirects")
                        url = urljoin(url, response.headers["location"])
                        continue
                    fetched = await _read(response, max_bytes, sink)
                    if fetched.status != 200:
                        _log_failure(purpose, "status", host, fetched.status)
                    return fetched
            raise AssertionError("unreachable")  # pragma: no cover
    except FetchRefused as refused:
        _log_failure(purpose, refused.kind, host, status)
        raise
    except (TimeoutError, httpx.TimeoutException):
        _log_failure(purpose, "timeout", host, status)
        raise FetchRefused("timeout", "timed out") from None
    except (httpx.HTTPError, httpx.InvalidURL, OSError, ValueError) as failure:
        _log_failure(purpose, type(failure).__name__, host, status)
        raise FetchRefused("unreachable", type(failure).__name__) from None


async def _read(response: httpx.Response, max_bytes: int, sink: Callable[[bytes], object] | None) -> Fetched:
    cache_control = response.headers.get("cache-control", "")
    if response.status_code != 200:
        return Fetched(response.status_code, b"", cache_control)
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        return Fetched(200, b"", cache_control, too_large=True)
    body = bytearray()
    read = 0
    async for chunk in response.aiter_bytes():
        read += len(chunk)
        if read > max_bytes:
            if sink is None:
                body += chunk
            return Fetched(200, bytes(body[: max_bytes + 1]), cache_control, too_large=True)
        if sink is None:
            body += chunk
        else:
            sink(chunk)
    return Fetched(200, bytes(body), cache_control)


def _log_failure(purpose: str, error: str, host: str, status: int | None) -> None:
    """Type, host and status of a failed outbound request; never the URL, its path or query (they may hold a secret)."""
    log.warning(json.dumps({"event": "outbound_failed", "purpose": purpose, "error": error, "host": host, "status": status}))
