"""One walk over account data (not the catalog): pages through one fixed, ordered result of refs.

The first page fixes a reference time (`as_of`, carried in the cursor); the caller's `refs_at(as_of)` leaves
out rows created after it, so rows arriving during the walk never join it. The cursor carries the last ref
shown and a fingerprint of the whole ordered result; when a later page sees another result (a status
changed, a row fell out of a filter), the walk ends with CURSOR_EXPIRED instead of skipping or repeating
rows (seed 002). A cursor is bound to the tool, the owner of the data (a plain key such as
f"office:{id}" or f"seeker:{user_id}") and the arguments that fix the scope.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from contract.errors import ErrorCode, ToolFailure
from shared.paging.cursor import RESTART, CursorCodec, binding_hash, from_instant, instant


class Clock(Protocol):
    """What a walk needs of the call's context (the runtime's ToolContext is one)."""

    cursors: CursorCodec

    def now(self) -> dt.datetime: ...


WALK_SNAPSHOT = 0  # account walks are fixed by (as_of, fingerprint) in the cursor, not by the catalog revision
# The one sentence for a walk whose result changed, for every account list of both servers.
CHANGED = "Die Ergebnisse haben sich seit der ersten Seite geändert (etwa durch eine Antwort oder einen neuen Status)."


@dataclass(frozen=True)
class Walk:
    """One page of a walk over a fixed, ordered result of refs."""

    as_of: dt.datetime
    from_cursor: bool
    total: int
    page: list[str]
    next_cursor: str | None
    fingerprint: str


def walk(
    ctx: Clock,
    tool: str,
    owner: str,
    args: Any,
    refs_at: Callable[[dt.datetime], list[str]],
    *,
    scope: dict[str, Any] | None = None,
) -> Walk:
    """The page of `args` in the result `refs_at(as_of)`; `as_of` is now on the first page, the cursor's after.

    `args` needs `cursor` and `limit`; the cursor is bound to `tool`, `owner` and `scope` (by default every
    argument but `cursor` and `limit`)."""
    now = ctx.now()
    if scope is None:
        scope = args.model_dump(mode="json", exclude={"cursor", "limit"})
    binding = binding_hash({"tool": tool, "owner": owner, "args": scope})
    as_of, last, expected = now, None, None
    if args.cursor:
        # The catalog revision does not apply here (snapshot 0); the fingerprint in the position does.
        as_of_instant, last, expected = ctx.cursors.decode(args.cursor, binding=binding, snapshot=WALK_SNAPSHOT, now=now)
        as_of = from_instant(as_of_instant)
    refs = refs_at(as_of)
    fingerprint = hashlib.sha256("\n".join(refs).encode()).hexdigest()[:16]
    start = 0
    if args.cursor:
        if fingerprint != expected or last not in refs:
            raise ToolFailure(ErrorCode.CURSOR_EXPIRED, f"{CHANGED} {RESTART}")
        start = refs.index(last) + 1
    page = refs[start : start + args.limit]
    more = start + len(page) < len(refs)
    next_cursor = (
        ctx.cursors.encode(binding=binding, snapshot=WALK_SNAPSHOT, position=[instant(as_of), page[-1], fingerprint], now=now)
        if more
        else None
    )
    return Walk(as_of, bool(args.cursor), len(refs), page, next_cursor, fingerprint)


def ordered(rows: dict[str, Any], page: list[str]) -> list[Any]:
    """The rows of `page` (by ref) in the walk's order."""
    return [rows[ref] for ref in page]
