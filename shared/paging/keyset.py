"""Keyset pages over one ordered table: a total order (one sort column, NULLs last, a unique key ascending on
ties), the position of a row in it, the rows strictly after a position, and one page with its cursor.

No offsets: a page is found by where the previous one ended, so pages are disjoint and complete (rule 7) and
a deep page costs what the first one costs.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, DateTime, Select, and_, or_
from sqlalchemy.orm import Session

from shared.paging.cursor import CursorCodec, from_instant, instant


@dataclass(frozen=True)
class KeysetOrder:
    """`column` ascending or descending with NULLs last, then `unique` ascending: a total order."""

    column: Any
    descending: bool
    unique: Any

    def order_by(self) -> list[Any]:
        """NULLS LAST spelled out, so both databases order alike and an index can serve the order."""
        direction = self.column.desc() if self.descending else self.column.asc()
        return [direction.nulls_last(), self.unique.asc()]

    def position_of(self, row: Any) -> list[Any]:
        value = getattr(row, self.column.key)
        if isinstance(value, dt.datetime):
            value = instant(value)
        return [value, getattr(row, self.unique.key)]

    def after(self, position: list[Any]) -> ColumnElement[bool]:
        """Rows strictly after `position` in the total order."""
        value, last = position
        column = self.column
        if value is None:
            return and_(column.is_(None), self.unique > last)
        if isinstance(getattr(column.type, "impl", column.type), DateTime):  # a TypeDecorator over DateTime too
            value = from_instant(value)
        beyond = column < value if self.descending else column > value
        return or_(column.is_(None), beyond, and_(column == value, self.unique > last))


@dataclass(frozen=True)
class KeysetPage:
    rows: list[Any]
    next_cursor: str | None


def keyset_page(
    session: Session,
    statement: Select[Any],
    order: KeysetOrder,
    *,
    limit: int,
    cursor: str | None,
    cursors: CursorCodec,
    binding: str,
    snapshot: int,
    now: dt.datetime,
    keys: Select[Any] | None = None,
) -> KeysetPage:
    """The rows of `statement` (a Core select of columns, among them the order's) after `cursor` (the first page
    without one) in `order`; the next cursor is bound to `binding` and `snapshot`, and refused with CURSOR_EXPIRED
    when either no longer holds.

    `keys`, a select of the order's unique key under the same conditions: the page's keys are found on it first and
    only the page's rows are read. Where an index holds the conditions and the order, finding them reads no row at
    all; walking `statement` itself reads every row it passes over to test the conditions the index lacks."""
    if cursor:
        after = order.after(cursors.decode(cursor, binding=binding, snapshot=snapshot, now=now))
        statement, keys = (statement, keys.where(after)) if keys is not None else (statement.where(after), None)
    if keys is not None:
        statement = statement.where(order.unique.in_(keys.order_by(*order.order_by()).limit(limit + 1)))
    rows = session.connection().execute(statement.order_by(*order.order_by()).limit(limit + 1)).all()
    next_cursor = (
        cursors.encode(binding=binding, snapshot=snapshot, position=order.position_of(rows[limit - 1]), now=now)
        if len(rows) > limit
        else None
    )
    return KeysetPage(rows[:limit], next_cursor)
