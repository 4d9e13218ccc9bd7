"""E-mail alerts of saved searches through the outbox: by each search's frequency, each Treffer once."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import select, update

from shared.db.models import Listing, Match, OutboxMessage, SearchOrder
from shared.db.session import Database
from shared.outbox.alerts import queue_alerts
from tests.conftest import FIXED_NOW, request_key


def new_match(db: Database, order_id: int, at: dt.datetime) -> str:
    with db.unit_of_work() as session:
        listing = session.scalar(select(Listing.id).where(Listing.status == "published").order_by(Listing.id).limit(1))
        match = Match(ref=f"tmp-{at.timestamp()}", search_order_id=order_id, listing_id=listing, kind="new_listing", detail={}, state="new", created_at=at)
        session.add(match)
        session.flush()
        match.ref = f"T-{match.id:06d}"
        return match.ref


def order_with(db: Database, frequency: str) -> int:
    """An active search, set to `frequency`; every other search paused (so only this one can alert)."""
    with db.unit_of_work() as session:
        order_id = session.scalar(select(SearchOrder.id).order_by(SearchOrder.id).limit(1))
        session.execute(update(SearchOrder).values(status="paused"))
        session.execute(update(SearchOrder).where(SearchOrder.id == order_id).values(status="active", frequency=frequency))
        return int(order_id)


def alerts(db: Database) -> list[tuple[str, str]]:
    with db.read_only() as session:
        return [(r.subject, r.body) for r in session.scalars(select(OutboxMessage).where(OutboxMessage.kind == "alert").order_by(OutboxMessage.id))]


def test_the_demo_history_is_not_mailed(scratch_db: Database) -> None:
    assert queue_alerts(scratch_db, FIXED_NOW) == []


def test_instant_alerts_each_treffer_once(scratch_db: Database) -> None:
    order = order_with(scratch_db, "instant")
    first, second = new_match(scratch_db, order, FIXED_NOW), new_match(scratch_db, order, FIXED_NOW)
    assert len(queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(minutes=1))) == 1
    assert queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(minutes=2)) == []
    (subject, body), = alerts(scratch_db)
    assert subject.startswith("2 neue Treffer") and first in body and second in body
    third = new_match(scratch_db, order, FIXED_NOW + dt.timedelta(minutes=3))
    assert len(queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(minutes=4))) == 1
    assert third in alerts(scratch_db)[1][1] and first not in alerts(scratch_db)[1][1]


def test_daily_alerts_wait_a_day_and_weekly_a_week(scratch_db: Database) -> None:
    order = order_with(scratch_db, "daily")
    new_match(scratch_db, order, FIXED_NOW)
    assert len(queue_alerts(scratch_db, FIXED_NOW)) == 1
    later = new_match(scratch_db, order, FIXED_NOW + dt.timedelta(hours=2))
    assert queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(hours=23)) == []
    assert len(queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(hours=24))) == 1 and later in alerts(scratch_db)[-1][1]
    with scratch_db.unit_of_work() as session:
        session.execute(update(SearchOrder).where(SearchOrder.id == order).values(frequency="weekly"))
    new_match(scratch_db, order, FIXED_NOW + dt.timedelta(days=2))
    assert queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(days=7)) == []
    assert len(queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(days=8))) == 1


def test_paused_searches_do_not_alert(scratch_db: Database) -> None:
    order = order_with(scratch_db, "instant")
    new_match(scratch_db, order, FIXED_NOW)
    with scratch_db.unit_of_work() as session:
        session.execute(update(SearchOrder).where(SearchOrder.id == order).values(status="paused"))
    assert queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(hours=1)) == []


def test_a_published_listing_that_fits_an_instant_search_is_mailed_once(scratch_db: Database) -> None:
    """Across the write side: the broker publishes, the matching makes the Treffer, the next round alerts it once."""
    from broker_server.server import DEFINITION as BROKER
    from search_server.server import DEFINITION as SEARCH
    from tests.conftest import Caller, make_context
    from tests.test_seeker_writes import seeker_principal
    from tests.test_stock_writes import broker_principal, complete_fields
    from tests.confirmation_helpers import SEEKER

    with scratch_db.unit_of_work() as session:
        session.execute(update(SearchOrder).values(status="paused"))
    context = make_context(scratch_db)
    seeker = Caller(SEARCH, context, seeker_principal(scratch_db, SEEKER.email))
    broker = Caller(BROKER, context, broker_principal(scratch_db, 1))
    order = seeker("save_search_order", {"request_id": request_key(), "criteria": {"marketing_type": "buy", "city": "Leipzig", "query": "Wasserturmblick"}, "frequency": "instant"})
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(scratch_db, title="Altbauwohnung mit Wasserturmblick")})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    assert len(queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(minutes=1))) == 1
    assert queue_alerts(scratch_db, FIXED_NOW + dt.timedelta(minutes=2)) == []
    (subject, body), = alerts(scratch_db)
    assert ref in body and order["search_order_id"] in body and subject.startswith("1 neuer Treffer")
