"""Database telemetry: a span per statement (its operation, never its parameters) and the pool's gauges."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode
from sqlalchemy import Engine, event
from sqlalchemy.pool import QueuePool

from shared.telemetry.metrics import POOL_IN_USE, POOL_WAITING
from shared.telemetry.tracing import tracer, tracing_on

_SPANS = "athaus.spans"


class MeteredQueuePool(QueuePool):
    """A QueuePool that counts the threads waiting for a connection (all connections out, overflow used up)."""

    def _do_get(self) -> Any:
        waits = self._pool.empty() and self._max_overflow > -1 and self._overflow >= self._max_overflow
        if not waits:
            return super()._do_get()
        POOL_WAITING.inc()
        try:
            return super()._do_get()
        finally:
            POOL_WAITING.dec()


def instrument(engine: Engine) -> None:
    system = engine.dialect.name
    event.listen(engine, "before_cursor_execute", _before(system))
    event.listen(engine, "after_cursor_execute", _after)
    event.listen(engine, "handle_error", _failed)
    event.listen(engine, "checkout", _checked_out)
    event.listen(engine, "checkin", _checked_in)


_IN_USE = "athaus.counted_in_use"


def _checked_out(_dbapi_connection: Any, record: Any, _proxy: Any) -> None:
    record.record_info[_IN_USE] = True
    POOL_IN_USE.inc()


def _checked_in(_dbapi_connection: Any, record: Any) -> None:
    """Only a checkout this gauge counted is taken back: a connection whose checkout failed before it was counted (the
    ping at checkout on a lost database) is checked in on invalidation too, and drove the gauge below zero."""
    if record is not None and record.record_info.pop(_IN_USE, False):
        POOL_IN_USE.dec()


def _before(system: str) -> Any:
    def before(connection: Any, _cursor: Any, statement: str, _parameters: Any, _context: Any, executemany: bool) -> None:
        if not tracing_on():  # no provider, no span: nor the statement's operation read per statement (issue 35)
            return
        operation = statement.lstrip().split(None, 1)[0].upper() if statement.strip() else "SQL"
        span = tracer.start_span(
            f"{operation} {system}", kind=SpanKind.CLIENT,
            attributes={"db.system.name": system, "db.operation.name": operation, "db.operation.batch": executemany},
        )
        connection.info.setdefault(_SPANS, []).append(span)

    return before


def _after(connection: Any, *_: Any) -> None:
    spans = connection.info.get(_SPANS)
    if spans:
        spans.pop().end()


def _failed(context: Any) -> None:
    connection = context.connection
    spans = connection.info.get(_SPANS) if connection is not None else None
    if spans:
        span: trace.Span = spans.pop()
        span.set_status(Status(StatusCode.ERROR, type(context.original_exception).__name__))
        span.end()
