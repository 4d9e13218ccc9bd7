"""Counting never makes a search slow: search_listings counts its matches exactly up to engine.COUNT_CAP; beyond,
the answer has no total but an honest lower bound, the reason TOTAL_NOT_COUNTED under completeness and the way to
the exact number (count_listings, narrower filters). Where the total is exact, total_exact says so. Both halves, on
the backend of the run, through the official MCP client over real HTTP (the cap lowered to the demo catalog's scale)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp import Client

from shared.catalog import search as engine
from shared.runtime.read_cache import forget_all
from tests.conftest import Caller

CAP = 200
BROAD = {"query": "Balkon", "limit": 5}  # several hundred matches in the demo catalog
NARROW = {"query": "Balkon", "city": "Leipzig", "limit": 5}


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine, "COUNT_CAP", CAP)


def _call(base_url: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], str]:
    async def call() -> tuple[dict[str, Any], str]:
        async with Client(f"{base_url}/suche/mcp", mode="2026-07-28") as client:
            result = await client.call_tool("search_listings", arguments)
            assert not result.is_error
            return result.structured_content, result.content[0].text

    return anyio.run(call)


def _exact(search: Caller, arguments: dict[str, Any]) -> int:
    filters = {k: v for k, v in arguments.items() if k != "limit"}
    return search("count_listings", {**filters, "facets": []})["total"]


def test_a_broad_search_gives_a_lower_bound_and_the_way_to_the_exact_number(capped: None, live_server: Any, search: Caller) -> None:
    exact = _exact(search, BROAD)
    assert exact > CAP
    result, text = _call(live_server.base_url, BROAD)
    assert (result["total"], result["total_exact"], result["total_at_least"]) == (None, False, CAP)
    assert result["returned"] == 5 and result["status"] == "partial"
    reasons = {r["code"]: r["message"] for r in result["completeness"]["reasons"]}
    assert set(reasons) == {"MORE_PAGES_AVAILABLE", "TOTAL_NOT_COUNTED"}
    assert reasons["TOTAL_NOT_COUNTED"].startswith(f"Gesamtzahl nicht gezählt: mindestens {CAP} Treffer")
    assert "count_listings" in reasons["TOTAL_NOT_COUNTED"]
    assert f"Mindestens {CAP} Treffer (nicht genau gezählt), diese Seite zeigt 5." in text
    assert "insgesamt" not in text.split("\n")[0]
    # the next page says the same, and the walk still reaches every match
    second, _ = _call(live_server.base_url, {**BROAD, "cursor": result["completeness"]["next_cursor"]})
    assert (second["total"], second["total_at_least"]) == (None, CAP)


def test_a_narrow_search_counts_exactly_and_says_so(capped: None, live_server: Any, search: Caller) -> None:
    exact = _exact(search, NARROW)
    assert 5 < exact < CAP
    result, text = _call(live_server.base_url, NARROW)
    assert (result["total"], result["total_exact"], result["total_at_least"]) == (exact, True, None)
    assert [r["code"] for r in result["completeness"]["reasons"]] == ["MORE_PAGES_AVAILABLE"]
    assert f"{exact} Inserate insgesamt, diese Seite zeigt 5." in text
    assert "Mindestens" not in text


def test_at_the_cap_exactly_the_bound_is_honest(search: Caller, monkeypatch: pytest.MonkeyPatch) -> None:
    """A count that reaches the cap may be the whole set: the answer then claims only 'at least', never more."""
    exact = _exact(search, NARROW)
    monkeypatch.setattr(engine, "COUNT_CAP", exact)
    at = search("search_listings", NARROW)
    assert (at["total"], at["total_exact"], at["total_at_least"]) == (None, False, exact)
    monkeypatch.setattr(engine, "COUNT_CAP", exact + 1)
    forget_all()  # the cap is a deployment's constant: the answer kept under the other cap is not this one's
    above = search("search_listings", NARROW)
    assert (above["total"], above["total_exact"], above["total_at_least"]) == (exact, True, None)


def test_count_listings_stays_exact_beyond_the_cap(capped: None, search: Caller) -> None:
    counted = search("count_listings", {"query": "Balkon", "facets": ["marketing_type"]})
    assert counted["total"] > CAP
    assert sum(b["count"] for b in counted["facets"][0]["buckets"]) == counted["total"]
