"""Drafts a person confirms, end to end over real HTTP with the official client, across both servers: a seeker's
inquiry clicked in the card reaches the office (search_inquiries, situation report), the office's reply clicked on
/makler/mcp reaches the seeker (get_inquiry), an accepted proposal reaches the seeker's Treffer (list_matches). Replay,
a forged token, another user's and another office's token, a changed payload and an expired draft execute nothing.
The card is served under two ui:// resources, one per host's form, one content each; both servers declare the MCP Apps
extension in their capabilities (both eras); the token is in no content and no structuredContent."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import select, update

from contract.broker import SERVER as BROKER_SERVER
from contract.confirmations import CARD_CHATGPT_URI, CARD_URI, CONFIRMATION_META_KEY, MCP_APP_MIME, SKYBRIDGE_MIME, UI_EXTENSION
from contract.search import SERVER as SEARCH_SERVER
from shared.auth.tokens import mint_access_token
from shared.db.models import InquiryMessage, Listing, Match, PendingAction, SearchOrder, User
from shared.db.session import Database
from shared.settings import Settings
from tests.confirmation_helpers import (
    APPS_EXTENSIONS,
    CARD_HOST_CLIENT,
    BROKER_SCOPES,
    OTHER_OWNER,
    OTHER_SEEKER,
    OWNER,
    SEEKER,
    SEEKER_SCOPES,
    click,
    open_inquiry,
    open_proposal,
    published_listing,
)
from tests.conftest import LiveServer, request_key, seeded_database
from tests.test_german_text import broker_cases, search_cases

SEEN: list[types.CallToolResult] = []  # every result of every tool call of this module, for the token scan
CALLED: set[tuple[str, str]] = set()  # (server, tool) of those calls
TOKENS: set[str] = set()


@pytest.fixture(scope="module")
def e2e(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Database]]:
    # the tokens' client ("test") is listed as a card host: these sessions play a chat that shows the card
    with seeded_database(tmp_path_factory.mktemp("e2e"), "e2e") as db, LiveServer(db, card_hosts=[CARD_HOST_CLIENT]) as server:
        yield server, db


def access_token(db: Database, email: str, server: str, scopes: frozenset[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings().resource_url(server)
        return mint_access_token(session, user_id=user_id, client_id=CARD_HOST_CLIENT, resource=resource, scopes=sorted(scopes)).access_token


def email_of(db: Database, user_id: int) -> str:
    with db.read_only() as session:
        return str(session.scalar(select(User.email).where(User.id == user_id)))


class Session:
    """Calls over HTTP as one login on one server; every result is kept for the token scan."""

    def __init__(self, server: LiveServer, db: Database, email: str, name: str) -> None:
        scopes = SEEKER_SCOPES if name == "suche" else BROKER_SCOPES
        self.name = name
        self.url = f"{server.base_url}/{name}/mcp"
        self.token = access_token(db, email, name, scopes)

    async def _run(self, use: Any, mode: str = "2026-07-28") -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {self.token}"}, timeout=30) as http:
            # a host that renders the card: it declares the MCP Apps extension (tests/test_click_boundary.py: the others)
            async with Client(streamable_http_client(self.url, http_client=http), mode=mode, extensions=APPS_EXTENSIONS) as client:
                return await use(client)

    def call(self, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        async def use(client: Client) -> types.CallToolResult:
            return await client.call_tool(tool, arguments)

        result = anyio.run(self._run, use)
        SEEN.append(result)
        CALLED.add((self.name, tool))
        card = (result.meta or {}).get(CONFIRMATION_META_KEY)
        if card and "token" in card:
            TOKENS.add(card["token"])
        return result

    def ok(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.call(tool, arguments)
        assert not result.is_error, result.content[0].text
        return result.structured_content

    def code(self, tool: str, arguments: dict[str, Any]) -> str:
        result = self.call(tool, arguments)
        assert result.is_error and result.structured_content is None
        return str(result.meta["athaus/code"])

    def listing(self) -> tuple[list[types.Tool], list[types.Resource], list[types.ReadResourceResult]]:
        async def use(client: Client) -> Any:
            reads = [await client.read_resource(uri) for uri in (CARD_URI, CARD_CHATGPT_URI)]
            return (await client.list_tools()).tools, (await client.list_resources()).resources, reads

        return anyio.run(self._run, use)

    def capabilities(self, mode: str) -> types.ServerCapabilities:
        async def use(client: Client) -> Any:
            return client.server_capabilities

        return anyio.run(self._run, use, mode)


def card(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return dict(result.meta[CONFIRMATION_META_KEY])


def thread_count(db: Database) -> int:
    with db.read_only() as session:
        return len(list(session.scalars(select(InquiryMessage.id))))


def test_the_card_is_one_content_per_resource_and_only_the_card_sees_its_tools(e2e: tuple[LiveServer, Database]) -> None:
    server, db = e2e
    for email, name in ((SEEKER.email, "suche"), (OWNER.email, "makler")):
        tools, resources, (app, chatgpt) = Session(server, db, email, name).listing()
        meta = {tool.name: tool.meta for tool in tools}
        draft = "draft_inquiry" if name == "suche" else "draft_reply"
        assert meta[draft]["ui"] == {"resourceUri": CARD_URI}
        assert meta[draft]["openai/outputTemplate"] == CARD_CHATGPT_URI and meta[draft]["openai/widgetAccessible"] is True
        for own in ("decide_confirmation", "get_confirmation"):  # the card's own tools: the app may call them, the model not
            assert meta[own]["ui"] == {"resourceUri": CARD_URI, "visibility": ["app"]}
            assert meta[own]["openai/visibility"] == "private"
        results_app = [("ui://athaus/treffer.html", MCP_APP_MIME), ("ui://athaus/treffer-chatgpt.html", SKYBRIDGE_MIME)] if name == "suche" else []
        assert [(r.uri, r.mime_type) for r in resources] == [(CARD_URI, MCP_APP_MIME), (CARD_CHATGPT_URI, SKYBRIDGE_MIME), *results_app]
        # one content each: the extension's example host refuses any other count ("Unexpected contents count: 2")
        assert [(c.uri, c.mime_type) for c in app.contents] == [(CARD_URI, MCP_APP_MIME)]
        assert [(c.uri, c.mime_type) for c in chatgpt.contents] == [(CARD_CHATGPT_URI, SKYBRIDGE_MIME)]
        # no `domain`: its format is the host's own; without it the card gets the host's sandbox origin, never ours
        assert app.contents[0].meta["ui"] == {"csp": {"connectDomains": [], "resourceDomains": []}, "prefersBorder": True}
        assert chatgpt.contents[0].meta["openai/widgetCSP"] == {"connect_domains": [], "resource_domains": []}
        assert chatgpt.contents[0].meta["openai/widgetPrefersBorder"] is True
        assert app.contents[0].text == chatgpt.contents[0].text and "decide_confirmation" in app.contents[0].text


@pytest.mark.parametrize("mode", ["auto", "legacy"])
@pytest.mark.parametrize("name", ["suche", "makler"])
def test_both_servers_declare_the_mcp_apps_extension(e2e: tuple[LiveServer, Database], name: str, mode: str) -> None:
    """`server/discover` (2026-07-28) carries `extensions`; so does `initialize` (2025-11-25), whose schema lists no such
    field but leaves capabilities open (shared/runtime/adapter.py, stating_extensions)."""
    server, db = e2e
    capabilities = Session(server, db, SEEKER.email if name == "suche" else OWNER.email, name).capabilities(mode)
    assert capabilities.extensions == {UI_EXTENSION: {"mimeTypes": [MCP_APP_MIME]}}


def test_an_inquiry_a_reply_and_an_expose_go_out_after_the_click(e2e: tuple[LiveServer, Database]) -> None:
    server, db = e2e
    seeker = Session(server, db, SEEKER.email, "suche")
    office = Session(server, db, OWNER.email, "makler")
    waiting_before = office.ok("show_situation_report", {})["sections"][0]["total"]
    listing = published_listing(db)
    drafted = seeker.call("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Ist die Wohnung noch frei? Ich komme gern vorbei.", "share": ["name", "email", "phone"]})
    assert drafted.structured_content["confirmation"]["status"] == "pending"
    sent = seeker.ok("decide_confirmation", click(card(drafted)))
    assert sent["confirmation"]["status"] == "sent"
    inquiry = sent["inquiry_id"]
    found = office.ok("search_inquiries", {"listing_id": listing, "limit": 50})
    assert inquiry in [item["inquiry_id"] for item in found["items"]]
    assert office.ok("show_situation_report", {})["sections"][0]["total"] == waiting_before + 1
    # the office replies; the broker clicks on /makler/mcp; the seeker reads it
    reply = office.call("draft_reply", {"request_id": request_key(), "inquiry_id": inquiry, "text": "Ja, noch frei. Freitag 17 Uhr?"})
    assert office.ok("send_reply", {"confirmation_id": card(reply)["confirmation_id"]})["confirmation"]["status"] == "pending"
    assert office.ok("decide_confirmation", click(card(reply)))["confirmation"]["status"] == "sent"
    thread = seeker.ok("get_inquiry", {"inquiry_id": inquiry})["messages"]
    assert [(m["from_provider"], m["text"]) for m in thread] == [
        (False, "Ist die Wohnung noch frei? Ich komme gern vorbei."),
        (True, "Ja, noch frei. Freitag 17 Uhr?"),
    ]
    assert office.ok("show_situation_report", {})["sections"][0]["total"] == waiting_before
    # an accepted proposal: the exposé reaches the seeker's Treffer after the click
    proposal, seeker_id = open_proposal(db)
    receiver = Session(server, db, email_of(db, seeker_id), "suche")
    accept = office.call("decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt zu Ihrer Suche."})
    before = receiver.ok("list_matches", {"kinds": ["proposal"], "limit": 50})["items"]
    assert office.ok("decide_confirmation", click(card(accept)))["confirmation"]["status"] == "sent"
    after = receiver.ok("list_matches", {"kinds": ["proposal"], "limit": 50})["items"]
    new = [m for m in after if m["match_id"] not in {b["match_id"] for b in before}]
    assert len(new) == 1 and new[0]["detail"]["note"] == "Passt zu Ihrer Suche." and new[0]["listing"]["listing_id"]


def test_replay_forgery_foreign_tokens_changed_and_expired_drafts_execute_nothing(e2e: tuple[LiveServer, Database]) -> None:
    server, db = e2e
    seeker = Session(server, db, SEEKER.email, "suche")
    other_seeker = Session(server, db, OTHER_SEEKER.email, "suche")
    office = Session(server, db, OWNER.email, "makler")
    other_office = Session(server, db, OTHER_OWNER.email, "makler")
    listing = published_listing(db)

    draft = card(seeker.call("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Erste Fassung"}))
    reply = card(office.call("draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Antwort des Büros"}))
    before = thread_count(db)
    assert seeker.code("decide_confirmation", click(draft, token="A" * 43)) == "CONFIRMATION_INVALID"  # forged
    assert other_seeker.code("decide_confirmation", click(draft)) == "CONFIRMATION_INVALID"  # another user's
    assert other_office.code("decide_confirmation", click(reply)) == "CONFIRMATION_INVALID"  # another office's
    assert office.code("decide_confirmation", click(draft)) == "CONFIRMATION_INVALID"  # the other server's
    changed = card(seeker.call("draft_inquiry", {"request_id": request_key(), "listing_id": listing, "message": "Zweite Fassung", "confirmation_id": draft["confirmation_id"]}))
    assert seeker.code("decide_confirmation", click(draft)) == "CONFLICT"  # the payload changed since it was shown
    with db.unit_of_work() as session:
        session.execute(
            update(PendingAction).where(PendingAction.ref == reply["confirmation_id"]).values(expires_at=dt.datetime.now(dt.UTC) - dt.timedelta(minutes=1))
        )
    assert office.code("decide_confirmation", click(reply)) == "CONFIRMATION_EXPIRED"
    assert thread_count(db) == before
    # the other halves: the shown payload by its own user sends, exactly once however often it is clicked
    assert seeker.ok("decide_confirmation", click(changed))["confirmation"]["status"] == "sent"
    assert thread_count(db) == before + 1
    replay = seeker.ok("decide_confirmation", click(changed))
    assert replay["confirmation"]["status"] == "sent" and "nichts wurde doppelt gesendet" in replay["outcome"]
    assert thread_count(db) == before + 1
    fresh = card(office.call("draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Neue Antwort"}))
    assert office.ok("decide_confirmation", click(fresh))["confirmation"]["status"] == "sent"
    assert thread_count(db) == before + 2


def test_a_raced_double_click_sends_once(e2e: tuple[LiveServer, Database]) -> None:
    server, db = e2e
    seeker = Session(server, db, SEEKER.email, "suche")
    draft = card(seeker.call("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Doppelklick"}))
    before = thread_count(db)
    results: list[types.CallToolResult] = []

    async def race() -> None:
        async def one() -> None:
            async def use(client: Client) -> types.CallToolResult:
                return await client.call_tool("decide_confirmation", click(draft))

            results.append(await seeker._run(use))

        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(one)

    anyio.run(race)
    SEEN.extend(results)
    assert all(not r.is_error and r.structured_content["confirmation"]["status"] == "sent" for r in results)
    assert thread_count(db) == before + 1


def test_the_card_asks_for_the_current_state_and_never_gets_a_token(e2e: tuple[LiveServer, Database]) -> None:
    """get_confirmation: what a card shown again later asks when it starts. A waiting draft answers pending with its
    current payload hash (a revision changes it), a draft discarded since answers discarded without anything to click;
    another person's confirmation is not found; the token is never in the answer."""
    server, db = e2e
    for email, name, other, tool, arguments in (
        (SEEKER.email, "suche", OTHER_SEEKER.email, "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Stand?"}),
        (OWNER.email, "makler", OTHER_OWNER.email, "draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Stand?"}),
    ):
        person = Session(server, db, email, name)
        drafted = card(person.call(tool, arguments))
        ref = {"confirmation_id": drafted["confirmation_id"]}
        state = person.call("get_confirmation", ref)
        assert state.structured_content["confirmation"]["status"] == "pending"
        assert state.meta[CONFIRMATION_META_KEY] == {"confirmation_id": ref["confirmation_id"], "payload_hash": drafted["payload_hash"]}
        revised = card(person.call(tool, {**arguments, **ref, "request_id": request_key(), tool == "draft_reply" and "text" or "message": "Stand, neu?"}))
        assert person.call("get_confirmation", ref).meta[CONFIRMATION_META_KEY]["payload_hash"] == revised["payload_hash"] != drafted["payload_hash"]
        with db.unit_of_work() as session:
            session.execute(update(PendingAction).where(PendingAction.ref == ref["confirmation_id"]).values(status="discarded", executed_at=dt.datetime.now(dt.UTC)))
        done = person.call("get_confirmation", ref)
        assert done.structured_content["confirmation"]["status"] == "discarded" and CONFIRMATION_META_KEY not in done.meta
        assert "Verworfen am" in done.structured_content["outcome"]
        assert Session(server, db, other, name).code("get_confirmation", ref) == "NOT_FOUND"


BLANK_TEXTS = [
    " \n ",
    "\t",
    "\u00a0 ",
    "\u200b",  # zero-width space
    "\u2060\u2060",  # word joiner
    "\u00ad",  # soft hyphen
    "\u2800 \u2800",  # Braille pattern blank
    "\u200b\u2060\u00ad\u2800\ufeff\u200c\u200d\u200e\u3164\u115f\ufe0f\U000e0020\n",  # every kind at once
]


@pytest.mark.parametrize("blank", BLANK_TEXTS)
def test_a_message_of_only_whitespace_or_invisible_characters_is_refused_and_nothing_is_drafted(
    e2e: tuple[LiveServer, Database], blank: str
) -> None:
    """Both draft tools, new and revised: a text nobody can read is blank, refused with the same sentence."""
    server, db = e2e
    with db.read_only() as session:
        before = len(list(session.scalars(select(PendingAction.id))))
    seeker = Session(server, db, SEEKER.email, "suche")
    office = Session(server, db, OWNER.email, "makler")
    waiting = card(office.call("draft_reply", {"inquiry_id": open_inquiry(db), "text": "Sichtbar.", "request_id": str(uuid.uuid4())}))["confirmation_id"]
    for person, tool, arguments, field in (
        (seeker, "draft_inquiry", {"listing_id": published_listing(db), "message": blank, "request_id": str(uuid.uuid4())}, "message"),
        (office, "draft_reply", {"inquiry_id": open_inquiry(db), "text": blank, "request_id": str(uuid.uuid4())}, "text"),
        (office, "draft_reply", {"inquiry_id": open_inquiry(db), "text": blank, "confirmation_id": waiting, "request_id": str(uuid.uuid4())}, "text"),
    ):
        result = person.call(tool, arguments)
        assert result.is_error and result.meta["athaus/code"] == "INVALID_ARGUMENT", (tool, result)
        assert result.content[0].text == (
            f"Das Argument {field} ist ungültig (enthält nur Leerzeichen, Zeilenumbrüche oder unsichtbare Zeichen; bitte den "
            "Text schreiben, der hinausgehen soll): bitte korrigieren und das Werkzeug erneut aufrufen."
        )
    with db.read_only() as session:
        assert len(list(session.scalars(select(PendingAction.id)))) == before + 1
        assert session.scalar(select(PendingAction.payload).where(PendingAction.ref == waiting))["text"] == "Sichtbar."


@pytest.mark.parametrize("text", ["Ja\u200b.", "\u2800\u2800Gern\u00ad geschehen", "\u200b\U0001f44d"])
def test_a_message_with_a_visible_character_beside_invisible_ones_is_drafted_as_written(e2e: tuple[LiveServer, Database], text: str) -> None:
    server, db = e2e
    office = Session(server, db, OWNER.email, "makler")
    drafted = office.call("draft_reply", {"inquiry_id": open_inquiry(db), "text": text, "request_id": str(uuid.uuid4())})
    assert not drafted.is_error and drafted.structured_content["text"] == text


def test_no_token_in_any_content_or_structured_content(e2e: tuple[LiveServer, Database]) -> None:
    server, db = e2e
    seeker = Session(server, db, SEEKER.email, "suche")
    office = Session(server, db, OWNER.email, "makler")
    pending = card(seeker.call("draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Noch eine Frage"}))
    seeker.ok("send_inquiry", {"confirmation_id": pending["confirmation_id"]})
    seeker.ok("get_confirmation", {"confirmation_id": pending["confirmation_id"]})
    waiting = card(office.call("draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Eine Antwort, die wartet."}))
    office.ok("get_confirmation", {"confirmation_id": waiting["confirmation_id"]})
    # every other tool of both servers, after the flows above, with a draft still waiting
    for name, arguments in search_cases(db):
        seeker.ok(name, arguments)
    for name, arguments in broker_cases(db, OWNER.office_id):
        office.ok(name, arguments)
    # the writes of both stocks (tests/test_german_text.py reads their texts on a catalog of its own)
    order = seeker.ok("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "marketing_type": "buy"}, "frequency": "sofort"})
    seeker.ok("update_search_order", {"search_order_id": order["search_order_id"], "status": "paused"})
    with db.read_only() as session:
        seeker_id = session.scalar(select(User.id).where(User.email == SEEKER.email))
        match = session.scalar(select(Match.ref).join(SearchOrder).where(SearchOrder.user_id == seeker_id).limit(1))
        own = session.scalar(select(Listing.ref).where(Listing.office_id == OWNER.office_id).limit(1))
    seeker.ok("update_match", {"match_id": match, "state": "interessant"})
    office.ok("save_valuation", {"listing_id": own, "value_low": 240000, "value_high": 265000, "request_id": "confirmations-http-0001"})
    declared = {(spec.name.value, tool.name) for spec in (SEARCH_SERVER, BROKER_SERVER) for tool in spec.tools}
    assert declared - CALLED == set()
    assert TOKENS and len(SEEN) > 40
    for result in SEEN:
        visible = json.dumps(result.structured_content, ensure_ascii=False) + "".join(
            block.text for block in result.content if isinstance(block, types.TextContent)
        )
        assert not any(token in visible for token in TOKENS)
