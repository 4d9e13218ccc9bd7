"""Handlers of the office's stock: search_listings and get_listing (Objekt abrufen).

A stock listing is the public listing view (`shared.listing_view`) plus what only the office sees: every
status, the exact address, the status history, inquiries, open drafts, the publishing check and proposals.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from enum import StrEnum
from typing import Any

from sqlalchemy import Select, bindparam, case, func, or_, select
from sqlalchemy.orm import Session

from broker_server.checks import check_result
from broker_server.lists import named_scope, office_scope
from broker_server.lookups import own_listing
from contract.broker_stock import (
    SORT_KEYS_STOCK,
    SORT_TEXT_STOCK,
    GetStockListingInput,
    InquiryRef,
    ListingInquiries,
    ListingProposals,
    OpenDraft,
    OpenDrafts,
    ProposalRef,
    SearchStockInput,
    StatusChangeEntry,
    StockListing,
    StockListingDetail,
)
from contract.envelope import AbsenceReason, Absent, Page, Suggestion
from contract.vocabulary import InquiryStatus, ListingStatus, ProposalStatus, label, labelled
from shared import listing_view, publishing
from shared.catalog import search as engine
from shared.catalog.scope import ALL_FILTERS, StockScope
from shared.db.models import Inquiry, Listing, ListingStatusChange, PendingAction, Proposal, User
from shared.db.scoped import ANY_OFFICE, OfficeData, column_rows
from shared.paging.cursor import binding_hash
from shared.partial_lists import shown
from shared.pending_actions import SHOWN_COLUMNS, action_fields
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request

ALL_STATUSES = [s.value for s in ListingStatus]
LATEST_SHOWN = 5  # inquiries and proposals of one listing shown by get_listing
DRAFTS_SHOWN = 10

NOT_PUBLIC = "Kein öffentliches Exposé: das Inserat ist nicht veröffentlicht (Status {status})."
NEVER_PUBLISHED = Absent(reason=AbsenceReason.empty_in_source, note="Noch nie veröffentlicht.")


def _public_uri(listing: Listing, uri: str) -> str | Absent:
    if listing.status in engine.PUBLIC_STATUSES:
        return uri
    status = label(ListingStatus(listing.status))
    return Absent(reason=AbsenceReason.empty_in_source, note=NOT_PUBLIC.format(status=status))


NOT_IMPORTED = Absent(reason=AbsenceReason.empty_in_source, note="In Athaus angelegt, nicht importiert.")


def _external_id(listing: Listing) -> str | Absent:
    return listing.external_id if listing.feed is not None and listing.external_id else NOT_IMPORTED


def _published_at(listing: Listing) -> dt.datetime | Absent:
    return listing.published_at if listing.published_at is not None else NEVER_PUBLISHED


# --- search_listings -------------------------------------------------------------------------------------------


def _stock_item(listing: Listing, args: SearchStockInput, distance: float | None, today: dt.date) -> StockListing:
    failed = publishing.failed_blocking_rules(listing, today)
    return StockListing.model_validate(
        {
            **listing_view.summary_fields(listing, args.include, distance),
            "resource_uri": _public_uri(listing, listing_view.RESOURCE_URI.format(listing_id=listing.ref)),
            "published_at": _published_at(listing),
            **labelled("status", ListingStatus(listing.status)),
            "objektnr_extern": _external_id(listing),
            "created_at": listing.created_at,
            "updated_at": listing.updated_at,
            "publishable": not failed,
            "failed_rules": [r.rule for r in failed],
            "failed_rule_labels": [r.rule_label for r in failed],
        }
    )


def _stock_binding(args: SearchStockInput, statuses: Sequence[str], office: OfficeData, today: dt.date) -> str:
    """A cursor is bound to the filters, the statuses, the order and the office, and with `publishable` to the day
    it was evaluated on: a walk across midnight ends instead of changing its set unnoticed."""
    catalog = engine.binding(args, args.sort)
    checked = {"publishable": args.publishable, "day": today.isoformat()} if args.publishable is not None else None
    return binding_hash({"catalog": catalog, "statuses": list(statuses), "office": office.office_id, "checked": checked,
                         "objektnr_extern": args.objektnr_extern})


def search_listings(args: SearchStockInput, ctx: ToolContext) -> Page[StockListing]:
    office = ctx.office()
    now = ctx.now()
    today = now.date()
    statuses = [s for s in ALL_STATUSES if s in {v.value for v in args.statuses}] if args.statuses else ALL_STATUSES
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        # The publishing check's blocking rules as SQL, so totals and pages of the filter are exact.
        also = [] if args.publishable is None else [publishing.publishable_condition(args.publishable, today)]
        if args.objektnr_extern:
            also.append(Listing.feed.is_not(None) & Listing.external_id.in_(args.objektnr_extern))
        scope = StockScope(session, args, statuses, office, also=also)
        binding = _stock_binding(args, statuses, office, today)
        page = scope.page(session, ctx.cursors, args, binding=binding, revision=snap.revision, now=now)
        # the page's listings are the office's own, loaded with their office: it names the scope without a statement
        echoed_office = named_scope(page.rows[0].office.name) if page.rows else office_scope(session, office)
        items = [_stock_item(row, args, scope.distance_km(row), today) for row in page.rows]
        hint, suggestions = scope.next_steps(session) if page.total == 0 else (None, [])
    if page.total == 0:
        if args.statuses:
            suggestions.append(Suggestion(arguments={"statuses": None}, reason="alle Status"))
        if args.publishable is not None:
            suggestions.append(Suggestion(arguments={"publishable": None}, reason="veröffentlichbare und nicht veröffentlichbare"))
        if args.objektnr_extern:
            suggestions.append(Suggestion(arguments={"objektnr_extern": None}, reason="auch ohne diese objektnr_extern"))
        hint = f"Durchsucht wurde nur der Bestand von {echoed_office['office'].value}. {hint}"
    return Page(
        items=items,
        total=page.total,
        request=effective_request(scope.executed(args), {**ALL_FILTERS, "statuses": ALL_STATUSES}, exclude={"cursor"}) | echoed_office,
        sort_key=SORT_KEYS_STOCK[args.sort],
        sort_key_label=SORT_TEXT_STOCK[args.sort],
        freshness=snap.freshness,
        next_cursor=page.next_cursor,
        warnings=scope.warnings,
        suggestions=suggestions,
        empty_hint=hint,
    )


# --- get_listing -----------------------------------------------------------------------------------------------


_STATUS_HISTORY = (  # built once: its cache key is memoized
    select(ListingStatusChange.old_status, ListingStatusChange.new_status, ListingStatusChange.changed_at, User.name)
    .outerjoin(User, ListingStatusChange.changed_by == User.id)
    .where(ListingStatusChange.listing_id == bindparam("listing_id"))
    .order_by(ListingStatusChange.changed_at, ListingStatusChange.id)
)


def _status_history(session: Session, listing: Listing) -> list[StatusChangeEntry] | Absent:
    rows = column_rows(session, _STATUS_HISTORY, {"listing_id": listing.id})
    if not rows:
        return Absent(
            reason=AbsenceReason.empty_in_source,
            note="Für dieses Objekt ist kein Statusverlauf gespeichert (etwa weil es vor Einführung des Verlaufs angelegt wurde).",
        )
    entries = []
    for change in rows:
        name = change.name
        old = ListingStatus(change.old_status) if change.old_status else None
        new = ListingStatus(change.new_status)
        entries.append(
            StatusChangeEntry(
                old_status=old,
                new_status=new,
                label=f"{label(old)} → {label(new)}" if old else f"angelegt als {label(new)}",
                changed_at=change.changed_at,
                changed_by=name
                if name
                else Absent(reason=AbsenceReason.empty_in_source, note="Ohne Person geändert (Import oder System)."),
            )
        )
    return entries


def _latest_statement(of_listing: Select[Any], model: Any, open_status: StrEnum, columns: Sequence[Any]) -> Select[Any]:
    """The newest LATEST_SHOWN rows of `of_listing` (of `columns`, not entities), each with the counts over all of
    them as window columns `total_rows` and `open_rows`: the counts and the rows in one statement."""
    is_open = case((model.status == open_status.value, 1), else_=0)
    return (
        of_listing.with_only_columns(
            *columns, func.count().over().label("total_rows"), func.coalesce(func.sum(is_open).over(), 0).label("open_rows")
        )
        .order_by(model.created_at.desc(), model.id.desc())
        .limit(LATEST_SHOWN)
    )


def _latest(session: Session, statement: Select[Any], office: OfficeData, listing: Listing) -> tuple[dict[str, Any], Sequence[Any]]:
    """The counts (`total`, `open`, `shown`, `all_shown`) and rows of a `_latest_statement` for `listing`."""
    rows = column_rows(session, statement, {**office.params(), "listing_id": listing.id})
    total, open_ = (int(rows[0].total_rows), int(rows[0].open_rows)) if rows else (0, 0)
    return {"total": total, "open": open_, **shown(rows, total)}, rows


# Built once per process from ANY_OFFICE, with the listing a bound parameter too
_LATEST_INQUIRIES = _latest_statement(
    ANY_OFFICE.inquiries().where(Inquiry.listing_id == bindparam("listing_id")),
    Inquiry,
    InquiryStatus.open,
    (Inquiry.ref, Inquiry.status, Inquiry.created_at, Inquiry.last_message_at),
)
_LATEST_PROPOSALS = _latest_statement(
    ANY_OFFICE.proposals().where(Proposal.listing_id == bindparam("listing_id")),
    Proposal,
    ProposalStatus.open,
    (Proposal.ref, Proposal.status, Proposal.created_at, Proposal.decided_at),
)


def _listing_inquiries(session: Session, office: OfficeData, listing: Listing) -> ListingInquiries:
    counts, rows = _latest(session, _LATEST_INQUIRIES, office, listing)
    return ListingInquiries(
        **counts,
        latest=[
            InquiryRef(
                inquiry_id=i.ref,
                **labelled("status", InquiryStatus(i.status)),
                created_at=i.created_at,
                last_message_at=i.last_message_at,
            )
            for i in rows
        ],
    )


def _listing_proposals(session: Session, office: OfficeData, listing: Listing) -> ListingProposals:
    counts, rows = _latest(session, _LATEST_PROPOSALS, office, listing)
    return ListingProposals(
        **counts,
        items=[
            ProposalRef(
                proposal_id=p.ref,
                **labelled("status", ProposalStatus(p.status)),
                created_at=p.created_at,
                decided_at=p.decided_at if p.decided_at else None,
            )
            for p in rows
        ],
    )


_OPEN_DRAFTS = (
    ANY_OFFICE.pending_actions()
    .where(
        PendingAction.status == "pending",
        or_(
            PendingAction.subject_ref.in_(ANY_OFFICE.inquiries().where(Inquiry.listing_id == bindparam("listing_id")).with_only_columns(Inquiry.ref)),
            PendingAction.subject_ref.in_(ANY_OFFICE.proposals().where(Proposal.listing_id == bindparam("listing_id")).with_only_columns(Proposal.ref)),
        ),
    )
    .with_only_columns(*SHOWN_COLUMNS, func.count().over().label("total_rows"))
    .order_by(PendingAction.created_at, PendingAction.id)
    .limit(DRAFTS_SHOWN)
)


def _open_drafts(session: Session, office: OfficeData, listing: Listing, now: dt.datetime) -> OpenDrafts:
    rows = column_rows(session, _OPEN_DRAFTS, {**office.params(), "listing_id": listing.id})
    total = int(rows[0].total_rows) if rows else 0
    return OpenDrafts(
        total=total,
        **shown(rows, total),
        items=[
            OpenDraft(**action_fields(a), expired=a.expires_at <= now) for a in rows
        ],
    )


def get_listing(args: GetStockListingInput, ctx: ToolContext) -> StockListingDetail:
    office = ctx.office()
    now = ctx.now()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        listing = own_listing(session, office, args.listing_id)
        expose = listing_view.detail_fields(listing, snap.freshness, now.date(), own=True)
        return StockListingDetail.model_validate(
            {
                **expose,
                "resource_uri": _public_uri(listing, expose["resource_uri"]),
                "published_at": _published_at(listing),
                "address": listing_view.address(listing, exact=True),  # the office sees its own address, published or not
                **labelled("status", expose["status"]),
                "address_published": listing.address_published,
                "objektnr_extern": _external_id(listing),
                "created_at": listing.created_at,
                "version": listing.version,
                "status_history": _status_history(session, listing),
                "inquiries": _listing_inquiries(session, office, listing),
                "open_drafts": _open_drafts(session, office, listing, now),
                "check": check_result(session, listing, now, snap.freshness),
                "proposals": _listing_proposals(session, office, listing),
            }
        )


HANDLERS: dict[str, Handler] = {"search_listings": search_listings, "get_listing": get_listing}
