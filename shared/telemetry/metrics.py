"""Prometheus metrics. With several worker processes (`athaus serve --workers N`) every process writes its values to
PROMETHEUS_MULTIPROC_DIR (set by `athaus serve`) and a scrape of any worker sums them. `/metrics` is the operator's:
it answers only when ATHAUS_METRICS_TOKEN is set, and only to a request that sends it as bearer token. A scrape describes
one instance (its processes): Prometheus scrapes each instance on its own address, never the balanced public name
(docs/betrieb.md, "Kennzahlen und Traces")."""

from __future__ import annotations

import hmac
import os
import platform
from collections.abc import Callable, Iterable, Mapping

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from shared.identity import commit, version
from shared.telemetry.processes import ProcessCollector

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
LOGINS = Counter("athaus_logins", "Login attempts by outcome", ["outcome"])
LOGIN_OUTCOMES = ("ok", "wrong_password", "throttled")
THROTTLED = Counter("athaus_throttled", "Form attempts refused by a throttle, by form", ["form"])
DELIVERIES = Counter("athaus_outbox_deliveries", "Delivery attempts of outbox e-mails by outcome", ["outcome"])
DELIVERY_OUTCOMES = ("sent", "retry", "failed")
# every outcome from the start, at 0: a rate over a series that appears only with its first event misses that event
for _outcome in LOGIN_OUTCOMES:
    LOGINS.labels(_outcome)
for _outcome in DELIVERY_OUTCOMES:
    DELIVERIES.labels(_outcome)

# Read from the database at each scrape (the same figure in every process): name → (help, read).
DatabaseGauges = Mapping[str, tuple[str, Callable[[], float]]]


class _DatabaseCollector:
    def __init__(self, gauges: DatabaseGauges) -> None:
        self.gauges = gauges

    def collect(self) -> Iterable[Metric]:
        for name, (help_text, read) in self.gauges.items():
            yield GaugeMetricFamily(name, help_text, value=read())


class _BuildCollector:
    def collect(self) -> Iterable[Metric]:
        info = GaugeMetricFamily("athaus_build_info", "The running build: version, commit and Python", labels=["version", "commit", "python"])
        info.add_metric([version(), commit() or "", platform.python_version()], 1)
        yield info


def exposition(database_gauges: DatabaseGauges) -> bytes:
    """The metrics of this instance in Prometheus text format (every worker's, when there are several)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        processes = CollectorRegistry()
        multiprocess.MultiProcessCollector(processes)
        text = generate_latest(processes)
    else:
        text = generate_latest(REGISTRY)
    # read now, once per scrape, never summed over processes
    current = CollectorRegistry()
    current.register(_DatabaseCollector(database_gauges))
    current.register(_BuildCollector())
    current.register(ProcessCollector(folder))
    return text + generate_latest(current)


CONTENT_TYPE = CONTENT_TYPE_LATEST


def operator_may_read(configured_token: str | None, authorization: str | None) -> bool | None:
    """None: /metrics is not served (no token configured: 404); False: wrong or missing bearer (401); True: serve."""
    if not configured_token:
        return None
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), configured_token.encode())
