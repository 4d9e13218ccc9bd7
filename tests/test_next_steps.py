"""An empty result gives a next step a model can act on (issue 20): a word no listing contains gets the index words
spelt nearly alike (never searched), and filters that exclude each other are named, each suggestion dropping one of
them. Both halves of each rule, on the demo catalog, the counts checked by following the suggestion."""

from __future__ import annotations

from typing import Any

from sqlalchemy import text

from shared.db.session import Database
from tests.conftest import Caller


def follow(search: Caller, arguments: dict[str, Any], suggestion: dict[str, Any]) -> dict[str, Any]:
    changed = {**arguments, **suggestion["arguments"]}
    return search("search_listings", {k: v for k, v in changed.items() if v is not None})


def test_a_misspelt_word_suggests_the_indexed_word_spelt_alike(search: Caller, demo_db: Database) -> None:
    asked = {"query": "Balkn", "city": "Leipzig", "limit": 1}
    result = search("search_listings", asked)
    assert result["total"] == 0
    assert "'Balkn' steht in keinem Inserat; ähnlich geschrieben steht in Inseraten: balkon (nicht gesucht)." in result["hint"]
    first = result["suggestions"][0]
    assert first == {"arguments": {"query": "balkon"}, "reason": "'balkon' statt 'Balkn' (ähnlich geschrieben, steht in Inseraten)", "searched": False}
    with demo_db.engine.connect() as connection:
        with_balcony = connection.execute(
            text(
                "SELECT count(DISTINCT l.id) FROM listings l JOIN listing_terms t ON t.listing_id = l.id "
                "WHERE l.status IN ('published', 'reserved') AND l.city = 'Leipzig' AND t.term = 'balkon'"
            )
        ).scalar_one()
    assert follow(search, asked, first)["total"] == with_balcony > 0


def test_two_misspelt_words_are_fixed_together_first(search: Caller) -> None:
    asked = {"query": "Balkn Kellr", "city": "Leipzig", "limit": 1}
    suggestions = search("search_listings", asked)["suggestions"]
    assert [s["arguments"] for s in suggestions[:3]] == [{"query": "balkon keller"}, {"query": "balkon Kellr"}, {"query": "Balkn keller"}]
    assert follow(search, asked, suggestions[0])["total"] > 0


def test_an_indexed_word_or_a_word_like_none_gets_no_spelling(search: Caller) -> None:
    # the other half: "Balkon" is in the index, so an empty result (price) suggests no other spelling
    result = search("search_listings", {"query": "Balkon", "city": "Leipzig", "max_price": 1, "limit": 1})
    assert result["total"] == 0 and "steht in keinem Inserat" not in result["hint"]
    assert all("statt" not in s["reason"] for s in result["suggestions"])
    nothing = search("search_listings", {"query": "Qxzvbnw", "limit": 1})
    assert "'Qxzvbnw' steht in keinem Inserat." in nothing["hint"] and all("statt" not in s["reason"] for s in nothing["suggestions"])


def test_a_city_and_a_postal_code_elsewhere_are_named_and_each_suggestion_drops_one(search: Caller) -> None:
    asked = {"city": "Berlin", "postal_codes": ["04109"], "limit": 1}
    result = search("search_listings", asked)
    assert result["total"] == 0
    assert "Ort und PLZ schließen sich aus: 04109 liegt in Leipzig, nicht in Berlin." in result["hint"]
    assert result["suggestions"] == [
        {"arguments": {"postal_codes": None}, "reason": "ohne PLZ 04109", "searched": False},
        {"arguments": {"city": None}, "reason": "ohne Ort Berlin", "searched": False},
    ]
    assert all(follow(search, asked, s)["total"] > 0 for s in result["suggestions"])
    # the other half: a postal code of the city, empty for another reason, names no contradiction
    fitting = search("search_listings", {"city": "Leipzig", "postal_codes": ["04109"], "max_price": 1, "limit": 1})
    assert fitting["total"] == 0 and "schließen sich aus" not in fitting["hint"]
    assert {"arguments": {"max_price": None}, "reason": "ohne Höchstpreis", "searched": False} in fitting["suggestions"]


def test_a_city_outside_the_radius_is_named(search: Caller) -> None:
    asked = {"city": "Berlin", "near": {"place": "Leipzig", "radius_km": 10}, "limit": 1}
    result = search("search_listings", asked)
    assert "Ort und Umkreis schließen sich aus: Berlin liegt etwa 150 km von Leipzig entfernt, der Umkreis reicht 10 km." in result["hint"]
    assert [s["arguments"] for s in result["suggestions"]] == [{"near": None}, {"city": None}]
    assert all(follow(search, asked, s)["total"] > 0 for s in result["suggestions"])
    near = search("search_listings", {"city": "Leipzig", "near": {"place": "Leipzig", "radius_km": 10}, "max_price": 1, "limit": 1})
    assert "schließen sich aus" not in near["hint"]
