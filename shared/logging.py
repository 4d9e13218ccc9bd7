"""Structured logs: one JSON object per line on stderr."""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys


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
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
