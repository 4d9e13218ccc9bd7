"""Warm rent (issue 7): the sum of cold rent, service charges and heating costs where every part is known, otherwise
absent with its reason; min/max_warm_rent filter on it in SQL and count what they exclude (rule 14); every hit carries
warm rent and energy class. Checked against SQL and arithmetic written here."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select, text

from broker_server.server import DEFINITION as BROKER
from shared import listing_view
from shared.db.models import LISTING_WARM_RENT, Listing
from shared.db.session import Database
from tests.conftest import Caller, make_context
from tests.test_broker_office import principal
from tests.wire_helpers import absence, absence_note, amount, echoed

RENTALS = "FROM listings WHERE status = 'published' AND marketing_type = 'rent'"
KNOWN = "price IS NOT NULL AND service_charges IS NOT NULL AND heating_costs IS NOT NULL"


def scalar(db: Database, query: str, **params: Any) -> Any:
    with db.engine.connect() as connection:
        return connection.execute(text(query), params).scalar_one()


def walk(search: Caller, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = search("search_listings", {**arguments, "limit": 50})
    while True:
        items += page["items"]
        if not page["completeness"]["next_cursor"]:
            return items
        page = search("search_listings", {**arguments, "limit": 50, "cursor": page["completeness"]["next_cursor"]})


def parts(db: Database, ref: str) -> tuple[float | None, float | None, float | None, bool]:
    with db.engine.connect() as connection:
        row = connection.execute(
            text("SELECT price, service_charges, heating_costs, price_on_request FROM listings WHERE ref = :r"), {"r": ref}
        ).one()
    return row[0], row[1], row[2], bool(row[3])


# The value: the sum where every part is known; otherwise absent, naming the missing part.
def test_every_hit_carries_warm_rent_and_energy_class(search: Caller, demo_db: Database) -> None:
    result = search("search_listings", {"city": "Leipzig", "marketing_type": "rent", "limit": 50})
    assert result["items"]
    seen = set()
    for item in result["items"]:
        price, service, heating, on_request = parts(demo_db, item["listing_id"])
        if None not in (price, service, heating):
            assert amount(item["warm_rent"]) == price + service + heating  # type: ignore[operator]
            seen.add("sum")
        elif on_request:
            assert absence(result, item, "warm_rent") == "withheld"
            seen.add("withheld")
        else:
            assert absence(result, item, "warm_rent") == "empty_in_source"
            note = absence_note(result, item, "warm_rent")
            missing = [w for w, v in (("keine Kaltmiete", price), ("keine Nebenkosten", service), ("keine Heizkosten", heating)) if v is None]
            assert note == f"Der Anbieter hat {' und '.join(missing)} angegeben; die Warmmiete gibt es nur mit allen Teilen."
            seen.add("missing")
        with demo_db.read_only() as session:
            energy_class = session.scalar(select(Listing.energy_class).where(Listing.ref == item["listing_id"]))
        if energy_class is not None:
            assert item["energy_class"] == energy_class
        else:
            assert absence(result, item, "energy_class") in {"empty_in_source", "withheld"}
    assert {"sum", "missing"} <= seen


def test_the_energy_class_is_on_the_hit_and_left_out_only_when_asked(search: Caller) -> None:
    full = search("search_listings", {"city": "Leipzig", "limit": 10})
    assert any(isinstance(item["energy_class"], str) for item in full["items"])
    narrow = search("search_listings", {"city": "Leipzig", "limit": 10, "include": {"energy": False}})
    assert all(absence(narrow, item, "energy_class") == "not_collected" for item in narrow["items"])


def test_a_purchase_has_no_warm_rent(search: Caller) -> None:
    result = search("search_listings", {"city": "Leipzig", "marketing_type": "buy", "limit": 5})
    for item in result["items"]:
        assert absence(result, item, "warm_rent") == "not_collected" and "warm_rent" not in item
        assert absence_note(result, item, "warm_rent") == "nur bei Miete; ein Kauf hat keine Warmmiete"


def test_get_listing_costs_carry_warm_rent(search: Caller, demo_db: Database) -> None:
    with demo_db.engine.connect() as connection:
        known = connection.execute(text(f"SELECT ref, price + service_charges + heating_costs {RENTALS} AND {KNOWN} ORDER BY id LIMIT 1")).one()
        unknown = connection.execute(text(f"SELECT ref {RENTALS} AND price IS NOT NULL AND heating_costs IS NULL ORDER BY id LIMIT 1")).one()
    detail = search("get_listing", {"listing_id": known[0]})
    assert amount(detail["costs"]["warm_rent"]) == known[1]
    other = search("get_listing", {"listing_id": unknown[0]})
    assert absence(other, other["costs"], "warm_rent") == "empty_in_source"
    assert "keine Heizkosten" in (absence_note(other, other["costs"], "warm_rent") or "")


def test_the_sql_expression_and_the_view_agree_on_every_rental(demo_db: Database) -> None:
    with demo_db.read_only() as session:
        rows = session.execute(select(Listing, LISTING_WARM_RENT).where(Listing.marketing_type == "rent")).all()
        shown = [(listing.ref, listing_view.warm_rent_of(listing), warm) for listing, warm in rows]
    assert shown
    for ref, view, warm in shown:
        assert (view.amount if hasattr(view, "amount") else None) == warm, ref


# The filter: in SQL, only rentals, every hit at most the bound, listings without a known warm rent counted.
def test_max_warm_rent_holds_on_every_hit_and_misses_none(search: Caller, demo_db: Database) -> None:
    arguments = {"max_warm_rent": 950, "city": "Berlin"}
    hits = walk(search, arguments)
    expected = scalar(demo_db, f"SELECT count(*) {RENTALS} AND city = 'Berlin' AND {KNOWN} AND price + service_charges + heating_costs <= 950")
    assert len(hits) == expected > 0
    assert all(item["marketing_type"] == "rent" and amount(item["warm_rent"]) <= 950 for item in hits)  # type: ignore[operator]
    counted = search("count_listings", {**arguments, "facets": []})
    assert counted["total"] == expected


def test_max_warm_rent_counts_what_it_excludes(search: Caller, demo_db: Database) -> None:
    result = search("search_listings", {"max_warm_rent": 950, "city": "Berlin", "limit": 1})
    unknown = scalar(demo_db, f"SELECT count(*) {RENTALS} AND city = 'Berlin' AND NOT ({KNOWN})")
    assert unknown > 0
    messages = {w["code"]: w["message"] for w in result["warnings"]}
    assert messages["VALUE_UNKNOWN_EXCLUDED"] == (
        f"{unknown} sonst passende Inserate ohne bekannte Warmmiete (Kaltmiete, Nebenkosten oder Heizkosten nicht "
        "angegeben) fallen durch den Filter (max_warm_rent)."
    )
    assert messages["DEFAULT_SCOPE_APPLIED"] == "Eine Warmmiete haben nur Mietinserate: gesucht wurde nur unter Miete (marketing_type rent)."
    assert echoed(result, "marketing_type") == {"value": "rent", "source": "default"}
    assert echoed(result, "max_warm_rent") == {"value": 950.0, "source": "caller"}
    # the other half: without a warm-rent filter nothing is excluded for it and no rent scope is implied
    plain = search("search_listings", {"max_price": 950, "city": "Berlin", "marketing_type": "rent", "limit": 1})
    assert "VALUE_UNKNOWN_EXCLUDED" not in {w["code"] for w in plain["warnings"]}
    assert plain["total"] > result["total"]  # cold rent ≤ 950 includes listings whose warm rent is above or unknown


def test_min_and_max_warm_rent_together(search: Caller, demo_db: Database) -> None:
    result = search("count_listings", {"min_warm_rent": 800, "max_warm_rent": 1200, "marketing_type": "rent", "facets": []})
    expected = scalar(demo_db, f"SELECT count(*) {RENTALS} AND {KNOWN} AND price + service_charges + heating_costs BETWEEN 800 AND 1200")
    assert result["total"] == expected > 0
    assert [w["code"] for w in result["warnings"]].count("DEFAULT_SCOPE_APPLIED") == 0


@pytest.mark.parametrize(
    ("arguments", "start"),
    [
        ({"max_warm_rent": 900, "marketing_type": "buy"}, "Die Angaben passen nicht zusammen: min_warm_rent und max_warm_rent gelten nur für Miete"),
        ({"min_warm_rent": 1200, "max_warm_rent": 900}, "Die Angaben passen nicht zusammen: min_warm_rent (1200) ist größer als max_warm_rent (900)"),
    ],
)
def test_a_warm_rent_filter_that_cannot_hold_is_refused(search: Caller, arguments: dict[str, Any], start: str) -> None:
    code, message = search.error("search_listings", arguments)
    assert code == "INVALID_ARGUMENT" and message.startswith(start)


def test_the_broker_stock_filters_on_warm_rent_alike(demo_db: Database) -> None:
    broker = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))
    result = broker("search_listings", {"max_warm_rent": 1000, "statuses": ["published"], "limit": 50})
    expected = scalar(
        demo_db, f"SELECT count(*) {RENTALS} AND office_id = 1 AND {KNOWN} AND price + service_charges + heating_costs <= 1000"
    )
    assert result["total"] == expected > 0
    assert all(amount(item["warm_rent"]) <= 1000 for item in result["items"])  # type: ignore[operator]
