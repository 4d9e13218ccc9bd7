"""Process metrics of every process of this instance, read from /proc at scrape time (Linux, the documented platform).

prometheus_client's own ProcessCollector describes only the process that answers the scrape, and in multiprocess mode
it is not collected at all. So each process of `athaus serve` (the supervisor and every worker) leaves a marker in
PROMETHEUS_MULTIPROC_DIR, named by its role, pid and start time (in clock ticks since boot, from /proc/<pid>/stat). A
scrape reads /proc for every marker whose process still runs with that start time; a marker whose pid is gone or was
reused by another process is removed, and so are that process's live gauges (prometheus_client's `mark_process_dead`:
a worker uvicorn replaced no longer adds its last pool figures to the sum). Without a multiprocess folder (one process) the scraping process is the one."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from prometheus_client import multiprocess
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

MARKER_PREFIX = "athaus_process_"
_MARKER = re.compile(re.escape(MARKER_PREFIX) + r"(supervisor|worker)_(\d+)_(\d+)")
LABELS = ["pid", "role"]


@dataclass(frozen=True)
class Reading:
    pid: int
    role: str
    start_ticks: int
    resident_bytes: int
    cpu_seconds: float
    start_time_seconds: float
    open_fds: int | None  # None: /proc/<pid>/fd not readable
    max_fds: int | None


def _ticks_per_second() -> int:
    return os.sysconf("SC_CLK_TCK")


def _boot_time() -> float:
    with open("/proc/stat", encoding="ascii") as stat:
        for line in stat:
            if line.startswith("btime "):
                return float(line.split()[1])
    raise OSError("/proc/stat names no btime")


def _stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat from field 3 (state) on: the command name in parentheses may hold spaces and ')'."""
    with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def start_ticks(pid: int) -> int:
    return int(_stat_fields(pid)[19])  # field 22: starttime


def register(role: str) -> Path | None:
    """Marks this process as one of this instance's (role: "supervisor" or "worker"); None without a multiprocess
    folder, where a scrape describes the scraping process alone."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not folder:
        return None
    pid = os.getpid()
    marker = Path(folder) / f"{MARKER_PREFIX}{role}_{pid}_{start_ticks(pid)}"
    marker.touch()
    return marker


def _max_fds(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/limits", encoding="ascii") as limits:
            for line in limits:
                if line.startswith("Max open files"):
                    soft = line.split()[3]
                    return int(soft) if soft.isdigit() else None
    except OSError:
        return None
    return None


def read(pid: int, role: str, expected_start: int | None = None) -> Reading | None:
    """The figures of one process; None if it is gone (or, with `expected_start`, its pid now names another process)."""
    try:
        fields = _stat_fields(pid)
        started = int(fields[19])
        if fields[0] in ("Z", "X") or (expected_start is not None and started != expected_start):
            return None  # ended (a zombie until its parent reaps it), or the pid now names another process
        with open(f"/proc/{pid}/statm", encoding="ascii") as statm:
            resident_pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    ticks = _ticks_per_second()
    try:
        open_fds: int | None = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        open_fds = None
    return Reading(
        pid=pid, role=role, start_ticks=started, resident_bytes=resident_pages * os.sysconf("SC_PAGE_SIZE"),
        cpu_seconds=(int(fields[11]) + int(fields[12])) / ticks, start_time_seconds=_boot_time() + started / ticks,
        open_fds=open_fds, max_fds=_max_fds(pid),
    )


def readings(folder: str | None) -> list[Reading]:
    """Every live process of this instance, by pid; markers of processes that are gone are removed."""
    if not folder:
        own = read(os.getpid(), "worker")
        return [own] if own is not None else []
    found, gone = [], set()
    for entry in os.scandir(folder):
        match = _MARKER.fullmatch(entry.name)
        if match is None:
            continue
        role, pid, started = match.group(1), int(match.group(2)), int(match.group(3))
        reading = read(pid, role, started)
        if reading is None:
            Path(entry.path).unlink(missing_ok=True)
            gone.add(pid)
            continue
        found.append(reading)
    for pid in gone - {reading.pid for reading in found}:  # a pid reused by a new worker of ours keeps its files
        # another worker's scrape at the same moment may remove the same files: what it removed is gone either way
        with contextlib.suppress(FileNotFoundError):
            multiprocess.mark_process_dead(pid, folder)
    return sorted(found, key=lambda reading: reading.pid)


class ProcessCollector:
    """athaus_process_* with a `pid` and a `role` label, one series per live process of this instance."""

    def __init__(self, folder: str | None) -> None:
        self.folder = folder

    def collect(self) -> Iterable[Metric]:
        return self._families(readings(self.folder))

    @staticmethod
    def _families(found: list[Reading]) -> Iterator[Metric]:
        resident = GaugeMetricFamily("athaus_process_resident_memory_bytes", "Resident memory of each process", labels=LABELS)
        cpu = CounterMetricFamily("athaus_process_cpu_seconds", "User and system CPU time of each process", labels=LABELS)
        fds = GaugeMetricFamily("athaus_process_open_fds", "Open file descriptors of each process", labels=LABELS)
        max_fds = GaugeMetricFamily("athaus_process_max_fds", "Limit of open file descriptors of each process", labels=LABELS)
        started = GaugeMetricFamily("athaus_process_start_time_seconds", "Start of each process, seconds since the epoch", labels=LABELS)
        for reading in found:
            labels = [str(reading.pid), reading.role]
            resident.add_metric(labels, reading.resident_bytes)
            cpu.add_metric(labels, reading.cpu_seconds)
            started.add_metric(labels, reading.start_time_seconds)
            if reading.open_fds is not None:
                fds.add_metric(labels, reading.open_fds)
            if reading.max_fds is not None:
                max_fds.add_metric(labels, reading.max_fds)
        yield from (resident, cpu, fds, max_fds, started)
