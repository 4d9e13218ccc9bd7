"""Handlers of the office's inquiries: search_inquiries and get_inquiry (Athaus für Makler).

Every row is reached through `ctx.office()`, so another office's data cannot appear. search_inquiries pages
through one fixed result with the shared account walk (`shared.paging.walk`): the first page fixes a
reference time (`as_of`, carried in the cursor), rows created after it never join the walk, and the cursor
carries a fingerprint of the whole ordered result; when a later page sees another result (a reply changed
a status, a row fell out of a filter), the walk ends with CURSOR_EXPIRED instead of skipping or repeating
rows (seed 002).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Select, bindparam, select
from sqlalchemy.orm import Session, selectinload

from broker_server.lists import freshness, named_scope, office_key, office_scope, removal, request_of
from broker_server.lookups import member_names, own_listing_id
from contract.broker_inquiries import (
    GetInquiryInput,
    InquiryDetail,
    InquiryListing,
    InquirySummary,
    OpenDraft,
    ProfileEntry,
    SearchInquiriesInput,
    SharedProfile,
    ThreadMessage,
)
from contract.envelope import AbsenceReason, Absent, Page, Suggestion
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import (
    SHARED_PROFILE_LABELS,
    InquirySort,
    InquiryStatus,
    ListingStatus,
    MarketingType,
    MessageAuthor,
    PendingActionKind,
    stored_label,
)
from shared.audit import audit_personal_data
from shared.awaiting_reply import message_count, office_replied, waiting_since
from shared.catalog.query import MIN_PREFIX, ParsedQuery, parse
from shared.catalog.suggest import prefix_suggestions
from shared.catalog.text import compound_parts, words
from shared.db.models import Inquiry, InquiryMessage, Listing, Office, PendingAction
from shared.db.scoped import ANY_OFFICE, OfficeData, column_rows
from shared.listing_view import price_of
from shared.outbox import delivery_note, failed_for_inquiry
from shared.paging.walk import ordered, walk
from shared.runtime import render
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.wording import FILTERS_NARROW

GERMAN_TIME = ZoneInfo("Europe/Berlin")  # received_since/until are calendar days as a German office counts them


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), GERMAN_TIME).astimezone(dt.UTC)


def message_terms(text: str) -> set[str]:
    terms: set[str] = set()
    for word in words(text):
        terms.add(word)
        terms.update(compound_parts(word))
    return terms


def inquiries_with_words(session: Session, office: OfficeData, query: ParsedQuery) -> set[int]:
    """The office's inquiries whose seeker messages hold every word of `query` (in any order)."""
    terms: dict[int, set[str]] = {}
    rows = session.execute(
        select(InquiryMessage.inquiry_id, InquiryMessage.body).where(
            InquiryMessage.author == MessageAuthor.seeker.value,
            InquiryMessage.inquiry_id.in_(office.inquiries().with_only_columns(Inquiry.id)),
        )
    )
    for inquiry_id, body in rows:
        terms.setdefault(inquiry_id, set()).update(message_terms(body))
    return {inquiry_id for inquiry_id, found in terms.items() if query.found_in(found)}


def shared_text(value: Any) -> str | None:
    if value is None or value == "" or value == [] or value == {}:
        return None
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def withheld(what: str) -> Absent:
    return Absent(reason=AbsenceReason.withheld, note=f"Nicht freigegeben: die/der Suchende hat {what} für diese Anfrage nicht geteilt.")


class _Profiled(Protocol):
    @property
    def shared_profile(self) -> dict[str, Any] | None: ...


class InquiryFields(Protocol):
    """What a summary and a detail read of an inquiry: an Inquiry, or a row of SUMMARY_COLUMNS."""

    @property
    def ref(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def created_at(self) -> dt.datetime: ...
    @property
    def last_message_at(self) -> dt.datetime: ...


I = TypeVar("I", bound=InquiryFields)


def profile_of(inquiry: _Profiled) -> SharedProfile:
    profile = inquiry.shared_profile or {}

    def given(key: str, what: str) -> str | Absent:
        text = shared_text(profile.get(key))
        return text if text is not None else withheld(what)

    further = [
        ProfileEntry(label=SHARED_PROFILE_LABELS.get(key, key), value=text)
        for key, value in sorted(profile.items())
        if key not in {"name", "email", "phone"} and (text := shared_text(value)) is not None
    ]
    return SharedProfile(
        name=given("name", "den Namen"), email=given("email", "die E-Mail-Adresse"), phone=given("phone", "die Telefonnummer"), further=further
    )


@dataclass(frozen=True)
class InquiryFacts(Generic[I]):
    inquiry: I
    awaiting_since: dt.datetime | None
    messages: int
    replied: bool

    def age_days(self, as_of: dt.datetime) -> int:
        return max(0, (as_of - self.inquiry.created_at).days)

    def days_awaiting(self, as_of: dt.datetime) -> int | None:
        return None if self.awaiting_since is None else max(0, (as_of - self.awaiting_since).days)

    def fields(self, as_of: dt.datetime) -> dict[str, Any]:
        """What a summary and the detail of an inquiry both say about it, ages counted to `as_of`."""
        inquiry = self.inquiry
        return {
            "inquiry_id": inquiry.ref,
            "status": InquiryStatus(inquiry.status),
            "created_at": inquiry.created_at,
            "last_message_at": inquiry.last_message_at,
            "age_days": self.age_days(as_of),
            "office_replied": self.replied,
            "awaiting_reply_since": self.awaiting_since,
            "days_awaiting_reply": self.days_awaiting(as_of),
            "message_count": self.messages,
        }


def inquiry_facts(session: Session, statement: Select[Any], *load: Any) -> list[InquiryFacts[Inquiry]]:
    rows = session.execute(
        statement.add_columns(waiting_since(), message_count(), office_replied()).options(selectinload(Inquiry.listing), *load)
    )
    return [InquiryFacts(inquiry, since if since else None, int(count), bool(replied)) for inquiry, since, count, replied in rows]


# The page of a search as the columns its summaries show, with their listing's number and title joined in: one statement,
# no entities (built once per process; run with the office's parameters and the page's numbers as `refs`)
_SUMMARIES = (
    ANY_OFFICE.inquiries()
    .join(Listing, Listing.id == Inquiry.listing_id)
    .join(Office, Office.id == Inquiry.office_id)
    .with_only_columns(
        Inquiry.ref,
        Inquiry.status,
        Inquiry.created_at,
        Inquiry.last_message_at,
        Inquiry.shared_profile,
        Listing.ref.label("listing_ref"),
        Listing.title.label("listing_title"),
        Office.name.label("office_name"),
        waiting_since().label("awaiting_since"),
        message_count().label("messages"),
        office_replied().label("replied"),
    )
    .where(Inquiry.ref.in_(bindparam("refs", expanding=True)))
)


def summary_facts(session: Session, office: OfficeData, refs: list[str]) -> dict[str, InquiryFacts[Any]]:
    """The facts of the office's inquiries `refs` (rows of _SUMMARIES), by number."""
    if not refs:
        return {}
    rows = column_rows(session, _SUMMARIES, {**office.params(), "refs": refs})
    return {row.ref: InquiryFacts(row, row.awaiting_since or None, int(row.messages), bool(row.replied)) for row in rows}


def summary_of(facts: InquiryFacts[Any], as_of: dt.datetime) -> InquirySummary:
    """The summary of an inquiry from its row of _SUMMARIES."""
    row = facts.inquiry
    return InquirySummary(
        **facts.fields(as_of),
        listing_id=row.listing_ref,
        listing_title=row.listing_title,
        seeker_name=profile_of(row).name,
    )


def _inquiry_suggestions(args: SearchInquiriesInput) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    if args.query:
        suggestions.extend(prefix_suggestions(args.query))
        suggestions.append(removal("query", "ohne Suchwörter"))
    if args.unanswered_for_days:
        suggestions.append(Suggestion(arguments={"unanswered_for_days": 0}, reason="alle, die gerade auf eine Antwort warten"))
    elif args.unanswered_for_days is not None:
        suggestions.append(removal("unanswered_for_days", "auch Anfragen, die nicht auf das Büro warten"))
    if args.status:
        suggestions.append(removal("status", "alle Status (offen, beantwortet, geschlossen)"))
    if args.received_since:
        suggestions.append(removal("received_since", "ohne Anfangstag"))
    if args.received_until:
        suggestions.append(removal("received_until", "ohne Endtag"))
    if args.listing_id:
        suggestions.append(removal("listing_id", "Anfragen zu allen Objekten des Büros"))
    return suggestions


def _inquiry_hint(args: SearchInquiriesInput, as_of: dt.datetime) -> str:
    parts: list[str] = []
    if args.query:
        parts.append(
            f"query {args.query!r} sucht ganze Wörter nur in den Nachrichten der Suchenden; ein Wortanfang mit * findet auch Verlängerungen."
        )
    if args.unanswered_for_days is not None:
        parts.append(
            f"unanswered_for_days = {args.unanswered_for_days} verlangt eine offene Anfrage mit einer unbeantworteten "
            f"Nachricht der/des Suchenden, die am {render.value_text(as_of)} mindestens so viele Tage alt ist."
        )
    if not parts:
        has_filter = any(getattr(args, n) is not None for n in ("status", "listing_id", "received_since", "received_until"))
        parts.append(
            FILTERS_NARROW
            if has_filter
            else f"Bis {render.value_text(as_of)} ist bei deinem Büro keine Anfrage eingegangen."
        )
    return " ".join(parts)


def _searched_words(query: str) -> ParsedQuery:
    """The words of `query` as the one full-text parser reads them. This search has neither phrases (their words
    are searched one by one) nor exclusion: a -word is refused rather than searched for or silently dropped."""
    parsed = parse(query)
    if parsed.has_exclusion:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "query kann in Anfragen kein Wort ausschließen (-Wort): bitte das Minuszeichen entfernen oder das Wort weglassen.",
        )
    if not parsed.words:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"query enthält kein suchbares Wort (Füllwörter und Wortanfänge unter {MIN_PREFIX} Zeichen zählen nicht): bitte "
            "andere Wörter angeben oder query weglassen.",
        )
    return parsed


def search_inquiries(args: SearchInquiriesInput, ctx: ToolContext, tool: str = "search_inquiries") -> Page[InquirySummary]:
    office = ctx.office()
    words_ = _searched_words(args.query) if args.query else None
    statuses = [s.value for s in args.status or list(InquiryStatus)]
    descending = args.sort is InquirySort.newest
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = [Inquiry.status.in_(statuses)]
        if args.listing_id:
            conditions.append(Inquiry.listing_id == own_listing_id(session, office, args.listing_id))
        if args.received_since:
            conditions.append(Inquiry.created_at >= day_start(args.received_since))
        if args.received_until:
            conditions.append(Inquiry.created_at < day_start(args.received_until + dt.timedelta(days=1)))
        with_words = inquiries_with_words(session, office, words_) if words_ else None

        def refs_at(as_of: dt.datetime) -> list[str]:
            scoped = [*conditions, Inquiry.created_at <= as_of]
            if args.unanswered_for_days is not None:
                scoped.append(waiting_since() <= as_of - dt.timedelta(days=args.unanswered_for_days))
            order = (Inquiry.created_at.desc(), Inquiry.ref.desc()) if descending else (Inquiry.created_at.asc(), Inquiry.ref.asc())
            rows = session.execute(office.inquiries().with_only_columns(Inquiry.id, Inquiry.ref).where(*scoped).order_by(*order))
            return [ref for inquiry_id, ref in rows if with_words is None or inquiry_id in with_words]

        page = walk(ctx, "search_inquiries", office_key(office), args, refs_at)
        facts = summary_facts(session, office, list(page.page))
        items = [summary_of(f, page.as_of) for f in ordered(facts, page.page)]
        # The seeker's name on each summary is personal data shown to the office.
        shown = [item.inquiry_id for item in items if isinstance(item.seeker_name, str)]
        # a shown inquiry names the office (joined into its row); only an empty page reads the name on its own
        scope = named_scope(next(iter(facts.values())).inquiry.office_name) if facts else office_scope(session, office)
        fresh = freshness(page, "anfragen")
    audit_personal_data(ctx.db, ctx.caller, tool, shown)
    ignored = words_.ignored_warning() if words_ else None
    empty = page.total == 0
    direction = "desc" if descending else "asc"
    return Page(
        items=items,
        total=page.total,
        request=request_of(args, page, {"status": list(InquiryStatus)}, scope),
        sort_key=f"created_at {direction}, inquiry_id {direction}",
        sort_key_label="neueste zuerst" if direction == "desc" else "älteste zuerst",
        freshness=fresh,
        next_cursor=page.next_cursor,
        warnings=[ignored] if ignored else [],
        suggestions=_inquiry_suggestions(args) if empty else [],
        empty_hint=_inquiry_hint(args, page.as_of) if empty else None,
    )


def get_inquiry(args: GetInquiryInput, ctx: ToolContext, tool: str = "get_inquiry") -> InquiryDetail:
    office = ctx.office()
    now = ctx.now()
    with ctx.db.read_only() as session:
        found = inquiry_facts(session, office.inquiries().where(Inquiry.ref == args.inquiry_id), selectinload(Inquiry.messages))
        if not found:
            raise ToolFailure(
                ErrorCode.NOT_FOUND,
                "Diese Anfrage gibt es bei deinem Büro nicht: bitte die Anfragenummer prüfen oder mit search_inquiries suchen.",
            )
        facts = found[0]
        inquiry = facts.inquiry
        drafts = list(
            session.scalars(
                office.pending_actions()
                .where(PendingAction.subject_ref == inquiry.ref, PendingAction.status == "pending", PendingAction.expires_at > now)
                .order_by(PendingAction.created_at, PendingAction.ref)
            )
        )
        names = member_names(
            session, office, {m.author_user_id for m in inquiry.messages if m.author == MessageAuthor.office.value} | {d.user_id for d in drafts}
        )
        detail = inquiry_detail(facts, drafts, names, now)
        detail.delivery_notes = [delivery_note(row) for row in failed_for_inquiry(session, inquiry.id, office_side=True)]
    audit_personal_data(ctx.db, ctx.caller, tool, [detail.inquiry_id])  # the seeker's shared profile and messages
    return detail


def inquiry_detail(facts: InquiryFacts[Inquiry], drafts: list[PendingAction], names: dict[int, str], now: dt.datetime) -> InquiryDetail:
    inquiry = facts.inquiry
    profile = profile_of(inquiry)
    listing = inquiry.listing

    def written_by(author: str, name: str | Absent) -> str:
        named = name if isinstance(name, str) else None
        if author == MessageAuthor.seeker.value:
            return f"von der/dem Suchenden {named}" if named else "von der/dem Suchenden"
        return f"vom Büro ({named})" if named else "vom Büro"

    def author_name(message: InquiryMessage) -> str | Absent:
        if message.author == MessageAuthor.seeker.value:
            return profile.name
        name = names.get(message.author_user_id) if message.author_user_id is not None else None
        return name or Absent(reason=AbsenceReason.empty_in_source, note="Zu dieser Nachricht ist keine Person des Büros gespeichert.")

    return InquiryDetail(
        **facts.fields(now),
        listing=InquiryListing(
            listing_id=listing.ref,
            title=listing.title,
            status=ListingStatus(listing.status),
            marketing_type=MarketingType(listing.marketing_type),
            price=price_of(listing),
            city=listing.city,
        ),
        seeker=profile,
        thread=[
            ThreadMessage(
                author=MessageAuthor(m.author), author_name=(name := author_name(m)), written_by=written_by(m.author, name),
                sent_at=m.created_at, text=m.body,
            )
            for m in inquiry.messages
        ],
        open_drafts=[
            OpenDraft(
                confirmation_id=d.ref,
                action=d.kind,
                action_label=stored_label(PendingActionKind, d.kind),
                summary=d.summary,
                prepared_by=names.get(d.user_id) or Absent(reason=AbsenceReason.empty_in_source, note="Nicht von einem Mitglied des Büros."),
                created_at=d.created_at,
                expires_at=d.expires_at,
            )
            for d in drafts
        ],
    )


HANDLERS: dict[str, Handler] = {
    "search_inquiries": search_inquiries,
    "get_inquiry": get_inquiry,
}
