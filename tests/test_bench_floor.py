"""The replay floor (bench/floor.py --replay, issue 35): it serves the very tools/list Athaus serves and answers a
recorded call with the very bytes Athaus answered; and the bench scripts' arguments parse."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from athaus.connections import uvicorn_options
from bench import floor, load, search_latency
from shared.settings import Settings
from tests.conftest import LiveServer, _free_port


class Bodies:
    """The raw HTTP bodies of every tools/list and tools/call answer, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, bytes]] = []

    async def hook(self, response: Any) -> None:
        method = json.loads(response.request.content).get("method")
        if method in ("tools/list", "tools/call"):
            await response.aread()
            self.seen.append((method, response.content))


async def _drive(url: str, calls: list[tuple[str, dict[str, Any]]], hooks: list[Any]) -> list[Any]:
    """One 2026-07-28 session: tools/list, then the calls; returns their results."""
    async with httpx2.AsyncClient(timeout=30, event_hooks={"response": hooks}) as http:
        async with Client(streamable_http_client(url, http_client=http), mode="2026-07-28") as client:
            await client.list_tools()
            return [await client.call_tool(tool, arguments) for tool, arguments in calls]


@contextmanager
def _replay_floor(recording: dict[str, Any]) -> Iterator[str]:
    port = _free_port()
    config = uvicorn.Config(floor.create_replay_app(recording), host="127.0.0.1", port=port, **uvicorn_options(Settings()))
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the replay floor did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_the_replay_floor_serves_athaus_tools_list_and_answers_byte_for_byte(live_server: LiveServer) -> None:
    url = f"{live_server.base_url}/suche/mcp"
    first = anyio.run(_drive, url, [("search_listings", {"query": "Balkon", "limit": 3})], [])
    listing_id = first[0].structured_content["items"][0]["listing_id"]
    calls = [
        ("search_listings", {"query": "Balkon", "limit": 3, "include": {"photos": True}}),
        ("get_listing", {"listing_id": listing_id}),
        ("count_listings", {"city": "Berlin", "marketing_type": "rent"}),
        ("get_listing", {"listing_id": "A-9999999"}),  # an error answer is replayed too
    ]
    recorder, athaus = floor.Recorder(), Bodies()
    anyio.run(_drive, url, calls, [recorder.hook, athaus.hook])
    assert set(recorder.tools) == {"/suche/mcp"} and len(recorder.answers["/suche/mcp"]) == len(calls)

    replayed = Bodies()
    with _replay_floor(recorder.as_json()) as floor_url:
        results = anyio.run(_drive, f"{floor_url}/suche/mcp", calls, [replayed.hook])
        unrecorded = anyio.run(_drive, f"{floor_url}/suche/mcp", [("count_listings", {"city": "Köln"})], [])

    assert [method for method, _ in replayed.seen] == ["tools/list"] + ["tools/call"] * len(calls)
    assert replayed.seen == athaus.seen  # the same bytes: tools/list with its output schemas, and every answer
    assert [result.is_error for result in results] == [False, False, False, True]
    assert unrecorded[0].is_error is True and unrecorded[0].content[0].text == "not recorded: count_listings"


def test_replay_keys_ignore_the_order_of_arguments() -> None:
    assert floor.replay_key("search_listings", {"limit": 3, "query": "Balkon"}) == floor.replay_key("search_listings", {"query": "Balkon", "limit": 3})
    assert floor.replay_key("fetch", None) == floor.replay_key("fetch", {})


@pytest.mark.parametrize("main", [floor.main, load.main, search_latency.main])
def test_the_bench_scripts_parse_their_arguments(main: Any, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out  # English or German ("Aufruf:"): the athaus command installs German argparse wording
    assert out.startswith(("usage:", "Aufruf:")) and "-h" in out
