"""Every endpoint bounds its request body: more than ATHAUS_MAX_REQUEST_BYTES is 413 with a German message (a JSON-RPC
error on the MCP endpoints), whether the size is declared or only streamed; a body within the limit is served."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from shared.settings import Settings
from tests.conftest import LiveServer

LIMIT = Settings().max_request_bytes
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25", "Content-Type": "application/json"}
MESSAGE = f"Die Anfrage ist mit mehr als {LIMIT} Bytes zu groß: bitte kleinere Anfragen senden (etwa weniger oder kürzere Argumente)."


def _call(size: int) -> bytes:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "count_listings", "arguments": {"city": "Leipzig"}}}
    raw = json.dumps(body).encode()
    return raw[:-1] + b", " + b'"pad": "' + b"x" * max(0, size - len(raw) - 11) + b'"}'


@pytest.mark.parametrize("streamed", [False, True], ids=["declared", "streamed"])
def test_an_mcp_body_over_the_limit_is_413_with_a_german_json_rpc_error(live_server: LiveServer, streamed: bool) -> None:
    body = _call(LIMIT + 1)
    assert len(body) == LIMIT + 1

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 65536):
            yield body[start : start + 65536]

    content = chunks() if streamed else body
    response = httpx.post(f"{live_server.base_url}/suche/mcp", content=content, headers=MCP_HEADERS, timeout=30)
    assert response.status_code == 413
    assert response.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": MESSAGE, "data": {"athaus/code": "INVALID_ARGUMENT"}}}


def test_a_body_at_the_limit_is_served(live_server: LiveServer) -> None:
    body = _call(LIMIT)
    assert len(body) == LIMIT
    response = httpx.post(f"{live_server.base_url}/suche/mcp", content=body, headers=MCP_HEADERS, timeout=30)
    assert response.status_code == 200
    assert "result" in response.json()


@pytest.mark.parametrize("path", ["/makler/mcp", "/token", "/register", "/healthz"])
def test_every_other_endpoint_is_bounded_too(live_server: LiveServer, path: str) -> None:
    response = httpx.post(f"{live_server.base_url}{path}", content=b"x" * (LIMIT + 1), headers={"Content-Type": "application/octet-stream"}, timeout=30)
    assert response.status_code == 413
    assert MESSAGE in response.text
