"""Spans and pseudonyms. Without an OTLP endpoint no tracer provider is installed and every span is a no-op."""

from __future__ import annotations

import hashlib
import hmac
import os

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from opentelemetry import trace
from opentelemetry.environment_variables import OTEL_PYTHON_TRACER_PROVIDER
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider

from shared.identity import version

tracer = trace.get_tracer("athaus")
_OFF = (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
_pseudonym_key = b""
_exporting = False


def otlp_endpoint(configured: str | None) -> str | None:
    """The traces endpoint: ATHAUS_OTLP_ENDPOINT, else the standard OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT; None: off."""
    if configured:
        return configured.rstrip("/") + "/v1/traces"
    return os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or (
        os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/") + "/v1/traces" if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT") else None
    )


def configure(*, configured_endpoint: str | None, pseudonym_key: bytes) -> bool:
    """Once per process, when the app is built: the key of pseudonyms, and the OTLP exporter if an endpoint is set.
    True when spans are exported."""
    global _pseudonym_key, _exporting
    _pseudonym_key = pseudonym_key
    endpoint = otlp_endpoint(configured_endpoint)
    if endpoint is None or _exporting:
        return _exporting
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME", "athaus-mcp"), "service.version": version()})
    provider = athaus_provider(resource=resource)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    trace.set_tracer_provider(provider)
    _exporting = True
    return True


FLUSH_SECONDS = 5.0


def flush() -> None:
    """At the end of serving: the spans still in the batch processor go to the exporter (within FLUSH_SECONDS). A
    process ended by a signal runs no atexit hook, where the SDK's provider would do this at its shutdown."""
    force_flush = getattr(trace.get_tracer_provider(), "force_flush", None)
    if callable(force_flush):
        force_flush(int(FLUSH_SECONDS * 1000))


# Query parameters that carry a secret: the token of invitation, confirmation and reset links (`?t=…`).
SECRET_PARAMETERS = frozenset({"t"})
REDACTED = "REDACTED"


def redacted_query(query: str) -> str:
    return urlencode([(key, REDACTED if key in SECRET_PARAMETERS else value) for key, value in parse_qsl(query, keep_blank_values=True)])


class RedactSecretParameters(SpanProcessor):
    """Overwrites the secret query parameters in `url.query` and `url.full` as a span starts, whoever made it (FastAPI's
    own HTTP spans record the query string and redact only cloud signatures): no exported span carries a link's token."""

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        attributes = span.attributes or {}
        if isinstance(query := attributes.get("url.query"), str) and query:
            span.set_attribute("url.query", redacted_query(query))
        if isinstance(full := attributes.get("url.full"), str) and "?" in full:
            parts = urlsplit(full)
            span.set_attribute("url.full", urlunsplit(parts._replace(query=redacted_query(parts.query))))


def athaus_provider(**kwargs: Any) -> TracerProvider:
    """A tracer provider that redacts secret query parameters before any exporter added later sees a span."""
    provider = TracerProvider(**kwargs)
    provider.add_span_processor(RedactSecretParameters())
    return provider


# Until a provider is set, OpenTelemetry looks for one in the environment on every lookup (a KeyError per call: a
# percent of a loaded worker's CPU, twice per call, issue 35). One is set at most once per process and never unset, so
# the lookup is asked only while none is set, or when the environment names one (OpenTelemetry loads that lazily).
_ENVIRONMENT_NAMES_ONE = OTEL_PYTHON_TRACER_PROVIDER in os.environ
_provider_seen = False


def tracing_on() -> bool:
    """Whether a tracer provider is installed (configure's exporter, or a test's): without one every span is a no-op,
    and what only a span would carry (an incoming traceparent, its attributes) need not be made per request."""
    global _provider_seen
    if not _provider_seen and (_ENVIRONMENT_NAMES_ONE or getattr(trace, "_TRACER_PROVIDER", True) is not None):
        _provider_seen = not isinstance(trace.get_tracer_provider(), _OFF)
    return _provider_seen


def pseudonym(kind: str, ident: int | None) -> str | None:
    """A keyed hash naming an office, seeker or user without its id or e-mail: stable per deployment (the key lives
    in the database), not reversible without the key."""
    if ident is None:
        return None
    digest = hmac.new(_pseudonym_key, f"{kind}:{ident}".encode(), hashlib.sha256).hexdigest()
    return f"{kind[0]}-{digest[:16]}"


def caller_fields(kind: str, user_id: int, office_id: int | None, client_id: str | None) -> dict[str, str]:
    """What a span and the `tool_call` log line say about the caller: pseudonyms and the OAuth client id."""
    fields = {"user": pseudonym("user", user_id) or ""}
    if office_id is not None:
        fields["office"] = pseudonym("office", office_id) or ""
    elif kind == "seeker":
        fields["seeker"] = pseudonym("seeker", user_id) or ""
    if client_id:
        fields["client_id"] = client_id
    return fields
