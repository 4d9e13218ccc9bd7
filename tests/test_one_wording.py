"""Wording a model would turn into a wrong claim (issue 31, item 5): a hint that promises suggestions carries them,
and an echo is what the tool accepts back as sent."""

from __future__ import annotations

from typing import Any

import pytest

from shared.wording import FILTERS_NARROW_SUGGESTED
from tests.conftest import Caller
from tests.test_seeker_account import lena, seeker  # noqa: F401 (lena is a fixture)


@pytest.mark.parametrize(
    "arguments",
    [
        {"city": "Neustadt an der Weinstraße"},
        {"city": "Neustadt an der Weinstraße", "query": "Schwimmbad"},
        {"postal_codes": ["67433"], "min_rooms": 9},
        {"near": {"place": "Bad Dürkheim", "radius_km": 1}},
    ],
)
def test_an_empty_results_hint_promises_suggestions_only_beside_them(arguments: dict[str, Any], search: Caller) -> None:
    found = search("search_listings", arguments)
    assert found["total"] == 0, "the table's searches are meant to find nothing in the demo catalog"
    promises = "Vorschläge" in found["hint"]
    assert promises is bool(found["suggestions"]), found["hint"]
    if "city" in arguments and "near" not in arguments:
        widened = {"city": None, "near": {"place": arguments["city"], "radius_km": 20}}
        assert widened in [s["arguments"] for s in found["suggestions"]]


def test_the_sentence_that_promises_suggestions_is_said_only_with_them() -> None:
    assert "Vorschläge" in FILTERS_NARROW_SUGGESTED


def test_list_matches_echoes_what_it_accepts_back(search: Caller, lena: int) -> None:  # noqa: F811
    caller = search.as_(seeker(lena))
    first = caller("list_matches", {})
    assert first["request"]["search_order_id"] is None and isinstance(first["request"]["search_orders"], list)
    again = caller("list_matches", {name: first["request"][name] for name in ("search_order_id", "kinds", "states", "limit")})
    assert again["total"] == first["total"]
    one = first["request"]["search_orders"][0]
    only = caller("list_matches", {"search_order_id": one})
    assert only["request"]["search_order_id"] == one and "search_orders" not in only["request"]
    assert caller("list_matches", {"search_order_id": only["request"]["search_order_id"]})["total"] == only["total"]
