"""Handler of show_situation_report: selects the office's open points and recent activity; `shared.situation`
counts them and writes the sections."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any

from sqlalchemy import Row, Select, bindparam, case, func, literal_column, null, select, union_all
from sqlalchemy.orm import Session

from broker_server.lists import named_scope
from broker_server.lookups import LISTING_COLUMNS, NO_OFFICE_NAME, OFFICE_NAME
from contract.broker_report import ShowSituationReportInput
from contract.envelope import Freshness, Tally
from contract.vocabulary import EnergyStatus, InquiryStatus, MessageAuthor, ProposalStatus
from shared import publishing, situation
from shared.awaiting_reply import first_office_message, last_office_message, waiting_since
from shared.catalog import search as engine
from shared.db.models import Inquiry, InquiryMessage, Listing, PendingAction, Proposal
from shared.db.scoped import ANY_OFFICE, OfficeData, column_rows
from shared.pending_actions import SHOWN_COLUMNS, ShownAction
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request


# Every statement is built once per process from ANY_OFFICE (the office a bound parameter) and run with the office's and
# the call's values: building and keying them anew was about half of a report's CPU.
_WAITING = (
    ANY_OFFICE.inquiries()
    .where(Inquiry.status == InquiryStatus.open.value)
    .with_only_columns(
        Inquiry.id,
        Inquiry.ref,
        Inquiry.listing_id,
        waiting_since().label("waiting_since"),
        case((last_office_message().is_(None), 1), else_=0).label("first_contact"),
    )
    .subquery()
)
_OPEN_INQUIRIES = (
    select(_WAITING.c.ref, _WAITING.c.waiting_since, _WAITING.c.first_contact, Listing.ref.label("listing_ref"), Listing.title)
    .join(Listing, Listing.id == _WAITING.c.listing_id)
    .order_by(_WAITING.c.waiting_since, _WAITING.c.id)
)


def _open_inquiries(session: Session, office: OfficeData) -> list[situation.OpenInquiry]:
    """Open inquiries of the office with since when they wait and whether the office ever replied, longest first."""
    rows = column_rows(session, _OPEN_INQUIRIES, office.params())
    return [situation.OpenInquiry(r.ref, r.listing_ref, r.title, r.waiting_since, bool(r.first_contact)) for r in rows]


_PREPARED_ACTIONS = (
    ANY_OFFICE.pending_actions()
    .where(PendingAction.status.in_(["pending", "expired"]), PendingAction.expires_at > bindparam("lookback_start"))
    .with_only_columns(*SHOWN_COLUMNS)
    .order_by(PendingAction.created_at, PendingAction.id)
)


def _prepared_actions(session: Session, office: OfficeData, now: dt.datetime) -> list[ShownAction]:
    """Pending or expired actions of the office that expire after the look-back start, oldest first (the columns shown)."""
    return list(column_rows(session, _PREPARED_ACTIONS, {**office.params(), "lookback_start": now - situation.EXPIRED_LOOKBACK}))


_CHECKED = ANY_OFFICE.listings().where(Listing.status.in_([s.value for s in situation.CHECKED_STATUSES]))
# One row: the office's name (echoed as the report's scope) and how many listings are checked
_HEAD = select(
    OFFICE_NAME.scalar_subquery().label("office"),
    _CHECKED.with_only_columns(func.count(), maintain_column_froms=True).scalar_subquery().label("checked"),
)


@lru_cache(maxsize=4)
def _failing(today: dt.date) -> Select[Any]:
    # the columns, not the entity: the rules read a row alike, and loading entities was a fifth of a report's CPU
    return _CHECKED.with_only_columns(*LISTING_COLUMNS).where(publishing.publishable_condition(False, today)).order_by(Listing.id)


def _failing_listings(session: Session, office: OfficeData, today: dt.date) -> list[Row[Any]]:
    """The office's listings in the checked statuses that fail the publishing check on `today` (selected with the
    same SQL condition as the stock search's `publishable = false`), as rows of Listing's columns."""
    return list(column_rows(session, _failing(today), office.params()))


_DUE_CERTIFICATES = (
    ANY_OFFICE.listings()
    .where(
        Listing.status.in_(engine.PUBLIC_STATUSES),
        Listing.energy_status == EnergyStatus.present.value,
        Listing.energy_valid_until.is_not(None),
        Listing.energy_valid_until <= bindparam("due_by"),
    )
    .with_only_columns(Listing.ref, Listing.title, Listing.energy_valid_until)
    .order_by(Listing.energy_valid_until, Listing.id)
)


def _due_certificates(session: Session, office: OfficeData, due_by: dt.date) -> list[situation.Certificate]:
    rows = column_rows(session, _DUE_CERTIFICATES, {**office.params(), "due_by": due_by})
    return [situation.Certificate(ref, title, valid_until) for ref, title, valid_until in rows]


_OPEN_PROPOSALS = (
    ANY_OFFICE.proposals()
    .where(Proposal.status == ProposalStatus.open.value)
    .join(Listing, Listing.id == Proposal.listing_id)
    .with_only_columns(Proposal.ref, Listing.ref, Listing.title, Proposal.created_at)
    .order_by(Proposal.created_at, Proposal.id)
)


def _open_proposals(session: Session, office: OfficeData) -> list[situation.OpenProposal]:
    rows = column_rows(session, _OPEN_PROPOSALS, office.params())
    return [situation.OpenProposal(ref, listing_ref, title, created_at) for ref, listing_ref, title, created_at in rows]


# The activity of the key figures in one statement, a row per event: an inquiry received (with the office's first
# reply), a message the office sent, a listing published
_RECEIVED, _REPLIED, _PUBLISHED = 0, 1, 2
_ACTIVITY = union_all(
    ANY_OFFICE.inquiries()
    .where(Inquiry.created_at > bindparam("since"), Inquiry.created_at <= bindparam("now"))
    .with_only_columns(literal_column(str(_RECEIVED)).label("kind"), Inquiry.created_at.label("at"), first_office_message().label("reply")),
    select(literal_column(str(_REPLIED)), InquiryMessage.created_at, null()).where(
        InquiryMessage.inquiry_id.in_(ANY_OFFICE.inquiries().with_only_columns(Inquiry.id)),
        InquiryMessage.author == MessageAuthor.office.value,
        InquiryMessage.created_at > bindparam("since"),
        InquiryMessage.created_at <= bindparam("now"),
    ),
    ANY_OFFICE.listings()
    .where(Listing.published_at > bindparam("since"), Listing.published_at <= bindparam("now"))
    .with_only_columns(literal_column(str(_PUBLISHED)), Listing.published_at, null()),
)


def _activity(session: Session, office: OfficeData, now: dt.datetime) -> situation.Activity:
    rows = column_rows(session, _ACTIVITY, {**office.params(), "since": situation.activity_since(now), "now": now})
    return situation.Activity(
        inquiries=[(at, reply if reply else None) for kind, at, reply in rows if kind == _RECEIVED],
        replies=[at for kind, at, _ in rows if kind == _REPLIED],
        published=[at for kind, at, _ in rows if kind == _PUBLISHED],
    )


def show_situation_report(args: ShowSituationReportInput, ctx: ToolContext) -> Tally:
    office = ctx.office()
    now = ctx.now()
    today = now.date()
    limit = args.items_per_section
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        [head] = column_rows(session, _HEAD, office.params())
        scope = named_scope(head.office or NO_OFFICE_NAME)
        sections = [
            situation.inquiry_section(_open_inquiries(session, office), now, limit),
            situation.confirmation_section(_prepared_actions(session, office, now), now, limit),
            situation.unpublishable_section(_failing_listings(session, office, today), int(head.checked or 0), today, limit),
            situation.energy_section(
                _due_certificates(session, office, situation.due_by(today, args.energy_warning_days)), today, limit, args.energy_warning_days
            ),
            situation.proposal_section(_open_proposals(session, office), now, limit),
        ]
        figures = situation.key_figures(_activity(session, office, now), now)
    total = sum(1 for section in sections if section.total)  # sections, not their unlike counts added up
    return Tally(
        total=total,
        request=effective_request(args) | scope,
        freshness=Freshness(data_as_of=now, snapshot=snap.freshness.snapshot),
        body={"office": scope["office"].value, "as_of": now, "sections": sections, "key_figures": figures},
        empty_hint=situation.NOTHING_OPEN if total == 0 else None,
    )


HANDLERS: dict[str, Handler] = {"show_situation_report": show_situation_report}
