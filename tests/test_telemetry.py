"""Observability (shared/telemetry/): spans read from an in-memory exporter, /metrics scraped, the request id on every
log line of a request, pseudonyms instead of ids, and SQL parameters never in the log.

The server runs in this process (tests/conftest.py LiveServer: uvicorn in a thread), so its spans reach the
in-memory exporter installed here; calls go through the official MCP client over real HTTP."""

from __future__ import annotations

import datetime as dt
import io
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from sqlalchemy import text

from broker_server.server import DEFINITION as BROKER
from shared.accounts.links import link, new_token
from shared.db.session import Database
from shared.logging import JsonLineFormatter, RequestIdFilter
from shared.telemetry.tracing import athaus_provider, pseudonym
from tests.conftest import Caller, LiveServer, make_context
from tests.test_broker_http import OWNER, token_for

EXPORTER = InMemorySpanExporter()
SECRET_EMAIL = "geheim-4711@example.org"


@pytest.fixture(scope="module")
def spans() -> InMemorySpanExporter:
    """The process's tracer provider (set once; later calls of set_tracer_provider are ignored by OpenTelemetry)."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = athaus_provider()  # as configure() builds it, with an in-memory exporter instead of OTLP
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    return EXPORTER


@pytest.fixture
def log_lines() -> Iterator[io.StringIO]:
    """The log as the server writes it (JSON lines with the request id filter), captured."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonLineFormatter())
    handler.addFilter(RequestIdFilter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    yield stream
    root.removeHandler(handler)
    root.setLevel(level)


@pytest.fixture(scope="module")
def server(demo_db: Database) -> Iterator[LiveServer]:
    with LiveServer(demo_db, metrics_token="nur-fuer-den-betrieb") as live:
        yield live


def call_tool(server: LiveServer, token: str, tool: str, arguments: dict[str, Any], request_id: str) -> Any:
    async def run() -> Any:
        headers = {"Authorization": f"Bearer {token}", "X-Request-Id": request_id}
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            async with Client(streamable_http_client(f"{server.base_url}/makler/mcp", http_client=http)) as client:
                return await client.call_tool(tool, arguments)

    return anyio.run(run)


def test_a_tool_call_is_a_span_with_pseudonyms_its_statements_are_children_and_every_log_line_names_the_request(
    server: LiveServer, demo_db: Database, spans: InMemorySpanExporter, log_lines: io.StringIO
) -> None:
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])
    spans.clear()
    result = call_tool(server, token, "list_valuations", {}, request_id="anfrage-4711")
    assert not result.is_error
    finished: list[ReadableSpan] = list(spans.get_finished_spans())
    tool = next(span for span in finished if span.name == "tool list_valuations")
    office, user = pseudonym("office", OWNER.office_id), pseudonym("user", OWNER_ID(demo_db))
    assert dict(tool.attributes or {}) == {
        "athaus.server": "makler", "athaus.tool": "list_valuations", "athaus.outcome": "OK",
        "athaus.user": user, "athaus.office": office, "athaus.client_id": "test", "athaus.request_id": "anfrage-4711",
    }
    assert office is not None and office.startswith("o-") and len(office) == 18 and OWNER.email not in str(tool.attributes)
    http = [span for span in finished if span.name == "POST /makler/mcp" and span.attributes.get("athaus.request_id") == "anfrage-4711"]
    assert http and {span.attributes["http.response.status_code"] for span in http} == {200}  # initialize, call, …
    # the MCP SDK's own span of the request is the parent (it continues the client's trace from _meta.traceparent)
    parents = [span for span in finished if tool.parent is not None and span.context.span_id == tool.parent.span_id]
    assert [span.name for span in parents] == ["tools/call list_valuations"]
    statements = [span for span in finished if span.attributes and "db.system.name" in span.attributes and span.parent and span.parent.span_id == tool.context.span_id]
    assert statements and {span.attributes["db.operation.name"] for span in statements} >= {"SELECT"}
    assert all("db.statement" not in span.attributes for span in statements)

    lines = [json.loads(line) for line in log_lines.getvalue().splitlines()]
    call_lines = [line for line in lines if line.get("event") == "tool_call" and line.get("request_id") == "anfrage-4711"]
    assert [{key: line[key] for key in ("tool", "outcome", "user", "office", "client_id")} for line in call_lines] == [
        {"tool": "list_valuations", "outcome": "OK", "user": user, "office": office, "client_id": "test"}
    ]
    assert OWNER.email not in log_lines.getvalue()


def OWNER_ID(db: Database) -> int:
    with db.read_only() as session:
        return int(session.execute(text("SELECT id FROM users WHERE email = :e"), {"e": OWNER.email}).scalar_one())


def test_the_request_id_is_taken_when_well_formed_made_otherwise_and_sent_back(server: LiveServer) -> None:
    assert httpx2.get(f"{server.base_url}/healthz", headers={"X-Request-Id": "lb-123.abc"}).headers["x-request-id"] == "lb-123.abc"
    for bad in ("", ("zu lang " * 20).strip(), "a;b", "x" * 65):
        made = httpx2.get(f"{server.base_url}/healthz", headers={"X-Request-Id": bad}).headers["x-request-id"]
        assert made != bad and len(made) == 32 and made.isalnum()


def test_metrics_are_the_operators_only_with_the_token(server: LiveServer, demo_db: Database) -> None:
    url = f"{server.base_url}/metrics"
    assert httpx2.get(url).status_code == 401
    assert httpx2.get(url, headers={"Authorization": "Bearer falsch"}).status_code == 401
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])
    call_tool(server, token, "list_valuations", {}, request_id="fuer-metriken")
    scraped = httpx2.get(url, headers={"Authorization": "Bearer nur-fuer-den-betrieb"})
    assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain; version=")
    samples = samples_of(scraped.text)
    assert samples[('athaus_tool_calls_total', (("outcome", "OK"), ("server", "makler"), ("tool", "list_valuations")))] >= 1
    assert samples[("athaus_tool_call_seconds_count", (("server", "makler"), ("tool", "list_valuations")))] >= 1
    assert ("athaus_http_request_seconds_bucket", (("le", "+Inf"), ("method", "POST"), ("route", "/makler/mcp"), ("status", "200"))) in samples
    assert samples[("athaus_db_pool_in_use", ())] >= 0 and samples[("athaus_db_pool_waiting", ())] == 0
    assert samples[("athaus_outbox_backlog", ())] >= 0 and ("athaus_outbox_failed", ()) in samples
    assert ("athaus_imports_running", ()) in samples and ("athaus_import_objects_total", ()) in samples


def test_without_a_configured_token_there_are_no_metrics(live_server: LiveServer) -> None:
    assert httpx2.get(f"{live_server.base_url}/metrics", headers={"Authorization": "Bearer irgendwas"}).status_code == 404


def samples_of(exposition: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(exposition)
        for sample in family.samples
    }


def test_several_worker_processes_are_summed(tmp_path: Path) -> None:
    """With PROMETHEUS_MULTIPROC_DIR (set by `athaus serve` for several workers) a scrape sums every process."""
    count = "from shared.telemetry.metrics import TOOL_CALLS; TOOL_CALLS.labels('suche', 'search_listings', 'OK').inc({n})"
    scrape = "from shared.telemetry.metrics import exposition; import sys; sys.stdout.write(exposition({}).decode())"
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    for n in (1, 2):
        subprocess.run([sys.executable, "-c", count.format(n=n)], env=env, check=True, timeout=60)
    out = subprocess.run([sys.executable, "-c", scrape], env=env, check=True, timeout=60, capture_output=True, text=True).stdout
    assert samples_of(out)[("athaus_tool_calls_total", (("outcome", "OK"), ("server", "suche"), ("tool", "search_listings")))] == 3


def test_sql_parameters_never_reach_the_log(demo_db: Database, log_lines: io.StringIO) -> None:
    """A statement that fails with a secret among its parameters: the logged failure names neither the value."""

    def leaky(args: Any, ctx: Any) -> Any:
        with ctx.db.read_only() as session:
            # a name, not the literal: a logged traceback quotes this source line
            session.execute(text("SELECT no_such_column FROM users WHERE email = :email"), {"email": SECRET_EMAIL})

    broker = replace(BROKER, handlers={**BROKER.handlers, "list_valuations": leaky})
    caller = Caller(broker, make_context(demo_db), principal_of_owner(demo_db))
    # SQLite says OperationalError (SOURCE_UNAVAILABLE), PostgreSQL UndefinedColumn (INTERNAL, logged with its traceback)
    expected = {"sqlite": "SOURCE_UNAVAILABLE", "postgresql": "INTERNAL"}[demo_db.engine.dialect.name]
    assert caller.error("list_valuations", {})[0] == expected
    logged = log_lines.getvalue()
    assert "no_such_column" in logged  # the failure is logged, with its statement
    assert "geheim-4711" not in logged and "[SQL parameters hidden due to hide_parameters=True]" in logged


def principal_of_owner(db: Database) -> Any:
    from shared.auth.principal import Principal

    return Principal(user_id=OWNER_ID(db), kind="broker", office_id=OWNER.office_id, office_role="owner",
                     scopes=frozenset({"makler:lesen"}), resource="http://127.0.0.1:8000/makler/mcp")


def test_spans_go_out_over_otlp_only_when_an_endpoint_is_configured(tmp_path: Path) -> None:
    """A collector stand-in on loopback receives the spans when OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing otherwise."""
    import http.server
    import threading

    received: list[tuple[str, str]] = []

    class Collector(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", 0)))
            received.append((self.path, self.headers.get("content-type", "")))
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    script = (
        "from opentelemetry import trace; from shared.telemetry import tracing\n"
        "exporting = tracing.configure(configured_endpoint=None, pseudonym_key=b'k')\n"
        "with tracing.tracer.start_as_current_span('tool search_listings'): pass\n"
        "provider = trace.get_tracer_provider(); getattr(provider, 'force_flush', lambda: None)()\n"
        "print(exporting)\n"
    )
    try:
        env = {key: value for key, value in os.environ.items() if not key.startswith("OTEL_")}
        off = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True)
        on = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True,
                            env={**env, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{collector.server_port}"})
    finally:
        collector.shutdown()
    assert (off.stdout.strip(), on.stdout.strip()) == ("False", "True")
    assert received == [("/v1/traces", "application/x-protobuf")]


def test_a_reset_links_token_is_in_no_exported_span(server: LiveServer, demo_db: Database, spans: InMemorySpanExporter) -> None:
    """Opening a reset link (`?t=…`) and posting its form: the exported spans (HTTP, SQL) name the route group, never
    the token: FastAPI's own span keeps `url.query` with `t=REDACTED`, nothing else names the token."""
    with demo_db.unit_of_work() as session:
        token = new_token(session, purpose="reset", email=OWNER.email, now=dt.datetime.now(dt.UTC))
    spans.clear()
    answer = httpx2.get(link(server.base_url, "reset", token), timeout=30)
    assert answer.status_code == 200 and token in answer.text
    # the server's spans end after the last byte went out: wait for them rather than read too early (a busy machine)
    until = time.monotonic() + 10
    while True:
        finished = list(spans.get_finished_spans())
        http = [span for span in finished if span.name == "GET /oauth"]
        queries = [span.attributes["url.query"] for span in finished if span.attributes and "url.query" in span.attributes]
        if (http and queries) or time.monotonic() > until:
            break
        time.sleep(0.05)
    assert len(http) == 1 and dict(http[0].attributes or {}) == {
        "http.request.method": "GET", "http.route": "/oauth", "athaus.request_id": http[0].attributes["athaus.request_id"],
        "http.response.status_code": 200,
    }
    exported = json.dumps([{"name": span.name, "attributes": dict(span.attributes or {}), "events": [dict(e.attributes or {}) for e in span.events]} for span in finished])
    assert token not in exported
    queries = [span.attributes["url.query"] for span in finished if span.attributes and "url.query" in span.attributes]
    assert queries == ["t=REDACTED"]
