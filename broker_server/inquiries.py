"""Handlers of this tool family, by tool name; the server definition merges them."""

from __future__ import annotations

from shared.runtime.adapter import Handler

HANDLERS: dict[str, Handler] = {}
