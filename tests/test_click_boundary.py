"""The click only a person can make (issue 17, items 1 and 2), over real HTTP with the official Python client in both
protocol eras, on a demo catalog of its own (SQLite, or PostgreSQL with ATHAUS_TEST_DATABASE_URL).

Bypass attempts, each refused with CONFIRMATION_INVALID and a German next step naming Athaus's page of the draft and
the web app, nothing sent:
- a plain client (no MCP Apps capability) drafts: no token in `_meta`, the page URL in text and structuredContent;
- a client that is not registered as a card host declares the extension (2026-07-28: per request; 2025-11-25: at
  initialize, carried by its session id) and ChatGPT's `openai/…` keys: the same, no token, the page URL;
- such clients call decide_confirmation with the token and hash copied out of a card host's `_meta`: refused, for
  draft_inquiry, draft_reply and decide_proposal(accept), in both eras, whatever they declare;
- a client registered as a card host (ATHAUS_CARD_HOSTS lists it here) that declares the extension, or sends ChatGPT's
  markers, gets the token, and the card's click works; the record and the answer say "in der Bestätigungskarte";
- the MCP Inspector CLI (2.x, ATHAUS_INSPECTOR_CLI naming its binary) with a copied token: refused the same way;
- Athaus's own page /app/bestaetigungen/C-… (login, CSRF) executes; the record and the tool's answer say
  "auf der Athaus-Bestätigungsseite"."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.extension import advertise
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import func, select

from contract.confirmations import CONFIRMATION_META_KEY, UI_EXTENSION, UI_EXTENSION_SETTINGS
from shared.db.models import OutboxMessage, PendingAction, User
from shared.db.session import Database
from shared.settings import Settings
from shared.auth.tokens import mint_access_token
from tests.confirmation_helpers import APPS_META, BROKER_SCOPES, OWNER, SEEKER, SEEKER_SCOPES, click, open_inquiry, open_proposal, published_listing
from tests.conftest import LiveServer, request_key, seeded_database

ERAS = ["legacy", "2026-07-28"]
CHATGPT_META = {"openai/locale": "de-DE", "openai/userAgent": "ChatGPT/1.0"}
HOST = "card-host"  # a client the operator lists as a card host (ATHAUS_CARD_HOSTS); "boundary" is any other client


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveServer, Database]]:
    with seeded_database(tmp_path_factory.mktemp("boundary"), "boundary") as db, LiveServer(db, card_hosts=[HOST]) as server:
        yield server, db


def bearer(db: Database, email: str, server: str, client: str = "boundary") -> str:
    scopes = SEEKER_SCOPES if server == "suche" else BROKER_SCOPES
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        return mint_access_token(session, user_id=user_id, client_id=client, resource=Settings().resource_url(server), scopes=sorted(scopes)).access_token


def call(
    live: LiveServer,
    token: str,
    server: str,
    tool: str,
    arguments: dict[str, Any],
    *,
    mode: str,
    apps: bool = False,
    meta: dict[str, Any] | None = None,
    elicit: Any = None,
) -> types.CallToolResult:
    """One tool call with the official client. `apps`: the client declares the MCP Apps extension (2026-07-28: as a
    client extension, which the client sends per request; 2025-11-25: in its capabilities at initialize, which the
    server's session id carries to the call). `elicit`: the client's elicitation callback (the official client then
    declares form and URL mode)."""
    extensions = [advertise(UI_EXTENSION, dict(UI_EXTENSION_SETTINGS))] if apps else None
    request_meta = dict(meta or {})

    async def run() -> types.CallToolResult:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{live.base_url}/{server}/mcp", http_client=http), mode=mode, extensions=extensions, elicitation_callback=elicit) as client:
                return await client.call_tool(tool, arguments, meta=request_meta or None)

    return anyio.run(run)


def outbox(db: Database) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(OutboxMessage)) or 0)


def recorded(db: Database, ref: str) -> tuple[str, str | None]:
    with db.read_only() as session:
        status, via = session.execute(select(PendingAction.status, PendingAction.via).where(PendingAction.ref == ref)).one()
        return status, via


def page_url(ref: str) -> str:
    return f"{Settings().public_url.rstrip('/')}/app/bestaetigungen/{ref}"


def drafts(db: Database) -> list[tuple[str, str, str, dict[str, Any]]]:
    """(server, login, tool, arguments) of every kind that goes out after a click."""
    proposal, _ = open_proposal(db)
    return [
        ("suche", SEEKER.email, "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Ist sie noch frei?"}),
        ("makler", OWNER.email, "draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Ja, sie ist noch frei."}),
        ("makler", OWNER.email, "decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt gut."}),
    ]


def assert_page_link_only(result: types.CallToolResult) -> str:
    """A draft's answer to a client that gets no card: no token in `_meta`, the page in text and structure; its id."""
    assert not result.is_error, result.content[0].text
    block = result.structured_content["confirmation"]
    ref = block["confirmation_id"]
    assert "token" not in (result.meta or {}).get(CONFIRMATION_META_KEY, {})
    assert block["confirm_url"] == page_url(ref) and block["confirmed_via"] is None
    assert page_url(ref) in result.content[0].text
    return str(ref)


@pytest.mark.parametrize("mode", ERAS)
def test_a_client_without_the_card_gets_no_token_and_cannot_click(live: tuple[LiveServer, Database], mode: str) -> None:
    server_, db = live
    for server, email, tool, arguments in drafts(db):
        token, host = bearer(db, email, server), bearer(db, email, server, HOST)
        # a plain client, and the same client saying it is a card host (the extension and ChatGPT's keys): the page only
        ref = assert_page_link_only(call(server_, token, server, tool, arguments, mode=mode))
        show = ("send_reply" if tool == "draft_reply" else ("send_inquiry" if tool == "draft_inquiry" else tool))
        shown_args = {"confirmation_id": ref} if tool != "decide_proposal" else arguments
        assert assert_page_link_only(call(server_, token, server, show, shown_args, mode=mode, apps=True, meta=CHATGPT_META)) == ref
        # a token copied out of the `_meta` a card host got (the model saw it, or the user pasted it)
        card = dict(call(server_, host, server, show, shown_args, mode=mode, apps=True).meta[CONFIRMATION_META_KEY])
        assert card["confirmation_id"] == ref and len(card["token"]) > 16
        before = outbox(db)
        for decision, claims in (("send", {}), ("discard", {"apps": True, "meta": CHATGPT_META})):
            refused = call(server_, token, server, "decide_confirmation", click(card, decision), mode=mode, **claims)  # type: ignore[arg-type]
            assert refused.is_error and refused.meta["athaus/code"] == "CONFIRMATION_INVALID", refused
            text = refused.content[0].text
            assert page_url(ref) in text and "/app/" in text and "Ausgeführt wurde nichts" in text
        # the card host that does not declare the extension in this session is refused as well
        undeclared = call(server_, host, server, "decide_confirmation", click(card), mode=mode)
        assert undeclared.is_error and undeclared.meta["athaus/code"] == "CONFIRMATION_INVALID"
        assert outbox(db) == before and recorded(db, ref) == ("pending", None)
        # the card's click, from a registered card host that declares MCP Apps, works: once, recorded and said as the card's
        clicked = call(server_, host, server, "decide_confirmation", click(card), mode=mode, apps=True)
        assert not clicked.is_error, clicked.content[0].text
        assert clicked.structured_content["confirmation"]["status"] == "sent"
        assert clicked.structured_content["confirmation"]["confirmed_via"] == "card"
        assert "nach dem Klick in der Bestätigungskarte" in clicked.structured_content["outcome"]
        assert recorded(db, ref) == ("sent", "card") and outbox(db) == before + 1


@pytest.mark.parametrize("mode", ERAS)
def test_chatgpt_markers_count_only_from_a_registered_card_host(live: tuple[LiveServer, Database], mode: str) -> None:
    server_, db = live
    stranger = bearer(db, SEEKER.email, "suche")
    assert_page_link_only(call(server_, stranger, "suche", "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": f"Kein ChatGPT {mode}"}, mode=mode, meta=CHATGPT_META))
    host = bearer(db, SEEKER.email, "suche", HOST)
    drafted = call(server_, host, "suche", "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": f"ChatGPT-Karte {mode}"}, mode=mode, meta=CHATGPT_META)
    card = dict(drafted.meta[CONFIRMATION_META_KEY])
    assert "token" in card
    refused = call(server_, stranger, "suche", "decide_confirmation", click(card), mode=mode, meta=CHATGPT_META)
    assert refused.is_error and refused.meta["athaus/code"] == "CONFIRMATION_INVALID"
    clicked = call(server_, host, "suche", "decide_confirmation", click(card), mode=mode, meta=CHATGPT_META)
    assert not clicked.is_error and recorded(db, card["confirmation_id"]) == ("sent", "card")


def test_the_athaus_page_confirms_and_the_record_says_so(live: tuple[LiveServer, Database]) -> None:
    server_, db = live
    token = bearer(db, SEEKER.email, "suche")
    drafted = call(server_, token, "suche", "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Über die Seite bestätigt"}, mode="2026-07-28")
    ref = drafted.structured_content["confirmation"]["confirmation_id"]
    path = f"/app/bestaetigungen/{ref}"
    with httpx2.Client(base_url=server_.base_url, follow_redirects=False, timeout=30) as browser:
        first = browser.get(path)
        assert first.status_code == 303 and first.headers["location"].startswith("/app/anmelden?weiter=")
        form = browser.get(first.headers["location"])
        csrf = re.search(r'name="csrf_token" value="([^"]*)"', form.text).group(1)  # type: ignore[union-attr]
        login = browser.post("/app/anmelden", data={"csrf_token": csrf, "email": SEEKER.email, "password": SEEKER.password, "weiter": path})
        assert login.status_code == 303 and login.headers["location"] == path
        page = browser.get(path)
        assert page.status_code == 200 and "Über die Seite bestätigt" in page.text and 'name="von" value="seite"' in page.text
        fields = dict(re.findall(r'name="(csrf_token|confirmation_id|payload_hash|von)" value="([^"]*)"', page.text))
        before = outbox(db)
        forged = browser.post("/app/bestaetigungen", data={**fields, "csrf_token": "falsch", "entscheidung": "send"})
        assert forged.status_code == 403 and outbox(db) == before
        sent = browser.post("/app/bestaetigungen", data={**fields, "entscheidung": "send"})
        assert sent.status_code == 303
        assert recorded(db, ref) == ("sent", "page") and outbox(db) == before + 1
        again = browser.get(path)
        assert "Senden</button>" not in again.text and "auf der Athaus-Bestätigungsseite" in again.text
        other = browser.get("/app/bestaetigungen/C-999999")
        assert other.status_code == 404
    shown = call(server_, token, "suche", "send_inquiry", {"confirmation_id": ref}, mode="legacy")
    assert shown.structured_content["confirmation"]["confirmed_via"] == "page"
    assert "nach dem Klick auf der Athaus-Bestätigungsseite" in shown.structured_content["outcome"]


@pytest.mark.skipif(not os.environ.get("ATHAUS_INSPECTOR_CLI"), reason="ATHAUS_INSPECTOR_CLI names the MCP Inspector's binary (npm i @modelcontextprotocol/inspector)")
def test_the_mcp_inspector_cli_is_refused_too(live: tuple[LiveServer, Database]) -> None:
    """The MCP Inspector in CLI mode (no MCP Apps), calling decide_confirmation with a token copied out of `_meta`."""
    server_, db = live
    for server, email, tool, arguments in drafts(db)[:2]:
        token = bearer(db, email, server)
        card = dict(call(server_, bearer(db, email, server, HOST), server, tool, arguments, mode="2026-07-28", apps=True).meta[CONFIRMATION_META_KEY])
        before = outbox(db)
        argv = [
            os.environ["ATHAUS_INSPECTOR_CLI"], "--cli", "--transport", "http", "--server-url", f"{server_.base_url}/{server}/mcp",
            "--header", f"Authorization: Bearer {token}", "--method", "tools/call", "--tool-name", "decide_confirmation",
            "--tool-args-json", json.dumps(click(card)),
        ]
        answer = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        result = json.loads(answer.stdout)
        assert result["isError"] is True and result["_meta"]["athaus/code"] == "CONFIRMATION_INVALID"
        assert page_url(card["confirmation_id"]) in result["content"][0]["text"]
        assert recorded(db, card["confirmation_id"]) == ("pending", None) and outbox(db) == before


def confirm_on_page(live: LiveServer, email: str, password: str, ref: str) -> None:
    """The person's own click on Athaus's confirmation page: login, then the page's form with its CSRF token."""
    path = f"/app/bestaetigungen/{ref}"
    with httpx2.Client(base_url=live.base_url, follow_redirects=False, timeout=30) as browser:
        form = browser.get(browser.get(path).headers["location"])
        csrf = re.search(r'name="csrf_token" value="([^"]*)"', form.text).group(1)  # type: ignore[union-attr]
        browser.post("/app/anmelden", data={"csrf_token": csrf, "email": email, "password": password, "weiter": path})
        fields = dict(re.findall(r'name="(csrf_token|confirmation_id|payload_hash|von)" value="([^"]*)"', browser.get(path).text))
        assert browser.post("/app/bestaetigungen", data={**fields, "entscheidung": "send"}).status_code == 303


def test_a_client_that_opens_pages_is_offered_the_athaus_page_and_nothing_goes_out_before_the_click(live: tuple[LiveServer, Database]) -> None:
    """URL-mode elicitation (2026-07-28): a send_ call without a click asks the client to offer the person Athaus's
    confirmation page. The answer changes only what the result says; the page still wants the login and the click."""
    server_, db = live
    offered: list[types.ElicitRequestURLParams] = []

    def answering(action: str) -> Any:
        async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
            assert isinstance(params, types.ElicitRequestURLParams), params
            offered.append(params)
            return types.ElicitResult(action=action)

        return elicit

    passwords = {SEEKER.email: SEEKER.password, OWNER.email: OWNER.password}
    for server, email, tool, arguments in drafts(db):
        token = bearer(db, email, server)
        ref = call(server_, token, server, tool, arguments, mode="2026-07-28").structured_content["confirmation"]["confirmation_id"]
        send = {"draft_inquiry": ("send_inquiry", {"confirmation_id": ref}), "draft_reply": ("send_reply", {"confirmation_id": ref})}.get(tool, (tool, arguments))
        before, offered[:] = outbox(db), []
        waiting = call(server_, token, server, *send, mode="2026-07-28", elicit=answering("accept"))
        assert [(p.mode, p.url) for p in offered] == [("url", page_url(ref))]
        assert "Hinaus geht erst dein Klick auf „Senden“ dort" in offered[0].message
        assert not waiting.is_error, waiting.content[0].text
        assert waiting.structured_content["confirmation"]["status"] == "pending"
        assert waiting.structured_content["outcome"].startswith(
            "Die Person hat zugestimmt, die Athaus-Bestätigungsseite zu öffnen; gesendet wird erst mit ihrem Klick dort. Vorbereitet, noch nicht gesendet"
        )
        assert outbox(db) == before and recorded(db, ref) == ("pending", None)
        declined = call(server_, token, server, *send, mode="2026-07-28", elicit=answering("decline"))
        assert declined.structured_content["outcome"].startswith("Die Person hat abgelehnt, die Athaus-Bestätigungsseite zu öffnen; nichts ist hinausgegangen.")
        # 2025-11-25 declares elicitation only at initialize (the session id carries the MCP Apps extension alone): no offer, the page in the text
        legacy = call(server_, token, server, *send, mode="legacy", elicit=answering("accept"))
        assert len(offered) == 2 and page_url(ref) in legacy.content[0].text
        assert outbox(db) == before and recorded(db, ref) == ("pending", None)
        # the person's click on the page sends it; the same call afterwards offers nothing and says how it went out
        confirm_on_page(server_, email, passwords[email], ref)
        assert recorded(db, ref) == ("sent", "page") and outbox(db) == before + 1
        if tool != "decide_proposal":  # a decided proposal is no longer open: deciding it again is CONFLICT
            after = call(server_, token, server, *send, mode="2026-07-28", elicit=answering("accept"))
            assert len(offered) == 2 and outbox(db) == before + 1
            assert "nach dem Klick auf der Athaus-Bestätigungsseite" in after.structured_content["outcome"]
