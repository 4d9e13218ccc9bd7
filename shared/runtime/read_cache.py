"""Answers of public catalog reads, kept per catalog revision (issue 21: throughput).

A public read (search_listings, count_listings, get_listing, search, fetch on the seeker side) depends only on its
arguments, the catalog and the day: the same arguments at the same catalog revision give the same answer. So its
finished CallToolResult is kept under its arguments and served again while the catalog revision read at the start of
the call is still the one it was made at. The revision is read from the database on every call (one primary-key
read), never from memory: a write committed by any worker or instance bumps it in the same transaction
(shared/catalog/indexing.py), so no call after a visible write is answered from before it.

What else an answer carries is bounded too: the day (an exposé says whether an energy certificate has expired) and
the next cursor's expiry, issued when the answer was made: an entry older than `max_age` is made again, so a cursor
handed out from the cache expires at most that much earlier. Account-specific tools are never kept: only tools a
server names as public reads, and those have no right to check (ServerDefinition checks that).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import mcp_types as types

# Entries, not bytes: a search page of ten summaries with its text is some ten kilobytes.
DEFAULT_ENTRIES = 256
DEFAULT_MAX_AGE = dt.timedelta(seconds=30)


@dataclass(frozen=True)
class _Entry:
    revision: int
    made: dt.datetime
    result: types.CallToolResult


def cache_key(tool: str, arguments: dict[str, Any]) -> str | None:
    """The key of a call's arguments; None for a call that continues a walk (its cursor is checked against the clock)."""
    if arguments.get("cursor"):
        return None
    try:
        return tool + "\n" + json.dumps(arguments, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return None


_ALL: weakref.WeakSet[ReadCache] = weakref.WeakSet()


def forget_all() -> None:
    """Drop every kept answer of this process: for tests that change in-process what an answer is made from (a
    constant such as the count cap), which a deployment changes only with a restart."""
    for cache in list(_ALL):
        cache.clear()


class ReadCache:
    """A bounded LRU of finished answers; used from the event loop and worker threads, hence the lock."""

    def __init__(self, entries: int = DEFAULT_ENTRIES, max_age: dt.timedelta = DEFAULT_MAX_AGE) -> None:
        self.entries = entries
        self.max_age = max_age
        self._kept: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        _ALL.add(self)

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()

    def get(self, key: str, revision: int, now: dt.datetime) -> types.CallToolResult | None:
        with self._lock:
            entry = self._kept.get(key)
            if entry is None:
                return None
            fresh = entry.revision == revision and entry.made.date() == now.date() and dt.timedelta(0) <= now - entry.made <= self.max_age
            if not fresh:
                del self._kept[key]
                return None
            self._kept.move_to_end(key)
            return entry.result

    def put(self, key: str, revision: int, now: dt.datetime, result: types.CallToolResult) -> None:
        with self._lock:
            self._kept[key] = _Entry(revision, now, result)
            self._kept.move_to_end(key)
            while len(self._kept) > self.entries:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
