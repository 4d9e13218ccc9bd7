"""Structured logs: one JSON object per line on stderr; every line logged while a request runs names its request id."""

from __future__ import annotations

import contextvars
import datetime as dt
import json
import logging
import sys

# The request id of the HTTP request being handled (shared/telemetry/asgi.py sets it; worker threads inherit it).
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("athaus_request_id", default=None)


class RequestIdFilter(logging.Filter):
    """Puts the current request id on every record (`record.request_id`, None outside a request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get()
        return True


class JsonLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        try:
            payload = json.loads(record.getMessage())
            if not isinstance(payload, dict):
                raise ValueError
        except ValueError:
            payload = {"message": record.getMessage()}
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


def configure(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    handler.addFilter(RequestIdFilter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
