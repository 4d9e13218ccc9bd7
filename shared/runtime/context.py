"""What a handler gets besides its arguments (dependency injection instead of globals)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field

from shared.catalog.cursor import CursorCodec
from shared.db.session import Database
from shared.settings import Settings


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


@dataclass(frozen=True)
class ToolContext:
    db: Database
    settings: Settings
    cursors: CursorCodec
    now: Callable[[], dt.datetime] = field(default=utc_now)
