"""What each call costs besides its own work (issue 21, bench/load.py): the SDK gets a tool's input schema for its
Mcp-Param header check from the contract, not by running and serialising the whole tools/list on every call."""

from __future__ import annotations

import pytest

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.db.session import Database
from shared.runtime.adapter import build_server, mcp_tool
from shared.runtime.definition import ServerDefinition
from tests.conftest import make_context


@pytest.mark.parametrize("definition", [SEARCH, BROKER], ids=["suche", "makler"])
def test_the_input_schema_lookup_is_what_tools_list_serves(definition: ServerDefinition, demo_db: Database) -> None:
    server = build_server(definition, make_context(demo_db), "0")
    assert server.get_tool_input_schema is not None
    for spec in definition.spec.tools:
        assert server.get_tool_input_schema(spec.name) == mcp_tool(spec).input_schema
    assert server.get_tool_input_schema("no_such_tool") is None
