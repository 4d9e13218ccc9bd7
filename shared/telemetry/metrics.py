"""Prometheus metrics. With several worker processes (`athaus serve --workers N`) every process writes its values to
PROMETHEUS_MULTIPROC_DIR (set by `athaus serve`) and a scrape of any worker sums them. `/metrics` is the operator's:
it answers only when ATHAUS_METRICS_TOKEN is set, and only to a request that sends it as bearer token."""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

TOOL_CALLS = Counter("athaus_tool_calls", "Tool calls by server, tool and outcome code", ["server", "tool", "outcome"])
TOOL_SECONDS = Histogram("athaus_tool_call_seconds", "Duration of tool calls", ["server", "tool"], buckets=LATENCY_BUCKETS)
HTTP_SECONDS = Histogram(
    "athaus_http_request_seconds", "Duration of HTTP requests by route group, method and status", ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
POOL_IN_USE = Gauge("athaus_db_pool_in_use", "Database connections checked out of the pool", multiprocess_mode="livesum")
POOL_WAITING = Gauge("athaus_db_pool_waiting", "Threads waiting for a database connection", multiprocess_mode="livesum")
IMPORTS_RUNNING = Gauge("athaus_imports_running", "OpenImmo imports running now", multiprocess_mode="livesum")
RATE_LIMITED = Counter("athaus_rate_limited", "Tool calls refused by a limit on use, by scope and kind", ["scope", "kind"])
IMPORT_OBJECTS = Counter("athaus_import_objects", "OpenImmo objects processed by imports")

# Read from the database at each scrape (the same figure in every process): name → (help, read).
DatabaseGauges = Mapping[str, tuple[str, Callable[[], float]]]


class _DatabaseCollector:
    def __init__(self, gauges: DatabaseGauges) -> None:
        self.gauges = gauges

    def collect(self) -> Iterable[Metric]:
        for name, (help_text, read) in self.gauges.items():
            yield GaugeMetricFamily(name, help_text, value=read())


def exposition(database_gauges: DatabaseGauges) -> bytes:
    """The metrics of this deployment in Prometheus text format (every worker's, when there are several)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)
        text = generate_latest(processes)
    else:
        text = generate_latest(REGISTRY)
    current = CollectorRegistry()
    current.register(_DatabaseCollector(database_gauges))
    return text + generate_latest(current)


CONTENT_TYPE = CONTENT_TYPE_LATEST


def operator_may_read(configured_token: str | None, authorization: str | None) -> bool | None:
    """None: /metrics is not served (no token configured: 404); False: wrong or missing bearer (401); True: serve."""
    if not configured_token:
        return None
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), configured_token.encode())
