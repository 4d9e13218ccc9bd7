"""Data of one office or one seeker. Account tools reach their rows only through these, so the
office or seeker filter is applied in exactly one place and no handler can forget it."""

from __future__ import annotations

from sqlalchemy import Select, select

from shared.db.models import Inquiry, Listing, Match, Proposal, SearchOrder, Valuation


class OfficeData:
    """Everything an office may see: its own listings, inquiries, valuations and proposals."""

    def __init__(self, office_id: int) -> None:
        self.office_id = office_id

    def listings(self) -> Select[tuple[Listing]]:
        return select(Listing).where(Listing.office_id == self.office_id)

    def inquiries(self) -> Select[tuple[Inquiry]]:
        return select(Inquiry).where(Inquiry.office_id == self.office_id)

    def valuations(self) -> Select[tuple[Valuation]]:
        return select(Valuation).where(Valuation.office_id == self.office_id)

    def proposals(self) -> Select[tuple[Proposal]]:
        return select(Proposal).where(Proposal.office_id == self.office_id)


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
