"""Place names and postal codes are resolved against every German municipality and postal code (the gazetteer,
issues 7 and 20), never answered with a false "nothing there": both halves of each rule, over the demo data, the
counts checked with SQL written here."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from sqlalchemy import text

from broker_server.server import DEFINITION as BROKER
from shared.catalog.places import gazetteer, place_key
from shared.db.session import Database
from shared.demo.openimmo import object_xml, transfer
from tests.conftest import Caller, make_context, request_key, seeded_database
from tests.test_broker_office import principal
from tests.wire_helpers import echoed

ELICITING_CLIENT = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


def published_in(db: Database, city: str) -> int:
    with db.engine.connect() as connection:
        return int(connection.execute(text("SELECT count(*) FROM listings WHERE status = 'published' AND city = :c"), {"c": city}).scalar_one())


def total(search: Caller, **arguments: Any) -> dict[str, Any]:
    return search("count_listings", {**arguments, "facets": []})


def warnings_of(result: dict[str, Any], code: str) -> list[str]:
    return [w["message"] for w in result["warnings"] if w["code"] == code]


# Spelling does not matter: case, umlauts, hyphens, brackets, spaces.
@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("MÜNCHEN", "München"),
        ("muenchen", "München"),
        ("halle saale", "Halle (Saale)"),
        ("Halle-Saale", "Halle (Saale)"),
        ("dessau rosslau", "Dessau-Roßlau"),
        ("  Frankfurt   am Main ", "Frankfurt am Main"),
    ],
)
def test_spelling_variants_name_the_place_itself(search: Caller, demo_db: Database, typed: str, name: str) -> None:
    result = total(search, city=typed)
    assert result["total"] == published_in(demo_db, name) > 0
    assert echoed(result, "city") == {"value": name, "source": "caller"}
    assert warnings_of(result, "VALUE_NORMALISED") == []


def test_saint_and_st_read_alike() -> None:
    assert place_key("St. Ingbert") == place_key("Sankt-Ingbert") == place_key("sankt ingbert") == "sankt ingbert"
    assert place_key("Halle (Saale)") == place_key("halle-saale") == "halle saale"
    assert place_key("Stuttgart") == "stuttgart"  # only the word St is Sankt


# A unique short form is applied and said; the full name needs no word.
@pytest.mark.parametrize(
    ("short", "name"),
    [
        ("Frankfurt a. M.", "Frankfurt am Main"),
        ("Frankfurt/Main", "Frankfurt am Main"),
        ("Freiburg i. Br.", "Freiburg im Breisgau"),
    ],
)
def test_a_unique_short_form_is_applied_and_said(search: Caller, demo_db: Database, short: str, name: str) -> None:
    shortened = total(search, city=short)
    full = total(search, city=name)
    assert shortened["total"] == full["total"] == published_in(demo_db, name) > 0
    assert echoed(shortened, "city") == echoed(full, "city") == {"value": name, "source": "caller"}
    assert warnings_of(shortened, "VALUE_NORMALISED") == [f"Der Ort {short!r} ist eindeutig {name}: danach wurde gesucht (city)."]
    assert warnings_of(full, "VALUE_NORMALISED") == []


def test_near_place_takes_the_short_form_too(search: Caller) -> None:
    shortened = search("search_listings", {"near": {"place": "Freiburg i. Br.", "radius_km": 5}, "limit": 1})
    full = search("search_listings", {"near": {"place": "Freiburg im Breisgau", "radius_km": 5}, "limit": 1})
    assert shortened["total"] == full["total"] > 0
    assert echoed(shortened, "near")["value"]["place"] == "Freiburg im Breisgau"
    assert warnings_of(full, "VALUE_NORMALISED") == []


# Every German place, not only the demo's: a place without listings is an empty result, not an error.
def test_a_place_outside_the_demo_is_known_and_simply_empty(search: Caller, demo_db: Database) -> None:
    for arguments in ({"city": "Bitburg"}, {"postal_codes": ["97084"]}, {"near": {"place": "Bitburg", "radius_km": 2}}):
        result = total(search, **arguments)
        assert result["total"] == 0 and result["warnings"] == [], arguments
    würzburg = total(search, postal_codes=["97084", "97070"])
    with demo_db.engine.connect() as connection:
        in_both = connection.execute(text("SELECT count(*) FROM listings WHERE status = 'published' AND postal_code IN ('97084', '97070')")).scalar_one()
    assert würzburg["total"] == in_both > 0


def test_the_gazetteer_holds_every_postal_code_and_municipality() -> None:
    places = gazetteer()
    assert len(places.by_code) > 8_000 and len(places.municipalities) > 10_000
    assert [(p.name, p.state) for p in places.by_code["97084"]] == [("Würzburg", "Bayern")]
    assert {p.state for p in places.municipalities} == {
        "Baden-Württemberg", "Bayern", "Berlin", "Brandenburg", "Bremen", "Hamburg", "Hessen", "Mecklenburg-Vorpommern",
        "Niedersachsen", "Nordrhein-Westfalen", "Rheinland-Pfalz", "Saarland", "Sachsen", "Sachsen-Anhalt",
        "Schleswig-Holstein", "Thüringen",
    }
    assert all(47.0 < p.latitude < 55.2 and 5.8 < p.longitude < 15.1 for p in places.municipalities)


# A name several places share, or a short form of several, asks which one, with the Bundesland.
def test_an_ambiguous_name_asks_one_question_with_the_bundesland(search: Caller) -> None:
    code, question = search.error("search_listings", {"city": "Frankfurt"})
    assert code == "INPUT_REQUIRED"
    assert question == "Welcher Ort ist mit 'Frankfurt' gemeint: Frankfurt am Main in Hessen oder Frankfurt (Oder) in Brandenburg?"
    code, question = search.error("count_listings", {"city": "Neustadt"})
    assert code == "INPUT_REQUIRED" and question.startswith("Welcher Ort ist mit 'Neustadt' gemeint: Neustadt an der Weinstraße in Rheinland-Pfalz, ")
    assert "Neustadt in Holstein in Schleswig-Holstein" in question and "Neustadt an der Donau in Bayern" in question
    # a small place's whole name still asks when it also shortens a much larger one
    code, question = search.error("count_listings", {"city": "Halle"})
    assert question == (
        "Welcher Ort ist mit 'Halle' gemeint: Halle (Saale) in Sachsen-Anhalt, Halle (Westf.) in Nordrhein-Westfalen oder "
        "Halle (Niedersachsen)?"
    )
    # the other half: a full name, or a name whose namesakes are far smaller, is understood without a question
    assert search("count_listings", {"city": "Frankfurt am Main", "facets": []})["total"] > 0
    assert echoed(search("count_listings", {"city": "frankfurt oder", "facets": []}), "city")["value"] == "Frankfurt (Oder)"
    assert echoed(search("count_listings", {"city": "Essen", "facets": []}), "city")["value"] == "Essen"


def test_the_question_offers_the_candidates_and_its_answer_is_searched(search: Caller, demo_db: Database) -> None:
    for arguments, key in (({"city": "Neunkirchen"}, "city"), ({"near": {"place": "Neunkirchen", "radius_km": 5}}, "near.place")):
        asked = search.raw("search_listings", arguments, ELICITING_CLIENT)
        assert isinstance(asked, types.InputRequiredResult)
        schema = asked.input_requests[f"ask:{key}"].params.requested_schema
        offered = schema["properties"][key]["enum"]
        assert offered[0] == "Neunkirchen (Saarland)" and "Neunkirchen (Nordrhein-Westfalen)" in offered
        answer = types.ElicitResult(action="accept", content={key: "Neunkirchen (Saarland)"})
        params = types.CallToolRequestParams(name="search_listings", arguments=arguments, input_responses={f"ask:{key}": answer})
        answered = anyio.run(search.runner.call, params, ELICITING_CLIENT)
        assert isinstance(answered, types.CallToolResult) and not answered.is_error, answered
        request = answered.structured_content["request"]
        assert (request["city"] if key == "city" else request["near"]["place"]) == "Neunkirchen (Saarland)"
        named = {"city": "Neunkirchen (Saarland)"} if key == "city" else {"near": {"place": "Neunkirchen (Saarland)", "radius_km": 5}}
        assert answered.structured_content["total"] == search("search_listings", named)["total"] > 0
    assert total(search, city="Neunkirchen (Saarland)")["total"] == published_in(demo_db, "Neunkirchen") > 0
    # every value offered is understood without a question, "Halle (Niedersachsen)" too
    for offered in ("Halle (Niedersachsen)", "Neunkirchen (Nordrhein-Westfalen)", "Münster (Bayern)"):
        assert total(search, city=offered)["total"] == 0


def test_st_is_sankt_against_the_gazetteer(search: Caller) -> None:
    for typed in ("St. Ingbert", "st ingbert", "Sankt-Ingbert"):
        result = search("count_listings", {"city": typed, "facets": []})
        assert echoed(result, "city") == {"value": "St. Ingbert", "source": "caller"}
        assert result["warnings"] == []


# A district the data names is its municipality; the umkreis counts from the district.
def test_a_district_is_its_municipality_and_says_so(search: Caller, demo_db: Database) -> None:
    result = total(search, city="Berlin-Mitte")
    assert echoed(result, "city")["value"] == "Berlin" and result["total"] == published_in(demo_db, "Berlin") > 0
    assert warnings_of(result, "VALUE_NORMALISED") == [
        "'Berlin-Mitte' ist ein Ortsteil von Berlin: gesucht wurde in ganz Berlin (city); den Ortsteil allein findet der "
        "Volltext (query) oder ein Umkreis (near)."
    ]
    near = search("search_listings", {"near": {"place": "Adlershof", "radius_km": 3}, "limit": 1})
    whole = search("search_listings", {"near": {"place": "Berlin", "radius_km": 3}, "limit": 1})
    assert echoed(near, "near")["value"]["place"] == "Berlin-Adlershof" and near["total"] != whole["total"]


# An unknown place is an error naming places spelt nearly alike, and none when nothing is.
def test_a_misspelt_place_is_invalid_and_names_the_nearest(search: Caller) -> None:
    code, message = search.error("search_listings", {"city": "Leipzg"})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "Einen Ort 'Leipzg' gibt es im Ortsverzeichnis (alle Gemeinden Deutschlands) nicht; ähnlich geschrieben sind "
        "Leipzig: bitte mit einem Ortsnamen oder einer PLZ erneut senden (city); einen Ortsteil findet der Volltext (query)."
    )
    code, message = search.error("count_listings", {"near": {"place": "Frankfrt"}})
    assert "ähnlich geschrieben sind Frankfurt am Main und Frankfurt (Oder): " in message and "(near.place)" in message


def test_nothing_spelt_alike_suggests_no_unrelated_place(search: Caller) -> None:
    for tool, arguments in (("search_listings", {"city": "Atlantis"}), ("count_listings", {"near": {"place": "Frank"}})):
        code, message = search.error(tool, arguments)
        assert code == "INVALID_ARGUMENT" and "; kein Ort ist ähnlich geschrieben: " in message and "ähnlich geschrieben sind" not in message


def test_a_postal_code_is_no_place_name(search: Caller) -> None:
    code, message = search.error("search_listings", {"city": "04109"})
    assert code == "INVALID_ARGUMENT"
    assert message == "'04109' ist kein Ortsname: bitte den Ort als Namen erneut senden (city); eine PLZ hat 5 Ziffern und gehört zu den PLZ."
    assert search("count_listings", {"postal_codes": ["04109"], "facets": []})["total"] > 0


# Postal codes that do not exist: INVALID_ARGUMENT naming near ones; existing codes and code beginnings pass.
def test_an_unknown_postal_code_names_the_nearest(search: Caller, demo_db: Database) -> None:
    code, message = search.error("search_listings", {"postal_codes": ["04100"]})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "Die PLZ 04100 gibt es nicht; nahe sind 04103 (Leipzig), 04105 (Leipzig) und 04107 (Leipzig): bitte damit erneut "
        "senden (postal_codes)."
    )
    code, message = search.error("count_listings", {"postal_codes": ["04109", "00"]})
    assert message == (
        "Den PLZ-Bereich 00 gibt es nicht; nahe sind 01… (z. B. Dresden), 02… (z. B. Bautzen) und 03… (z. B. Cottbus): "
        "bitte damit erneut senden (postal_codes)."
    )
    with demo_db.engine.connect() as connection:
        in_04 = connection.execute(text("SELECT count(*) FROM listings WHERE status = 'published' AND postal_code LIKE '04%'")).scalar_one()
    assert total(search, postal_codes=["04"])["total"] == in_04 > 0


def test_near_a_postal_code_uses_the_code_and_refuses_an_unknown_one(search: Caller) -> None:
    known = search("search_listings", {"near": {"place": "04109", "radius_km": 5}, "limit": 1})
    assert known["total"] > 0 and echoed(known, "near")["value"]["place"] == "04109"
    code, message = search.error("search_listings", {"near": {"place": "04100"}})
    assert code == "INVALID_ARGUMENT" and message.startswith("Die PLZ 04100 gibt es nicht; nahe sind 04103 (Leipzig)")
    assert message.endswith("bitte damit erneut senden (near.place).")


def test_completion_offers_every_place_largest_first(search: Caller) -> None:
    from search_server.server import complete_places

    assert complete_places("Würz", search.runner.context, 3)[0] == "Würzburg"
    assert complete_places("9708", search.runner.context, 3) == ["97080", "97082", "97084"]


# estimate_value and the purchase costs resolve their place through the same resolver.
@pytest.fixture(scope="module")
def broker(demo_db: Database) -> Caller:
    return Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))


ESTIMATE = {"property_type": "apartment", "marketing_type": "buy", "living_area": 70}


def test_estimate_value_resolves_a_short_form_and_says_so(broker: Caller) -> None:
    shortened = broker("estimate_value", {**ESTIMATE, "city": "Freiburg i. Br."})
    full = broker("estimate_value", {**ESTIMATE, "city": "Freiburg im Breisgau"})
    assert shortened["subject"]["city"] == full["subject"]["city"] == "Freiburg im Breisgau"
    assert shortened["comparables"] == full["comparables"]
    assert warnings_of(shortened, "VALUE_NORMALISED") == ["Der Ort 'Freiburg i. Br.' ist eindeutig Freiburg im Breisgau: danach wurde gesucht (city)."]
    assert broker("estimate_value", {**ESTIMATE, "postal_code": "97084"})["subject"]["city"] == "Würzburg"


def test_estimate_value_refuses_an_unknown_place_instead_of_widening(broker: Caller) -> None:
    code, message = broker.error("estimate_value", {**ESTIMATE, "city": "Leipzg"})
    assert code == "INVALID_ARGUMENT" and "ähnlich geschrieben sind Leipzig: " in message
    code, message = broker.error("estimate_value", {**ESTIMATE, "postal_code": "04100"})
    assert code == "INVALID_ARGUMENT" and message.startswith("Die PLZ 04100 gibt es nicht; nahe sind 04103 (Leipzig)")
    assert broker("estimate_value", {**ESTIMATE, "postal_code": "04109"})["subject"]["city"] == "Leipzig"


def test_purchase_costs_take_the_bundesland_of_a_postal_code_or_place(search: Caller) -> None:
    for state in ("97084", "Würzburg", "Bayern", "BY"):
        result = search("calculate_purchase_costs", {"price": 300000, "state": state, "contract_date": "2026-06-01"})
        assert result["state"] == "Bayern", state
    assert search("calculate_purchase_costs", {"price": 300000, "state": "04109", "contract_date": "2026-06-01"})["state"] == "Sachsen"
    code, message = search.error("calculate_purchase_costs", {"price": 300000, "state": "Atlantis"})
    assert code == "INVALID_ARGUMENT" and message.startswith("Unbekanntes Bundesland: „Atlantis“.") and message.endswith("Eine PLZ oder ein Ort geht auch.")


# A listing written in any German postal code gets its Bundesland and coordinates from it.
@pytest.fixture(scope="module")
def writable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("places"), "places", listings=50) as db:
        yield db


def test_save_listing_in_a_postal_code_outside_the_demo(writable: Database) -> None:
    broker = Caller(BROKER, make_context(writable)).as_(principal(writable, 1, frozenset({"makler:lesen", "makler:schreiben"})))
    fields = {"marketing_type": "Kauf", "property_type": "Wohnung", "title": "Altbauwohnung in Heidingsfeld", "postal_code": "97084", "city": "Würzburg"}
    saved = broker("save_listing", {"request_id": request_key(), "fields": fields})
    listing = broker("get_listing", {"listing_id": saved["listing_id"]})
    assert listing["address"]["state"] == "Bayern"
    assert (listing["address"]["latitude"], listing["address"]["longitude"]) == (49.7939, 9.9512)
    # a code serving several municipalities takes the one named in city
    several = gazetteer().by_code["54636"]
    chosen = sorted(several, key=lambda p: p.name)[-1]
    saved = broker("save_listing", {"request_id": request_key(), "fields": {**fields, "postal_code": "54636", "city": chosen.name}})
    listing = broker("get_listing", {"listing_id": saved["listing_id"]})
    assert (listing["address"]["latitude"], listing["address"]["longitude"]) == (chosen.latitude, chosen.longitude)
    code, message = broker.error("save_listing", {"request_id": request_key(), "fields": {**fields, "postal_code": "00000"}})
    assert code == "INVALID_ARGUMENT"
    assert message.endswith("Die PLZ 00000 (postal_code) gibt es nicht: bitte die PLZ prüfen oder, wenn sie neu ist, state, latitude, longitude mitsenden.")


def test_an_imported_object_without_coordinates_takes_them_from_its_postal_code(writable: Database) -> None:
    broker = Caller(BROKER, make_context(writable)).as_(principal(writable, 1, frozenset({"makler:lesen", "makler:schreiben"})))
    one = object_xml("WUE-1", 1)
    plz = re.search(r"<plz>.*</bundesland>", one)
    assert plz is not None
    one = one.replace(plz.group(0), "<plz>97084</plz><ort>Würzburg</ort>")
    result = broker("import_listings", {"xml": transfer([one], scope="TEIL")})
    assert result["counts"]["created"] == 1, result
    listing = broker("search_listings", {"query": "WUE-1"})["items"][0]
    full = broker("get_listing", {"listing_id": listing["listing_id"]})
    assert (full["address"]["postal_code"], full["address"]["state"], full["address"]["latitude"]) == ("97084", "Bayern", 49.7939)


def test_a_namesake_far_larger_than_the_others_is_meant_and_said(search: Caller, demo_db: Database) -> None:
    result = total(search, city="Schwerin")
    assert echoed(result, "city")["value"] == "Schwerin (Mecklenburg-Vorpommern)"
    assert result["total"] == published_in(demo_db, "Schwerin") > 0
    assert warnings_of(result, "VALUE_NORMALISED") == [
        "'Schwerin' ist hier Schwerin (Mecklenburg-Vorpommern), der weitaus größte Ort dieses Namens; gemeint sein kann "
        "auch Schwerin (Brandenburg): dann diesen Namen senden (city)."
    ]
    # the other half: namesakes of comparable size are asked about
    code, _ = search.error("count_listings", {"city": "Neunkirchen"})
    assert code == "INPUT_REQUIRED"
