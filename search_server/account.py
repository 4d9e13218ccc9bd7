"""Handlers of the seeker's account, read side: list_search_orders, list_matches, list_inquiries, get_inquiry.

Every account row is reached through `ctx.seeker()` (SeekerData), so the seeker filter is applied in one
place; listings and offices are joined to those rows afterwards. Listings are mapped by
`shared.listing_view.summary`, the same mapping as search_listings.

Matches and inquiries page with the shared account walk (`shared.paging.walk`) in the order
`created_at desc, <ref> asc`: the first page fixes the reference time (`as_of`, now), which bounds every
later page, so rows created during the walk stay out; the cursor carries a fingerprint of the whole ordered
result, and when a later page sees another result (a row was marked into or out of a state filter), the
walk ends with CURSOR_EXPIRED instead of skipping or repeating rows (seed 002). The default `since` of
list_matches is counted from `as_of`, so it stays the same on every page of a walk.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, selectinload

from contract.catalog import IncludeFields, Money
from contract.envelope import (
    AbsenceReason,
    Absent,
    EffectiveValue,
    Freshness,
    IncompleteReason,
    Page,
    ReasonCode,
    ResultWarning,
    Suggestion,
    ValueSource,
    WarningCode,
)
from contract.errors import ErrorCode, ToolFailure
from contract.seeker_account import (
    GetInquiryInput,
    InquiryDetail,
    InquiryItem,
    ListInquiriesInput,
    ListMatchesInput,
    ListSearchOrdersInput,
    MatchDetail,
    MatchItem,
    SearchOrderItem,
    SharedItem,
    ThreadMessage,
)
from contract.vocabulary import (
    SHARED_PROFILE_LABELS,
    AlertFrequency,
    InquiryStatus,
    ListingStatus,
    MatchKind,
    MatchState,
    MessageAuthor,
    SearchOrderStatus,
    label,
    labelled,
)
from shared import german, listing_view
from shared.catalog.search import PUBLIC_STATUSES
from shared.db.models import Inquiry, InquiryMessage, Listing, Match, Office, SearchOrder
from shared.db.scoped import SeekerData, count_rows
from shared.paging.walk import ordered, walk
from shared.runtime import render
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request
from shared.saved_search import criteria_of, criteria_text

YOU = "Du"
DEFAULT_MATCH_WINDOW = dt.timedelta(days=14)
SUGGESTED_EARLIER = dt.timedelta(days=90)
MAX_SEARCH_ORDERS = 200  # one page; beyond it the answer says RESULT_LIMIT_REACHED

SEARCH_ORDERS_SORT = "created_at desc, search_order_id asc"
MATCHES_SORT = "created_at desc, match_id asc"
INQUIRIES_SORT = "created_at desc, inquiry_id asc"


# --- small helpers ------------------------------------------------------------------------------


def _utc(value: dt.datetime) -> dt.datetime:
    """A caller's time as UTC (no zone given: UTC); stored times are UTC, SQLite keeps no zone."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _iso(value: dt.datetime) -> str:
    return value.isoformat()


def _when(value: dt.datetime) -> str:
    return render.value_text(value)


def _labels(values: Iterable[StrEnum]) -> str:
    return ", ".join(label(v) for v in values)


def _owner(seeker: SeekerData) -> str:
    """The owner of a seeker's walks: a cursor of one seeker is refused for another."""
    return f"seeker:{seeker.user_id}"


def _live(now: dt.datetime, snapshot: str) -> Freshness:
    """Account rows are read live from the database in this call."""
    return Freshness(data_as_of=now, snapshot=snapshot)


def _available(listing: Listing) -> bool:
    return listing.status in PUBLIC_STATUSES


def _status_note(listing: Listing) -> str:
    if _available(listing):
        return ""
    return f" – derzeit nicht veröffentlicht ({label(ListingStatus(listing.status))})"


def _load_listings(session: Session, ids: Iterable[int]) -> dict[int, Listing]:
    wanted = set(ids)
    if not wanted:
        return {}
    rows = session.scalars(
        select(Listing).where(Listing.id.in_(wanted)).options(selectinload(Listing.office), selectinload(Listing.features))
    )
    return {row.id: row for row in rows}


def _office_names(session: Session, ids: Iterable[int]) -> dict[int, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    return {row.id: row.name for row in session.execute(select(Office.id, Office.name).where(Office.id.in_(wanted)))}


# --- list_search_orders -----------------------------------------------------------------------


def _search_order_item(order: SearchOrder, new_matches: int) -> SearchOrderItem:
    criteria = criteria_of(order.criteria)
    return SearchOrderItem(
        search_order_id=order.ref,
        name=order.name,
        criteria=criteria,
        criteria_text=criteria_text(criteria),
        **labelled("frequency", AlertFrequency(order.frequency)),
        **labelled("status", SearchOrderStatus(order.status)),
        approachable=bool(order.approachable),
        new_matches=new_matches,
        created_at=order.created_at,
        updated_at=order.updated_at,
    )


def list_search_orders(args: ListSearchOrdersInput, ctx: ToolContext) -> Page[SearchOrderItem]:
    seeker = ctx.seeker()
    now = ctx.now()
    statuses = sorted(set(args.status or []), key=list(SearchOrderStatus).index)
    scoped = seeker.search_orders()
    if statuses:
        scoped = scoped.where(SearchOrder.status.in_([s.value for s in statuses]))
    with ctx.db.read_only() as session:
        total = count_rows(session, scoped)
        orders = list(
            session.scalars(scoped.order_by(SearchOrder.created_at.desc(), SearchOrder.ref.asc()).limit(MAX_SEARCH_ORDERS + 1))
        )[:MAX_SEARCH_ORDERS]
        unseen = seeker.matches().where(Match.state == MatchState.new.value).subquery()
        new_counts = {
            order_id: int(n)
            for order_id, n in session.execute(select(unseen.c.search_order_id, func.count()).group_by(unseen.c.search_order_id))
        }
        account_has_orders = total > 0 or count_rows(session, seeker.search_orders()) > 0
        items = [_search_order_item(order, new_counts.get(order.id, 0)) for order in orders]
    incomplete = []
    if total > len(items):
        incomplete.append(
            IncompleteReason(
                code=ReasonCode.RESULT_LIMIT_REACHED,
                message=(
                    f"Gezeigt werden höchstens {MAX_SEARCH_ORDERS} Suchaufträge; {total - len(items)} weitere fehlen. "
                    "Mit status eingrenzen."
                ),
            )
        )
    suggestions: list[Suggestion] = []
    hint = None
    if total == 0:
        if not account_has_orders:
            hint = (
                "Dein Konto hat keinen Suchauftrag. Im Katalog suchen kannst du mit search_listings; einen Suchauftrag "
                "anlegen kann dieser Server noch nicht."
            )
        else:
            hint = f"Keiner deiner Suchaufträge hat den Status {_labels(statuses)}."
            suggestions.append(Suggestion(arguments={"status": None}, reason="Suchaufträge in jedem Status zeigen"))
    return Page(
        items=items,
        total=total,
        request=effective_request(args, {"status": [s.value for s in SearchOrderStatus]}),
        sort_key=SEARCH_ORDERS_SORT,
        freshness=_live(now, "konto-live"),
        incomplete=incomplete,
        suggestions=suggestions,
        empty_hint=hint,
    )


# --- list_matches -----------------------------------------------------------------------------


def _money_from(detail: dict[str, Any], key: str, what: str) -> Money | Absent:
    value = detail.get(key)
    if value is None:
        return Absent(reason=AbsenceReason.empty_in_source, note=f"{what} ist zu diesem Treffer nicht aufgezeichnet.")
    return Money(amount=float(value))


def _status_from(detail: dict[str, Any], key: str, what: str) -> ListingStatus | Absent:
    value = detail.get(key)
    if value is None:
        return Absent(reason=AbsenceReason.empty_in_source, note=f"{what} ist zu diesem Treffer nicht aufgezeichnet.")
    return ListingStatus(value)


def _value_text(value: Money | ListingStatus | Absent | None) -> str:
    if isinstance(value, Money):
        return german.euro(value.amount)
    if isinstance(value, ListingStatus):
        return label(value)
    return "?"


def match_detail(kind: MatchKind, detail: dict[str, Any], listing: Listing) -> MatchDetail:
    note = detail.get("note") or detail.get("message")
    return MatchDetail(
        old_price=_money_from(detail, "old_price", "Der Preis vorher") if kind is MatchKind.price_drop else None,
        new_price=_money_from(detail, "new_price", "Der neue Preis") if kind is MatchKind.price_drop else None,
        old_status=_status_from(detail, "old_status", "Der Status vorher") if kind is MatchKind.status_change else None,
        new_status=_status_from(detail, "new_status", "Der neue Status") if kind is MatchKind.status_change else None,
        proposed_by=listing.office.name if kind is MatchKind.proposal else None,
        note=str(note) if note else None,
    )


def match_sentence(kind: MatchKind, order_name: str, detail: MatchDetail, listing: Listing) -> str:
    what = f"„{listing.title}“ ({listing.ref}, {listing.postal_code} {listing.city})"
    if kind is MatchKind.price_drop:
        change = f"Preis gesenkt von {_value_text(detail.old_price)} auf {_value_text(detail.new_price)}"
    elif kind is MatchKind.status_change:
        change = f"Status von {_value_text(detail.old_status)} zu {_value_text(detail.new_status)}"
    elif kind is MatchKind.proposal:
        change = f"vorgeschlagen von {detail.proposed_by}, {listing_view.price_text(listing)}"
    else:
        change = listing_view.price_text(listing)
    return f"{label(kind)} zu „{order_name}“: {what}, {change}{_status_note(listing)}."


def _match_conditions(args: ListMatchesInput, order_id: int | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if order_id is not None:
        conditions.append(Match.search_order_id == order_id)
    if args.kinds:
        conditions.append(Match.kind.in_(sorted({k.value for k in args.kinds})))
    if args.states:
        conditions.append(Match.state.in_(sorted({s.value for s in args.states})))
    return conditions


def _default_since_warning(since: dt.datetime, older: int) -> ResultWarning:
    beyond = (
        f"{older} ältere Treffer zu diesen Filtern sind nicht enthalten; für sie since früher setzen."
        if older
        else "Ältere Treffer zu diesen Filtern gibt es nicht."
    )
    return ResultWarning(
        code=WarningCode.DEFAULT_SCOPE_APPLIED,
        message=f"since nicht angegeben: gezeigt werden die Treffer seit {_when(since)} (Standard: 14 Tage vor jetzt). {beyond}",
    )


def _matches_hint(args: ListMatchesInput, since: dt.datetime, since_default: bool, has_orders: bool) -> str:
    if not has_orders:
        return (
            "Dein Konto hat keinen Suchauftrag; Treffer entstehen nur zu gespeicherten Suchaufträgen. Neue Inserate findest "
            "du mit search_listings."
        )
    parts = [f"Gesucht wurden Treffer seit {_when(since)}" + (" (Standard: 14 Tage vor jetzt)" if since_default else "")]
    if args.search_order_id:
        parts.append(f"nur zum Suchauftrag {args.search_order_id}")
    if args.kinds:
        parts.append(f"nur der Art {_labels(sorted(set(args.kinds), key=list(MatchKind).index))}")
    if args.states:
        parts.append(f"nur im Zustand {_labels(sorted(set(args.states), key=list(MatchState).index))}")
    return ", ".join(parts) + ". Die Vorschläge lassen je eine Einschränkung weg oder beginnen den Zeitraum früher."


def _matches_suggestions(args: ListMatchesInput, since: dt.datetime) -> list[Suggestion]:
    """Narrowest change first, broadest last; built from the request alone, never searched."""
    suggestions: list[Suggestion] = []
    if args.states:
        suggestions.append(Suggestion(arguments={"states": None}, reason="Treffer in jedem Zustand zeigen, auch gesehene"))
    if args.kinds:
        suggestions.append(Suggestion(arguments={"kinds": None}, reason="Treffer jeder Art zeigen"))
    if args.search_order_id:
        suggestions.append(Suggestion(arguments={"search_order_id": None}, reason="Treffer aller deiner Suchaufträge zeigen"))
    earlier = since - SUGGESTED_EARLIER
    suggestions.append(
        Suggestion(arguments={"since": _iso(earlier)}, reason=f"Zeitraum 90 Tage früher beginnen lassen (ab {_when(earlier)})")
    )
    return suggestions


def _since(args: ListMatchesInput, as_of: dt.datetime) -> dt.datetime:
    """The caller's since, or the default: 14 days before the walk's reference time (the same on every page)."""
    return _utc(args.since) if args.since else as_of - DEFAULT_MATCH_WINDOW


def list_matches(args: ListMatchesInput, ctx: ToolContext) -> Page[MatchItem]:
    seeker = ctx.seeker()
    now = ctx.now()
    with ctx.db.read_only() as session:
        orders = list(session.scalars(seeker.search_orders().order_by(SearchOrder.ref)))
        order_refs = [o.ref for o in orders]
        order_id = None
        if args.search_order_id:
            order = next((o for o in orders if o.ref == args.search_order_id), None)
            if order is None:
                raise ToolFailure(
                    ErrorCode.NOT_FOUND,
                    f"Einen Suchauftrag {args.search_order_id} gibt es in deinem Konto nicht: list_search_orders nennt deine Suchaufträge.",
                )
            order_id = order.id
        filtered = seeker.matches().where(*_match_conditions(args, order_id))

        def refs_at(as_of: dt.datetime) -> list[str]:
            scoped = filtered.with_only_columns(Match.ref).where(Match.created_at >= _since(args, as_of), Match.created_at <= as_of)
            return list(session.scalars(scoped.order_by(Match.created_at.desc(), Match.ref.asc())))

        page = walk(
            ctx,
            "list_matches",
            _owner(seeker),
            args,
            refs_at,
            scope={
                "since": _iso(_utc(args.since)) if args.since else None,
                "search_order_id": args.search_order_id,
                "kinds": sorted({k.value for k in args.kinds or []}),
                "states": sorted({s.value for s in args.states or []}),
            },
        )
        since = _since(args, page.as_of)
        since_source = ValueSource.caller if args.since else ValueSource.cursor if page.from_cursor else ValueSource.default
        rows = session.execute(filtered.add_columns(SearchOrder.ref, SearchOrder.name).where(Match.ref.in_(page.page))).all()
        by_ref = {match.ref: (match, order_ref, order_name) for match, order_ref, order_name in rows}
        listing_rows = _load_listings(session, (m.listing_id for m, _, _ in rows))
        items = [
            _match_item(match, order_ref, order_name, listing_rows[match.listing_id], args.include)
            for match, order_ref, order_name in ordered(by_ref, page.page)
        ]
        warnings = []
        if since_source is not ValueSource.caller:
            older = count_rows(session, filtered.where(Match.created_at < since))
            warnings.append(_default_since_warning(since, older))
    request = {"since": EffectiveValue(value=_iso(since), source=since_source)}
    request |= effective_request(
        args,
        {
            "search_order_id": order_refs,
            "kinds": [k.value for k in MatchKind],
            "states": [s.value for s in MatchState],
        },
        exclude={"since", "cursor"},
    )
    empty = page.total == 0
    return Page(
        items=items,
        total=page.total,
        request=request,
        sort_key=MATCHES_SORT,
        freshness=_live(now, f"treffer-{page.fingerprint}"),
        next_cursor=page.next_cursor,
        warnings=warnings,
        suggestions=_matches_suggestions(args, since) if empty and order_refs else [],
        empty_hint=_matches_hint(args, since, since_source is not ValueSource.caller, bool(order_refs)) if empty else None,
    )


def _match_item(match: Match, order_ref: str, order_name: str, listing: Listing, include: IncludeFields) -> MatchItem:
    kind = MatchKind(match.kind)
    detail = match_detail(kind, match.detail or {}, listing)
    return MatchItem(
        match_id=match.ref,
        **labelled("kind", kind),
        **labelled("match_state", MatchState(match.state)),
        created_at=match.created_at,
        search_order_id=order_ref,
        search_order_name=order_name,
        listing_id=listing.ref,
        listing_status=ListingStatus(listing.status),
        listing_available=_available(listing),
        summary=match_sentence(kind, order_name, detail, listing),
        detail=detail,
        listing=listing_view.summary(listing, include, None),
    )


# --- list_inquiries ---------------------------------------------------------------------------


@dataclass
class _Thread:
    count: int = 0
    replied: bool = False
    last_author: str = MessageAuthor.seeker.value


def _threads(session: Session, inquiry_ids: Sequence[int]) -> dict[int, _Thread]:
    threads: dict[int, _Thread] = {i: _Thread() for i in inquiry_ids}
    if not inquiry_ids:
        return threads
    rows = session.execute(
        select(InquiryMessage.inquiry_id, InquiryMessage.author)
        .where(InquiryMessage.inquiry_id.in_(inquiry_ids))
        .order_by(InquiryMessage.created_at, InquiryMessage.id)
    )
    for inquiry_id, author in rows:
        thread = threads[inquiry_id]
        thread.count += 1
        thread.replied |= author == MessageAuthor.office.value
        thread.last_author = author
    return threads


def _author(author: str, provider: str) -> str:
    return provider if author == MessageAuthor.office.value else YOU


def list_inquiries(args: ListInquiriesInput, ctx: ToolContext) -> Page[InquiryItem]:
    seeker = ctx.seeker()
    now = ctx.now()
    statuses = sorted(set(args.status or []), key=list(InquiryStatus).index)
    with ctx.db.read_only() as session:
        scoped = seeker.inquiries()
        if statuses:
            scoped = scoped.where(Inquiry.status.in_([s.value for s in statuses]))
        if args.listing_id:
            scoped = scoped.where(Inquiry.listing_id.in_(select(Listing.id).where(Listing.ref == args.listing_id)))

        def refs_at(as_of: dt.datetime) -> list[str]:
            bounded = scoped.with_only_columns(Inquiry.ref).where(Inquiry.created_at <= as_of)
            return list(session.scalars(bounded.order_by(Inquiry.created_at.desc(), Inquiry.ref.asc())))

        page = walk(
            ctx,
            "list_inquiries",
            _owner(seeker),
            args,
            refs_at,
            scope={"status": [s.value for s in statuses], "listing_id": args.listing_id},
        )
        total = page.total
        rows = ordered({i.ref: i for i in session.scalars(scoped.where(Inquiry.ref.in_(page.page)))}, page.page)
        listing_rows = _load_listings(session, (i.listing_id for i in rows))
        providers = _office_names(session, (i.office_id for i in rows))
        threads = _threads(session, [i.id for i in rows])
        account_has_inquiries = total > 0 or count_rows(session, seeker.inquiries()) > 0
        items = []
        for inquiry in rows:
            listing, provider, thread = listing_rows[inquiry.listing_id], providers[inquiry.office_id], threads[inquiry.id]
            items.append(
                InquiryItem(
                    inquiry_id=inquiry.ref,
                    **labelled("status", InquiryStatus(inquiry.status)),
                    listing_id=listing.ref,
                    listing_title=listing.title,
                    listing_status=ListingStatus(listing.status),
                    listing_available=_available(listing),
                    provider=provider,
                    created_at=inquiry.created_at,
                    last_message_at=inquiry.last_message_at,
                    last_message_from=_author(thread.last_author, provider),
                    provider_replied=thread.replied,
                    message_count=thread.count,
                )
            )
    suggestions: list[Suggestion] = []
    hint = None
    if total == 0:
        if not account_has_inquiries:
            hint = (
                "Du hast noch keine Anfrage an den Anbieter eines Inserats gestellt. Inserate findest du mit search_listings; "
                "eine Anfrage stellen kann dieser Server noch nicht."
            )
        else:
            limits = []
            if statuses:
                limits.append(f"im Status {_labels(statuses)}")
                suggestions.append(Suggestion(arguments={"status": None}, reason="Anfragen in jedem Status zeigen"))
            if args.listing_id:
                limits.append(f"zum Inserat {args.listing_id}")
                suggestions.append(Suggestion(arguments={"listing_id": None}, reason="Anfragen zu allen Inseraten zeigen"))
            hint = f"Du hast keine Anfrage {' und '.join(limits)}."
    return Page(
        items=items,
        total=total,
        request=effective_request(args, {"status": [s.value for s in InquiryStatus]}, exclude={"cursor"}),
        sort_key=INQUIRIES_SORT,
        freshness=_live(now, f"anfragen-{page.fingerprint}"),
        next_cursor=page.next_cursor,
        suggestions=suggestions,
        empty_hint=hint,
    )


# --- get_inquiry ------------------------------------------------------------------------------


def _shared_value(value: Any) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, int | float):
        return german.number(value)
    if isinstance(value, list):
        return ", ".join(_shared_value(v) for v in value) or "–"
    if isinstance(value, dict):
        return ", ".join(f"{SHARED_PROFILE_LABELS.get(k, k)}: {_shared_value(v)}" for k, v in value.items()) or "–"
    return str(value)


def shared_profile(profile: dict[str, Any] | None) -> list[SharedItem]:
    return [SharedItem(key=key, label=SHARED_PROFILE_LABELS.get(key, key), value=_shared_value(value)) for key, value in (profile or {}).items()]


def load_own_inquiry(session: Session, seeker: SeekerData, ref: str) -> Inquiry:
    """One inquiry of this seeker; another seeker's inquiry is NOT_FOUND with the same sentence as a missing one."""
    inquiry = session.scalar(
        seeker.inquiries()
        .where(Inquiry.ref == ref)
        .options(
            selectinload(Inquiry.messages),
            selectinload(Inquiry.listing).selectinload(Listing.office),
            selectinload(Inquiry.listing).selectinload(Listing.features),
        )
    )
    if inquiry is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Eine Anfrage {ref} gibt es in deinem Konto nicht: list_inquiries nennt deine Anfragen.")
    return inquiry


def get_inquiry(args: GetInquiryInput, ctx: ToolContext) -> InquiryDetail:
    seeker = ctx.seeker()
    with ctx.db.read_only() as session:
        inquiry = load_own_inquiry(session, seeker, args.inquiry_id)
        provider = _office_names(session, [inquiry.office_id])[inquiry.office_id]
        listing = inquiry.listing
        messages = [
            ThreadMessage(
                author=_author(message.author, provider),
                from_provider=message.author == MessageAuthor.office.value,
                sent_at=message.created_at,
                text=message.body,
            )
            for message in inquiry.messages
        ]
        return InquiryDetail(
            inquiry_id=inquiry.ref,
            **labelled("status", InquiryStatus(inquiry.status)),
            provider=provider,
            created_at=inquiry.created_at,
            last_message_at=inquiry.last_message_at,
            provider_replied=any(m.from_provider for m in messages),
            listing_status=ListingStatus(listing.status),
            listing_available=_available(listing),
            listing=listing_view.summary(listing, args.include, None),
            shared_profile=shared_profile(inquiry.shared_profile),
            messages=messages,
        )


HANDLERS: dict[str, Handler] = {
    "list_search_orders": list_search_orders,
    "list_matches": list_matches,
    "list_inquiries": list_inquiries,
    "get_inquiry": get_inquiry,
}
