"""Handlers of the seeker's account, read side: list_search_orders, list_inquiries, get_inquiry (list_matches is
`search_server.matches`).

Every account row is reached through `ctx.seeker()` (SeekerData), so the seeker filter is applied in one
place; listings and offices are joined to those rows afterwards. Listings are mapped by
`shared.listing_view.summary`, the same mapping as search_listings.

Inquiries page with the shared account walk (`shared.paging.walk`) in the order `created_at desc, inquiry_id asc`:
the first page fixes the reference time (`as_of`, now), which bounds every later page, so rows created during
the walk stay out; the cursor carries a fingerprint of the whole ordered result, and when a later page sees
another result, the walk ends with CURSOR_EXPIRED instead of skipping or repeating rows (seed 002).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from sqlalchemy import Row, Text, cast, func, select
from sqlalchemy.orm import Session, selectinload

from contract.envelope import IncompleteReason, Page, ReasonCode, Suggestion
from contract.errors import ErrorCode, ToolFailure
from contract.seeker_account import (
    GetInquiryInput,
    InquiryDetail,
    InquiryItem,
    ListInquiriesInput,
    ListSearchOrdersInput,
    SearchOrderItem,
    SharedItem,
    ThreadMessage,
)
from contract.vocabulary import (
    SHARED_PROFILE_LABELS,
    AlertFrequency,
    InquiryStatus,
    ListingStatus,
    MatchState,
    MessageAuthor,
    SearchOrderStatus,
    labelled,
)
from search_server.account_lists import account_scope, available, labels_text, live, load_listings, owner_key
from shared import german, listing_view
from shared.db.models import Inquiry, InquiryMessage, Listing, Match, Office, SearchOrder
from shared.outbox import delivery_note, failed_for_inquiry
from shared.db.scoped import SeekerData, count_rows
from shared.paging.walk import ordered, walk
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.runtime.envelope import effective_request
from shared.saved_search import criteria_of, criteria_text

YOU = "Du"  # the seeker as the author of a message ("Von: Du")
TO_YOU = "dir"  # the same after "von" ("letzte Nachricht von dir")
MAX_SEARCH_ORDERS = 200  # one page; beyond it the answer says RESULT_LIMIT_REACHED

SEARCH_ORDERS_SORT = "created_at desc, search_order_id asc"
INQUIRIES_SORT = "created_at desc, inquiry_id asc"


# --- list_search_orders -----------------------------------------------------------------------


# what an item of list_search_orders reads of a saved search (search_order_item); the criteria as their stored text,
# which keys the items already built (_listed_item)
ORDER_COLUMNS = (
    SearchOrder.id, SearchOrder.ref, SearchOrder.name, cast(SearchOrder.criteria, Text).label("criteria"), SearchOrder.frequency,
    SearchOrder.status, SearchOrder.approachable, SearchOrder.created_at, SearchOrder.updated_at,
)
# Items built from the same stored values again and again (a seeker's list of up to 200 is read whole on every call;
# issue 35: their building was a third of the handler's CPU): each kept under all the values it is made of.
LISTED_ITEMS_KEPT = 4096


def _office_names(session: Session, ids: Iterable[int]) -> dict[int, str]:
    wanted = set(ids)
    if not wanted:
        return {}
    return {row.id: row.name for row in session.execute(select(Office.id, Office.name).where(Office.id.in_(wanted)))}


def search_order_item(order: SearchOrder | Row[Any], new_matches: int) -> SearchOrderItem:
    """One saved search as listed: from its row (the mapped object, or a row of ORDER_COLUMNS)."""
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


@functools.lru_cache(maxsize=LISTED_ITEMS_KEPT)
def _listed_item(row: tuple[Any, ...], new_matches: int) -> SearchOrderItem:
    """An item of the list from a row of ORDER_COLUMNS (without its id), the criteria as their stored JSON text. The
    same values give the same item: it is shared between calls, and nothing changes an item once it is built."""
    ref, name, criteria, frequency, status, approachable, created_at, updated_at = row
    stored = SimpleNamespace(
        ref=ref, name=name, criteria=json.loads(criteria) if criteria else None, frequency=frequency, status=status,
        approachable=approachable, created_at=created_at, updated_at=updated_at,
    )
    return search_order_item(stored, new_matches)  # type: ignore[arg-type]


def list_search_orders(args: ListSearchOrdersInput, ctx: ToolContext) -> Page[SearchOrderItem]:
    seeker = ctx.seeker()
    now = ctx.now()
    statuses = sorted(set(args.status or []), key=list(SearchOrderStatus).index)
    scoped = seeker.search_orders()
    if statuses:
        scoped = scoped.where(SearchOrder.status.in_([s.value for s in statuses]))
    with ctx.db.read_only() as session:
        # the orders with their total as a window column: the count and the page in one statement; plain rows of the
        # columns an item shows, not mapped objects (up to 200 of them, issue 21: most of the call's CPU went there)
        rows = session.execute(
            scoped.with_only_columns(*ORDER_COLUMNS, func.count().over().label("total"))
            .order_by(SearchOrder.created_at.desc(), SearchOrder.ref.asc())
            .limit(MAX_SEARCH_ORDERS + 1)
        ).all()
        total = int(rows[0].total) if rows else 0
        orders = rows[:MAX_SEARCH_ORDERS]
        unseen = (
            seeker.matches()
            .where(Match.state == MatchState.new.value)
            .with_only_columns(Match.search_order_id, func.count(), maintain_column_froms=True)
            .group_by(Match.search_order_id)
        )
        new_counts = {order_id: int(n) for order_id, n in session.execute(unseen)}
        account_has_orders = total > 0 or count_rows(session, seeker.search_orders()) > 0
        scope = account_scope(session, seeker)
        items = [_listed_item(tuple(order[1:9]), new_counts.get(order.id, 0)) for order in orders]
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
                "legt save_search_order an."
            )
        else:
            hint = f"Keiner deiner Suchaufträge hat den Status {labels_text(statuses)}."
            suggestions.append(Suggestion(arguments={"status": None}, reason="Suchaufträge in jedem Status zeigen"))
    return Page(
        items=items,
        total=total,
        request=effective_request(args, {"status": [s.value for s in SearchOrderStatus]}) | scope,
        sort_key=SEARCH_ORDERS_SORT,
        sort_key_label="neueste zuerst",
        freshness=live(now, "konto-live"),
        incomplete=incomplete,
        suggestions=suggestions,
        empty_hint=hint,
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
            owner_key(seeker),
            args,
            refs_at,
            scope={"status": [s.value for s in statuses], "listing_id": args.listing_id},
        )
        total = page.total
        rows = ordered({i.ref: i for i in session.scalars(scoped.where(Inquiry.ref.in_(page.page)))}, page.page)
        listing_rows = load_listings(session, (i.listing_id for i in rows))
        providers = _office_names(session, (i.office_id for i in rows))
        threads = _threads(session, [i.id for i in rows])
        account_has_inquiries = total > 0 or count_rows(session, seeker.inquiries()) > 0
        scope = account_scope(session, seeker)
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
                    listing_available=available(listing),
                    provider=provider,
                    created_at=inquiry.created_at,
                    last_message_at=inquiry.last_message_at,
                    last_message_from=provider if thread.last_author == MessageAuthor.office.value else TO_YOU,
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
                limits.append(f"im Status {labels_text(statuses)}")
                suggestions.append(Suggestion(arguments={"status": None}, reason="Anfragen in jedem Status zeigen"))
            if args.listing_id:
                limits.append(f"zum Inserat {args.listing_id}")
                suggestions.append(Suggestion(arguments={"listing_id": None}, reason="Anfragen zu allen Inseraten zeigen"))
            hint = f"Du hast keine Anfrage {' und '.join(limits)}."
    return Page(
        items=items,
        total=total,
        request=effective_request(args, {"status": [s.value for s in InquiryStatus]}, exclude={"cursor"}) | scope,
        sort_key=INQUIRIES_SORT,
        sort_key_label="neueste zuerst",
        freshness=live(now, f"anfragen-{page.fingerprint}"),
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
                written_by=f"vom Anbieter {provider}" if message.author == MessageAuthor.office.value else f"von {TO_YOU}",
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
            listing_available=available(listing),
            listing=listing_view.summary(listing, args.include, None),
            shared_profile=shared_profile(inquiry.shared_profile),
            messages=messages,
            delivery_notes=[delivery_note(row) for row in failed_for_inquiry(session, inquiry.id, office_side=False)],
        )


HANDLERS: dict[str, Handler] = {
    "list_search_orders": list_search_orders,
    "list_inquiries": list_inquiries,
    "get_inquiry": get_inquiry,
}
