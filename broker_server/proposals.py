"""Handler of list_proposals: listing × saved-search pairs of the office, newest first, in one walk. The seeker
stays a pseudonym, and the saved search shows only what a broker may see of it (`shared.saved_search`)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, or_

from broker_server.lists import freshness, office_key, office_scope, removal, request_of
from broker_server.lookups import own_listing_id
from contract.broker_inquiries import ListProposalsInput, ProposalSummary
from contract.envelope import Page, ResultWarning, Suggestion, WarningCode
from contract.vocabulary import ListingStatus, ProposalStatus, SearchOrderStatus
from shared.db.models import Listing, Proposal, SearchOrder
from shared.db.scoped import OfficeData
from shared.listing_view import price_of
from shared.paging.walk import ordered, walk
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.saved_search import broker_view, criteria_of


def proposals_in_scope(office: OfficeData) -> Select[Any]:
    """The office's proposals on its own listings; an open one only while its seeker still wants to be approached."""
    return (
        office.proposals()
        .join(SearchOrder, SearchOrder.id == Proposal.search_order_id)
        .join(Listing, and_(Listing.id == Proposal.listing_id, Listing.office_id == office.office_id))
        .where(
            or_(
                Proposal.status != ProposalStatus.open.value,
                and_(SearchOrder.approachable.is_(True), SearchOrder.status != SearchOrderStatus.ended.value),
            )
        )
    )


def _summary(proposal: Proposal, order_ref: str, stored_criteria: dict[str, Any] | None, listing: Listing) -> ProposalSummary:
    criteria, criteria_text = broker_view(criteria_of(stored_criteria))
    return ProposalSummary(
        proposal_id=proposal.ref,
        status=ProposalStatus(proposal.status),
        created_at=proposal.created_at,
        decided_at=proposal.decided_at if proposal.decided_at else None,
        listing_id=listing.ref,
        listing_title=listing.title,
        listing_price=price_of(listing),
        listing_status=ListingStatus(listing.status),
        seeker_label=f"Suchende/r {order_ref}",
        criteria_summary=criteria_text,
        criteria=criteria,
    )


def list_proposals(args: ListProposalsInput, ctx: ToolContext) -> Page[ProposalSummary]:
    office = ctx.office()
    statuses = args.status or [ProposalStatus.open]
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = [Proposal.status.in_([s.value for s in statuses])]
        if args.listing_id:
            conditions.append(Proposal.listing_id == own_listing_id(session, office, args.listing_id))

        def refs_at(as_of: dt.datetime) -> list[str]:
            statement = proposals_in_scope(office).with_only_columns(Proposal.ref).where(*conditions, Proposal.created_at <= as_of)
            return list(session.scalars(statement.order_by(Proposal.created_at.desc(), Proposal.ref.desc())))

        page = walk(ctx, "list_proposals", office_key(office), args, refs_at)
        rows = session.execute(
            proposals_in_scope(office).add_columns(SearchOrder.ref, SearchOrder.criteria, Listing).where(Proposal.ref.in_(page.page))
        ).all()
        by_ref = {proposal.ref: _summary(proposal, order_ref, stored, listing) for proposal, order_ref, stored, listing in rows}
        scope = office_scope(session, office)
        fresh = freshness(page, "vorschlaege")
    warnings = []
    if args.status is None:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message="Ohne Status (status) gezeigt: nur offene Vorschläge; alle zeigt (status = [open, accepted, rejected]).",
            )
        )
    empty = page.total == 0
    suggestions = []
    if empty:
        if set(statuses) != set(ProposalStatus):
            suggestions.append(Suggestion(arguments={"status": [s.value for s in ProposalStatus]}, reason="auch angenommene und abgelehnte"))
        if args.listing_id:
            suggestions.append(removal("listing_id", "Vorschläge zu allen Objekten des Büros"))
    return Page(
        items=ordered(by_ref, page.page),
        total=page.total,
        request=request_of(args, page, {"status": [ProposalStatus.open]}, scope),
        sort_key="created_at desc, proposal_id desc",
        sort_key_label="neueste zuerst",
        freshness=fresh,
        next_cursor=page.next_cursor,
        warnings=warnings,
        suggestions=suggestions,
        empty_hint=(
            "Vorschläge entstehen, wenn ein Objekt deines Büros zu einem Suchauftrag passt, dessen Suchende/r der Ansprache "
            "zugestimmt hat; offene ohne diese Zustimmung zählen nicht."
        )
        if empty
        else None,
    )


HANDLERS: dict[str, Handler] = {"list_proposals": list_proposals}
