"""Time and peak memory of the OpenImmo import (import_listings' domain path) as the transfer grows.

For each size this writes a full transfer (umfang="VOLL") of N flats to a temporary file, streams it, imports it
into a fresh migrated SQLite database (or PostgreSQL with --database-url, one database per size) as office 1 of a
small demo catalog (new listings stay drafts unless --publish), and prints the wall time, the process's CPU time
(on a shared machine the steadier figure), objects and megabytes per second and the process's peak RSS. It then
imports the same transfer again and prints that nothing changed. Timed runs go without tracemalloc (it slows Python
several times over); `--memory` runs the same with tracemalloc and prints Python's allocation peak instead. Memory
stays flat because the reader keeps one `<immobilie>` at a time and the writes commit a chunk at a time; what grows
with N is the set of objektnr_extern a VOLL transfer must remember to know what is missing.

    python -m bench.openimmo_import --objects 1000 10000
"""

from __future__ import annotations

import argparse
import datetime as dt
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
import xml.etree.ElementTree as ET
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from contract.vocabulary import TransferSource
from shared.db.migrate import upgrade
from shared.db.session import Database
from shared.demo import DEMO_NOW, seed_demo
from shared.demo.openimmo import write_transfer
from shared.openimmo import ParsedObject, read_transfer
from shared.stock_import import import_transfer

OFFICE = 1
MAX_BYTES = 1024 * 1024 * 1024


def peak_rss_mb() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / 1024 / (1024 if sys.platform == "darwin" else 1)


def fresh_database(base_url: str | None, tmp: Path, size: int) -> tuple[Database, object]:
    if base_url is None:
        return Database.from_url(f"sqlite:///{tmp / f'import_{size}.sqlite3'}"), lambda: None
    name = f"athaus_bench_import_{size}_{uuid.uuid4().hex[:6]}"
    admin = create_engine(base_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))

    def drop() -> None:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()

    return Database.from_url(make_url(base_url).set(database=name).render_as_string(hide_password=False)), drop


def measured(work, memory: bool):  # type: ignore[no-untyped-def]
    """(result, wall seconds, CPU seconds, tracemalloc peak MB or None) of work()."""
    if memory:
        tracemalloc.start()
    started, cpu = time.perf_counter(), time.process_time()
    result = work()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = None
    if memory:
        peak = tracemalloc.get_traced_memory()[1] / 1024 / 1024
        tracemalloc.stop()
    return result, elapsed, cpu, peak


def run_once(db: Database, path: Path, now: dt.datetime, publish: bool, memory: bool):  # type: ignore[no-untyped-def]
    """(wall, CPU, tracemalloc peak, counts, longest gap in seconds between progress notes, from the start to the end)."""
    notes = [time.perf_counter()]

    def note(done: float, total: float | None, message: str | None) -> None:
        notes.append(time.perf_counter())

    def work():  # type: ignore[no-untyped-def]
        with path.open("rb") as source:
            return import_transfer(
                db, source, source_kind=TransferSource.upload, office_id=OFFICE, user_id=None, client_id="bench",
                max_bytes=MAX_BYTES, publish=publish, now=now, progress=note,
            )

    result, elapsed, cpu, peak = measured(work, memory)
    gap = max(later - earlier for earlier, later in zip(notes, notes[1:]))
    return elapsed, cpu, peak, result.counts.model_dump(), gap


def read_only(path: Path, memory: bool):  # type: ignore[no-untyped-def]
    """The reader alone (no database): objects read, wall and CPU seconds, tracemalloc peak."""
    def work() -> int:
        with path.open("rb") as source:
            return sum(1 for item in read_transfer(source, max_bytes=MAX_BYTES) if isinstance(item, ParsedObject))

    return measured(work, memory)


def plain_parse(path: Path):  # type: ignore[no-untyped-def]
    """The yardstick beside the reader: the standard library's streaming parser over the same file, each object
    cleared once read, nothing checked, normalised or mapped. The reader's MB/s over this one's carries from one
    machine to another, where the MB/s alone does not."""
    def work() -> int:
        count = 0
        for _, element in ET.iterparse(path):
            if element.tag == "immobilie":
                count += 1
                element.clear()
        return count

    return measured(work, False)


def line(size: int, megabytes: float, run: str, elapsed: float, cpu: float, peak: float | None, counts: str) -> str:
    shown = f"{peak:.1f}" if peak is not None else "-"
    return (f"{size:>8} {megabytes:>8.1f} {run:>6} {elapsed:>8.2f} {cpu:>8.2f} {size / elapsed:>7.0f} {megabytes / elapsed:>6.1f} "
            f"{shown:>8} {peak_rss_mb():>8.0f}  {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--objects", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--database-url", default=None, help="PostgreSQL server URL; default: SQLite files")
    parser.add_argument(
        "--publish", action="store_true",
        help="publish each new listing (runs check_listing and matches every saved search: much slower)",
    )
    parser.add_argument("--read-only", action="store_true", help="only the reader, no database")
    parser.add_argument("--memory", action="store_true", help="run under tracemalloc and print Python's peak (slower)")
    parser.add_argument("--single", action="store_true", help=argparse.SUPPRESS)  # one size in this process
    args = parser.parse_args()
    if not args.single:  # each size in its own process, so the peak RSS is that size's own
        print(f"{'objects':>8} {'MB file':>8} {'run':>6} {'wall s':>8} {'CPU s':>8} {'obj/s':>7} {'MB/s':>6} "
              f"{'peak MB':>8} {'RSS MB':>8}  counts", flush=True)
        for size in args.objects:
            extra = ["--database-url", args.database_url] if args.database_url else []
            extra += ["--publish"] if args.publish else []
            extra += ["--read-only"] if args.read_only else []
            extra += ["--memory"] if args.memory else []
            subprocess.run([sys.executable, "-m", "bench.openimmo_import", "--single", "--objects", str(size), *extra], check=True)
        return
    now = DEMO_NOW + dt.timedelta(days=1)
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        for size in args.objects:
            path = tmp / f"transfer_{size}.xml"
            with path.open("wb") as out:
                write_transfer(out, (f"B-{i:06d}" for i in range(size)), scope="VOLL", provider="BENCH01")
            megabytes = path.stat().st_size / 1024 / 1024
            if args.read_only:
                objects, elapsed, cpu, peak = read_only(path, args.memory)
                print(line(size, megabytes, "read", elapsed, cpu, peak, f"read {objects}"), flush=True)
                _, plain, plain_cpu, _ = plain_parse(path)
                print(line(size, megabytes, "plain", plain, plain_cpu, None,
                           f"ElementTree.iterparse alone; the reader takes {elapsed / plain:.1f}x its time"), flush=True)
                continue
            db, drop = fresh_database(args.database_url, tmp, size)
            try:
                upgrade(db.engine)
                seed_demo(db.engine, listings=50)
                for run in ("first", "again"):
                    elapsed, cpu, peak, counts, gap = run_once(db, path, now, args.publish, args.memory)
                    shown = ", ".join(f"{k} {v}" for k, v in counts.items() if v) + f"; progress gap ≤ {gap:.2f} s"
                    print(line(size, megabytes, run, elapsed, cpu, peak, shown), flush=True)
            finally:
                db.engine.dispose()
                drop()  # type: ignore[operator]


if __name__ == "__main__":
    main()
