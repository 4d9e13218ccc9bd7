"""The broker's stock, written: save_listing and update_listing_status through the runtime (right check included),
on a demo catalog of their own, on both backends. Both halves of each rule: a retry changes nothing, a new request
does; a stale version is CONFLICT naming what changed, the current one goes through; a failing listing is not
published, a fixed one is; a withdrawn listing leaves the catalog and stays in the stock.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import AuditEntry, IdempotencyKey, Listing, ListingStatusChange, OfficeMember, Place
from shared.db.session import Database
from tests.conftest import Caller, make_context, request_key, seeded_database

RESOURCE = "http://127.0.0.1:8000/makler/mcp"
WRITE = frozenset({"makler:lesen", "makler:schreiben"})
_keys = itertools.count(1)


def request_id() -> str:
    return f"test-request-{next(_keys):04d}"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("writes"), "writes", listings=200) as database:
        yield database


def broker_principal(db: Database, office_id: int, scopes: frozenset[str] = WRITE) -> Principal:
    with db.read_only() as session:
        user = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == office_id).order_by(OfficeMember.user_id).limit(1))
    return Principal(
        user_id=user or 1, kind="broker", office_id=office_id, office_role="owner", scopes=scopes, resource=RESOURCE, client_id="test-client"
    )


@pytest.fixture(scope="module")
def broker(db: Database) -> Caller:
    return Caller(BROKER, make_context(db), broker_principal(db, 1))


@pytest.fixture(scope="module")
def public(db: Database) -> Caller:
    return Caller(SEARCH, make_context(db))


def place(db: Database) -> tuple[str, str]:
    with db.read_only() as session:
        row = session.execute(select(Place.postal_code, Place.name).where(Place.name == "Leipzig").order_by(Place.id).limit(1)).one()
    return row[0], row[1]


def complete_fields(db: Database, **overrides: Any) -> dict[str, Any]:
    """Everything check_listing asks for, for a buy apartment in Leipzig."""
    postal_code, city = place(db)
    fields = {
        "marketing_type": "Kauf",
        "property_type": "Wohnung",
        "title": "Helle Dreizimmerwohnung mit Südbalkon am Auwald",
        "description": "Die Wohnung liegt ruhig im dritten Obergeschoss eines gepflegten Altbaus. " * 4,
        "postal_code": postal_code,
        "city": city,
        "price": 289000,
        "living_area": 78.5,
        "rooms": 3,
        "energy_status": "present",
        "energy_certificate_type": "consumption",
        "energy_value": 98.4,
        "energy_class": "C",
        "energy_carrier": "Fernwärme",
        "energy_year_built": 1912,
        "energy_valid_until": "2031-05-01",
        "photos": [{"url": "https://bilder.example/wohnung-1.jpg", "caption": "Wohnzimmer"}],
        "features": ["balcony", "Keller"],
    }
    return {**fields, **overrides}


def audit_rows(db: Database, ref: str) -> list[AuditEntry]:
    with db.read_only() as session:
        rows = list(session.scalars(select(AuditEntry).where(AuditEntry.subject_ref == ref).order_by(AuditEntry.id)))
        session.expunge_all()
        return rows


def test_a_draft_is_created_with_history_audit_and_search_terms(broker: Caller, public: Caller, db: Database) -> None:
    saved = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Mondscheinvilla am Schlossgespenstpark")})
    ref = saved["listing_id"]
    assert (saved["result"], saved["version"], saved["status"], saved["publishable"], saved["replayed"]) == ("created", 1, "draft", True, False)
    assert "title" in saved["changed_fields"] and "features" in saved["changed_fields"]
    [entry] = audit_rows(db, ref)
    assert (entry.action, entry.before, entry.client_id, entry.office_id, entry.subject_version) == ("listing.create", None, "test-client", 1, 1)
    assert entry.after is not None and entry.after["features"] == ["balcony", "cellar"] and entry.after["price"] == 289000
    with db.read_only() as session:
        history = session.scalars(select(ListingStatusChange).where(ListingStatusChange.listing_id == select(Listing.id).where(Listing.ref == ref).scalar_subquery())).all()
        assert [(h.old_status, h.new_status) for h in history] == [(None, "draft")]
    # the full text finds the draft in the office's stock (compound split: Schlossgespenstpark), not in the catalog
    found = broker("search_listings", {"query": "Mondscheinvilla", "statuses": ["draft"]})
    assert [i["listing_id"] for i in found["items"]] == [ref]
    assert public("search_listings", {"query": "Mondscheinvilla"})["total"] == 0


def test_a_change_raises_the_version_and_an_unchanged_save_does_not(broker: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    changed = broker("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 1, "fields": {"price": 279000, "rooms": 3}})
    assert (changed["result"], changed["version"], changed["changed_fields"]) == ("changed", 2, ["price"])
    same = broker("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 2, "fields": {"price": 279000}})
    assert (same["result"], same["version"], same["changed_fields"]) == ("unchanged", 2, [])
    assert [e.action for e in audit_rows(db, ref)] == ["listing.create", "listing.change"]
    assert audit_rows(db, ref)[1].before["price"] == 289000 and audit_rows(db, ref)[1].after["price"] == 279000
    detail = broker("get_listing", {"listing_id": ref})
    assert detail["version"] == 2


def test_a_stale_version_is_a_conflict_naming_what_changed_meanwhile(broker: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    broker("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 1, "fields": {"price": 275000, "living_area": 80}})
    code, text = broker.error("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 1, "fields": {"title": "Neuer Titel für die Wohnung"}})
    assert code == "CONFLICT"
    assert "price" in text and "living_area" in text and "version 2" in text and "title" not in text.split("geändert:")[1].split(")")[0]
    ok = broker("save_listing", {"request_id": request_key(), "listing_id": ref, "version": 2, "fields": {"title": "Neuer Titel für die Wohnung"}})
    assert (ok["result"], ok["version"]) == ("changed", 3)


def test_a_retry_with_the_same_request_id_changes_nothing_and_a_new_one_does(broker: Caller, db: Database) -> None:
    key = request_id()
    first = broker("save_listing", {"fields": complete_fields(db), "request_id": key})
    again = broker("save_listing", {"fields": complete_fields(db), "request_id": key})
    assert again["listing_id"] == first["listing_id"] and again["replayed"] is True and first["replayed"] is False
    assert (again["result"], again["version"]) == ("created", 1)
    with db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(IdempotencyKey).where(IdempotencyKey.key == key)) == 1
    ref = first["listing_id"]
    assert len(audit_rows(db, ref)) == 1
    second_key = request_id()
    change = {"listing_id": ref, "fields": {"price": 250000}, "request_id": second_key}
    assert broker("save_listing", change)["version"] == 2
    assert broker("save_listing", change)["replayed"] is True
    assert broker("get_listing", {"listing_id": ref})["version"] == 2
    new = broker("save_listing", {"fields": complete_fields(db), "request_id": request_id()})
    assert new["listing_id"] != ref and new["replayed"] is False
    code, text = broker.error("save_listing", {"fields": complete_fields(db, price=1), "request_id": key})
    assert code == "CONFLICT" and "request_id" in text


def test_errors_name_the_field_in_german(broker: Caller, db: Database) -> None:
    code, text = broker.error("save_listing", {"request_id": request_key(), "fields": {"title": "Nur ein Titel"}})
    assert code == "INVALID_ARGUMENT" and "marketing_type" in text and "postal_code" in text and "Zum Anlegen fehlt" in text
    code, text = broker.error("save_listing", {"request_id": request_key(), "fields": complete_fields(db, living_area="ca. 85")})
    assert code == "INVALID_ARGUMENT" and "living_area" in text and "Zahl" in text
    code, text = broker.error("save_listing", {"request_id": request_key(), "fields": complete_fields(db, postal_code="00000")})
    assert code == "INVALID_ARGUMENT" and "00000" in text and "latitude" in text
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    code, text = broker.error("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"title": None}})
    assert code == "INVALID_ARGUMENT" and "title" in text and "geleert" in text
    code, text = broker.error("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 100000, "price_on_request": True}})
    assert code == "INVALID_ARGUMENT" and "price_on_request" in text


def test_a_basement_floor_and_three_decimal_coordinates_are_saved_and_impossible_ones_are_not(broker: Caller, db: Database) -> None:
    saved = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, floor=-1, latitude=51.340, longitude=12.375)})
    with db.read_only() as session:
        row = session.execute(select(Listing.floor, Listing.latitude, Listing.longitude).where(Listing.ref == saved["listing_id"])).one()
    assert tuple(row) == (-1, 51.34, 12.375)
    code, text = broker.error("save_listing", {"request_id": request_key(), "listing_id": saved["listing_id"], "fields": {"floor": -1.5}})
    assert (code, text) == ("INVALID_ARGUMENT", "Das Argument fields.floor muss eine ganze Zahl sein: bitte korrigieren und das Werkzeug erneut aufrufen.")
    code, text = broker.error("save_listing", {"request_id": request_key(), "listing_id": saved["listing_id"], "fields": {"latitude": 12.375, "longitude": 51.34}})
    assert code == "INVALID_ARGUMENT" and "latitude" in text and "47" in text


def test_another_offices_listing_is_not_found_and_nothing_changes(broker: Caller, db: Database) -> None:
    with db.read_only() as session:
        foreign = session.scalar(select(Listing).where(Listing.office_id == 2).order_by(Listing.id).limit(1))
        session.expunge_all()
    code, _ = broker.error("save_listing", {"request_id": request_key(), "listing_id": foreign.ref, "fields": {"price": 1000}})
    assert code == "NOT_FOUND"
    code, _ = broker.error("update_listing_status", {"listing_id": foreign.ref, "status": "withdrawn"})
    assert code == "NOT_FOUND"
    with db.read_only() as session:
        after = session.scalar(select(Listing).where(Listing.id == foreign.id))
        session.expunge_all()
    assert (after.price, after.status, after.version) == (foreign.price, foreign.status, foreign.version)


def test_without_the_write_right_the_tools_answer_missing_right(db: Database) -> None:
    reader = Caller(BROKER, make_context(db), broker_principal(db, 1, frozenset({"makler:lesen"})))
    for tool, arguments in (("save_listing", {"request_id": request_key(), "fields": {}}), ("update_listing_status", {"listing_id": "A-0000001", "status": "withdrawn"})):
        code, _ = reader.error(tool, arguments)
        assert code == "MISSING_RIGHT"


def test_publishing_refuses_a_failing_listing_and_names_the_rules_then_publishes_it_fixed(broker: Caller, public: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, photos=[], energy_status="missing")})["listing_id"]
    code, text = broker.error("update_listing_status", {"listing_id": ref, "status": "veröffentlicht"})
    assert code == "CONFLICT" and "Fotos" in text and "Energieausweis (GEG §87)" in text and "Titel" not in text
    assert public.error("get_listing", {"listing_id": ref})[0] == "NOT_FOUND"
    fixed = broker("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": complete_fields(db)})
    assert fixed["publishable"] is True and set(fixed["changed_fields"]) == {"photos", "energy_status"}
    published = broker("update_listing_status", {"listing_id": ref, "status": "published", "version": fixed["version"]})
    assert (published["result"], published["old_status"], published["new_status"], published["in_catalog"]) == ("changed", "draft", "published", True)
    assert public("get_listing", {"listing_id": ref})["listing_id"] == ref


def test_a_withdrawn_listing_leaves_the_catalog_and_stays_in_the_stock(broker: Caller, public: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Zurückziehbare Wohnung am Kanal")})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    assert [i["listing_id"] for i in public("search_listings", {"query": "Zurückziehbare"})["items"]] == [ref]
    withdrawn = broker("update_listing_status", {"listing_id": ref, "status": "withdrawn", "reason": "Eigentümer verkauft privat"})
    assert (withdrawn["in_catalog"], withdrawn["new_status"]) == (False, "withdrawn")
    assert public("search_listings", {"query": "Zurückziehbare"})["total"] == 0
    assert public.error("get_listing", {"listing_id": ref})[0] == "NOT_FOUND"
    stock = broker("search_listings", {"query": "Zurückziehbare"})
    assert [(i["listing_id"], i["status"]) for i in stock["items"]] == [(ref, "withdrawn")]
    history = broker("get_listing", {"listing_id": ref})["status_history"]
    assert [(h["old_status"], h["new_status"]) for h in history] == [(None, "draft"), ("draft", "published"), ("published", "withdrawn")]
    with db.read_only() as session:
        assert session.scalar(select(ListingStatusChange.reason).order_by(ListingStatusChange.id.desc()).limit(1)) == "Eigentümer verkauft privat"


def test_status_rules_sold_only_for_buy_and_draft_only_from_withdrawn(broker: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    code, text = broker.error("update_listing_status", {"listing_id": ref, "status": "let"})
    assert code == "CONFLICT" and "sold" in text
    code, _ = broker.error("update_listing_status", {"listing_id": ref, "status": "draft"})
    assert code == "CONFLICT"
    assert broker("update_listing_status", {"listing_id": ref, "status": "sold"})["new_status"] == "sold"
    same = broker("update_listing_status", {"listing_id": ref, "status": "verkauft"})
    assert (same["result"], same["version"]) == ("unchanged", broker("get_listing", {"listing_id": ref})["version"])


def test_a_status_retry_with_the_same_request_id_changes_nothing(broker: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    key = request_id()
    first = broker("update_listing_status", {"listing_id": ref, "status": "published", "request_id": key})
    broker("update_listing_status", {"listing_id": ref, "status": "reserved"})
    again = broker("update_listing_status", {"listing_id": ref, "status": "published", "request_id": key})
    assert (again["replayed"], again["result"], first["version"]) == (True, "changed", 2)
    assert broker("get_listing", {"listing_id": ref})["status"] == "reserved"
    assert [e.action for e in audit_rows(db, ref)] == ["listing.create", "listing.status", "listing.status"]


def test_a_valuation_is_stored_for_a_listing_or_an_owner_lead_once_per_request_id(broker: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db)})["listing_id"]
    for_listing = broker("save_valuation", {"listing_id": ref, "value_low": 270000, "value_high": 295000, "comparables": ["A-0000001"], "request_id": request_id()})
    assert (for_listing["subject"], for_listing["listing_id"], for_listing["postal_code"], for_listing["comparables_count"]) == (
        "listing", ref, complete_fields(db)["postal_code"], 1
    )
    assert for_listing["living_area"] == 78.5 and for_listing["replayed"] is False
    lead = {"owner_name": "Familie Berger", "postal_code": "04109", "city": "Leipzig", "property_type": "Haus", "marketing_type": "buy",
            "value_low": 390000, "value_high": 430000, "request_id": request_id()}
    first = broker("save_valuation", lead)
    again = broker("save_valuation", lead)
    assert (first["subject"], first["owner_name"], first["replayed"]) == ("owner_lead", "Familie Berger", False)
    assert again["valuation_id"] == first["valuation_id"] and again["replayed"] is True
    other = broker("save_valuation", {**lead, "request_id": request_id()})
    assert other["valuation_id"] != first["valuation_id"]
    listed = broker("list_valuations", {"listing_id": ref})
    assert [v["valuation_id"] for v in listed["items"]] == [for_listing["valuation_id"]]
    [entry] = audit_rows(db, first["valuation_id"])
    assert (entry.action, entry.before, entry.after["owner_name"], entry.client_id) == ("valuation.save", None, "Familie Berger", "test-client")


def test_a_valuation_needs_its_subject_and_an_ordered_range(broker: Caller, db: Database) -> None:
    code, text = broker.error("save_valuation", {"value_low": 1000, "value_high": 2000, "request_id": request_id()})
    assert code == "INVALID_ARGUMENT" and "postal_code" in text
    code, text = broker.error("save_valuation", {"listing_id": "A-0000001", "city": "Leipzig", "value_low": 1000, "value_high": 2000, "request_id": request_id()})
    assert code == "INVALID_ARGUMENT" and "city" in text
    code, text = broker.error("save_valuation", {"postal_code": "04109", "city": "Leipzig", "property_type": "house", "marketing_type": "buy", "value_low": 3000, "value_high": 2000, "request_id": request_id()})
    assert code == "INVALID_ARGUMENT" and "value_low" in text
    with db.read_only() as session:
        foreign = session.scalar(select(Listing.ref).where(Listing.office_id == 2).limit(1))
    assert broker.error("save_valuation", {"listing_id": foreign, "value_low": 1000, "value_high": 2000, "request_id": request_id()})[0] == "NOT_FOUND"


def test_a_changed_text_is_found_by_its_new_words_and_no_longer_by_the_old(broker: Caller, public: Caller, db: Database) -> None:
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Wohnung mit Gingkohof")})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    assert [i["listing_id"] for i in public("search_listings", {"query": "Gingkohof"})["items"]] == [ref]
    broker("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"title": "Wohnung mit Lindenhof", "features": ["garden"]}})
    assert public("search_listings", {"query": "Gingkohof"})["total"] == 0
    assert [i["listing_id"] for i in public("search_listings", {"query": "Lindenhof", "features": ["Garten"]})["items"]] == [ref]
    assert public("search_listings", {"query": "Lindenhof", "features": ["balcony"]})["total"] == 0


def test_the_import_finds_its_listings_by_feed_and_external_id(db: Database) -> None:
    from shared.stock_writes import change_status, feed_refs, listing_by_external_id, save_listing

    now = make_context(db).now()
    with db.unit_of_work() as session:
        first = save_listing(session, office_id=1, user_id=None, client_id=None, fields=complete_fields(db), listing_ref=None,
                             expected_version=None, idempotency_key=None, now=now, feed="feed-a", external_id="OBJ-1")
        save_listing(session, office_id=1, user_id=None, client_id=None, fields=complete_fields(db), listing_ref=None,
                     expected_version=None, idempotency_key=None, now=now, feed="feed-a", external_id="OBJ-2")
        ref = first.listing.ref
    with db.unit_of_work() as session:
        assert listing_by_external_id(session, office_id=1, feed="feed-a", external_id="OBJ-1").ref == ref
        assert listing_by_external_id(session, office_id=2, feed="feed-a", external_id="OBJ-1") is None
        assert sorted(feed_refs(session, office_id=1, feed="feed-a")) == ["OBJ-1", "OBJ-2"]
        change_status(session, office_id=1, user_id=None, client_id=None, listing_ref=ref, status="withdrawn", reason="VOLL", now=now)
    with db.unit_of_work() as session:
        assert sorted(feed_refs(session, office_id=1, feed="feed-a")) == ["OBJ-2"]
        assert audit_rows(db, ref)[-1].user_id is None
