"""What a model reads is budgeted like latency (SPEC section 10): tools/list per tool and a 10-hit search page,
measured on what the server sends over HTTP. `python -m bench.model_budget` prints the same figures."""

from __future__ import annotations

from typing import Any

from bench.model_budget import (
    PAGE_STRUCTURED,
    PAGE_TEXT,
    TOOLS_LIST_AVERAGE,
    TOOLS_LIST_MAX,
    broker_token,
    report,
    search_pages,
    tools_list,
)
from tests.conftest import LiveServer


def test_tools_list_and_a_search_page_stay_within_their_budgets(live_server: LiveServer, demo_db: Any) -> None:
    servers = [tools_list(live_server.base_url, "suche", None), tools_list(live_server.base_url, "makler", broker_token(demo_db))]
    pages = search_pages(live_server.base_url)
    print("\n" + "\n".join(report(servers, pages)))
    for server in servers:
        assert {tool: sum(parts.values()) for tool, parts in server.part_bytes.items()} == server.tool_bytes
        assert server.average <= TOOLS_LIST_AVERAGE, (server.path, round(server.average))
        assert server.largest[1] <= TOOLS_LIST_MAX, (server.path, server.largest)
    for page in pages:
        assert page.hits == 10, page
        assert page.structured <= PAGE_STRUCTURED and page.text <= PAGE_TEXT, page
