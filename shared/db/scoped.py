"""Data of one office or one seeker. Account tools reach their rows only through these, so the
office or seeker filter is applied in exactly one place and no handler can forget it."""

from __future__ import annotations

from typing import Any

from collections.abc import Sequence

from sqlalchemy import BindParameter, Executable, Integer, Row, Select, bindparam, func, select
from sqlalchemy.orm import Session

from shared.db.models import Inquiry, Listing, Match, PendingAction, Proposal, SearchOrder, Valuation


class OfficeData:
    """Everything an office may see: its own listings, inquiries, valuations, proposals and pending actions.

    `ANY_OFFICE` has the office as the bound parameter `office_id`: a statement built from it once per process runs
    with `office.params()`, and without them it fails (a value is required for `office_id`), so it cannot be forgotten."""

    def __init__(self, office_id: int | BindParameter[int]) -> None:
        self.office_id = office_id

    def params(self) -> dict[str, Any]:
        """The bound values of a statement built from ANY_OFFICE, for this office."""
        return {"office_id": self.office_id}

    def listings(self) -> Select[tuple[Listing]]:
        return select(Listing).where(Listing.office_id == self.office_id)

    def inquiries(self) -> Select[tuple[Inquiry]]:
        return select(Inquiry).where(Inquiry.office_id == self.office_id)

    def valuations(self) -> Select[tuple[Valuation]]:
        return select(Valuation).where(Valuation.office_id == self.office_id)

    def proposals(self) -> Select[tuple[Proposal]]:
        return select(Proposal).where(Proposal.office_id == self.office_id)

    def pending_actions(self) -> Select[tuple[PendingAction]]:
        """Prepared actions of the office waiting for (or past) a click, whoever of its members prepared them."""
        return select(PendingAction).where(PendingAction.office_id == self.office_id)


ANY_OFFICE = OfficeData(bindparam("office_id", type_=Integer))


class SeekerData:
    """Everything a seeker may see of their account: saved searches, their matches, own inquiries."""

    def __init__(self, user_id: int) -> None:
        self.user_id = user_id

    def search_orders(self) -> Select[tuple[SearchOrder]]:
        return select(SearchOrder).where(SearchOrder.user_id == self.user_id)

    def matches(self) -> Select[tuple[Match]]:
        return select(Match).join(SearchOrder, Match.search_order_id == SearchOrder.id).where(SearchOrder.user_id == self.user_id)

    def inquiries(self) -> Select[tuple[Inquiry]]:
        return select(Inquiry).where(Inquiry.seeker_id == self.user_id)


def count_rows(session: Session, query: Select[Any]) -> int:
    """How many rows `query` (a scope of OfficeData or SeekerData, narrowed or not) selects.

    A plain scope is counted in place (its FROM, joins and WHERE, the entity's columns replaced by count(*)): wrapping
    it in a subquery rebuilt the proxies of every column of the entity on each call, several times the cost of the
    count. A query that limits, groups or removes duplicates is counted as a subquery, which is what it selects."""
    if query._limit_clause is None and query._offset_clause is None and not query._distinct and not query._group_by_clauses:
        return int(session.scalar(query.with_only_columns(func.count(), maintain_column_froms=True).order_by(None)) or 0)
    return int(session.scalar(select(func.count()).select_from(query.subquery())) or 0)


def column_rows(session: Session, statement: Executable, params: dict[str, Any]) -> Sequence[Row[Any]]:
    """The rows of a select of columns (no entities), run on the session's connection: the session's own execution
    (ORM compile state, loading context, autoflush) is for entities and cost a third of such a statement's CPU.
    Only for reads in a session with nothing pending: nothing is flushed first."""
    return session.connection().execute(statement, params).all()
