"""What each call costs besides its own work (issue 21, bench/load.py): the SDK gets a tool's input schema for its
Mcp-Param header check from the contract, not by running and serialising the whole tools/list on every call."""

from __future__ import annotations

import pytest
from mcp.shared.inbound import validate_mcp_param_headers

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.db.session import Database
from shared.runtime.adapter import build_server, declares_param_headers, mcp_tool
from shared.runtime.definition import ServerDefinition
from tests.conftest import make_context


@pytest.mark.parametrize("definition", [SEARCH, BROKER], ids=["suche", "makler"])
def test_the_input_schema_lookup_is_what_tools_list_serves(definition: ServerDefinition, demo_db: Database) -> None:
    server = build_server(definition, make_context(demo_db), "0")
    assert server.get_tool_input_schema is not None
    for spec in definition.spec.tools:
        schema = mcp_tool(spec).input_schema
        # only a schema the header check can compare against is handed over; without one the SDK skips what it would pass
        assert server.get_tool_input_schema(spec.name) == (schema if declares_param_headers(schema) else None)
        if not declares_param_headers(schema):
            assert validate_mcp_param_headers(schema, {"limit": 3}, {"mcp-param-limit": "4", "mcp-param-x": "y"}) is None
    assert server.get_tool_input_schema("no_such_tool") is None


def test_a_schema_declares_param_headers_only_with_a_valid_annotation() -> None:
    def schema(**limit: object) -> dict[str, object]:
        return {"type": "object", "properties": {"limit": {"type": "integer", **limit}, "query": {"type": "string"}}}

    assert declares_param_headers(schema(**{"x-mcp-header": "Limit"}))
    # the check it stands for: a header that disagrees with its argument is refused only where one is declared
    assert validate_mcp_param_headers(schema(**{"x-mcp-header": "Limit"}), {"limit": 3}, {"mcp-param-limit": "4"}) is not None
    assert not declares_param_headers(schema())
    assert not declares_param_headers(schema(**{"x-mcp-header": "not a token"}))  # invalid: the SDK validates nothing
