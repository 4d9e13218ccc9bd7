"""E-mail alerts of saved searches, through the outbox, each Treffer once.

A search order's frequency decides when its seeker is written to: `instant` at the next round after a Treffer,
`daily` at most once in 24 hours, `weekly` at most once in 7 days; each alert lists every Treffer of the search not yet
alerted. Once: the Treffer are marked (`alerted_at`) by a conditional update in the transaction that writes the
outbox row; a round that finds them already marked (another worker was faster) writes nothing. Only active searches
alert; the e-mail goes to the seeker's account address.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from contract.vocabulary import AlertFrequency, MatchKind, SearchOrderStatus, label
from shared import german
from shared.db.models import Listing, Match, SearchOrder, User
from shared.db.session import Database
from shared.outbox import enqueue

SPACING = {AlertFrequency.instant: dt.timedelta(0), AlertFrequency.daily: dt.timedelta(days=1), AlertFrequency.weekly: dt.timedelta(days=7)}


def _line(match: Match, listing: Listing) -> str:
    price = german.euro(listing.price) if listing.price is not None else "Preis auf Anfrage"
    return f"- {label(MatchKind(match.kind))}: „{listing.title}“ ({listing.ref}), {listing.postal_code} {listing.city}, {price} ({match.ref})"


def _alert_one(session: Session, order: SearchOrder, now: dt.datetime) -> int | None:
    """The alert of one search if it is due and has Treffer to tell; the outbox row's id."""
    spacing = SPACING.get(AlertFrequency(order.frequency), dt.timedelta(days=1))
    if order.last_alert_at is not None and now - order.last_alert_at < spacing:
        return None
    rows = session.execute(
        select(Match, Listing)
        .join(Listing, Listing.id == Match.listing_id)
        .where(Match.search_order_id == order.id, Match.alerted_at.is_(None), Match.created_at <= now)
        .order_by(Match.created_at, Match.id)
    ).all()
    if not rows:
        return None
    ids = [match.id for match, _ in rows]
    marked = session.execute(update(Match).where(Match.id.in_(ids), Match.alerted_at.is_(None)).values(alerted_at=now))
    if marked.rowcount != len(ids):
        raise _Raced()
    taken = session.execute(
        update(SearchOrder)
        .where(SearchOrder.id == order.id, (SearchOrder.last_alert_at.is_(None)) | (SearchOrder.last_alert_at == order.last_alert_at))
        .values(last_alert_at=now)
    )
    if taken.rowcount != 1:
        raise _Raced()
    seeker = session.get(User, order.user_id)
    count = german.plural(len(rows), "neuer Treffer", "neue Treffer")
    body = "\n".join(
        [
            f"Zu Ihrem Suchauftrag „{order.name}“ ({order.ref}) gibt es {count}:",
            "",
            *(_line(match, listing) for match, listing in rows),
            "",
            f"Benachrichtigung: {label(AlertFrequency(order.frequency))}. Ändern lässt sie sich im Suchauftrag.",
        ]
    )
    row = enqueue(
        session,
        kind="alert",
        recipient=seeker.email if seeker else None,
        subject=f"{count} zu „{order.name}“",
        body=body + "\n",
        now=now,
        sender_user_id=None,
    )
    return row.id


class _Raced(Exception):
    """Another round took these Treffer first."""


def queue_alerts(db: Database, now: dt.datetime) -> list[int]:
    """One round: an outbox row for every active search whose alert is due; each search in its own transaction."""
    with db.read_only() as session:
        orders = list(session.scalars(select(SearchOrder.id).where(SearchOrder.status == SearchOrderStatus.active.value).order_by(SearchOrder.id)))
    queued = []
    for order_id in orders:
        try:
            with db.unit_of_work() as session:
                order = session.get(SearchOrder, order_id)
                if order is None or order.status != SearchOrderStatus.active.value:
                    continue
                row = _alert_one(session, order, now)
        except _Raced:
            continue
        if row is not None:
            queued.append(row)
    return queued
