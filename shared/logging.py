"""Logs on stderr: one JSON object per line (production, or ATHAUS_LOG_FORMAT=json), or short German lines (time, level,
what happened) on a terminal in development mode (ATHAUS_LOG_FORMAT=text asks for them anywhere). Every line logged
while a request runs names its request id (in JSON). A record's message is a JSON object (`event` and fields, `text`
with a German sentence for people) or plain text."""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import sys
from typing import Any

# The request id of the HTTP request being handled (shared/telemetry/asgi.py sets it; worker threads inherit it).
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("athaus_request_id", default=None)


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (`record.request_id`, None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


def _payload(record: logging.LogRecord) -> dict[str, object]:
    try:
        payload = json.loads(record.getMessage())
        if not isinstance(payload, dict):
            raise ValueError
    except ValueError:
        payload = {"message": record.getMessage()}
    return payload


class JsonLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        payload = _payload(record)
        entry = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            **payload,
        }
        request_id = getattr(record, "request_id", None)
        if request_id is not None:
            entry["request_id"] = request_id
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


LEVELS = {"WARNING": "WARNUNG", "ERROR": "FEHLER", "CRITICAL": "KRITISCH"}


class ConsoleFormatter(logging.Formatter):
    """`16:41:02 INFO    Datenbank migriert: 18 Schritte in 0,4 s` (local time): the record's German `text`, its plain
    message, or its event with the fields."""

    def format(self, record: logging.LogRecord) -> str:
        payload = _payload(record)
        text = payload.get("text") or payload.get("message")
        if not text:
            fields = " ".join(f"{key}={value}" for key, value in payload.items() if key != "event")
            text = f"{payload.get('event', '')} {fields}".strip()
        stamp = dt.datetime.fromtimestamp(record.created).strftime("%H:%M:%S")
        line = f"{stamp} {LEVELS.get(record.levelname, record.levelname):<8}{text}"
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


# What says nothing to an operator, lowered at its logger: the MCP SDK's "Terminating session: None" for every stateless
# request and "session manager started" per endpoint; Alembic's line per migration and plugin (shared/db/migrate.py says one line
# for all of them).
# SQLAlchemy names a pool's logger by its class: the metered pool (shared/telemetry/database.py) logged "Pool disposed"
# at INFO, outside the "sqlalchemy" logger that SQLAlchemy keeps at WARNING.
QUIET = ("mcp.server.streamable_http", "mcp.server.streamable_http_manager", "alembic", "shared.telemetry.database.MeteredQueuePool")
# On the console the start block says where the server listens (athaus/cli.py): uvicorn's own start lines go.
QUIET_ON_CONSOLE = ("uvicorn.error",)


def console_wanted(log_format: str, development: bool) -> bool:
    """Short German lines: asked for (text), or by default (auto) in development mode on a terminal."""
    if log_format in ("text", "json"):
        return log_format == "text"
    return development and sys.stderr.isatty()


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to `sys.stderr` as it is when a record comes, not as it was at `configure`: whoever swaps stderr and
    closes its stand-in (pytest around a console command run in-process) otherwise leaves a handler on a closed
    stream, and every later record fails with "I/O operation on closed file"."""

    def __init__(self) -> None:
        logging.Handler.__init__(self)

    @property  # type: ignore[override]
    def stream(self) -> Any:
        return sys.stderr


def configure(level: str, console: bool = False) -> None:
    handler = StderrHandler()
    handler.setFormatter(ConsoleFormatter() if console else JsonLineFormatter())
    handler.addFilter(RequestIdFilter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
    for name in QUIET + (QUIET_ON_CONSOLE if console else ()):
        logging.getLogger(name).setLevel(max(logging.WARNING, logging.getLogger().level))
