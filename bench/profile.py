"""Where a loaded worker's CPU goes (issue 35): bench/load.py's mixed workload, sampled with py-spy.

    python -m bench.profile --backend postgresql --workers 2 --clients 20 --seconds 30
    python -m bench.profile --backend sqlite --workers 1 --clients 20 --seconds 30 --raw /tmp/athaus.prof

A fresh database and `athaus serve` as bench/load.py starts them (limits on, high), the mixed workload driven for
`--seconds`, and meanwhile py-spy samples every worker process of the server, only threads holding the GIL (CPU spent
in Python and in C under it, not waiting). Printed: the share of the samples per phase of a call (the HTTP and ASGI
layers above the token check; the SDK and the token check; the limits on use; the handler in its worker thread; the
result's envelope, checks and German text), per tool handler (its share of all samples and of the handler phase),
and the functions of our own code nearest to where the time went. py-spy comes with the `bench` extra
(`pip install -e '.[bench]'`); it reads other processes' memory, which needs root or ptrace rights.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from bench.load import DEFAULT_POSTGRES_URL, SERVER_PIDS, _fresh_database, _load, _server, measure_mixed

# The innermost of these frames in a stack names the phase its sample belongs to; a stack with none of them is the
# HTTP and ASGI layers above the token check (uvicorn, the edge middlewares).
PHASES = (
    ("result: envelope, checks, text", r"ToolRunner\._finish"),
    ("handler (worker thread)", r"kept_or_made|in_worker|WorkerThread\.run"),
    ("limits on use", r"ToolRunner\._limited"),
    ("SDK and token check", r"BearerAuthentication\.__call__"),
)
OUTSIDE = "HTTP and ASGI above the token check"
OWN_CODE = re.compile(r"\((shared|search_server|broker_server|athaus|contract)/")
HANDLER = re.compile(r"^(\w+) \((search_server|broker_server)/(\w+)\.py")


def _frames(line: str) -> tuple[list[str], int]:
    stack, _, count = line.rstrip().rpartition(" ")
    return [re.sub(r":\d+\)", ")", frame) for frame in stack.split(";")], int(count)


def _phase(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, pattern in PHASES:
            if re.search(pattern, frame):
                return name
    return OUTSIDE


def _handler(frames: list[str]) -> str | None:
    """The outermost frame of a server package: the tool's handler (side:function)."""
    for frame in frames:
        found = HANDLER.match(frame)
        if found:
            side = "makler" if found.group(2) == "broker_server" else "suche"
            return f"{side}:{found.group(1)}"
    return None


def summarise(raw: Path, top: int = 25) -> str:
    phases: Counter[str] = Counter()
    handlers: Counter[str] = Counter()
    own: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        frames, count = _frames(line)
        total += count
        phase = _phase(frames)
        phases[phase] += count
        if phase.startswith("handler"):
            handlers[_handler(frames) or "(runtime in the worker thread)"] += count
        nearest = next((frame for frame in reversed(frames) if OWN_CODE.search(frame)), "(none of ours)")
        own[nearest] += count
    if not total:
        return "no samples (py-spy saw no thread holding the GIL)"
    handler_total = sum(handlers.values()) or 1
    lines = [f"{total} samples", "", "phase                                   share"]
    lines += [f"{name:<38} {100 * n / total:5.1f} %" for name, n in phases.most_common()]
    lines += ["", "handler                                 share  of handler phase"]
    lines += [f"{name:<38} {100 * n / total:5.1f} %  {100 * n / handler_total:5.1f} %" for name, n in handlers.most_common()]
    lines += ["", f"nearest function of our own code (top {top})"]
    lines += [f"{100 * n / total:5.1f} %  {name}" for name, n in own.most_common(top)]
    return "\n".join(lines)


def _record(pid: int, seconds: float, delay: float, out: Path) -> subprocess.Popen[bytes]:
    time.sleep(delay)
    command = ["py-spy", "record", "--pid", str(pid), "--subprocesses", "--gil", "--nonblocking", "--rate", "100",
               "--duration", str(max(1, int(seconds))), "--format", "raw", "--output", str(out)]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--database-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--raw", type=Path, help="keep py-spy's raw samples there (folded stacks)")
    args = parser.parse_args(argv)
    if shutil.which("py-spy") is None:
        print("py-spy fehlt: pip install -e '.[bench]'", file=sys.stderr)
        return 2
    workers = args.workers or (1 if args.backend == "sqlite" else max(1, os.cpu_count() or 1))
    raw = args.raw or Path(tempfile.mkdtemp()) / "samples.txt"
    with _fresh_database(args.backend, args.database_url) as database_url, _server(database_url, workers) as (url, tokens):
        print(f"backend {args.backend}, {workers} workers, {args.clients} clients, {args.seconds:g} s, load {_load()}")
        recorder: list[subprocess.Popen[bytes]] = []
        # the sessions look up their references first: sampling starts a few seconds in and ends before the run does
        starter = threading.Thread(target=lambda: recorder.append(_record(SERVER_PIDS["athaus"], args.seconds - 6, 4, raw)))
        starter.start()
        rows = measure_mixed(url, tokens["seeker_writes"], tokens["broker"], [args.clients], args.seconds)
        starter.join()
        recorder[0].wait(60)
    row = rows[0]
    print(f"{row['calls']} calls, {row['calls_per_s']:.1f} calls/s, {row['errors']} errors, server CPU {row['cpu_ms']:.1f} ms per call, load after {_load()}")
    print(summarise(raw))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
