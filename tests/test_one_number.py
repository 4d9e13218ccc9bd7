"""One number, one wording (issue 20): what the text says equals the structure at the shown precision, the echo says
every filter in German with its unit, the values a schema offers are accepted, a date that cannot be true is
refused. Both halves of each rule, on the demo catalog."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from contract.servers import SERVERS
from shared.db.models import Listing
from shared.db.session import Database
from shared.german import number
from shared.runtime.render import GERMAN_TIME
from tests.conftest import Caller, FIXED_NOW, make_context, request_key, seeded_database
from tests.test_broker_office import principal
from tests.test_stock_writes import broker_principal, complete_fields


def text_of(caller: Caller, tool: str, arguments: dict[str, Any]) -> str:
    result = caller.raw(tool, arguments)
    assert not result.is_error, result
    return "\n".join(c.text for c in result.content)


def test_a_rent_per_m2_keeps_its_cents_and_a_purchase_price_per_m2_is_whole(search: Caller, demo_db: Database) -> None:
    with demo_db.read_only() as session:
        rent = session.scalar(select(Listing.ref).where(Listing.status == "published", Listing.marketing_type == "rent", Listing.living_area > 0).limit(1))
        buy = session.scalar(
            select(Listing.ref).where(Listing.status == "published", Listing.marketing_type == "buy", Listing.price > 0, Listing.living_area > 0).limit(1)
        )
    per_sqm = search("get_listing", {"listing_id": rent})["costs"]["price_per_sqm"]
    assert per_sqm < 100 and per_sqm % 1
    assert f"Preis je m²: {number(per_sqm, 2)} €/m²" in text_of(search, "get_listing", {"listing_id": rent})
    bought = search("get_listing", {"listing_id": buy})["costs"]["price_per_sqm"]
    assert f"Preis je m²: {number(round(bought), 0)} €/m²" in text_of(search, "get_listing", {"listing_id": buy})


def test_the_price_check_says_the_ratio_the_structure_holds(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    with demo_db.read_only() as session:
        refs = list(session.scalars(select(Listing.ref).where(Listing.office_id == 1, Listing.status == "published", Listing.price > 0).limit(20)))
    checked = 0
    for ref in refs:
        result = broker("check_listing", {"listing_id": ref})
        comparison = result.get("price_comparison")
        if not isinstance(comparison, dict) or "ratio" not in comparison:
            continue
        ratio = comparison["ratio"]
        assert ratio == round(ratio, 2)
        message = next(r["message"] for r in result["rules"] if "-Fache" in r["message"])
        assert f"(das {number(ratio, 2)}-Fache)" in message
        assert f"Verhältnis: {number(ratio, 2).rstrip('0').rstrip(',')}" in text_of(broker, "check_listing", {"listing_id": ref})
        checked += 1
    assert checked > 0


def test_the_echo_says_every_filter_in_german_with_its_unit(search: Caller) -> None:
    small = text_of(search, "search_listings", {"near": {"latitude": 52.5, "longitude": 13.4, "radius_km": 0.001}, "max_price": 300000})
    assert "Ausgeführt mit: Umkreis Breitengrad 52,5, Längengrad 13,4, Umkreis 0,001 km; Preis bis 300.000 €" in small
    assert "Umkreis: 0,001 km um 52,5° N, 13,4° O." in small and "0.001" not in small
    usual = text_of(search, "search_listings", {"near": {"place": "Leipzig", "radius_km": 5}, "min_living_area": 60, "limit": 1})
    assert "Umkreis um „Leipzig“, Umkreis 5 km" in usual and "Wohnfläche ab 60 m²" in usual
    assert "aufgeschlüsselt nach (keine)." in text_of(search, "count_listings", {"city": "Leipzig", "facets": []})
    assert "aufgeschlüsselt nach Vermarktung" in text_of(search, "count_listings", {"city": "Leipzig", "facets": ["marketing_type"]})


def test_every_input_description_of_near_is_german() -> None:
    for tool in ("search_listings", "count_listings"):
        described = SERVERS["suche"].tool(tool).input_schema()["properties"]["near"]["description"]
        assert described.startswith("Umkreis um einen Ort"), (tool, described)


def test_estimate_value_offers_only_what_it_accepts(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    offered = SERVERS["makler"].tool("estimate_value").input_schema()["properties"]["property_type"]["enum"]
    assert offered == ["apartment", "house", "commercial"]
    for kind in offered:
        assert broker("estimate_value", {"property_type": kind, "marketing_type": "buy", "living_area": 80, "city": "Leipzig"})["subject"]["property_type"] == kind
    code, message = broker.error("estimate_value", {"property_type": "land", "marketing_type": "buy", "living_area": 80, "city": "Leipzig"})
    assert code == "INVALID_ARGUMENT"


@pytest.mark.parametrize(("date", "refused"), [("2999-01-01", True), ("2028-11-30", True), ("2027-06-01", False), ("2020-01-01", False)])
def test_a_contract_date_that_cannot_be_planned_is_refused(search: Caller, date: str, refused: bool) -> None:
    arguments = {"price": 300000, "state": "Bayern", "contract_date": date}
    if refused:
        code, message = search.error("calculate_purchase_costs", arguments)
        day = re.sub(r"(\d+)-(\d+)-(\d+)", r"\3.\2.\1", date)
        assert code == "INVALID_ARGUMENT" and message.startswith(f"Ein Vertragsdatum am {day} (contract_date) liegt mehr als zwei Jahre")
    else:
        assert search("calculate_purchase_costs", arguments)["contract_date"] == date


def test_days_waiting_are_counted_alike_in_the_report_and_the_inquiry(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    report = broker("show_situation_report", {})
    section = next(s for s in report["sections"] if s["section"] == "inquiries")
    waiting = [w for w in section["items"] if w["waiting_hours"] > 48 and (w["waiting_hours"] / 24) % 1 >= 0.5] or section["items"]
    assert waiting
    text = text_of(broker, "show_situation_report", {})
    for item in waiting:
        days = broker("get_inquiry", {"inquiry_id": item["inquiry_id"]})["days_awaiting_reply"]
        assert days == int(item["waiting_hours"] // 24), item
        assert re.search(rf"{item['inquiry_id']};.*; wartet {days} Tage", text), (item, days)


def test_datenstand_is_when_the_list_was_read(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    for tool in ("search_inquiries", "list_valuations"):
        assert broker(tool, {})["freshness"]["data_as_of"] == FIXED_NOW.isoformat().replace("+00:00", "Z"), tool


@pytest.fixture(scope="module")
def writable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("republish"), "republish", listings=50) as db:
        yield db


def test_a_republished_listing_carries_its_republication_date(writable: Database) -> None:
    def broker_at(now: dt.datetime) -> Caller:
        return Caller(BROKER, make_context(writable, now), broker_principal(writable, 1))

    first, later = FIXED_NOW, FIXED_NOW + dt.timedelta(days=3)
    ref = broker_at(first)("save_listing", {"request_id": request_key(), "fields": complete_fields(writable)})["listing_id"]
    broker_at(first)("update_listing_status", {"listing_id": ref, "status": "published"})
    broker_at(first + dt.timedelta(days=1))("update_listing_status", {"listing_id": ref, "status": "withdrawn"})
    broker_at(later)("update_listing_status", {"listing_id": ref, "status": "published"})
    listing = broker_at(later)("get_listing", {"listing_id": ref})
    assert listing["published_at"] == later.isoformat().replace("+00:00", "Z")
    published = [h["changed_at"] for h in listing["status_history"] if h["new_status"] == "published"]
    assert sorted(published) == [first.isoformat().replace("+00:00", "Z"), later.isoformat().replace("+00:00", "Z")]
    # the other half: reserved and back keeps the date (it never left the catalog)
    broker_at(later + dt.timedelta(days=1))("update_listing_status", {"listing_id": ref, "status": "reserved"})
    broker_at(later + dt.timedelta(days=2))("update_listing_status", {"listing_id": ref, "status": "published"})
    assert broker_at(later)("get_listing", {"listing_id": ref})["published_at"] == later.isoformat().replace("+00:00", "Z")


def test_the_stock_list_shows_the_date_it_sorts_by(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    result = broker("search_listings", {"limit": 3})
    text = text_of(broker, "search_listings", {"limit": 3})
    assert "Reihenfolge: zuletzt veröffentlicht zuerst" in text
    for item in result["items"]:
        shown = dt.datetime.fromisoformat(item["published_at"].replace("Z", "+00:00")).astimezone(GERMAN_TIME).strftime("%d.%m.%Y %H:%M")
        assert re.search(rf"- {item['listing_id']};.*; veröffentlicht {shown};", text), item["listing_id"]
    assert "; vom " not in text


def test_every_bad_argument_is_named_in_one_answer(search: Caller) -> None:
    code, message = search.error("search_listings", {"limit": 0, "max_price": -5, "sort": "billig", "farbe": "rot"})
    assert code == "INVALID_ARGUMENT"
    assert message.startswith("4 Angaben sind ungültig: ")
    for named in ("das Argument limit ist zu klein (mindestens 1)", "das Argument max_price ist zu klein (mindestens 0)", "das Argument sort ist kein erlaubter Wert (erlaubt: 'newest', 'price_asc', 'price_desc' oder 'living_area_desc')", "das Argument farbe ist kein Argument dieses Werkzeugs"):
        assert named in message, named
    assert message.endswith("Bitte alle korrigieren und das Werkzeug erneut aufrufen.")
    # the other half: one mistake reads as before
    code, message = search.error("search_listings", {"limit": 0})
    assert message == "Das Argument limit ist zu klein (mindestens 1): bitte korrigieren und das Werkzeug erneut aufrufen."


def test_the_office_reads_its_own_empty_certificate_as_not_entered_the_public_as_withheld(search: Caller, demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    with demo_db.read_only() as session:
        ref = session.scalar(
            select(Listing.ref).where(Listing.office_id == 1, Listing.status == "published", Listing.energy_status == "at_viewing").limit(1)
        )
    assert ref is not None
    own = broker("get_listing", {"listing_id": ref})
    assert own["energy"]["absent"]["energy_class"] == "empty_in_source"
    assert own["absence_notes"]["energy_class"]["empty_in_source"].startswith("nicht erfasst: ")
    assert "zurückgehalten" not in text_of(broker, "get_listing", {"listing_id": ref})
    public = search("get_listing", {"listing_id": ref})
    assert public["energy"]["absent"]["energy_class"] == "withheld"
