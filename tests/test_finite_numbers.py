"""Every number is finite or INVALID_ARGUMENT, for every tool, checked once (the contract's base model).

JSON's `1e309` parses as infinity. Before, a valuation with value Inf was committed on SQLite and broke every later
page of list_valuations that held it, a living area Inf was shown as "inf m²", a price Inf made the anonymous
get_listing INTERNAL, and PostgreSQL answered INTERNAL to all of them."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from pydantic import ValidationError
from sqlalchemy import func, select

from contract.broker import SERVER as BROKER
from contract.search import SERVER as SEARCH
from contract.tool import ToolSpec
from shared.db.models import Listing, Valuation
from shared.db.session import Database
from tests.conftest import LiveServer
from tests.test_fuzz_surface import OWNER, token_for

TOOLS = [(server, spec) for server in (SEARCH, BROKER) for spec in server.tools]


def number_paths(schema: dict[str, Any], path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every property of the input schema that takes a number (nested objects and list items included)."""
    for name, prop in schema.get("properties", {}).items():
        options = prop.get("anyOf", [prop])
        for option in options:
            if option.get("type") == "number":
                yield (*path, name)
            elif option.get("type") == "object":
                yield from number_paths(option, (*path, name))
            elif option.get("type") == "array" and isinstance(option.get("items"), dict):
                item = option["items"]
                if item.get("type") == "number":
                    yield (*path, name, "0")
                elif item.get("type") == "object":
                    yield from number_paths(item, (*path, name, "0"))


def nested(path: tuple[str, ...], value: Any) -> Any:
    head, rest = path[0], path[1:]
    inner = nested(rest, value) if rest else value
    return [inner] if head.isdigit() else {head: inner}


CASES = [(spec, path) for _, spec in TOOLS for path in number_paths(spec.input_schema())]


def test_the_tools_take_numbers_at_all() -> None:
    """The walk finds the number arguments (a walk that finds nothing would make the next test vacuous)."""
    names = {(spec.name, ".".join(path)) for spec, path in CASES}
    assert {("save_valuation", "value_high"), ("save_listing", "fields.living_area"), ("save_listing", "fields.price")} <= names
    assert {("search_listings", "max_price"), ("calculate_purchase_costs", "price")} <= names


@pytest.mark.parametrize(("spec", "path"), CASES, ids=[f"{spec.name}-{'.'.join(path)}" for spec, path in CASES])
@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, "Infinity", "1e309"], ids=["inf", "-inf", "nan", "Infinity", "1e309-text"])
def test_every_number_argument_refuses_infinity(spec: ToolSpec, path: tuple[str, ...], value: Any) -> None:
    with pytest.raises(ValidationError) as refused:
        spec.input_model.model_validate(nested(path, value))
    located = [tuple(str(part) for part in error["loc"]) for error in refused.value.errors() if error["type"] == "finite_number"]
    assert path in located, refused.value.errors()


def _call(live: LiveServer, server: Any, token: str | None, tool: str, raw_arguments: str) -> dict[str, Any]:
    body = (
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"' + tool + '","arguments":' + raw_arguments + "}}"
    )
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    response = httpx2.post(f"{live.base_url}{server.path}", content=body, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    text = response.text
    if text.startswith("event:") or "\ndata:" in text or text.startswith("data:"):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    return json.loads(text)["result"]


def _refused(result: dict[str, Any], field: str) -> None:
    assert result["isError"] is True
    assert result["_meta"]["athaus/code"] == "INVALID_ARGUMENT"
    assert field in result["content"][0]["text"] and "endliche Zahl" in result["content"][0]["text"]


def test_1e309_over_http_is_invalid_and_nothing_is_stored(live_server: LiveServer, demo_db: Database) -> None:
    """The issue's three cases on the wire, raw JSON (the official client cannot send 1e309), on the test database."""
    token = token_for(demo_db, OWNER.email, BROKER)
    with demo_db.read_only() as session:
        valuations = session.scalar(select(func.count()).select_from(Valuation))
        listings = session.scalar(select(func.count()).select_from(Listing))
    lead = (
        '{"owner_name":"Inf","postal_code":"04109","city":"Leipzig","property_type":"house","marketing_type":"buy",'
        '"value_low":1,"value_high":1e309,"request_id":"finite-0000001"}'
    )
    _refused(_call(live_server, BROKER, token, "save_valuation", lead), "value_high")
    created = '{"request_id":"finite-0000002","fields":{"marketing_type":"buy","property_type":"house","title":"Inf","postal_code":"04109","city":"Leipzig",%s}}'
    _refused(_call(live_server, BROKER, token, "save_listing", created % '"living_area":1e309'), "fields.living_area")
    _refused(_call(live_server, BROKER, token, "save_listing", created % '"price":-1e309'), "fields.price")
    _refused(_call(live_server, SEARCH, None, "search_listings", '{"max_price":1e309}'), "max_price")
    with demo_db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(Valuation)) == valuations
        assert session.scalar(select(func.count()).select_from(Listing)) == listings
    page = _call(live_server, BROKER, token, "list_valuations", "{}")
    assert page["isError"] is False
