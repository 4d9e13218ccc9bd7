"""What the situation report counts, the office's lists find, item for item, on every office of the demo data:
the listings that cannot be published (report section vs. stock search with `publishable`, and each hit vs.
check_listing) and the inquiries that wait for the office (report section vs. search_inquiries with
`unanswered_for_days = 0`). Both halves of each rule: what must be in, and what must stay out.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from shared.awaiting_reply import awaiting_reply_since
from shared.db.models import Inquiry, Office
from shared.db.session import Database
from tests.conftest import FIXED_NOW, Caller, make_context
from tests.test_broker_office import principal, section, walk
from tests.wire_helpers import echoed

CHECKED = ["draft", "published", "reserved"]


@pytest.fixture(scope="module")
def offices(demo_db: Database) -> dict[int, Caller]:
    with demo_db.read_only() as session:
        ids = list(session.scalars(select(Office.id).order_by(Office.id)))
    base = Caller(BROKER, make_context(demo_db))
    return {office_id: base.as_(principal(demo_db, office_id)) for office_id in ids}


def failed_in_check(caller: Caller, ref: str) -> tuple[bool, list[str]]:
    result = caller("check_listing", {"listing_id": ref})
    return result["publishable"], [r["rule"] for r in result["rules"] if r["blocking"] and r["verdict"] != "ok"]


# --- listings that cannot be published ------------------------------------------------------------------------------


@pytest.mark.parametrize("office_id", [1, 2])
def test_every_stock_hit_says_what_check_listing_says(office_id: int, offices: dict[int, Caller]) -> None:
    caller = offices[office_id]
    hits = walk(caller, "search_listings", {"limit": 50})
    for hit in hits:
        assert (hit["publishable"], hit["failed_rules"]) == failed_in_check(caller, hit["listing_id"]), hit["listing_id"]
        assert "failed_rule_labels" not in hit  # the German labels are in the text only
    assert any(h["publishable"] for h in hits) and any(not h["publishable"] for h in hits)
    assert any(not h["publishable"] and h["status"] == "published" for h in hits), "published listings that now fail are found"


@pytest.mark.parametrize("office_id", [1, 2])
def test_the_publishable_filter_splits_the_stock_exactly_with_totals_and_pages(office_id: int, offices: dict[int, Caller]) -> None:
    caller = offices[office_id]
    everything = {h["listing_id"]: h["publishable"] for h in walk(caller, "search_listings", {"limit": 50})}
    for wanted in (True, False):
        first = caller("search_listings", {"publishable": wanted, "limit": 3})
        assert echoed(first, "publishable") == {"value": wanted, "source": "caller"}
        refs = [h["listing_id"] for h in walk(caller, "search_listings", {"publishable": wanted, "limit": 3})]
        assert len(refs) == len(set(refs)), "pages are disjoint"
        assert set(refs) == {ref for ref, publishable in everything.items() if publishable is wanted}
        assert first["total"] == len(refs) and first["completeness"]["complete"] is (len(refs) <= 3)
    unfiltered = caller("search_listings", {"limit": 1})
    assert echoed(unfiltered, "publishable") == {"value": None, "source": "default"}
    assert unfiltered["total"] == len(everything)


def test_a_publishable_cursor_is_bound_to_its_day(demo_db: Database, offices: dict[int, Caller]) -> None:
    page = offices[1]("search_listings", {"publishable": False, "limit": 2})
    tomorrow = Caller(BROKER, make_context(demo_db, now=FIXED_NOW + dt.timedelta(days=1))).as_(principal(demo_db, 1))
    code, _ = tomorrow.error("search_listings", {"publishable": False, "limit": 2, "cursor": page["completeness"]["next_cursor"]})
    assert code == "CURSOR_EXPIRED"


def test_the_report_lists_the_same_unpublishable_listings_as_the_stock_search_on_every_office(offices: dict[int, Caller]) -> None:
    assert len(offices) > 10
    seen_published = 0
    for office_id, caller in offices.items():
        report = section(caller("show_situation_report", {"items_per_section": 50}), "unpublishable")
        searched = walk(caller, "search_listings", {"publishable": False, "statuses": CHECKED, "limit": 50})
        assert report["total"] == len(searched), f"office {office_id}"
        assert report["shown"] == min(50, report["total"])
        assert {i["listing_id"] for i in report["items"]} <= {h["listing_id"] for h in searched}
        if report["all_shown"]:
            assert {i["listing_id"]: i["failed_rules"] for i in report["items"]} == {h["listing_id"]: h["failed_rules"] for h in searched}
        everything_checked = caller("search_listings", {"statuses": CHECKED, "limit": 1})["total"]
        assert report["checked"] == everything_checked
        assert report["drafts"] == sum(h["status"] == "draft" for h in searched)
        assert report["published_or_reserved"] == sum(h["status"] in {"published", "reserved"} for h in searched)
        statuses = [i["status"] for i in report["items"]]
        assert statuses == sorted(statuses, key=lambda s: s == "draft"), "the listings already online come first"
        seen_published += report["published_or_reserved"]
    assert seen_published > 0, "the demo data has published listings that now fail"


def test_sold_let_and_withdrawn_listings_stay_out_of_the_report(offices: dict[int, Caller]) -> None:
    caller = offices[1]
    gone = walk(caller, "search_listings", {"publishable": False, "statuses": ["sold", "let", "withdrawn"], "limit": 50})
    assert gone, "office 1 has failing listings that are no longer marketed"
    report = section(caller("show_situation_report", {"items_per_section": 50}), "unpublishable")
    assert {h["listing_id"] for h in gone}.isdisjoint({i["listing_id"] for i in report["items"]})


# --- inquiries that wait for the office ----------------------------------------------------------------------------


def test_the_report_and_the_inquiry_search_count_the_same_waiting_inquiries_on_every_office(offices: dict[int, Caller]) -> None:
    for office_id, caller in offices.items():
        report = section(caller("show_situation_report", {"items_per_section": 50}), "inquiries")
        searched = walk(caller, "search_inquiries", {"unanswered_for_days": 0, "sort": "oldest", "limit": 50})
        assert report["total"] == len(searched), f"office {office_id}"
        assert all(s["status"] == "open" for s in searched)
        waiting: dict[str, Any] = {s["inquiry_id"]: s["awaiting_reply_since"] for s in searched}
        assert {i["inquiry_id"]: i["waiting_since"] for i in report["items"]} == {
            ref: since for ref, since in waiting.items() if ref in {i["inquiry_id"] for i in report["items"]}
        }
        if report["all_shown"]:
            assert {i["inquiry_id"] for i in report["items"]} == set(waiting)


def test_a_closed_inquiry_whose_last_word_is_the_seekers_never_counts_as_unanswered(
    demo_db: Database, offices: dict[int, Caller]
) -> None:
    with demo_db.read_only() as session:
        office_id, ref = session.execute(
            select(Inquiry.office_id, Inquiry.ref)
            .where(Inquiry.status == "closed", awaiting_reply_since().is_not(None))
            .order_by(Inquiry.id)
            .limit(1)
        ).one()
    caller = offices[office_id]
    found = caller("search_inquiries", {"status": ["closed"]})
    closed = next(i for i in walk(caller, "search_inquiries", {"status": ["closed"], "limit": 50}) if i["inquiry_id"] == ref)
    assert found["total"] > 0 and closed["awaiting_reply_since"] is None and closed["days_awaiting_reply"] is None
    assert caller("search_inquiries", {"status": ["closed"], "unanswered_for_days": 0})["total"] == 0
    assert ref not in {i["inquiry_id"] for i in walk(caller, "search_inquiries", {"unanswered_for_days": 0, "limit": 50})}
    detail = caller("get_inquiry", {"inquiry_id": ref})
    assert (detail["status"], detail["awaiting_reply_since"]) == ("closed", None)


def test_start_the_day_says_what_the_unpublishable_section_holds(demo_db: Database) -> None:
    prompt = BROKER.prompts["start_the_day"]({}, make_context(demo_db)).splitlines()
    assert prompt[2] == (
        "   Der Abschnitt zu den Objekten, die nicht veröffentlicht werden können (unpublishable), enthält Entwürfe mit "
        "Mängeln und auch veröffentlichte oder reservierte Objekte, die eine Pflichtregel inzwischen nicht mehr erfüllen "
        "(etwa einen abgelaufenen Energieausweis); diese stehen zuerst, weil sie schon online sind. Nenne sie getrennt "
        "(published_or_reserved, drafts) mit den Gründen; alle davon findet search_listings mit publishable = false "
        "und statuses = [draft, published, reserved]."
    )
