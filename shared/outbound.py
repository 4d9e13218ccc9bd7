"""Every request this server makes to an address someone else named (a client's metadata document, an office's feed),
without becoming a proxy into the private network (SSRF).

The host is resolved first; if any address it resolves to is not global unicast (the one list below, `NOT_GLOBAL_V4`
and `NOT_GLOBAL_V6`: loopback, private, link-local, shared, documentation, reserved, multicast, site-local, SRv6, and
the same hidden in IPv4-mapped, IPv4-compatible, 6to4, Teredo or NAT64 IPv6 forms), nothing is fetched; a name that
does not resolve is `unresolved` (its own log event), not a refused address. The resolver is the system's, so every notation of an address (`127.1`,
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
REDIRECTS = frozenset({301, 302, 303, 307, 308})
lookup = anyio.getaddrinfo  # the system resolver (tests stand in names of their own here)
log = logging.getLogger("athaus.outbound")

# The one list of what is not global unicast, for every outbound fetch (client metadata documents, feeds): IANA's
# IPv4 and IPv6 special-purpose address registries (every block not "globally reachable"), the IPv4 blocks IANA keeps
# outside them, and what the registry of IPv6 space does not assign as unicast. Written out rather than left to
# `ipaddress.is_global` alone, whose lists differ between Python versions and miss deprecated and recent blocks
# (fec0::/10, 3fff::/20, 5f00::/16 passed). Both must agree that an address is global.
NOT_GLOBAL_V4 = tuple(
    ipaddress.ip_network(block)
    for block in (
        "0.0.0.0/8",  # this network (RFC 791)
        "10.0.0.0/8",  # private (RFC 1918)
        "100.64.0.0/10",  # shared address space, carrier-grade NAT (RFC 6598)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local, cloud metadata services
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (RFC 6890), its anycast exceptions included: no server to fetch from
        "192.0.2.0/24",  # documentation TEST-NET-1
        "192.31.196.0/24",  # AS112-v4 (RFC 7535): DNS sinks
        "192.52.193.0/24",  # AMT (RFC 7450)
        "192.88.99.0/24",  # 6to4 relay anycast (deprecated, RFC 7526)
        "192.168.0.0/16",  # private
        "192.175.48.0/24",  # direct delegation AS112 (RFC 7534)
        "198.18.0.0/15",  # benchmarking (RFC 2544)
        "198.51.100.0/24",  # documentation TEST-NET-2
        "203.0.113.0/24",  # documentation TEST-NET-3
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and 255.255.255.255 limited broadcast
    )
)
GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")  # the only IPv6 space IANA assigns as global unicast
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # well-known NAT64 (RFC 6052): as global as the IPv4 address it carries
NOT_GLOBAL_V6 = tuple(
    ipaddress.ip_network(block)
    for block in (
        "2001::/23",  # IETF protocol assignments (RFC 2928): Teredo, benchmarking, ORCHID, AMT, AS112, DRIP
        "2001:db8::/32",  # documentation (RFC 3849)
        "2620:4f:8000::/48",  # direct delegation AS112 (RFC 7534)
        "3fff::/20",  # documentation (RFC 9637)
        "3ffe::/16",  # the former 6bone (RFC 3701), returned and unassigned
    )
)
# Outside 2000::/3 and refused by it, named here so the list reads whole: ::/128, ::1, ::/96 (IPv4-compatible),
# ::ffff:0:0/96 (IPv4-mapped), ::ffff:0:0:0/96 (SIIT), 64:ff9b:1::/48 (local-use NAT64), 100::/64 (discard),
# 5f00::/16 (SRv6 SIDs, RFC 9602), fc00::/7 (unique local), fe80::/10 (link-local), fec0::/10 (site-local,
# deprecated), ff00::/8 (multicast). 6to4 (2002::/16) is judged by the IPv4 address it carries.


def address_is_global(text: str) -> bool:
    """Is `text` a global unicast address: outside every block of the lists above (and `is_global` agrees), an IPv6
    address inside 2000::/3 (or the well-known NAT64 prefix), an address carried inside (6to4, NAT64) global too."""
    try:
        address = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv4Address):
        return address.is_global and not any(address in network for network in NOT_GLOBAL_V4)
    if address in NAT64:
        return address_is_global(str(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)))
    if address not in GLOBAL_UNICAST_V6 or any(address in network for network in NOT_GLOBAL_V6):
        return False
    if address.sixtofour is not None and not address_is_global(str(address.sixtofour)):
        return False
    return address.is_global


class Unresolved(Exception):
    """The name did not resolve (no such name, or the resolver did not answer): not a verdict on an address."""


async def resolve_global(host: str, port: int) -> str | None:
    """The address to connect to, if every address `host` resolves to is global; None if one is not.

    Raises Unresolved when the name does not resolve at all: a resolver outage is not a private address."""
    name = host.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return None  # loopback by definition (RFC 6761), whatever this machine's resolver makes of it
    try:
        infos = await lookup(host, port, type=socket.SOCK_STREAM)
    except (UnicodeError, ValueError):
        return None  # not a name at all (an empty label, one too long): judged like a bad address
    except OSError as failure:
        raise Unresolved(type(failure).__name__) from None
    addresses = sorted({str(info[4][0]) for info in infos})
    if not addresses:
        raise Unresolved("no addresses")
    if not all(address_is_global(address) for address in addresses):
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

    `kind` says which for the caller (`refused`: not https or not a global address, `unresolved`: the name did not
    resolve, `timeout`, `unreachable`, `redirects`: more than allowed); the message is for the log only."""

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
                try:
                    address = await resolve_global(host, port)
                except Unresolved as unresolved:
                    raise FetchRefused("unresolved", f"the name did not resolve: {unresolved}") from None
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
        if refused.kind == "unresolved":
            # its own event: an operator tells a resolver outage (or a typo in a name) from a refused address
            log.warning(json.dumps({"event": "outbound_unresolved", "purpose": purpose, "host": host, "detail": str(refused)}))
        else:
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
