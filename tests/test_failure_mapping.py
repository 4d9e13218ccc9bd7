"""Every MCP method maps its failures like a tool call: a stable code and a German sentence, never SQL, a trace,
parameters, ids, hosts or ports; strings no database can store are INVALID_ARGUMENT from one check, everywhere."""

from __future__ import annotations

from typing import Any

import anyio
import psycopg
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from sqlalchemy import exc as sa_exc

from contract.errors import ErrorCode
from search_server.server import DEFINITION as SEARCH
from shared.db.session import Database
from shared.runtime.adapter import build_server
from shared.runtime.definition import ServerDefinition
from shared.runtime.failures import failure_of
from shared.runtime.validation import MAX_TEXT_CHARS, unstorable_text
from tests.conftest import Caller, LiveServer, make_context

ERAS = ["legacy", "2026-07-28"]
PLACE = types.PromptReference(type="ref/prompt", name="start_home_search")
LEAK_MARKERS = ("Traceback", 'File "', "SELECT", "FROM ", "sqlite3", "psycopg", "office_id", "5432", "[SQL", "parameters")


def _rpc_failure(coro: Any) -> tuple[str, str]:
    """The athaus code and message of the JSON-RPC error a method answered with (`coro` returns the MCPError)."""
    raised = anyio.run(coro)
    assert isinstance(raised, MCPError), raised
    return raised.error.data["athaus/code"], raised.error.message


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(
    ("method", "argument"),
    [
        ("complete", "place"),
        ("read_resource", "listing_id"),
        ("get_prompt", "place"),
    ],
)
def test_nul_in_any_method_is_invalid_argument_naming_the_argument(live_server: LiveServer, mode: str, method: str, argument: str) -> None:
    async def call() -> Any:
        async with Client(f"{live_server.base_url}/suche/mcp", mode=mode) as client:
            try:
                if method == "complete":
                    return await client.complete(PLACE, {"name": "place", "value": "Leipzig\u0000"})
                if method == "read_resource":
                    return await client.read_resource("athaus://suche/inserate/A-000\u00000001")
                return await client.get_prompt("start_home_search", {"place": "Leip\u0000zig"})
            except MCPError as raised:
                return raised

    code, message = _rpc_failure(call)
    assert code == "INVALID_ARGUMENT"
    assert message.startswith(f"Das Argument {argument} enthält ein Nullzeichen") and "erneut senden" in message
    assert not any(marker in message for marker in LEAK_MARKERS)


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(
    ("arguments", "argument"),
    [({"city": "Leipzig\u0000"}, "city"), ({"near": {"place": "Leip\u0000zig"}}, "near.place"), ({"query": "x" * (MAX_TEXT_CHARS + 1)}, "query")],
)
def test_unstorable_tool_arguments_are_invalid_argument(live_server: LiveServer, mode: str, arguments: dict[str, Any], argument: str) -> None:
    async def call() -> Any:
        async with Client(f"{live_server.base_url}/suche/mcp", mode=mode) as client:
            return await client.call_tool("search_listings", arguments)

    result = anyio.run(call)
    assert result.is_error and result.meta["athaus/code"] == "INVALID_ARGUMENT"
    assert result.content[0].text.startswith(f"Das Argument {argument} ")


def test_lone_surrogates_are_refused_in_process(search: Caller) -> None:
    """The official client cannot even encode a lone surrogate (the server's JSON parser refuses it too); whatever
    gets one past them still meets the same check."""
    code, message = search.error("search_listings", {"city": "Leip\ud800zig"})
    assert (code, message.split(" enthält")[0]) == ("INVALID_ARGUMENT", "Das Argument city")


def test_the_one_check_both_halves() -> None:
    assert unstorable_text("", {"a": ["ok", {"b": "Straße 1 – Ä 😀"}], "n": 3}) is None
    assert unstorable_text("", {"a": "x" * MAX_TEXT_CHARS}) is None
    assert unstorable_text("", {"a": "x" * (MAX_TEXT_CHARS + 1)}).startswith("Das Argument a ist mit 2001 Zeichen zu lang")
    assert unstorable_text("", {"a": [{"b": "\x00"}]}).startswith("Das Argument a[0].b enthält ein Nullzeichen")
    assert unstorable_text("", {"a\x00": 1}).startswith("Das Argument a\x00 enthält")
    assert unstorable_text("", {"a": "\udc00"}).startswith("Das Argument a enthält ein einzelnes Ersatzzeichen")


SQL_ERROR = sa_exc.ProgrammingError(
    "SELECT places.name FROM places WHERE office_id = %(office_id)s", {"office_id": 7}, Exception("boom at db.example:5432")
)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (SQL_ERROR, ErrorCode.INTERNAL),
        (sa_exc.OperationalError("SELECT 1", {}, Exception('connection to server at "db.example" (10.0.0.1), port 5432 failed')), ErrorCode.SOURCE_UNAVAILABLE),
        (sa_exc.TimeoutError("QueuePool limit of size 10 overflow 20 reached"), ErrorCode.SOURCE_UNAVAILABLE),
        (sa_exc.InvalidRequestError("This connection is closed"), ErrorCode.SOURCE_UNAVAILABLE),
        (sa_exc.PendingRollbackError("This Session's transaction has been rolled back"), ErrorCode.SOURCE_UNAVAILABLE),
        (sa_exc.InvalidRequestError("Object is already attached to session 3"), ErrorCode.INTERNAL),
        (RuntimeError("anything else"), ErrorCode.INTERNAL),
        # two writers met: a conflict, never "the database is not reachable" (issue 30)
        (sa_exc.OperationalError("UPDATE proposals", {}, psycopg.errors.DeadlockDetected("deadlock detected")), ErrorCode.CONFLICT),
        (sa_exc.OperationalError("UPDATE proposals", {}, psycopg.errors.SerializationFailure("could not serialize")), ErrorCode.CONFLICT),
    ],
)
def test_failure_of_keeps_the_detail_in_the_log(error: Exception, code: ErrorCode, caplog: pytest.LogCaptureFixture) -> None:
    failure = failure_of(error, 10)
    assert failure.code == code
    assert not any(marker in failure.message for marker in (*LEAK_MARKERS, "db.example", "10.0.0.1"))
    assert failure.message.endswith(".") and "erneut" in failure.message


def _failing(definition: ServerDefinition, error: Exception) -> ServerDefinition:
    def fail(*_args: Any) -> Any:
        raise error

    return ServerDefinition(
        spec=definition.spec,
        handlers={name: fail for name in definition.handlers},
        readers={name: fail for name in definition.readers},
        prompts={name: fail for name in definition.prompts},
        completers={name: fail for name in definition.completers},
        app_html=dict(definition.app_html),
    )


@pytest.mark.parametrize(("error", "code"), [(SQL_ERROR, "INTERNAL"), (sa_exc.OperationalError("SELECT 1", {}, Exception("host db:5432")), "SOURCE_UNAVAILABLE")])
def test_every_method_maps_a_database_error_through_the_same_function(demo_db: Database, error: Exception, code: str) -> None:
    """A handler, reader, prompt and completer that raise a database error: each method answers the code only."""
    server = build_server(_failing(SEARCH, error), make_context(demo_db), "test")

    async def ask() -> dict[str, Any]:
        answers: dict[str, Any] = {}
        requests = {
            "tools/call": types.CallToolRequestParams(name="search_listings", arguments={}),
            "resources/read": types.ReadResourceRequestParams(uri="athaus://suche/inserate/A-0000001"),
            "prompts/get": types.GetPromptRequestParams(name="start_home_search", arguments={"place": "Leipzig"}),
            "completion/complete": types.CompleteRequestParams(ref=PLACE, argument=types.CompletionArgument(name="place", value="Lei")),
        }
        for method, params in requests.items():
            try:
                answers[method] = await server.get_request_handler(method).handler(_NoRequest(), params)
            except MCPError as raised:
                answers[method] = raised
        return answers

    for method, answer in anyio.run(ask).items():
        if method == "tools/call":
            assert answer.is_error and answer.meta["athaus/code"] == code, method
            text = answer.content[0].text
        else:
            assert isinstance(answer, MCPError), method
            assert answer.error.data == {"athaus/code": code}, method
            text = answer.error.message
        assert not any(marker in text for marker in (*LEAK_MARKERS, "db:5432")), (method, text)


class _NoRequest:
    """The request context of a handler called directly: no HTTP request, no meta."""

    meta = None
    request = None


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (sa_exc.OperationalError("UPDATE proposals", {}, psycopg.errors.DeadlockDetected("deadlock detected")), 409, "CONFLICT"),
        (sa_exc.OperationalError("SELECT 1", {}, Exception("connection refused")), 503, "SOURCE_UNAVAILABLE"),
    ],
)
def test_the_edge_answers_two_writers_that_met_as_a_conflict_not_an_outage(error: Exception, status: int, code: str) -> None:
    """A web app form whose transaction lost to another writer: 409 with the retry sentence, never "nicht erreichbar"."""
    from starlette.testclient import TestClient

    from shared.runtime.edge import Edge
    from shared.runtime.failures import CONCURRENT_MESSAGE, UNAVAILABLE_MESSAGE

    async def failing(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            raise error

    http = TestClient(Edge(failing, max_body_bytes=1000, deadline_seconds=10), raise_server_exceptions=False)  # no lifespan
    answer = http.post("/app/bestaetigungen", data={"a": "1"})
    assert (answer.status_code, answer.json()) == (status, {"error": code, "message": CONCURRENT_MESSAGE if status == 409 else UNAVAILABLE_MESSAGE})
