"""Place names and postal codes are resolved against the catalog's places, never answered with a false "nothing
there" (issue 7): both halves of each rule, over the demo data, the counts checked with SQL written here."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import mcp_types as types
import pytest
from sqlalchemy import insert, text

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.catalog.places import place_key
from shared.catalog.text import normalise
from shared.db.models import Place
from shared.db.session import Database
from tests.conftest import Caller, make_context, seeded_database
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
        ("Freiburg", "Freiburg im Breisgau"),
        ("frankfurt", "Frankfurt am Main"),
        ("Halle", "Halle (Saale)"),
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
    assert warnings_of(shortened, "VALUE_NORMALISED") == [f"Der Ort {short!r} ist im Katalog eindeutig {name}: danach wurde gesucht (city)."]
    assert warnings_of(full, "VALUE_NORMALISED") == []


def test_near_place_takes_the_short_form_too(search: Caller) -> None:
    shortened = search("search_listings", {"near": {"place": "Freiburg", "radius_km": 5}, "limit": 1})
    full = search("search_listings", {"near": {"place": "Freiburg im Breisgau", "radius_km": 5}, "limit": 1})
    assert shortened["total"] == full["total"] > 0
    assert echoed(shortened, "near")["value"]["place"] == "Freiburg im Breisgau"
    assert warnings_of(shortened, "VALUE_NORMALISED") == [
        "Der Ort 'Freiburg' ist im Katalog eindeutig Freiburg im Breisgau: danach wurde gesucht (near.place)."
    ]
    assert warnings_of(full, "VALUE_NORMALISED") == []


# An unknown place is an error naming the nearest known ones, never an empty result marked complete.
def test_a_misspelt_place_is_invalid_and_names_the_nearest(search: Caller) -> None:
    code, message = search.error("search_listings", {"city": "Leipzg"})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "Den Ort 'Leipzg' kennt der Katalog nicht; am ähnlichsten sind Leipzig, Mainz und Weimar: bitte mit einem "
        "bekannten Ortsnamen oder einer PLZ erneut senden (city); einen Stadtteil findet der Volltext (query)."
    )
    assert search("search_listings", {"city": "Leipzig", "limit": 1})["total"] > 0


def test_a_first_word_is_never_shortened(search: Caller) -> None:
    code, message = search.error("count_listings", {"city": "Frank"})
    assert code == "INVALID_ARGUMENT" and message.startswith("Den Ort 'Frank' kennt der Katalog nicht; am ähnlichsten sind Frankfurt am Main, ")


def test_a_district_is_no_place_but_the_error_names_the_city(search: Caller) -> None:
    code, message = search.error("count_listings", {"city": "Berlin-Mitte"})
    assert code == "INVALID_ARGUMENT"
    assert message.startswith("Den Ort 'Berlin-Mitte' kennt der Katalog nicht; am ähnlichsten sind Berlin, ")
    assert message.endswith("; einen Stadtteil findet der Volltext (query).")


def test_a_misspelt_short_form_names_its_place(search: Caller) -> None:
    code, message = search.error("count_listings", {"near": {"place": "Frankfrt"}})
    assert code == "INVALID_ARGUMENT"
    assert message.startswith("Den Ort 'Frankfrt' kennt der Katalog nicht; am ähnlichsten sind Frankfurt am Main, ")
    assert "erneut senden (near.place)" in message


def test_an_unknown_place_is_invalid_on_every_tool(search: Caller) -> None:
    for tool, arguments in (("search_listings", {"city": "Atlantis"}), ("count_listings", {"near": {"place": "Atlantis"}})):
        code, message = search.error(tool, arguments)
        assert code == "INVALID_ARGUMENT" and message.startswith("Den Ort 'Atlantis' kennt der Katalog nicht; am ähnlichsten sind ")


def test_a_postal_code_is_no_place_name(search: Caller) -> None:
    code, message = search.error("search_listings", {"city": "04109"})
    assert code == "INVALID_ARGUMENT"
    assert message == "'04109' ist kein Ortsname: bitte den Ort als Namen erneut senden (city); eine PLZ hat 5 Ziffern und gehört zu den PLZ."
    assert search("count_listings", {"postal_codes": ["04109"], "facets": []})["total"] > 0


# Postal codes no place has: INVALID_ARGUMENT naming near ones; known codes and code beginnings pass.
def test_an_unknown_postal_code_names_the_nearest_known(search: Caller, demo_db: Database) -> None:
    code, message = search.error("search_listings", {"postal_codes": ["04100"]})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "Die PLZ 04100 kennt der Katalog nicht; nahe bekannte sind 04103 (Leipzig), 04109 (Leipzig) und 04177 (Leipzig): "
        "bitte damit erneut senden (postal_codes)."
    )
    code, message = search.error("count_listings", {"postal_codes": ["04109", "00"]})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "Einen PLZ-Bereich 00 kennt der Katalog nicht; nahe bekannte sind 01… (z. B. Dresden), 02… (z. B. Görlitz) und "
        "03… (z. B. Cottbus): bitte damit erneut senden (postal_codes)."
    )
    with demo_db.engine.connect() as connection:
        in_04 = connection.execute(text("SELECT count(*) FROM listings WHERE status = 'published' AND postal_code LIKE '04%'")).scalar_one()
    assert total(search, postal_codes=["04"])["total"] == in_04 > 0
    assert total(search, postal_codes=["04109"])["total"] >= 0


def test_near_a_postal_code_uses_the_code_and_refuses_an_unknown_one(search: Caller) -> None:
    known = search("search_listings", {"near": {"place": "04109", "radius_km": 5}, "limit": 1})
    assert known["total"] > 0 and echoed(known, "near")["value"]["place"] == "04109"
    code, message = search.error("search_listings", {"near": {"place": "04100"}})
    assert code == "INVALID_ARGUMENT" and message.startswith("Die PLZ 04100 kennt der Katalog nicht; nahe bekannte sind 04103 (Leipzig)")
    assert message.endswith("bitte damit erneut senden (near.place).")


# An ambiguous short form asks one question naming the candidates; the answer is then searched.
@pytest.fixture(scope="module")
def two_frankfurts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A small demo catalog whose places also hold Frankfurt (Oder) and Sankt Ingbert."""
    extra = [
        ("15230", "Frankfurt (Oder)", "Brandenburg", 52.3471, 14.5506),
        ("66386", "Sankt Ingbert", "Saarland", 49.2767, 7.1161),
    ]
    with seeded_database(tmp_path_factory.mktemp("places"), "places") as db:
        with db.engine.begin() as connection:
            first = connection.execute(text("SELECT max(id) FROM places")).scalar_one() + 1
            rows = [
                {"id": first + i, "postal_code": code, "name": name, "name_key": normalise(name), "state": state, "latitude": lat, "longitude": lon}
                for i, (code, name, state, lat, lon) in enumerate(extra)
            ]
            connection.execute(insert(Place), rows)
        yield db


def test_an_ambiguous_short_form_asks_one_question(two_frankfurts: Database) -> None:
    caller = Caller(SEARCH, make_context(two_frankfurts))
    code, question = caller.error("search_listings", {"city": "Frankfurt"})
    assert code == "INPUT_REQUIRED"
    assert question == "Welcher Ort ist mit 'Frankfurt' gemeint: Frankfurt (Oder) oder Frankfurt am Main?"
    # the other half: each full name is understood without a question
    assert caller("count_listings", {"city": "Frankfurt am Main", "facets": []})["total"] == published_in(two_frankfurts, "Frankfurt am Main")
    assert echoed(caller("count_listings", {"city": "frankfurt oder", "facets": []}), "city")["value"] == "Frankfurt (Oder)"


def test_the_question_offers_the_candidates_and_its_answer_is_searched(two_frankfurts: Database) -> None:
    caller = Caller(SEARCH, make_context(two_frankfurts))
    for arguments, key in (({"city": "Frankfurt"}, "city"), ({"near": {"place": "Frankfurt", "radius_km": 5}}, "near.place")):
        asked = caller.raw("search_listings", arguments, ELICITING_CLIENT)
        assert isinstance(asked, types.InputRequiredResult)
        assert list(asked.input_requests) == [f"ask:{key}"]
        schema = asked.input_requests[f"ask:{key}"].params.requested_schema
        assert schema["properties"][key]["enum"] == ["Frankfurt (Oder)", "Frankfurt am Main"]
        answer = types.ElicitResult(action="accept", content={key: "Frankfurt am Main"})
        params = types.CallToolRequestParams(name="search_listings", arguments=arguments, input_responses={f"ask:{key}": answer})
        answered = anyio.run(caller.runner.call, params, ELICITING_CLIENT)
        assert isinstance(answered, types.CallToolResult) and not answered.is_error, answered
        request = answered.structured_content["request"]
        assert (request["city"] if key == "city" else request["near"]["place"]) == "Frankfurt am Main"
        assert answered.structured_content["total"] > 0


def test_st_is_sankt_against_the_catalog(two_frankfurts: Database) -> None:
    caller = Caller(SEARCH, make_context(two_frankfurts))
    for typed in ("St. Ingbert", "st ingbert", "Sankt-Ingbert"):
        result = caller("count_listings", {"city": typed, "facets": []})
        assert echoed(result, "city") == {"value": "Sankt Ingbert", "source": "caller"}
        assert result["warnings"] == []


# estimate_value resolves its place through the same resolver.
@pytest.fixture(scope="module")
def broker(demo_db: Database) -> Caller:
    return Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))


ESTIMATE = {"property_type": "apartment", "marketing_type": "buy", "living_area": 70}


def test_estimate_value_resolves_a_short_form_and_says_so(broker: Caller) -> None:
    shortened = broker("estimate_value", {**ESTIMATE, "city": "Freiburg"})
    full = broker("estimate_value", {**ESTIMATE, "city": "Freiburg im Breisgau"})
    assert shortened["subject"]["city"] == full["subject"]["city"] == "Freiburg im Breisgau"
    assert shortened["comparables"] == full["comparables"]
    assert warnings_of(shortened, "VALUE_NORMALISED") == ["Der Ort 'Freiburg' ist im Katalog eindeutig Freiburg im Breisgau: danach wurde gesucht (city)."]
    assert warnings_of(full, "VALUE_NORMALISED") == []


def test_estimate_value_refuses_an_unknown_place_instead_of_widening(broker: Caller) -> None:
    code, message = broker.error("estimate_value", {**ESTIMATE, "city": "Leipzg"})
    assert code == "INVALID_ARGUMENT" and message.startswith("Den Ort 'Leipzg' kennt der Katalog nicht; am ähnlichsten sind Leipzig, ")
    code, message = broker.error("estimate_value", {**ESTIMATE, "postal_code": "04100"})
    assert code == "INVALID_ARGUMENT" and message.startswith("Die PLZ 04100 kennt der Katalog nicht; nahe bekannte sind 04103 (Leipzig)")
    code, message = broker.error("estimate_value", {**ESTIMATE, "city": "Leipzig", "postal_codes": ["00"]})
    assert code == "INVALID_ARGUMENT" and message.startswith("Einen PLZ-Bereich 00 kennt der Katalog nicht")
    assert broker("estimate_value", {**ESTIMATE, "postal_code": "04109"})["subject"]["city"] == "Leipzig"
