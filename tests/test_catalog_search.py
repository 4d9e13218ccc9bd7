"""Catalog behaviour: full-text syntax and recall, filters, pagination, cursors, facets, errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from contract.catalog import CatalogFilters, SortOrder
from search_server.server import DEFINITION as SEARCH
from shared.catalog import search as engine
from shared.catalog.scope import PublicScope
from shared.catalog.indexing import bump_revision
from shared.db.models import Listing
from shared.paging.keyset import keyset_page
from tests.conftest import Caller, make_context
from tests.wire_helpers import amount, echoed


def walk(search: Caller, args: dict[str, Any]) -> tuple[list[str], int]:
    seen: list[str] = []
    page = search("search_listings", args)
    total = page["total"]
    while True:
        seen += [i["listing_id"] for i in page["items"]]
        cursor = page["completeness"]["next_cursor"]
        assert page["completeness"]["complete"] is (cursor is None)
        assert page["status"] == ("complete" if cursor is None else "partial")
        if cursor is None:
            return seen, total
        page = search("search_listings", {**args, "cursor": cursor})


# Rule 5: recall floors against the demo catalog (about half of what the catalog holds today).
@pytest.mark.parametrize(
    ("query", "floor"),
    [
        ("Balkon", 150),  # also finds Südbalkon, Westbalkon (compound parts)
        ("Einbauküche", 150),
        ("Garten", 100),
        ("Tiefgarage*", 30),  # prefix finds Tiefgaragenstellplatz
        ("Dachgeschoss*", 20),
        ("Wohnung Balkon", 50),
        ("München", 30),
    ],
)
def test_recall_floor(search: Caller, query: str, floor: int) -> None:
    assert search("count_listings", {"query": query, "facets": []})["total"] >= floor


def test_compound_part_is_found_inside_a_compound(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        texts = [t for (t,) in session.execute(select(Listing.description).where(Listing.status == "published"))]
    only_compound = [t for t in texts if "Südbalkon" in t and " Balkon" not in t]
    assert only_compound, "demo catalog should have listings that say Südbalkon but not Balkon"
    hits = search("count_listings", {"query": "Balkon", "facets": []})["total"]
    exact = search("count_listings", {"query": "Südbalkon", "facets": []})["total"]
    assert 0 < exact <= hits


def test_umlauts_and_case_are_folded(search: Caller) -> None:
    a = search("count_listings", {"query": "einbaukueche", "facets": []})["total"]
    b = search("count_listings", {"query": "EINBAUKÜCHE", "facets": []})["total"]
    assert a == b > 0


def test_phrase_is_narrower_than_words(search: Caller) -> None:
    words = search("count_listings", {"query": "ruhige Lage", "facets": []})["total"]
    phrase = search("count_listings", {"query": '"ruhige Lage"', "facets": []})["total"]
    reversed_phrase = search("count_listings", {"query": '"Lage ruhige"', "facets": []})["total"]
    assert 0 < phrase <= words
    assert reversed_phrase < phrase


def test_exclusion_removes_matches(search: Caller) -> None:
    all_flats = search("count_listings", {"property_types": ["apartment"], "facets": []})["total"]
    with_balcony = search("count_listings", {"property_types": ["apartment"], "query": "Balkon", "facets": []})["total"]
    without = search("count_listings", {"property_types": ["apartment"], "query": "-Balkon", "facets": []})["total"]
    assert with_balcony + without == all_flats


def test_filler_words_are_ignored_and_named(search: Caller) -> None:
    plain = search("search_listings", {"query": "Wohnung Balkon"})
    filler = search("search_listings", {"query": "Wohnung mit Balkon"})
    assert plain["total"] == filler["total"]
    assert [w["code"] for w in filler["warnings"]] == ["TERMS_IGNORED"]


def test_german_values_are_normalised(search: Caller) -> None:
    german = search("count_listings", {"marketing_type": "Kauf", "property_types": ["Wohnung"], "facets": []})
    english = search("count_listings", {"marketing_type": "buy", "property_types": ["apartment"], "facets": []})
    assert german["total"] == english["total"] > 0
    assert echoed(german, "marketing_type")["value"] == "buy"


def test_filters_hold_on_every_hit(search: Caller) -> None:
    args = {"marketing_type": "rent", "city": "Berlin", "min_rooms": 2, "max_price": 2500, "features": ["balcony"], "limit": 50}
    ids, total = walk(search, args)
    assert len(ids) == total > 0
    for item in search("search_listings", args)["items"]:
        assert item["marketing_type"] == "rent" and item["city"] == "Berlin"
        assert item["rooms"] >= 2 and amount(item["price"]) <= 2500 and "balcony" in item["features"]


def test_postal_code_prefix(search: Caller) -> None:
    result = search("search_listings", {"postal_codes": ["80"], "limit": 50})
    assert result["total"] > 0 and all(i["postal_code"].startswith("80") for i in result["items"])


# Rule 7: pages are disjoint and complete; property test over random queries and page sizes.
# A place is always set, so a walk stays within a few hundred listings and the test within seconds.
QUERIES = st.fixed_dictionaries(
    {"city": st.sampled_from(["Berlin", "München", "Leipzig", "Görlitz", "Hamburg"])},
    optional={
        "marketing_type": st.sampled_from(["buy", "rent"]),
        "query": st.sampled_from(["Balkon", "Garten", "Altbau*", "ruhige", '"ruhige Lage"']),
        "sort": st.sampled_from(["newest", "price_asc", "price_desc", "living_area_desc"]),
        "max_price": st.sampled_from([1500, 300_000, 800_000]),
    },
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=QUERIES, limit=st.integers(min_value=2, max_value=50))
def test_walking_all_pages_yields_total_distinct_ids_in_a_stable_order(search: Caller, args: dict[str, Any], limit: int) -> None:
    walked, total = walk(search, {**args, "limit": limit})
    assert len(walked) == len(set(walked)) == total
    one_page, _ = walk(search, {**args, "limit": 50})
    assert walked == one_page
    again, _ = walk(search, {**args, "limit": limit})
    assert again == walked


# Cursors: bound to arguments, order and snapshot; never silently restarted.
def test_cursor_for_other_arguments_is_refused(search: Caller) -> None:
    page = search("search_listings", {"city": "Berlin", "limit": 2})
    cursor = page["completeness"]["next_cursor"]
    code, message = search.error("search_listings", {"city": "Leipzig", "limit": 2, "cursor": cursor})
    assert code == "CURSOR_EXPIRED" and "ohne cursor neu beginnen" in message
    code, _ = search.error("search_listings", {"city": "Berlin", "sort": "price_asc", "cursor": cursor})
    assert code == "CURSOR_EXPIRED"


def test_cursor_with_another_page_size_continues(search: Caller) -> None:
    first = search("search_listings", {"city": "Berlin", "limit": 3})
    rest = search("search_listings", {"city": "Berlin", "limit": 7, "cursor": first["completeness"]["next_cursor"]})
    whole = search("search_listings", {"city": "Berlin", "limit": 10})
    assert [i["listing_id"] for i in first["items"] + rest["items"]] == [i["listing_id"] for i in whole["items"]]


def test_tampered_cursor_is_refused(search: Caller) -> None:
    cursor = search("search_listings", {"city": "Berlin", "limit": 2})["completeness"]["next_cursor"]
    body, signature = cursor.split(".")
    code, _ = search.error("search_listings", {"city": "Berlin", "limit": 2, "cursor": body[:-2] + "AA." + signature})
    assert code == "CURSOR_EXPIRED"
    assert search.error("search_listings", {"cursor": "nonsense"})[0] == "CURSOR_EXPIRED"


def test_cursor_expires_after_its_lifetime(demo_db: Any) -> None:
    early = Caller(SEARCH, make_context(demo_db))
    cursor = early("search_listings", {"city": "Berlin", "limit": 2})["completeness"]["next_cursor"]
    import datetime as dt

    from tests.conftest import FIXED_NOW

    late = Caller(SEARCH, make_context(demo_db, now=FIXED_NOW + dt.timedelta(hours=2)))
    code, message = late.error("search_listings", {"city": "Berlin", "limit": 2, "cursor": cursor})
    assert code == "CURSOR_EXPIRED" and "abgelaufen" in message


def test_cursor_from_an_older_catalog_state_is_refused(scratch_db: Any) -> None:
    caller = Caller(SEARCH, make_context(scratch_db))
    page = caller("search_listings", {"limit": 2})
    with scratch_db.unit_of_work() as session:
        bump_revision(session)
    code, message = caller.error("search_listings", {"limit": 2, "cursor": page["completeness"]["next_cursor"]})
    assert code == "CURSOR_EXPIRED" and "geändert" in message


# count_listings: facets add up to the total.
def test_facets_add_up(search: Caller) -> None:
    result = search("count_listings", {"city": "München"})
    assert result["total"] > 0
    for facet in result["facets"]:
        assert sum(b["count"] for b in facet["buckets"]) == result["total"], facet["name"]


def test_facet_selection_narrows(search: Caller) -> None:
    result = search("count_listings", {"city": "München", "facets": ["city"]})
    assert [f["name"] for f in result["facets"]] == ["city"]
    assert result["facets"][0]["buckets"] == [{"value": "München", "label": "München", "count": result["total"]}]


# Errors: one German sentence naming the field and the next step; nothing else.
@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"limit": 500}, "limit"),
        ({"marketing_type": "tauschen"}, "marketing_type"),
        ({"unknown": 1}, "unknown"),
        ({"min_price": 500000, "max_price": 100}, "min_price"),
        ({"near": {"radius_km": 5}}, "near"),
    ],
)
def test_bad_arguments_are_named(search: Caller, arguments: dict[str, Any], field: str) -> None:
    code, message = search.error("search_listings", arguments)
    assert code == "INVALID_ARGUMENT"
    assert field in message and message.endswith("erneut aufrufen.")
    assert message.startswith(f"Das Argument {field} ") or message.startswith("Die Angaben passen nicht zusammen: ")


def test_unknown_place_is_an_invalid_argument(search: Caller) -> None:
    code, message = search.error("search_listings", {"near": {"place": "Atlantis"}})
    assert code == "INVALID_ARGUMENT" and "'Atlantis'" in message


def test_get_listing_of_a_draft_is_not_found(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        draft = session.scalar(select(Listing.ref).where(Listing.status == "draft").limit(1))
    code, _ = search.error("get_listing", {"listing_id": draft})
    assert code == "NOT_FOUND"
    assert search.error("get_listing", {"listing_id": "12"})[0] == "INVALID_ARGUMENT"


def test_get_listing_accepts_lowercase_id(search: Caller) -> None:
    ref = search("search_listings", {"limit": 1})["items"][0]["listing_id"]
    assert search("get_listing", {"listing_id": ref.lower()})["listing_id"] == ref


@pytest.mark.parametrize("sort", ["newest", "price_asc", "price_desc", "living_area_desc"])
@pytest.mark.parametrize(
    "filters",
    [
        {"city": "Berlin", "query": "Mitte", "property_types": ["apartment"]},
        {"city": "Leipzig", "marketing_type": "rent", "max_price": 900},
        {"city": "Görlitz", "query": "Balkon -Garten"},
    ],
)
def test_a_page_found_by_its_keys_first_is_the_page_read_whole(demo_db: Any, filters: dict[str, Any], sort: str) -> None:
    """A search in one town finds its page's keys first (shared.paging.keyset `keys`): every page of a walk, and
    every cursor, is the one the plain select gives."""
    codec, now, order = make_context(demo_db).cursors, make_context(demo_db).now(), engine.SORTS[SortOrder(sort)]
    with demo_db.read_only() as session:
        scope = PublicScope(session, CatalogFilters.model_validate(filters), count_excluded=False)
        statement = scope.page_select(None)

        def pages(keys: Any) -> list[tuple[list[int], str | None]]:
            walked, cursor = [], None
            while True:
                page = keyset_page(session, statement, order, limit=3, cursor=cursor, cursors=codec, binding="b", snapshot=1, now=now, keys=keys)
                walked.append(([row.id for row in page.rows], page.next_cursor))
                if page.next_cursor is None or len(walked) > 200:  # a cursor not applied would walk forever
                    return walked
                cursor = page.next_cursor

        plain = pages(None)
        assert sum(len(ids) for ids, _ in plain) > 3  # more than one page, so cursors are crossed
        assert pages(select(order.unique).where(*scope.page_conditions)) == plain
