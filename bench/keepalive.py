"""Keep-alive connections under mixed request sizes: every request must get its own deadline.

    python -m bench.keepalive --backend postgresql|sqlite [--workers W] [--clients 4] [--seconds 20] [--large-kb 600]

Starts `athaus serve` on a fresh database (as bench/load.py does) and drives it with --clients threads, each on one
keep-alive HTTP/1.1 connection, calling `count_listings` on /suche/mcp as the demo seeker (raw JSON-RPC, 2025-11-25, bearer token); every fourth
request carries --large-kb of padding. Printed: requests, answers by HTTP status, tool errors by code, p50/p99.
A request that inherited an earlier request's deadline on the same connection answers 503 ("Datenbank nicht
erreichbar") from a healthy database (issue 18, item 8).

    python -m bench.keepalive --stalled 1000 [--backend sqlite]

instead opens that many connections that send half a request body and stall, then times an ordinary request beside
them and how long until the server has closed them all (ATHAUS_REQUEST_READ_SECONDS, 15 s by default).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import threading
import time

import httpx

from bench.load import DEFAULT_POSTGRES_URL, _fresh_database, _server

HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", "Content-Type": "application/json"}


def body(large_bytes: int) -> bytes:
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_listings", "arguments": {"city": "Leipzig"}}}
    raw = json.dumps(call).encode()
    if not large_bytes:
        return raw
    return raw[:-1] + b', "pad": "' + b"x" * large_bytes + b'"}'


def drive(url: str, clients: int, seconds: float, large_bytes: int, token: str = "") -> dict[str, object]:
    statuses: collections.Counter[str] = collections.Counter()
    latencies: list[float] = []
    lock = threading.Lock()
    small, large = body(0), body(large_bytes)

    def client() -> None:
        with httpx.Client(timeout=60, headers={**HEADERS, **({"Authorization": f"Bearer {token}"} if token else {})}) as http:  # one keep-alive connection
            end = time.monotonic() + seconds
            n = 0
            while time.monotonic() < end:
                n += 1
                content = large if large_bytes and n % 4 == 0 else small
                started = time.perf_counter()
                try:
                    response = http.post(f"{url}/suche/mcp", content=content)
                    outcome = str(response.status_code)
                    if response.status_code == 200:
                        result = response.json().get("result") or {}
                        if result.get("isError"):
                            outcome = "200 " + str((result.get("_meta") or {}).get("athaus/code", "error"))
                except httpx.HTTPError as error:
                    outcome = type(error).__name__
                with lock:
                    statuses[outcome] += 1
                    latencies.append(time.perf_counter() - started)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    latencies.sort()
    return {
        "requests": len(latencies),
        "answers": dict(statuses),
        "p50_ms": round(statistics.median(latencies) * 1000, 1) if latencies else None,
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1) if latencies else None,
    }


def stalled(url: str, count: int) -> dict[str, object]:
    import socket

    host, port = url.removeprefix("http://").split(":")
    sockets = []
    opened = time.monotonic()
    for _ in range(count):
        sock = socket.create_connection((host, int(port)), timeout=30)
        sock.sendall(f"POST /suche/mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Length: 100000\r\n\r\n".encode() + b"x" * 1000)
        sockets.append(sock)
    time.sleep(1)  # the server has taken them all in
    started = time.perf_counter()
    beside = httpx.post(f"{url}/suche/mcp", content=body(0), headers=HEADERS, timeout=30)
    beside_ms = (time.perf_counter() - started) * 1000
    closed = 0
    for sock in sockets:
        sock.settimeout(max(0.01, opened + 120 - time.monotonic()))
        try:
            while sock.recv(4096):
                pass
            closed += 1
        except ConnectionResetError:
            closed += 1
        except TimeoutError:
            pass
        sock.close()
    return {"stalled": count, "beside_status": beside.status_code, "beside_ms": round(beside_ms, 1), "closed": closed,
            "all_closed_after_s": round(time.monotonic() - opened, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--large-kb", type=int, default=600)
    parser.add_argument("--stalled", type=int, default=0, help="connections that send half a body (see above)")
    parser.add_argument("--url", default=None, help="a running server instead of a fresh one")
    parser.add_argument("--token", default="", help="with --url: a bearer token (the fresh server: the demo seeker's)")
    args = parser.parse_args()
    if args.url:
        print(json.dumps(drive(args.url, args.clients, args.seconds, args.large_kb * 1000, args.token)))
        return
    with _fresh_database(args.backend, args.database_url) as database_url, _server(database_url, args.workers) as (url, tokens):
        token = tokens["seeker"] if isinstance(tokens, dict) else tokens
        if args.stalled:
            print(json.dumps({"backend": args.backend, **stalled(url, args.stalled)}), flush=True)
            return
        for large in (args.large_kb * 1000, 0):
            figures = drive(url, args.clients, args.seconds, large, token)
            print(json.dumps({"backend": args.backend, "workers": args.workers, "large_bytes": large, **figures}), flush=True)


if __name__ == "__main__":
    main()
