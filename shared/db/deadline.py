"""The deadline of the call in progress, seen by the database layer (statement timeout, SQLite progress handler).

The runtime opens one per call (`within`); the worker thread that runs the handler inherits it through the
context, so every statement of the call knows how much time is left."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("athaus_deadline", default=None)


class DeadlineExceeded(Exception):
    """The call's deadline passed before its work was done."""


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Run the block under a deadline `seconds` from now (an outer, earlier deadline is kept)."""
    at = time.monotonic() + seconds
    outer = _deadline.get()
    token = _deadline.set(at if outer is None else min(outer, at))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (may be negative), or None outside a call."""
    at = _deadline.get()
    return None if at is None else at - time.monotonic()


def expired() -> bool:
    left = remaining()
    return left is not None and left <= 0
