"""A fuzz of the MCP surface over real HTTP with the official client, in both protocol eras: every tool of both
servers with arguments drawn from its own inputSchema (valid ones and broken ones: NUL, huge strings, odd numbers,
wrong types), completions with odd values and argument names, resources/read with odd URIs, deeply nested JSON. No response may carry INTERNAL, a
stack trace, SQL text, a host and port or an internal id, whatever was sent.

Bounded in time: a few examples per tool (ATHAUS_FUZZ_EXAMPLES raises it for a longer run)."""

from __future__ import annotations

import json
import os
import re
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from sqlalchemy import select

from contract.broker import SERVER as BROKER
from contract.search import SERVER as SEARCH
from contract.server import ServerSpec
from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.demo import DEMO_ACCOUNTS
from shared.settings import Settings
from tests.conftest import LiveServer
from tests.schema_strategies import from_schema

ERAS = ["legacy", "2026-07-28"]
EXAMPLES = int(os.environ.get("ATHAUS_FUZZ_EXAMPLES", "4"))
OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
SEEKER = next(a for a in DEMO_ACCOUNTS if a.office_role is None)

ODD_TEXT = st.sampled_from(
    [
        "\x00",
        "Leipzig\x00",
        "x" * 2_500,
        "ä" * 2_000,
        "",
        "   ",
        "💥🏠" * 20,
        "A-9999999",
        "A-0000001\x00",
        '"' * 41,
        "OR OR -",
        "*",
        " ".join(["haus"] * 40),
        '"' + " ".join(["schöne", "helle", "wohnung"] * 6) + '"',
        "Robert'); DROP TABLE listings;--",
        "%s %(office_id)s",
        "\u202e\u200b\ufeff",
        "İSTANBUL ǅ ß ﬀ",
    ]
)
ODD_NUMBER = st.sampled_from([-1, 0, 1, -(2**63), 2**63, 10**30, 1e308, -1e308, 0.5, 1e-300])
ODD_VALUE = st.one_of(ODD_TEXT, ODD_NUMBER, st.sampled_from([True, None, [], {}, [None], {"x": 1}, ["\x00"]]))

LEAKS = [
    ("INTERNAL", re.compile(r'"athaus/code":\s*"INTERNAL"')),
    ("traceback", re.compile(r'Traceback|File \\?"')),
    ("SQL", re.compile(r"\b(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM)\b|\bFROM [a-z_]+\b|sqlite3|psycopg|sqlalche\.me")),
    ("host:port", re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}:\d{2,5}\b|localhost:\d+|\bport \d{2,5}\b")),
    ("internal id", re.compile(r"\b(office_id|user_id|seeker_id|account_id)\b")),
]


def mutated(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid arguments, or valid arguments with one property (or an unknown one) replaced by an odd value."""
    valid = from_schema(schema)
    names = sorted(schema.get("properties", {})) or ["x"]

    @st.composite
    def broken(draw: st.DrawFn) -> dict[str, Any]:
        arguments = dict(draw(valid))
        arguments[draw(st.sampled_from([*names, "unbekannt"]))] = draw(ODD_VALUE)
        return arguments

    return st.one_of(valid, broken())


def _texts(sent: Any) -> list[str]:
    """Every string in what was sent (keys and values, nested), the longest first."""
    if isinstance(sent, str):
        return [sent]
    if isinstance(sent, dict):
        return sorted((t for key, value in sent.items() for t in (*_texts(key), *_texts(value))), key=len, reverse=True)
    if isinstance(sent, list):
        return sorted((t for value in sent for t in _texts(value)), key=len, reverse=True)
    return []


def leaks_in(answer: Any, public_url: str, sent: Any = None) -> list[str]:
    """What the answer gives away. `sent`: what the caller sent; an answer that quotes it back (an error naming the
    value it refuses) gives nothing away by that: each sent text is taken out before the patterns are looked for,
    so the same words anywhere else in the answer still count."""
    if isinstance(answer, MCPError):
        wire = json.dumps({"message": answer.error.message, "data": answer.error.data}, ensure_ascii=False)
    else:
        wire = answer.model_dump_json(by_alias=True)
    wire = wire.replace(public_url, "")  # the public URL in a sign-in challenge is the server's own, not a leak
    for text in _texts(sent):  # the whole text first, then each of its words (a search quotes back words it did not search)
        for quoted in [text, *text.split()]:
            if len(quoted) >= 3:
                wire = wire.replace(json.dumps(quoted, ensure_ascii=False)[1:-1], "")
    return [name for name, pattern in LEAKS if pattern.search(wire)]


def test_a_quoted_back_argument_is_not_a_leak_but_the_same_words_elsewhere_are() -> None:
    sent = {"id": "%s %(office_id)s"}
    echo = types.CallToolResult(content=[types.TextContent(type="text", text="'%s %(office_id)s' ist keine Inseratsnummer.")], is_error=True)
    assert leaks_in(echo, "http://x") == ["internal id"]
    assert leaks_in(echo, "http://x", sent) == []
    both = types.CallToolResult(content=[types.TextContent(type="text", text="'%s %(office_id)s' … WHERE office_id = 7")], is_error=True)
    assert leaks_in(both, "http://x", sent) == ["internal id"]
    word = types.CallToolResult(content=[types.TextContent(type="text", text="Nicht gesucht: %(office_id)s.")], is_error=True)
    assert leaks_in(word, "http://x", sent) == []


def token_for(db: Any, email: str, server: ServerSpec) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url(server.name.value)
        return mint_access_token(session, user_id=user_id, client_id="fuzz", resource=resource, scopes=list(server.scopes)).access_token


async def _session_call(base_url: str, server: ServerSpec, token: str | None, mode: str, use: Any) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
        async with Client(streamable_http_client(f"{base_url}{server.path}", http_client=http), mode=mode) as client:
            try:
                return await use(client)
            except MCPError as error:
                return error


# Athaus für Makler answers 401 to a request without a token before any tool; its tools are fuzzed signed in.
CASES = [(server, tool.name, as_) for server in (SEARCH, BROKER) for tool in server.tools for as_ in ("login", "anonymous")]
CASES = [(server, tool, as_) for server, tool, as_ in CASES if server is SEARCH or as_ == "login"]


@pytest.fixture(scope="module")
def tokens(demo_db: Any) -> dict[str, str]:
    return {SEARCH.path: token_for(demo_db, SEEKER.email, SEARCH), BROKER.path: token_for(demo_db, OWNER.email, BROKER)}


@pytest.mark.parametrize(("server", "tool", "as_"), CASES, ids=[f"{s.name.value}-{t}-{a}" for s, t, a in CASES])
def test_tools_never_leak(live_server: LiveServer, tokens: dict[str, str], server: ServerSpec, tool: str, as_: str) -> None:
    spec = next(t for t in server.tools if t.name == tool)
    token = tokens[server.path] if as_ == "login" else None
    public_url = Settings().public_url.rstrip("/")

    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(arguments=mutated(spec.input_schema()), mode=st.sampled_from(ERAS))
    def fuzz(arguments: dict[str, Any], mode: str) -> None:
        answer = anyio.run(_session_call, live_server.base_url, server, token, mode, lambda c: c.call_tool(tool, arguments))
        assert not leaks_in(answer, public_url, arguments), (arguments, mode, answer)

    fuzz()


def _completion_refs(server: ServerSpec) -> list[tuple[Any, str]]:
    refs: list[tuple[Any, str]] = [
        (types.PromptReference(type="ref/prompt", name=p.name), a.name) for p in server.prompts for a in p.arguments
    ]
    refs += [
        (types.ResourceTemplateReference(type="ref/resource", uri=r.uri_template), name)
        for r in server.resources
        for name in re.findall(r"{(\w+)}", r.uri_template)
    ]
    return refs


@pytest.mark.parametrize("server", [SEARCH, BROKER], ids=["suche", "makler"])
def test_completions_resources_and_prompts_never_leak(live_server: LiveServer, tokens: dict[str, str], server: ServerSpec) -> None:
    public_url = Settings().public_url.rstrip("/")
    refs = _completion_refs(server)
    odd_text = ODD_TEXT.filter(lambda v: "\x00" not in v or True)

    @settings(max_examples=EXAMPLES * 4, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(
        ref=st.sampled_from(refs) if refs else st.none(),
        value=st.one_of(odd_text, st.text(max_size=20)),
        template=st.sampled_from(server.resources) if server.resources else st.none(),
        prompt=st.sampled_from(server.prompts) if server.prompts else st.none(),
        mode=st.sampled_from(ERAS),
        login=st.booleans() if server is SEARCH else st.just(True),
        odd_name=st.one_of(st.none(), st.sampled_from(["unbekannt", "", "x" * 300, "listing_id ", "Place"])),
    )
    def fuzz(ref: Any, value: str, template: Any, prompt: Any, mode: str, login: bool, odd_name: str | None) -> None:
        token = tokens[server.path] if login else None
        if ref is not None:
            reference, argument = ref
            argument = argument if odd_name is None else odd_name
            answer = anyio.run(
                _session_call, live_server.base_url, server, token, mode, lambda c: c.complete(reference, {"name": argument, "value": value})
            )
            assert not leaks_in(answer, public_url, [argument, value]), ("complete", ref, value, answer)
            if odd_name is not None:  # an argument the prompt or template does not have: the caller's mistake
                assert isinstance(answer, MCPError) and answer.error.code == types.INVALID_PARAMS, ("complete", ref, odd_name, answer)
        if template is not None:
            uri = re.sub(r"{\w+}", lambda _: value.replace("/", "%2F"), template.uri_template)
            try:
                types.ReadResourceRequestParams(uri=uri)
            except ValueError:
                uri = re.sub(r"{\w+}", "A-0000001%00", template.uri_template)
            answer = anyio.run(_session_call, live_server.base_url, server, token, mode, lambda c: c.read_resource(uri))
            assert not leaks_in(answer, public_url, [value, uri]), ("read", uri, answer)
        if prompt is not None:
            arguments = {a.name: value for a in prompt.arguments}
            answer = anyio.run(_session_call, live_server.base_url, server, token, mode, lambda c: c.get_prompt(prompt.name, arguments))
            if not isinstance(answer, MCPError):  # a prompt echoes its arguments: only an error has to be clean
                return
            assert not leaks_in(answer, public_url, arguments), ("prompt", arguments, answer)

    fuzz()


def test_lone_surrogates_on_the_wire_are_refused_without_a_leak(live_server: LiveServer) -> None:
    """The official client cannot send a lone surrogate at all; a raw one gets a parse error, nothing else."""
    body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_listings","arguments":{"city":"Leip\\ud800zig"}}}'
    response = httpx2.post(
        f"{live_server.base_url}/suche/mcp",
        content=body,
        headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"},
    )
    assert response.status_code in (200, 400)
    assert not any(pattern.search(response.text) for _, pattern in LEAKS), response.text


@pytest.mark.parametrize("server", [SEARCH, BROKER], ids=["suche", "makler"])
@pytest.mark.parametrize("opening", ["[", '{"a":'], ids=["arrays", "objects"])
def test_deeply_nested_json_is_a_parse_error_not_a_crash(live_server: LiveServer, tokens: dict[str, str], server: ServerSpec, opening: str) -> None:
    """`[` a hundred thousand times (within the body limit) is a JSON-RPC parse error with HTTP 400, signed in or not
    (Athaus für Makler asks for a token first)."""
    for token in (None, tokens[server.path]) if server is SEARCH else (tokens[server.path],):
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = httpx2.post(f"{live_server.base_url}{server.path}", content=opening * 100_000, headers=headers, timeout=30)
        assert response.status_code == 400, response.text
        answer = response.json()
        assert answer["error"]["code"] == types.PARSE_ERROR
        assert not any(pattern.search(response.text) for _, pattern in LEAKS), response.text


def test_completing_an_argument_that_is_not_there_is_invalid_params(live_server: LiveServer, tokens: dict[str, str]) -> None:
    """A known prompt or template with an unknown argument name, an unknown prompt or template: INVALID_PARAMS naming
    what is offered (not INTERNAL). A known argument without a completer completes nothing."""
    token = tokens[SEARCH.path]
    template = types.ResourceTemplateReference(type="ref/resource", uri=SEARCH.resources[0].uri_template)
    prompt = types.PromptReference(type="ref/prompt", name=SEARCH.prompts[0].name)
    cases = [
        (template, "unbekannt"),
        (prompt, "unbekannt"),
        (types.ResourceTemplateReference(type="ref/resource", uri="athaus://suche/nichts/{x}"), "x"),
        (types.PromptReference(type="ref/prompt", name="nichts"), "x"),
    ]
    for mode in ERAS:
        for reference, argument in cases:
            answer = anyio.run(
                _session_call, live_server.base_url, SEARCH, token, mode, lambda c: c.complete(reference, {"name": argument, "value": "a"})
            )
            assert isinstance(answer, MCPError), (reference, argument, answer)
            assert (answer.error.code, answer.error.data) == (types.INVALID_PARAMS, {"athaus/code": "INVALID_ARGUMENT"})
            assert "bitte eine der angebotenen nehmen" in answer.error.message
