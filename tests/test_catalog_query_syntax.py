"""Full-text syntax over the demo catalog (issue 7): what cannot be searched is named, nothing searchable left is an
error, OR works, hyphenated words agree with the index, and an empty result of several words counts each word."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import event

from shared.catalog.indexing import search_fields, term_rows
from shared.catalog.query import parse
from shared.catalog.text import index_terms
from shared.db.session import Database
from tests.conftest import Caller


def count(search: Caller, query: str, **filters: Any) -> int:
    return int(search("count_listings", {"query": query, **filters, "facets": []})["total"])


def ignored(result: dict[str, Any]) -> list[str]:
    return [w["message"] for w in result["warnings"] if w["code"] == "TERMS_IGNORED"]


# TERMS_IGNORED: named, and the rest searched as if it were not there; a plain query names nothing.
@pytest.mark.parametrize(
    ("query", "searched", "message"),
    [
        ("Balkon~", "Balkon", "Nicht gesucht: Balkon~ (Operator gibt es nicht, gelesen als Balkon)."),
        ("Квартира Balkon", "Balkon", "Nicht gesucht: Квартира (keine Buchstaben a–z, Umlaute oder Ziffern)."),
        ("*** Garten", "Garten", "Nicht gesucht: *** (keine Buchstaben a–z, Umlaute oder Ziffern)."),
        ("Garten NOT Keller", "Garten", "Nicht gesucht: NOT Keller (NOT gibt es nicht, ausschließen mit -Keller)."),
        ("+Kamin", "Kamin", "Nicht gesucht: +Kamin (Operator gibt es nicht, gelesen als Kamin)."),
        ("Kamin -", "Kamin", "Nicht gesucht: - (keine Buchstaben a–z, Umlaute oder Ziffern)."),
    ],
)
def test_what_is_not_searched_is_named(search: Caller, query: str, searched: str, message: str) -> None:
    result = search("search_listings", {"query": query, "limit": 1})
    plain = search("search_listings", {"query": searched, "limit": 1})
    assert ignored(result) == [message]
    assert ignored(plain) == []
    assert result["total"] == plain["total"] > 0


@pytest.mark.parametrize("query", ["Квартира", "***", "und mit der", "-", "NOT Balkon", "OR"])
def test_nothing_searchable_left_is_an_error_not_a_search_over_everything(search: Caller, query: str) -> None:
    for tool in ("search_listings", "count_listings"):
        code, message = search.error(tool, {"query": query})
        assert code == "INVALID_ARGUMENT", (tool, query)
        assert message.startswith(f"In query {query!r} ist nichts zu suchen, nicht gesucht wird ")
        assert message.endswith("bitte Wörter aus Buchstaben a–z, Umlauten oder Ziffern senden oder query weglassen.")


def test_the_exact_error_for_another_script(search: Caller) -> None:
    assert search.error("search_listings", {"query": "Квартира"})[1] == (
        "In query 'Квартира' ist nichts zu suchen, nicht gesucht wird Квартира (keine Buchstaben a–z, Umlaute oder "
        "Ziffern): bitte Wörter aus Buchstaben a–z, Umlauten oder Ziffern senden oder query weglassen."
    )


def test_an_exclusion_alone_is_a_search(search: Caller) -> None:
    assert count(search, "-Balkon") == count(search, "Wohnung OR -Wohnung") - count(search, "Balkon")


# OR: either word; AND binds tighter than OR.
def test_or_finds_either_word(search: Caller) -> None:
    garden, fireplace, both = count(search, "Garten"), count(search, "Kamin"), count(search, "Garten Kamin")
    assert garden > 0 and fireplace > 0 and 0 < both < min(garden, fireplace)
    assert count(search, "Garten OR Kamin") == garden + fireplace - both
    assert count(search, "Garten Kamin") == both  # without OR: both words


def test_and_binds_tighter_than_or(search: Caller) -> None:
    left, right = count(search, "Altbau Garten"), count(search, "Kamin")
    overlap = count(search, "Altbau Garten Kamin")
    assert count(search, "Altbau Garten OR Kamin") == left + right - overlap
    assert count(search, "Kamin OR Altbau Garten") == left + right - overlap


def test_or_holds_on_every_hit(search: Caller) -> None:
    hits = search("search_listings", {"query": "Kamin OR Aufzug", "city": "Berlin", "limit": 50, "include": {"features": True}})
    assert hits["total"] > 0
    fireplace = {i["listing_id"] for i in search("search_listings", {"query": "Kamin", "city": "Berlin", "limit": 50})["items"]}
    lift = {i["listing_id"] for i in search("search_listings", {"query": "Aufzug", "city": "Berlin", "limit": 50})["items"]}
    assert {i["listing_id"] for i in hits["items"]} <= fireplace | lift


# Hyphenated words agree with the index: written with a hyphen, closed or as a longer compound.
def test_hyphenated_words_are_indexed_as_they_are_parsed() -> None:
    terms = set(index_terms(["Süd-Balkon"]))
    assert {(0, "sued"), (1, "balkon"), (0, "suedbalkon")} <= terms
    assert parse("Süd-Balkon").clauses[0].closed.text == "suedbalkon"  # type: ignore[union-attr]
    rows = term_rows(1, search_fields(title="DG-Wohnung", description="", city="", district=None, subtype=None, features=[]))
    assert {r["term"] for r in rows} >= {"dg", "wohnung", "dgwohnung"}


@pytest.mark.parametrize(
    ("hyphenated", "closed"),
    [("Süd-Balkon", "Südbalkon"), ("Dachgeschoss-Wohnung", "Dachgeschosswohnung"), ("Einbau-Küche", "Einbauküche"), ("DG-Wohnung", "Dachgeschosswohnung")],
)
def test_a_hyphenated_word_finds_the_closed_compound(search: Caller, hyphenated: str, closed: str) -> None:
    assert count(search, hyphenated) == count(search, closed) > 0


def test_a_hyphenated_word_does_not_make_a_harmless_query_find_nothing(search: Caller) -> None:
    assert count(search, "DG-Wohnung Altbau") == count(search, "Dachgeschoss Altbau") > 0


def test_abbreviations_read_as_their_word(search: Caller) -> None:
    assert count(search, "EBK") == count(search, "Einbauküche") > 0
    assert count(search, "DG") == count(search, "Dachgeschoss") > 0


# An empty result of several words: each word alone counted, the word that finds nothing dropped from suggestions.
def test_an_empty_result_counts_each_word_and_drops_the_one_finding_nothing(search: Caller, demo_db: Database) -> None:
    arguments = {"query": "Schlossgespenst Wohnung Balkon", "city": "Leipzig"}
    result = search("search_listings", arguments)
    flats, balconies = count(search, "Wohnung", city="Leipzig"), count(search, "Balkon", city="Leipzig")
    assert result["total"] == 0 and result["match_type"] == "none" and result["status"] == "complete"
    assert (
        f"Jedes Wort allein (mit den übrigen Filtern) findet so viele Inserate: Schlossgespenst 0, Wohnung {flats}, Balkon {balconies}."
        in result["hint"]
    )
    assert result["suggestions"] == [
        {"arguments": {"query": "Wohnung Balkon"}, "reason": "ohne Schlossgespenst (findet allein nichts)", "searched": False},
        {
            "arguments": {"city": None, "near": {"place": "Leipzig", "radius_km": 20}},
            "reason": "Umkreis von 20 km um Leipzig, nicht nur der Ort selbst",
            "searched": False,
        },
    ]


def test_suggestions_never_keep_an_or_or_a_word_that_finds_nothing(search: Caller) -> None:
    result = search("search_listings", {"query": "Garten Schlossgespenst OR Kamin Burggraben", "city": "Leipzig"})
    assert result["total"] == 0
    queries = [s["arguments"]["query"] for s in result["suggestions"] if "query" in s["arguments"]]
    assert queries == ["Garten", "Kamin"]
    assert all(s["searched"] is False for s in result["suggestions"])


def test_when_every_word_finds_something_each_is_left_out_in_turn(search: Caller) -> None:
    arguments = {"query": "Altbau Garten Tiefgarage", "city": "Görlitz", "marketing_type": "rent"}
    result = search("search_listings", arguments)
    assert result["total"] == 0
    counts = {w: count(search, w, city="Görlitz", marketing_type="rent") for w in ("Altbau", "Garten", "Tiefgarage")}
    assert all(counts.values())
    queries = [s["arguments"]["query"] for s in result["suggestions"] if "query" in s["arguments"]]
    assert sorted(queries) == sorted(["Garten Tiefgarage", "Altbau Tiefgarage", "Altbau Garten"])


def test_each_word_is_counted_once_and_at_most_eight(search: Caller, demo_db: Database) -> None:
    words = ["Schlossgespenst", "Burggraben", "Zugbrücke", "Turmzimmer", "Verlies", "Rittersaal", "Kemenate", "Wehrgang", "Zinne", "Fallgitter"]
    statements: list[str] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        statements.append(statement)

    event.listen(demo_db.engine, "before_cursor_execute", capture)
    try:
        result = search("count_listings", {"query": " ".join(words), "facets": []})
    finally:
        event.remove(demo_db.engine, "before_cursor_execute", capture)
    assert result["total"] == 0
    counted = ", ".join(f"{w} 0" for w in words[:8])
    assert f"findet so viele Inserate: {counted}." in result["hint"]
    assert "Zinne 0" not in result["hint"]
    assert sum("count(" in s.lower() for s in statements) <= 1 + 8  # the result's count and one per counted word


def test_a_single_word_gets_no_word_counts(search: Caller) -> None:
    result = search("search_listings", {"query": "Schlossgespenst"})
    assert "Jedes Wort allein" not in result["hint"]
    assert [s["arguments"]["query"] for s in result["suggestions"]] == ["schlossgespenst*", "schloss*"]


# Recall floors of the new syntax (about half of what the demo catalog holds today).
@pytest.mark.parametrize(("query", "floor"), [("Garten OR Terrasse", 300), ("Süd-Balkon", 150), ("DG-Wohnung", 80)])
def test_recall_floor_of_the_new_syntax(search: Caller, query: str, floor: int) -> None:
    assert count(search, query) >= floor
