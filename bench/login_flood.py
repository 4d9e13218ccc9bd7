"""Parallel wrong logins against the web app's login form (/app/anmelden): the server's memory and how long /healthz
takes meanwhile.

Starts `athaus serve` on a fresh SQLite database with a small demo (one process), sends N wrong passwords for one demo
account at once (each its own connection, one CSRF cookie), samples the server's resident memory every 20 ms and asks
/healthz every 50 ms while they run. `--source DIR` runs the server from another checkout (e.g. the code before the
throttle: `git archive <commit> | tar -x -C DIR`), with this environment's packages.

    .venv/bin/python -m bench.login_flood --parallel 60
    .venv/bin/python -m bench.login_flood --parallel 60 --source /tmp/before
    .venv/bin/python -m bench.login_flood --parallel 60 --distinct
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

OWNER = "inhaberin@athaus-demo.example"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"VmRSS:\s+(\d+) kB", status)
    return int(found.group(1)) / 1024 if found else 0.0


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--parallel", type=int, default=60)
    options.add_argument("--source", default=None, help="checkout to run the server from (default: this one)")
    options.add_argument("--distinct", action="store_true", help="one address typed per attempt (only the limit per connection applies)")
    args = options.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="athaus-login-flood-"))
    port = free_port()
    env = {
        **os.environ,
        "ATHAUS_DATABASE_URL": f"sqlite:///{folder / 'flood.sqlite3'}",
        "ATHAUS_DEMO_SEED": "false",
        "ATHAUS_LOG_LEVEL": "WARNING",
        "ATHAUS_OUTBOX_WORKER": "false",
    }
    if args.source:
        env["PYTHONPATH"] = args.source
    # `python -m` puts the working directory first on the path: the checkout to run decides what is imported
    cwd = args.source or str(Path(__file__).resolve().parent.parent)
    seed = [sys.executable, "-m", "athaus.cli", "demo", "seed", "--listings", "60"]
    subprocess.run(seed, env=env, cwd=cwd, check=True, capture_output=True)
    serve = [sys.executable, "-m", "athaus.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(serve, env=env, cwd=cwd, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        idle = rss_mb(server.pid)
        http = httpx.Client(base_url=base, timeout=120)
        page = http.get("/app/anmelden").text
        token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        cookies = dict(http.cookies)
        done = threading.Event()
        peak = [idle]
        health: list[float] = []

        def sample() -> None:
            while not done.is_set():
                peak[0] = max(peak[0], rss_mb(server.pid))
                time.sleep(0.02)

        def probe() -> None:
            with httpx.Client(base_url=base, timeout=60) as prober:
                while not done.is_set():
                    started = time.monotonic()
                    prober.get("/healthz")
                    health.append(time.monotonic() - started)
                    time.sleep(0.05)

        def attempt(number: int) -> int:
            with httpx.Client(base_url=base, timeout=120, cookies=cookies) as client:
                email = f"person{number}@example.de" if args.distinct else OWNER
                answer = client.post("/app/anmelden", data={"csrf_token": token, "email": email, "password": f"falsch-{number}"})
                return answer.status_code

        watchers = [threading.Thread(target=sample), threading.Thread(target=probe)]
        for watcher in watchers:
            watcher.start()
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(args.parallel) as pool:
            statuses = collections.Counter(pool.map(attempt, range(args.parallel)))
        seconds = time.monotonic() - started
        done.set()
        for watcher in watchers:
            watcher.join()
        target = "as many addresses" if args.distinct else "one address"
        print(f"source: {args.source or 'this checkout'}; {args.parallel} parallel wrong logins for {target} at /app/anmelden")
        print(f"answers: {dict(sorted(statuses.items()))} in {seconds:.1f} s")
        print(f"server memory (RSS): {idle:.0f} MB idle, peak {peak[0]:.0f} MB, {rss_mb(server.pid):.0f} MB after")
        print(f"/healthz meanwhile: {len(health)} answers, slowest {max(health) * 1000:.0f} ms")
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
