"""Data-fidelity rules on the public catalog (SPEC section 8), each with both halves where the seed asks."""

from __future__ import annotations

import re

import math
from typing import Any

import pytest
from sqlalchemy import event, func, select

from contract.broker import SERVER as BROKER_SERVER
from contract.search import SERVER as SEARCH_SERVER
from shared.db.models import Listing
from tests.conftest import Caller
from tests.wire_helpers import absence, amount, echoed

ALL_PROPERTY_TYPES = ["apartment", "house", "land", "commercial", "parking"]


def ids(result: dict[str, Any]) -> list[str]:
    return [item["listing_id"] for item in result["items"]]


# Rule 1: an omitted filter means all of it, spelled out in the echo; the delta to explicit-maximal is zero.
def test_omitted_filter_is_echoed_as_all_of_it(search: Caller) -> None:
    result = search("search_listings", {"query": "Balkon"})
    assert echoed(result, "property_types") == {"value": ALL_PROPERTY_TYPES, "source": "default"}
    assert echoed(result, "marketing_type") == {"value": ["buy", "rent"], "source": "default"}
    assert echoed(result, "query") == {"value": "Balkon", "source": "caller"}


def test_omitted_filter_equals_explicit_maximal_scope(search: Caller) -> None:
    omitted = search("count_listings", {"query": "Balkon"})
    explicit = search("count_listings", {"query": "Balkon", "property_types": ALL_PROPERTY_TYPES})
    by_kind = sum(search("count_listings", {"query": "Balkon", "marketing_type": k})["total"] for k in ("buy", "rent"))
    assert omitted["total"] == explicit["total"] == by_kind > 0


# Rule 2: the include group narrows; an explicit false returns less.
def test_include_false_returns_less(search: Caller) -> None:
    full = search("search_listings", {"city": "Leipzig", "limit": 5})
    narrow = search("search_listings", {"city": "Leipzig", "limit": 5, "include": {"energy": False, "features": False}})
    assert ids(full) == ids(narrow)
    assert all(absence(full, item, "energy_class") != "not_collected" for item in full["items"])
    assert any(isinstance(item["energy_class"], str) for item in full["items"])
    assert ["energy_class" in item for item in narrow["items"]] == [False] * len(narrow["items"])
    assert narrow["not_collected"]["energy_class"] == "include.energy = true"
    assert all(absence(narrow, item, "features") == "not_collected" for item in narrow["items"])
    assert "not_collected" not in full or "energy_class" not in full["not_collected"]
    assert echoed(narrow, "include")["value"] == {"description": False, "energy": False, "features": False, "photos": False}


def test_include_true_adds_the_part(search: Caller) -> None:
    without = search("search_listings", {"city": "Leipzig", "limit": 3})
    with_text = search("search_listings", {"city": "Leipzig", "limit": 3, "include": {"description": True}})
    assert all(absence(without, item, "description") == "not_collected" for item in without["items"])
    assert all(isinstance(item["description"], str) and item["description"] for item in with_text["items"])


# Rules 3 and 11: an empty result carries the executed request and a next step built from it.
def test_empty_result_echoes_request_and_gives_a_next_step(search: Caller) -> None:
    result = search("search_listings", {"query": "Schlossgespenst", "city": "Leipzig", "max_price": 1000})
    assert result["items"] == [] and result["returned"] == 0 and result["total"] == 0
    assert result["match_type"] == "none"
    assert result["status"] == "complete" and result["completeness"] == {"complete": True, "reasons": [], "next_cursor": None}
    assert echoed(result, "query") == {"value": "Schlossgespenst", "source": "caller"}
    assert echoed(result, "city") == {"value": "Leipzig", "source": "caller"}
    assert echoed(result, "max_price") == {"value": 1000.0, "source": "caller"}
    assert "nicht erweitert" in result["hint"] and "'Schlossgespenst'" in result["hint"]


def test_non_empty_result_has_no_hint_and_no_suggestions(search: Caller) -> None:
    result = search("search_listings", {"query": "Balkon"})
    assert result["match_type"] == "matches"
    assert result["hint"] is None and result["suggestions"] is None


# Rule 4: no description explains an empty result away.
@pytest.mark.parametrize("spec", [*SEARCH_SERVER.tools, *BROKER_SERVER.tools], ids=lambda s: f"{s.right.server.value}-{s.name}")
def test_descriptions_do_not_explain_empty_results_away(spec: Any) -> None:
    text = (spec.description + str(spec.input_schema()) + str(spec.documented_output_schema())).casefold()
    for phrase in ("usually means", "likely", "wahrscheinlich", "bedeutet meist", "meistens", "vermutlich"):
        assert phrase not in text, f"{spec.name}: {phrase!r}"


# Rule 10, half 1: suggestions come from the caller's own input.
def test_empty_result_suggests_variants_of_the_callers_own_input(search: Caller) -> None:
    result = search("search_listings", {"query": "Dachgeschosswohnungenxyz", "max_price": 50000})
    assert result["match_type"] == "none" and result["suggestions"]
    query_suggestions = [s["arguments"]["query"] for s in result["suggestions"] if "query" in s["arguments"]]
    assert query_suggestions, "no variant of the caller's term"
    for suggested in query_suggestions:
        assert suggested.endswith("*") and "dachgeschosswohnungenxyz".startswith(suggested.rstrip("*"))
        assert len(suggested.rstrip("*")) >= 4
    assert len(query_suggestions[-1]) <= len(query_suggestions[0]), "the broadest suggestion must come last"
    other = [s["arguments"] for s in result["suggestions"] if "query" not in s["arguments"]]
    assert other == [{"max_price": None}]
    assert all(s["searched"] is False for s in result["suggestions"])


# Rule 10, half 2: suggestions are never searched: only the caller's own terms reach the database.
def test_suggestions_are_never_searched(search: Caller, demo_db: Any) -> None:
    statements: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        statements.append((statement, parameters))

    event.listen(demo_db.engine, "before_cursor_execute", capture)
    try:
        result = search("search_listings", {"query": "Dachgeschosswohnungenxyz"})
    finally:
        event.remove(demo_db.engine, "before_cursor_execute", capture)
    assert result["suggestions"]
    values = [v for _, p in statements for v in (p.values() if isinstance(p, dict) else p)]  # psycopg: dict, sqlite: tuple
    sent = {value for value in values if isinstance(value, str)}
    assert "dachgeschosswohnungenxyz" in sent, "the caller's own term must be searched"
    # A word no listing contains is looked up in the index vocabulary (listing_terms alone) for words spelt alike
    # (issue 20); that reads no listing and applies none of the caller's filters, so it is no search.
    searches = [(statement, p) for statement, p in statements if re.search(r"\blistings\b", statement)]
    searched = {v for _, p in searches for v in (p.values() if isinstance(p, dict) else p) if isinstance(v, str)}
    for suggestion in result["suggestions"]:
        variant = suggestion["arguments"]["query"].rstrip("*")
        # a prefix search would send the variant and its upper bound; the caller sent a whole word only
        upper = variant[:-1] + chr(ord(variant[-1]) + 1)
        assert upper not in searched, f"suggestion {variant!r} was searched as a prefix"
        assert variant == "dachgeschosswohnungenxyz" or variant not in searched, f"suggestion {variant!r} was searched"


# Rule 7: a total, documented order; two identical calls give the same order.
@pytest.mark.parametrize("sort", ["newest", "price_asc", "price_desc", "living_area_desc"])
def test_order_is_total_and_documented(search: Caller, sort: str) -> None:
    first = search("search_listings", {"city": "Berlin", "sort": sort, "limit": 50})
    second = search("search_listings", {"city": "Berlin", "sort": sort, "limit": 50})
    assert ids(first) == ids(second)
    assert first["sort_key"].endswith("listing_id asc")


def test_price_order_puts_price_on_request_last(search: Caller) -> None:
    walked: list[dict[str, Any]] = []
    args: dict[str, Any] = {"marketing_type": "buy", "sort": "price_asc", "limit": 50}
    while True:
        page = search("search_listings", args)
        walked += page["items"]
        if not page["completeness"]["next_cursor"]:
            break
        args["cursor"] = page["completeness"]["next_cursor"]
    prices = [amount(i.get("price")) for i in walked]
    known = [p for p in prices if p is not None]
    assert known == sorted(known)
    assert prices[len(known):] == [None] * (len(prices) - len(known)), "price on request must come last"
    assert len(prices) > len(known), "the demo catalog has listings with price on request"


# Rule 12: absence has three values.
def test_absence_says_why(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        on_request = session.scalar(select(Listing.ref).where(Listing.price_on_request, Listing.status == "published").limit(1))
        hidden_address = session.scalar(select(Listing.ref).where(~Listing.address_published, Listing.status == "published").limit(1))
        at_viewing = session.scalar(select(Listing.ref).where(Listing.energy_status == "at_viewing", Listing.status == "published").limit(1))
        missing = session.scalar(select(Listing.ref).where(Listing.energy_status == "missing", Listing.status == "published").limit(1))
    priced = search("get_listing", {"listing_id": on_request})
    assert absence(priced, priced["costs"], "price") == "withheld"
    located = search("get_listing", {"listing_id": hidden_address})
    assert absence(located, located["address"], "street") == "withheld" and located["address"]["coordinates_exact"] is False
    viewing = search("get_listing", {"listing_id": at_viewing})
    assert absence(viewing, viewing["energy"], "energy_class") == "withheld"
    unknown = search("get_listing", {"listing_id": missing})
    assert absence(unknown, unknown["energy"], "energy_value") == "empty_in_source"
    page = search("search_listings", {"query": "Balkon", "limit": 1})
    assert absence(page, page["items"][0], "photos") == "not_collected"


# Rule 14: a filter on a value some listings do not give says how many it excluded.
def test_price_filter_reports_excluded_price_on_request(search: Caller, demo_db: Any) -> None:
    result = search("search_listings", {"marketing_type": "buy", "max_price": 10_000_000})
    with demo_db.read_only() as session:
        expected = session.scalar(
            select(func.count()).select_from(Listing).where(
                Listing.status == "published", Listing.marketing_type == "buy", Listing.price.is_(None)
            )
        )
    assert expected > 0
    warnings = {w["code"]: w["message"] for w in result["warnings"]}
    assert warnings["PRICE_ON_REQUEST_EXCLUDED"].startswith(f"{expected} sonst passende Inserate")


def test_no_exclusion_warning_without_a_range_filter(search: Caller) -> None:
    result = search("search_listings", {"marketing_type": "buy"})
    assert "PRICE_ON_REQUEST_EXCLUDED" not in {w["code"] for w in result["warnings"]}


# Radius: every hit lies inside, and nothing inside is missing (checked against an independent computation).
def test_radius_is_exact_both_ways(search: Caller, demo_db: Any) -> None:
    centre_lat, centre_lon, radius = 51.3397, 12.3731, 8.0  # Leipzig Markt
    result = search("count_listings", {"near": {"latitude": centre_lat, "longitude": centre_lon, "radius_km": radius}, "facets": []})

    def km(lat: float, lon: float) -> float:  # haversine, independent of the server's approximation
        p1, p2 = math.radians(centre_lat), math.radians(lat)
        a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon - centre_lon) / 2) ** 2
        return 2 * 6371.0088 * math.asin(math.sqrt(a))

    with demo_db.read_only() as session:
        distances = [km(lat, lon) for lat, lon in session.execute(select(Listing.latitude, Listing.longitude).where(Listing.status == "published"))]
    inside = sum(d <= radius for d in distances)
    borderline = sum(abs(d - radius) < 0.05 for d in distances)
    assert inside > 0
    assert abs(result["total"] - inside) <= borderline


def test_default_radius_is_named(search: Caller) -> None:
    result = search("search_listings", {"near": {"place": "Leipzig"}})
    warning = next(w for w in result["warnings"] if w["code"] == "DEFAULT_SCOPE_APPLIED")
    assert warning["message"] == "Umkreis nicht angegeben: der Standard von 10 km wurde verwendet."
    assert echoed(result, "near") == {"value": {"place": "Leipzig", "latitude": None, "longitude": None, "radius_km": 10.0}, "source": "caller"}
