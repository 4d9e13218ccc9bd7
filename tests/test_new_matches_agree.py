"""What list_search_orders counts as new (`new_matches`: Treffer in state new, of any age) is exactly what
list_matches shows in state new by default, on every seeker of the demo data, per search order and in total;
and an explicit `since` narrows to that time, leaving older unseen Treffer out (the other half)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import func, select

from shared.db.models import Match, SearchOrder
from shared.db.session import Database
from tests.conftest import FIXED_NOW, Caller
from tests.test_seeker_account import seeker

DEFAULT_SINCE = FIXED_NOW - dt.timedelta(days=14)


def all_items(caller: Caller, args: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    arguments = {**args, "limit": 50}
    while True:
        page = caller("list_matches", arguments)
        items += page["items"]
        if page["completeness"]["complete"]:
            return items
        arguments["cursor"] = page["completeness"]["next_cursor"]


@pytest.fixture(scope="module")
def seekers(demo_db: Database) -> list[int]:
    with demo_db.read_only() as session:
        return list(session.scalars(select(SearchOrder.user_id).distinct().order_by(SearchOrder.user_id)))


def test_new_matches_equal_the_new_treffer_list_matches_shows_by_default_on_every_seeker(search: Caller, seekers: list[int]) -> None:
    assert len(seekers) > 50
    older_unseen_seen = 0
    for user_id in seekers:
        as_seeker = search.as_(seeker(user_id))
        orders = as_seeker("list_search_orders")
        assert orders["completeness"]["complete"] is True
        shown = all_items(as_seeker, {})
        new_by_order: dict[str, int] = {}
        for item in shown:
            if item["match_state"] == "new":
                new_by_order[item["search_order_id"]] = new_by_order.get(item["search_order_id"], 0) + 1
        assert {o["search_order_id"]: o["new_matches"] for o in orders["items"] if o["new_matches"]} == new_by_order, user_id
        older_unseen_seen += sum(
            item["match_state"] == "new" and dt.datetime.fromisoformat(item["created_at"]) < DEFAULT_SINCE for item in shown
        )
    assert older_unseen_seen > 0, "the demo data has unseen Treffer older than the 14 days"


def test_per_search_order_the_count_and_the_list_agree(search: Caller, demo_db: Database) -> None:
    with demo_db.read_only() as session:
        user_id, order_ref = session.execute(
            select(SearchOrder.user_id, SearchOrder.ref)
            .join(Match, Match.search_order_id == SearchOrder.id)
            .where(Match.state == "new", Match.created_at < DEFAULT_SINCE)
            .group_by(SearchOrder.user_id, SearchOrder.ref)
            .order_by(func.count().desc(), SearchOrder.ref)
            .limit(1)
        ).one()
    as_seeker = search.as_(seeker(user_id))
    order = next(o for o in as_seeker("list_search_orders")["items"] if o["search_order_id"] == order_ref)
    listed = all_items(as_seeker, {"search_order_id": order_ref, "states": ["new"]})
    assert order["new_matches"] == len(listed) > 0
    assert any(dt.datetime.fromisoformat(i["created_at"]) < DEFAULT_SINCE for i in listed)

    explicit = all_items(as_seeker, {"search_order_id": order_ref, "states": ["new"], "since": DEFAULT_SINCE.isoformat()})
    assert len(explicit) < len(listed), "an explicit since leaves the older unseen Treffer out"
    assert all(dt.datetime.fromisoformat(i["created_at"]) >= DEFAULT_SINCE for i in explicit)
