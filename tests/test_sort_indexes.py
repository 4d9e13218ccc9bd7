"""Every documented order of search_listings is read from an index, on both databases: the page query's plan has
no sort of the match set (PostgreSQL with sorts priced out, so the plan shows whether an index *can* serve the
order; on the small demo catalog a sort would otherwise be the cheaper choice)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

from contract.catalog import SearchListingsInput, SortOrder
from search_server.catalog import Scope
from shared.catalog import search as engine
from shared.db.models import Listing
from shared.db.session import Database


def _plan(db: Database, arguments: dict[str, Any]) -> list[str]:
    args = SearchListingsInput.model_validate(arguments)
    with db.read_only() as session:
        query = select(Listing).where(*Scope(session, args).conditions).order_by(*engine.SORTS[args.sort].order_by()).limit(args.limit + 1)
        compiled = query.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
        connection = session.connection()
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL enable_sort = off")
            return [line for (line,) in connection.exec_driver_sql(f"EXPLAIN {compiled}")]
        return [row[3] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}")]


@pytest.mark.parametrize("sort", list(SortOrder))
@pytest.mark.parametrize("filters", [{}, {"marketing_type": "buy", "property_types": ["house"]}])
def test_every_order_is_read_from_an_index(demo_db: Database, sort: SortOrder, filters: dict[str, Any]) -> None:
    if filters and demo_db.engine.dialect.name == "sqlite" and sort not in (SortOrder.price_asc, SortOrder.price_desc):
        pytest.skip("SQLite cannot be told to avoid a sort: on the small demo catalog it rightly sorts the few houses to buy")
    plan = _plan(demo_db, {**filters, "sort": sort.value})
    sorts = [line for line in plan if "TEMP B-TREE FOR ORDER BY" in line or line.strip().lstrip("-> ").startswith("Sort")]
    assert sorts == [], "\n".join(plan)
