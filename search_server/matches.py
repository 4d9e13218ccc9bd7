"""Handler of list_matches: the Treffer of the seeker's saved searches, newest first, in one account walk.

The default scope (no `since`) is the last 14 days before the walk's reference time plus every older Treffer the
seeker has not looked at yet (state new): list_search_orders counts exactly those as `new_matches`, so the two
tools never disagree about what is new. The warning DEFAULT_SCOPE_APPLIED names both parts and how many older,
already seen Treffer stay out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import ColumnElement, or_

from contract.catalog import IncludeFields, Money
from contract.envelope import AbsenceReason, Absent, EffectiveValue, Page, ResultWarning, Suggestion, ValueSource, WarningCode
from contract.errors import ErrorCode, ToolFailure
from contract.seeker_account import ListMatchesInput, MatchDetail, MatchItem
from contract.vocabulary import ListingStatus, MatchKind, MatchState, label, labelled
from search_server.account_lists import account_scope, available, labels_text, live, load_listings, owner_key, when
from shared import german, listing_view
from shared.db.models import Listing, Match, SearchOrder
from shared.db.scoped import count_rows
from shared.paging.walk import ordered, walk
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request
from shared.runtime.render import framed

DEFAULT_MATCH_WINDOW = dt.timedelta(days=14)
SUGGESTED_EARLIER = dt.timedelta(days=90)
MATCHES_SORT = "created_at desc, match_id asc"


def _utc(value: dt.datetime) -> dt.datetime:
    """A caller's time as UTC (no zone given: UTC); stored times are UTC, SQLite keeps no zone."""
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


# --- one Treffer ----------------------------------------------------------------------------------------------


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


def _status_note(listing: Listing) -> str:
    if available(listing):
        return ""
    return f" – derzeit nicht veröffentlicht ({label(ListingStatus(listing.status))})"


def match_sentence(kind: MatchKind, order_name: str, detail: MatchDetail, listing: Listing) -> str:
    what = f"{framed(listing.title)} ({listing.ref}, {listing.postal_code} {listing.city})"
    if kind is MatchKind.price_drop:
        change = f"Preis gesenkt von {_value_text(detail.old_price)} auf {_value_text(detail.new_price)}"
    elif kind is MatchKind.status_change:
        change = f"Status von {_value_text(detail.old_status)} zu {_value_text(detail.new_status)}"
    elif kind is MatchKind.proposal:
        change = f"vorgeschlagen von {detail.proposed_by}, {listing_view.price_text(listing)}"
    else:
        change = listing_view.price_text(listing)
    return f"{label(kind)} zu „{order_name}“: {what}, {change}{_status_note(listing)}."


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
        listing_available=available(listing),
        summary=match_sentence(kind, order_name, detail, listing),
        detail=detail,
        listing=listing_view.summary(listing, include, None),
    )


# --- the scope --------------------------------------------------------------------------------------------------


def _match_conditions(args: ListMatchesInput, order_id: int | None) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if order_id is not None:
        conditions.append(Match.search_order_id == order_id)
    if args.kinds:
        conditions.append(Match.kind.in_(sorted({k.value for k in args.kinds})))
    if args.states:
        conditions.append(Match.state.in_(sorted({s.value for s in args.states})))
    return conditions


def _since(args: ListMatchesInput, as_of: dt.datetime) -> dt.datetime:
    """The caller's since, or the default: 14 days before the walk's reference time (the same on every page)."""
    return _utc(args.since) if args.since else as_of - DEFAULT_MATCH_WINDOW


def _in_time_scope(args: ListMatchesInput, since: dt.datetime) -> ColumnElement[bool]:
    """From `since` on; by default also every older Treffer still unseen, as list_search_orders counts them new."""
    recent = Match.created_at >= since
    return recent if args.since else or_(recent, Match.state == MatchState.new.value)


def _default_scope_warning(since: dt.datetime, older_new: int, older_seen: int) -> ResultWarning:
    new_part = (
        f"dazu {german.plural(older_new, 'älterer, noch nicht angesehener Treffer', 'ältere, noch nicht angesehene Treffer')} "
        f"(Zustand neu; list_search_orders zählt {'ihn' if older_new == 1 else 'sie'} bei den neuen Treffern mit)"
        if older_new
        else "ältere, noch nicht angesehene Treffer gibt es nicht"
    )
    beyond = (
        f"{german.plural(older_seen, 'älterer, schon angesehener Treffer', 'ältere, schon angesehene Treffer')} zu diesen "
        f"Filtern {'ist' if older_seen == 1 else 'sind'} nicht enthalten; dafür den Zeitpunkt früher setzen (since)."
        if older_seen
        else "Ältere, schon angesehene Treffer zu diesen Filtern gibt es nicht."
    )
    return ResultWarning(
        code=WarningCode.DEFAULT_SCOPE_APPLIED,
        message=f"Ohne Zeitpunkt (since) gezeigt: die Treffer seit {when(since)} (Standard: 14 Tage vor jetzt); {new_part}. {beyond}",
    )


def _matches_hint(args: ListMatchesInput, since: dt.datetime, since_default: bool, has_orders: bool) -> str:
    if not has_orders:
        return (
            "Dein Konto hat keinen Suchauftrag; Treffer entstehen nur zu gespeicherten Suchaufträgen. Neue Inserate findest "
            "du mit search_listings."
        )
    parts = [
        f"Gesucht wurden Treffer seit {when(since)}"
        + (" (Standard: 14 Tage vor jetzt, dazu jeder ältere, noch nicht angesehene)" if since_default else "")
    ]
    if args.search_order_id:
        parts.append(f"nur zum Suchauftrag {args.search_order_id}")
    if args.kinds:
        parts.append(f"nur der Art {labels_text(sorted(set(args.kinds), key=list(MatchKind).index))}")
    if args.states:
        parts.append(f"nur im Zustand {labels_text(sorted(set(args.states), key=list(MatchState).index))}")
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
        Suggestion(arguments={"since": earlier.isoformat()}, reason=f"Zeitraum 90 Tage früher beginnen lassen (ab {when(earlier)})")
    )
    return suggestions


# --- the handler ------------------------------------------------------------------------------------------------


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
            scoped = filtered.with_only_columns(Match.ref).where(_in_time_scope(args, _since(args, as_of)), Match.created_at <= as_of)
            return list(session.scalars(scoped.order_by(Match.created_at.desc(), Match.ref.asc())))

        page = walk(
            ctx,
            "list_matches",
            owner_key(seeker),
            args,
            refs_at,
            scope={
                "since": _utc(args.since).isoformat() if args.since else None,
                "search_order_id": args.search_order_id,
                "kinds": sorted({k.value for k in args.kinds or []}),
                "states": sorted({s.value for s in args.states or []}),
            },
        )
        since = _since(args, page.as_of)
        since_source = ValueSource.caller if args.since else ValueSource.cursor if page.from_cursor else ValueSource.default
        rows = session.execute(filtered.add_columns(SearchOrder.ref, SearchOrder.name).where(Match.ref.in_(page.page))).all()
        by_ref = {match.ref: (match, order_ref, order_name) for match, order_ref, order_name in rows}
        listing_rows = load_listings(session, (m.listing_id for m, _, _ in rows))
        items = [
            _match_item(match, order_ref, order_name, listing_rows[match.listing_id], args.include)
            for match, order_ref, order_name in ordered(by_ref, page.page)
        ]
        warnings = []
        if since_source is not ValueSource.caller:
            older = filtered.where(Match.created_at < since)
            older_new = count_rows(session, older.where(Match.state == MatchState.new.value))
            warnings.append(_default_scope_warning(since, older_new, count_rows(session, older) - older_new))
        scope = account_scope(session, seeker)
    request = {"since": EffectiveValue(value=since.isoformat(), source=since_source)}
    if not args.since:
        request["unseen_before_since"] = EffectiveValue(value=True, source=since_source)
    request |= effective_request(
        args,
        {
            "kinds": [k.value for k in MatchKind],
            "states": [s.value for s in MatchState],
        },
        exclude={"since", "cursor"},
    )
    if not args.search_order_id:  # the echo stays what the tool accepts back (null: all); the orders it meant beside it
        request["search_orders"] = EffectiveValue(value=order_refs, source=ValueSource.default)
    empty = page.total == 0
    return Page(
        items=items,
        total=page.total,
        request=request | scope,
        sort_key=MATCHES_SORT,
        sort_key_label="neueste zuerst",
        freshness=live(now, f"treffer-{page.fingerprint}"),
        next_cursor=page.next_cursor,
        warnings=warnings,
        suggestions=_matches_suggestions(args, since) if empty and order_refs else [],
        empty_hint=_matches_hint(args, since, since_source is not ValueSource.caller, bool(order_refs)) if empty else None,
    )


HANDLERS: dict[str, Handler] = {"list_matches": list_matches}
