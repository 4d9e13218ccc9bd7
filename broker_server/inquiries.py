"""Handlers of Anfragen, Bewertungen und Vorschläge (Athaus für Makler).

Every row is reached through `ctx.office()`, so another office's data cannot appear. The three lists page
through one fixed result with the shared account walk (`shared.paging.walk`): the first page fixes a
reference time (`as_of`, carried in the cursor), rows created after it never join the walk, and the cursor
carries a fingerprint of the whole ordered result; when a later page sees another result (a reply changed
a status, a row fell out of a filter), the walk ends with CURSOR_EXPIRED instead of skipping or repeating
rows (seed 002).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel
from sqlalchemy import ColumnElement, Select, and_, exists, func, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from contract.broker_inquiries import (
    GetInquiryInput,
    InquiryDetail,
    InquiryListing,
    InquirySummary,
    ListProposalsInput,
    ListValuationsInput,
    OpenDraft,
    ProfileEntry,
    ProposalSummary,
    SearchCriteria,
    SearchInquiriesInput,
    SharedProfile,
    ThreadMessage,
    ValuationSummary,
)
from contract.catalog import Money
from contract.envelope import (
    Absent,
    AbsenceReason,
    EffectiveValue,
    Freshness,
    Page,
    ResultWarning,
    Suggestion,
    ValueSource,
    WarningCode,
)
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import (
    SHARED_PROFILE_LABELS,
    InquirySort,
    InquiryStatus,
    ListingStatus,
    MarketingType,
    MessageAuthor,
    PropertyType,
    ProposalStatus,
    SearchOrderStatus,
    ValuationSubject,
    label,
)
from shared.catalog.suggest import shorter_variants
from shared.catalog.text import compound_parts, normalise, words
from shared.db.models import Inquiry, InquiryMessage, Listing, OfficeMember, PendingAction, Proposal, SearchOrder, User, Valuation
from shared.db.scoped import OfficeData
from shared.runtime import render
from shared.runtime.definition import Handler
from shared.runtime.context import ToolContext
from shared.runtime.envelope import effective_request
from shared.paging.walk import Walk, ordered, walk

GERMAN_TIME = ZoneInfo("Europe/Berlin")  # received_since/until are calendar days as a German office counts them
MIN_PREFIX = 3


# ---------------------------------------------------------------------------------------------- the walk


def office_key(office: OfficeData) -> str:
    """The owner of an office's walks: a cursor of one office is refused for another."""
    return f"office:{office.office_id}"


def request_of(args: BaseModel, walk_: Walk, implied: dict[str, Any]) -> dict[str, EffectiveValue]:
    request = effective_request(args, implied, exclude={"cursor"})
    request["as_of"] = EffectiveValue(value=walk_.as_of, source=ValueSource.cursor if walk_.from_cursor else ValueSource.default)
    return request


def freshness(session: Session, columns: list[Any], walk_: Walk, family: str) -> Freshness:
    """When this office's rows of `family` last changed (the walk's reference time if it has none)."""
    changed = [v for v in (session.scalar(c) for c in columns) if v is not None]
    return Freshness(data_as_of=max(changed, default=walk_.as_of), snapshot=f"{family}-{walk_.fingerprint}")


def own_listing(session: Session, office: OfficeData, listing_ref: str) -> int:
    """The row id of one of the office's listings; NOT_FOUND (without echoing the number) otherwise."""
    found = session.scalar(office.listings().with_only_columns(Listing.id).where(Listing.ref == listing_ref))
    if found is None:
        raise ToolFailure(
            ErrorCode.NOT_FOUND,
            "Dieses Objekt gehört nicht zum Bestand deines Büros: bitte die Inseratsnummer prüfen (search_listings zeigt den Bestand).",
        )
    return int(found)


def member_names(session: Session, office: OfficeData, user_ids: set[int | None]) -> dict[int, str]:
    """Names of the office's own members among `user_ids`."""
    wanted = {u for u in user_ids if u is not None}
    if not wanted:
        return {}
    rows = session.execute(
        select(User.id, User.name)
        .join(OfficeMember, OfficeMember.user_id == User.id)
        .where(OfficeMember.office_id == office.office_id, User.id.in_(wanted))
    )
    return {user_id: name for user_id, name in rows}


def removal(name: str, reason: str) -> Suggestion:
    return Suggestion(arguments={name: None}, reason=reason)


def price_of(listing: Listing) -> Money | Absent:
    if listing.price is not None:
        return Money(amount=listing.price)
    if listing.price_on_request:
        return Absent(reason=AbsenceReason.withheld, note="Preis auf Anfrage.")
    return Absent(reason=AbsenceReason.empty_in_source, note="Im Objekt ist kein Preis angegeben.")


# ---------------------------------------------------------------------------------------------- inquiries


def day_start(day: dt.date) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(), GERMAN_TIME).astimezone(dt.UTC)


def last_office_message() -> Any:
    """When the office last wrote in the inquiry, or NULL if it never did (correlated to `Inquiry`)."""
    office_msg = aliased(InquiryMessage)
    return (
        select(func.max(office_msg.created_at))
        .where(office_msg.inquiry_id == Inquiry.id, office_msg.author == MessageAuthor.office.value)
        .correlate(Inquiry)
        .scalar_subquery()
    )


def awaiting_reply_since() -> Any:
    """The oldest seeker message after the office's last message (after none: the first), or NULL."""
    seeker_msg = aliased(InquiryMessage)
    last_office = last_office_message()
    return (
        select(func.min(seeker_msg.created_at))
        .where(
            seeker_msg.inquiry_id == Inquiry.id,
            seeker_msg.author == MessageAuthor.seeker.value,
            or_(last_office.is_(None), seeker_msg.created_at > last_office),
        )
        .correlate(Inquiry)
        .scalar_subquery()
    )


def message_count() -> Any:
    return select(func.count(InquiryMessage.id)).where(InquiryMessage.inquiry_id == Inquiry.id).correlate(Inquiry).scalar_subquery()


def office_replied() -> Any:
    return exists().where(InquiryMessage.inquiry_id == Inquiry.id, InquiryMessage.author == MessageAuthor.office.value).correlate(Inquiry)


@dataclass(frozen=True)
class WordQuery:
    """The words of `query`: all must occur in the seeker's messages of an inquiry."""

    whole: tuple[str, ...]
    prefixes: tuple[str, ...]
    ignored: tuple[str, ...]

    @classmethod
    def parse(cls, query: str) -> WordQuery:
        whole: list[str] = []
        prefixes: list[str] = []
        ignored: list[str] = []
        for token in query.split():
            prefix = token.endswith("*")
            found = words(token.rstrip("*"))
            if not found:
                ignored.append(token)
                continue
            if prefix:
                *found, stem = found
                if len(stem) >= MIN_PREFIX and normalise(token.rstrip("*")).endswith(stem):
                    prefixes.append(stem)
                else:
                    ignored.append(token)
            whole.extend(found)
        return cls(tuple(dict.fromkeys(whole)), tuple(dict.fromkeys(prefixes)), tuple(ignored))

    def matches(self, terms: set[str]) -> bool:
        return all(w in terms for w in self.whole) and all(any(t.startswith(p) for t in terms) for p in self.prefixes)


def message_terms(text: str) -> set[str]:
    terms: set[str] = set()
    for word in words(text):
        terms.add(word)
        terms.update(compound_parts(word))
    return terms


def inquiries_with_words(session: Session, office: OfficeData, query: WordQuery) -> set[int]:
    terms: dict[int, set[str]] = {}
    rows = session.execute(
        select(InquiryMessage.inquiry_id, InquiryMessage.body).where(
            InquiryMessage.author == MessageAuthor.seeker.value,
            InquiryMessage.inquiry_id.in_(office.inquiries().with_only_columns(Inquiry.id)),
        )
    )
    for inquiry_id, body in rows:
        terms.setdefault(inquiry_id, set()).update(message_terms(body))
    return {inquiry_id for inquiry_id, found in terms.items() if query.matches(found)}


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


def profile_of(inquiry: Inquiry) -> SharedProfile:
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
class InquiryFacts:
    inquiry: Inquiry
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


def inquiry_facts(session: Session, statement: Select[Any], *load: Any) -> list[InquiryFacts]:
    rows = session.execute(
        statement.add_columns(awaiting_reply_since(), message_count(), office_replied()).options(selectinload(Inquiry.listing), *load)
    )
    return [InquiryFacts(inquiry, since if since else None, int(count), bool(replied)) for inquiry, since, count, replied in rows]


def summary_of(facts: InquiryFacts, as_of: dt.datetime) -> InquirySummary:
    inquiry = facts.inquiry
    return InquirySummary(
        **facts.fields(as_of),
        listing_id=inquiry.listing.ref,
        listing_title=inquiry.listing.title,
        seeker_name=profile_of(inquiry).name,
    )


def _inquiry_suggestions(args: SearchInquiriesInput) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    if args.query:
        tokens = args.query.split()
        for token in tokens:
            if token.endswith("*"):
                continue
            word = normalise(token)
            if not word.isalnum() or len(word) < 6:
                continue
            for variant in shorter_variants(word):
                replaced = " ".join(variant if t == token else t for t in tokens)
                suggestions.append(Suggestion(arguments={"query": replaced}, reason=f"'{token}' als Wortanfang {variant} suchen"))
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
            f"unanswered_for_days = {args.unanswered_for_days} verlangt eine unbeantwortete Nachricht der/des Suchenden, "
            f"die am {render.value_text(as_of)} mindestens so viele Tage alt ist."
        )
    if not parts:
        has_filter = any(getattr(args, n) is not None for n in ("status", "listing_id", "received_since", "received_until"))
        parts.append(
            "Jeder gesetzte Filter schränkt ein; die Vorschläge lassen je einen davon weg."
            if has_filter
            else f"Bis {render.value_text(as_of)} ist bei deinem Büro keine Anfrage eingegangen."
        )
    return " ".join(parts)


def search_inquiries(args: SearchInquiriesInput, ctx: ToolContext) -> Page[InquirySummary]:
    office = ctx.office()
    words_ = WordQuery.parse(args.query) if args.query else None
    if words_ is not None and not (words_.whole or words_.prefixes):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "query enthält kein suchbares Wort (Füllwörter und Wortanfänge unter 3 Zeichen zählen nicht): bitte andere Wörter "
            "angeben oder query weglassen.",
        )
    statuses = [s.value for s in args.status or list(InquiryStatus)]
    descending = args.sort is InquirySort.newest
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = [Inquiry.status.in_(statuses)]
        if args.listing_id:
            conditions.append(Inquiry.listing_id == own_listing(session, office, args.listing_id))
        if args.received_since:
            conditions.append(Inquiry.created_at >= day_start(args.received_since))
        if args.received_until:
            conditions.append(Inquiry.created_at < day_start(args.received_until + dt.timedelta(days=1)))
        with_words = inquiries_with_words(session, office, words_) if words_ else None

        def refs_at(as_of: dt.datetime) -> list[str]:
            scoped = [*conditions, Inquiry.created_at <= as_of]
            if args.unanswered_for_days is not None:
                scoped.append(awaiting_reply_since() <= as_of - dt.timedelta(days=args.unanswered_for_days))
            order = (Inquiry.created_at.desc(), Inquiry.ref.desc()) if descending else (Inquiry.created_at.asc(), Inquiry.ref.asc())
            rows = session.execute(office.inquiries().with_only_columns(Inquiry.id, Inquiry.ref).where(*scoped).order_by(*order))
            return [ref for inquiry_id, ref in rows if with_words is None or inquiry_id in with_words]

        page = walk(ctx, "search_inquiries", office_key(office), args, refs_at)
        facts = {f.inquiry.ref: f for f in inquiry_facts(session, office.inquiries().where(Inquiry.ref.in_(page.page)))}
        items = [summary_of(f, page.as_of) for f in ordered(facts, page.page)]
        fresh = freshness(session, [office.inquiries().with_only_columns(func.max(Inquiry.last_message_at))], page, "anfragen")
    warnings = []
    if words_ and words_.ignored:
        warnings.append(
            ResultWarning(
                code=WarningCode.TERMS_IGNORED,
                message="Nicht gesucht (Füllwort oder Wortanfang unter 3 Zeichen): " + ", ".join(words_.ignored) + ".",
            )
        )
    empty = page.total == 0
    direction = "desc" if descending else "asc"
    return Page(
        items=items,
        total=page.total,
        request=request_of(args, page, {"status": list(InquiryStatus)}),
        sort_key=f"created_at {direction}, inquiry_id {direction}",
        freshness=fresh,
        next_cursor=page.next_cursor,
        warnings=warnings,
        suggestions=_inquiry_suggestions(args) if empty else [],
        empty_hint=_inquiry_hint(args, page.as_of) if empty else None,
    )


def get_inquiry(args: GetInquiryInput, ctx: ToolContext) -> InquiryDetail:
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
        return inquiry_detail(facts, drafts, names, now)


def inquiry_detail(facts: InquiryFacts, drafts: list[PendingAction], names: dict[int, str], now: dt.datetime) -> InquiryDetail:
    inquiry = facts.inquiry
    profile = profile_of(inquiry)
    listing = inquiry.listing

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
            ThreadMessage(author=MessageAuthor(m.author), author_name=author_name(m), sent_at=m.created_at, text=m.body)
            for m in inquiry.messages
        ],
        open_drafts=[
            OpenDraft(
                confirmation_id=d.ref,
                action=d.kind,
                summary=d.summary,
                prepared_by=names.get(d.user_id) or Absent(reason=AbsenceReason.empty_in_source, note="Nicht von einem Mitglied des Büros."),
                created_at=d.created_at,
                expires_at=d.expires_at,
            )
            for d in drafts
        ],
    )


# ---------------------------------------------------------------------------------------------- valuations


def valuation_summary(valuation: Valuation, listing_ref: str | None, listing_title: str | None, creator: str | None) -> ValuationSummary:
    def given(value: Any, note: str) -> Any:
        return value if value not in (None, "") else Absent(reason=AbsenceReason.empty_in_source, note=note)

    area = valuation.living_area
    per_sqm = (
        (round(valuation.value_low / area, 2), round(valuation.value_high / area, 2))
        if area
        else (Absent(reason=AbsenceReason.empty_in_source, note="Ohne Wohnfläche kein Preis pro m²."),) * 2
    )
    if valuation.listing_id is None:
        listing_id: str | Absent = Absent(reason=AbsenceReason.empty_in_source, note="Bewertung für einen Eigentümer-Kontakt, nicht für ein Objekt.")
        title: str | Absent = listing_id
    elif listing_ref is None:
        listing_id = title = Absent(reason=AbsenceReason.withheld, note="Das bewertete Objekt gehört nicht zum Bestand deines Büros.")
    else:
        listing_id, title = listing_ref, listing_title or ""
    return ValuationSummary(
        valuation_id=valuation.ref,
        created_at=valuation.created_at,
        subject=ValuationSubject.owner_lead if valuation.listing_id is None else ValuationSubject.listing,
        listing_id=listing_id,
        listing_title=title,
        owner_name=given(valuation.owner_name, "Kein Eigentümername gespeichert."),
        address=given(valuation.address, "Keine Anschrift gespeichert."),
        postal_code=valuation.postal_code,
        city=valuation.city,
        property_type=PropertyType(valuation.property_type),
        marketing_type=MarketingType(valuation.marketing_type),
        living_area=given(area, "Keine Wohnfläche gespeichert."),
        value_low=Money(amount=valuation.value_low),
        value_high=Money(amount=valuation.value_high),
        price_per_sqm_low=per_sqm[0],
        price_per_sqm_high=per_sqm[1],
        method=valuation.method,
        comparables_count=len(valuation.comparables or []),
        note=given(valuation.note, "Keine Notiz."),
        created_by=creator or Absent(reason=AbsenceReason.empty_in_source, note="Nicht gespeichert, wer bewertet hat."),
    )


def list_valuations(args: ListValuationsInput, ctx: ToolContext) -> Page[ValuationSummary]:
    office = ctx.office()
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = []
        if args.listing_id:
            conditions.append(Valuation.listing_id == own_listing(session, office, args.listing_id))

        def refs_at(as_of: dt.datetime) -> list[str]:
            statement = office.valuations().with_only_columns(Valuation.ref).where(*conditions, Valuation.created_at <= as_of)
            return list(session.scalars(statement.order_by(Valuation.created_at.desc(), Valuation.ref.desc())))

        page = walk(ctx, "list_valuations", office_key(office), args, refs_at)
        rows = session.execute(
            office.valuations()
            .outerjoin(Listing, and_(Listing.id == Valuation.listing_id, Listing.office_id == office.office_id))
            .add_columns(Listing.ref, Listing.title)
            .where(Valuation.ref.in_(page.page))
        ).all()
        names = member_names(session, office, {valuation.created_by for valuation, _, _ in rows})
        by_ref = {v.ref: valuation_summary(v, ref, title, names.get(v.created_by or 0)) for v, ref, title in rows}
        fresh = freshness(session, [office.valuations().with_only_columns(func.max(Valuation.created_at))], page, "bewertungen")
    empty = page.total == 0
    return Page(
        items=ordered(by_ref, page.page),
        total=page.total,
        request=request_of(args, page, {}),
        sort_key="created_at desc, valuation_id desc",
        freshness=fresh,
        next_cursor=page.next_cursor,
        suggestions=[removal("listing_id", "Bewertungen aller Objekte und Eigentümer-Kontakte")] if empty and args.listing_id else [],
        empty_hint=(
            ("Für dieses Objekt ist keine Bewertung gespeichert." if args.listing_id else "Dein Büro hat keine Bewertung gespeichert.")
            + " Eine neue Schätzung macht estimate_value, speichern save_valuation."
        )
        if empty
        else None,
    )


# ---------------------------------------------------------------------------------------------- proposals


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _member(enum: type[Any], value: Any) -> Any:
    return enum(value) if value in {m.value for m in enum} else None


def criteria_of(raw: dict[str, Any]) -> SearchCriteria:
    places: list[str] = []
    if raw.get("city"):
        places.append(str(raw["city"]))
    places += [f"PLZ {code}" for code in raw.get("postal_codes") or []]
    near = raw.get("near") or {}
    if near:
        centre = near.get("place") or f"{near.get('latitude')}, {near.get('longitude')}"
        places.append(f"{_number(near.get('radius_km')) or 10:g} km um {centre}")
    return SearchCriteria(
        marketing_type=_member(MarketingType, raw.get("marketing_type")),
        property_types=[t for t in (_member(PropertyType, v) for v in raw.get("property_types") or []) if t is not None],
        places=places,
        min_price=_number(raw.get("min_price")),
        max_price=_number(raw.get("max_price")),
        min_living_area=_number(raw.get("min_living_area")),
        min_rooms=_number(raw.get("min_rooms")),
    )


def criteria_text(criteria: SearchCriteria) -> str:
    kind = label(criteria.marketing_type) if criteria.marketing_type else "Kauf oder Miete"
    types = ", ".join(label(t) for t in criteria.property_types) or "alle Objektarten"
    where = ", ".join(criteria.places) or "überall"
    parts = [kind, types, where]
    parts.append(render.span(criteria.min_price, criteria.max_price, " €", digits=0, to=" bis ") or "ohne Preisgrenze")
    if criteria.min_living_area is not None:
        parts.append(f"ab {criteria.min_living_area:g} m²")
    if criteria.min_rooms is not None:
        parts.append(f"ab {criteria.min_rooms:g} Zimmer")
    return " · ".join(parts)


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


def list_proposals(args: ListProposalsInput, ctx: ToolContext) -> Page[ProposalSummary]:
    office = ctx.office()
    statuses = args.status or [ProposalStatus.open]
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = [Proposal.status.in_([s.value for s in statuses])]
        if args.listing_id:
            conditions.append(Proposal.listing_id == own_listing(session, office, args.listing_id))

        def refs_at(as_of: dt.datetime) -> list[str]:
            statement = proposals_in_scope(office).with_only_columns(Proposal.ref).where(*conditions, Proposal.created_at <= as_of)
            return list(session.scalars(statement.order_by(Proposal.created_at.desc(), Proposal.ref.desc())))

        page = walk(ctx, "list_proposals", office_key(office), args, refs_at)
        rows = session.execute(
            proposals_in_scope(office).add_columns(SearchOrder.ref, SearchOrder.criteria, Listing).where(Proposal.ref.in_(page.page))
        ).all()
        by_ref = {}
        for proposal, order_ref, raw_criteria, listing in rows:
            criteria = criteria_of(raw_criteria or {})
            by_ref[proposal.ref] = ProposalSummary(
                proposal_id=proposal.ref,
                status=ProposalStatus(proposal.status),
                created_at=proposal.created_at,
                decided_at=proposal.decided_at if proposal.decided_at else None,
                listing_id=listing.ref,
                listing_title=listing.title,
                listing_price=price_of(listing),
                listing_status=ListingStatus(listing.status),
                seeker_label=f"Suchende/r {order_ref}",
                criteria_summary=criteria_text(criteria),
                criteria=criteria,
            )
        fresh = freshness(
            session,
            [
                office.proposals().with_only_columns(func.max(Proposal.created_at)),
                office.proposals().with_only_columns(func.max(Proposal.decided_at)),
            ],
            page,
            "vorschlaege",
        )
    warnings = []
    if args.status is None:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message="status nicht angegeben: nur offene Vorschläge (open); alle mit status = [open, accepted, rejected].",
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
        request=request_of(args, page, {"status": [ProposalStatus.open]}),
        sort_key="created_at desc, proposal_id desc",
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


HANDLERS: dict[str, Handler] = {
    "search_inquiries": search_inquiries,
    "get_inquiry": get_inquiry,
    "list_valuations": list_valuations,
    "list_proposals": list_proposals,
}
