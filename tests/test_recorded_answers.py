"""The answers of every tool of both servers, recorded: the same calls over real HTTP with the official client, in
both protocol eras, on a fresh demo catalog with a fixed clock and fixed keys, must give the committed bytes
(structuredContent, text content and `_meta`, whole). A rework that only makes the servers faster must leave them
as they are (issue 35); the same recording holds on SQLite and on PostgreSQL.

Recorded at 8daa1bc (before the performance rework). To record again on purpose:

    ATHAUS_UPDATE_ANSWERS=1 scripts/test tests/test_recorded_answers.py -n 0

and commit tests/fixtures/answers/ with the change that explains the difference.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from sqlalchemy import select

import athaus.app
from contract.broker import SERVER as BROKER_SERVER
from contract.search import SERVER as SEARCH_SERVER
from shared.auth.tokens import mint_access_token
from shared.db.models import User
from shared.db.session import Database
from shared.settings import Settings
from tests.confirmation_helpers import BROKER_SCOPES, OWNER, SEEKER, SEEKER_SCOPES
from tests.conftest import FIXED_NOW, LiveServer, seeded_database

RECORDINGS = Path(__file__).parent / "fixtures" / "answers"
UPDATE = os.environ.get("ATHAUS_UPDATE_ANSWERS") == "1"
OPENIMMO = Path(__file__).parent / "fixtures" / "openimmo"
# Pinned, not taken from the environment: links and resource URLs in the answers are built on it (the server itself
# listens on a free port; the address the answers name is the configured public one).
PUBLIC_URL = "http://127.0.0.1:8000"
SECRET_KEY = "recorded-answers-secret"  # signs the cursors; the demo's own secrets would be drawn at random
ERAS = {"2025-11-25": "legacy", "2026-07-28": "2026-07-28"}  # era → the official client's mode

Result = dict[str, Any]
Arguments = dict[str, Any] | Callable[[], dict[str, Any]]


def answer(result: Any) -> Result:
    """The whole result as the client received it, after a JSON round trip (what a host would keep), normalised only
    where NORMALISED says why."""
    whole = json.loads(json.dumps(result.model_dump(by_alias=True, mode="json", exclude_none=True)))
    server_info = (whole.get("_meta") or {}).get(SERVER_INFO)
    if server_info is not None:
        server_info["version"] = BUILD
    return whole


# Everything else is compared as answered. The one normalisation:
# - `_meta["io.modelcontextprotocol/serverInfo"].version` is the build's version, `0.2.0+g<commit>` (athaus/version):
#   it names the commit that answers, so it differs for every commit by design; the recording must outlive its commit.
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
BUILD = "<the build's version>"


def refusal(error: MCPError) -> Result:
    """A protocol-level refusal (JSON-RPC error), recorded like an answer."""
    return {"jsonrpc_error": {"code": error.error.code, "message": error.error.message}}


class Recorder:
    """Calls one server as one login and keeps (tool, arguments, answer) in call order."""

    def __init__(self, client: Client, server: str, login: str, calls: list[Result]) -> None:
        self.client, self.server, self.login, self.calls = client, server, login, calls

    async def __call__(self, tool: str, arguments: dict[str, Any]) -> Result:
        try:
            result = answer(await self.client.call_tool(tool, arguments))
        except MCPError as error:
            result = refusal(error)
        self.calls.append({"server": self.server, "login": self.login, "tool": tool, "arguments": arguments, "answer": result})
        return result


def structured(result: Result) -> dict[str, Any]:
    assert not result.get("isError") and "structuredContent" in result, result
    return dict(result["structuredContent"])


def next_cursor(page: dict[str, Any]) -> str | None:
    return page["completeness"].get("next_cursor")


def token_for(db: Database, email: str, server: str, scopes: frozenset[str]) -> str:
    with db.unit_of_work() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
        resource = Settings(public_url=PUBLIC_URL).resource_url(server)
        return mint_access_token(session, user_id=user_id, client_id="answers", resource=resource, scopes=sorted(scopes)).access_token


async def session(base_url: str, server: str, mode: str, token: str | None, login: str, calls: list[Result], script: Any) -> None:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{base_url}/{server}/mcp", http_client=http), mode=mode) as client,
    ):
        await script(Recorder(client, server, login, calls))


# --- the calls -----------------------------------------------------------------------------------------------------
# Fixed arguments, chained where one call needs what an earlier one answered (an id, a cursor, a version); the recorded
# arguments are compared too, so a chain that picks something else shows up as such.


async def public_catalog(call: Recorder) -> None:
    """/suche/mcp without login: the catalog reads."""
    first = structured(await call("search_listings", {"marketing_type": "rent", "min_rooms": 2, "max_warm_rent": 2000, "sort": "price_asc", "limit": 3}))
    assert next_cursor(first), "the first page must have a next page (a cursor to follow)"
    await call("search_listings", {"marketing_type": "rent", "min_rooms": 2, "max_warm_rent": 2000, "sort": "price_asc", "limit": 3, "cursor": next_cursor(first)})
    await call("search_listings", {"query": "Balkon OR Terrasse", "property_types": ["Wohnung"], "include": {"description": True, "photos": True}, "limit": 2})
    buy = structured(await call("search_listings", {"marketing_type": "buy", "min_living_area": 60, "sort": "newest", "limit": 2}))
    await call("search", {"query": "Wohnung mit Balkon zur Miete, 3 Zimmer, bis 1500 Euro warm"})
    await call("count_listings", {"marketing_type": "buy", "facets": ["property_type", "price_band"]})
    await call("count_listings", {"query": "Garten", "min_rooms": 3})
    listing_id = buy["items"][0]["listing_id"]
    await call("get_listing", {"listing_id": listing_id})
    await call("fetch", {"id": listing_id})
    await call("calculate_purchase_costs", {"listing_id": listing_id, "contract_date": "2026-11-02"})
    await call("calculate_purchase_costs", {"price": 350000, "state": "Bayern", "commission_percent": 3.57, "contract_date": "2026-11-02"})
    # refusals: an unknown listing, a forged cursor, an unknown place
    await call("get_listing", {"listing_id": "A-9999999"})
    await call("search_listings", {"marketing_type": "rent", "cursor": "eyJiIjoieCJ9.AAAAAAAAAAAAAAAA"})
    await call("search_listings", {"city": "Atlantis"})


async def seeker_account(call: Recorder) -> None:
    """/suche/mcp as a demo seeker: the account tools, an inquiry drafted (not clicked)."""
    await call("list_search_orders", {})
    await call("list_matches", {"limit": 2})
    matches = structured(await call("list_matches", {"since": "2026-01-01T00:00:00Z", "limit": 1}))
    if next_cursor(matches):
        await call("list_matches", {"since": "2026-01-01T00:00:00Z", "limit": 1, "cursor": next_cursor(matches)})
    inquiries = structured(await call("list_inquiries", {"limit": 3}))
    if inquiries["items"]:
        await call("get_inquiry", {"inquiry_id": inquiries["items"][0]["inquiry_id"]})
    saved = structured(await call("save_search_order", {
        "request_id": "answers-save-search-order-1", "name": "Recorded: Altbau mit Balkon",
        "criteria": {"marketing_type": "rent", "min_rooms": 2, "features": ["balcony"]}, "frequency": "weekly",
    }))
    await call("update_search_order", {"search_order_id": saved["search_order_id"], "status": "paused"})
    if matches["items"]:
        await call("update_match", {"match_id": matches["items"][0]["match_id"], "state": "interesting"})
    listing = structured(await call("search_listings", {"marketing_type": "rent", "limit": 1}))["items"][0]["listing_id"]
    draft = await call("draft_inquiry", {
        "request_id": "answers-draft-inquiry-1", "listing_id": listing, "message": "Ist die Wohnung noch frei? Wir würden sie gern ansehen.",
        "about": "Zwei Personen, Einzug ab Februar",
    })
    confirmation_id = structured(draft)["confirmation"]["confirmation_id"]
    await call("get_confirmation", {"confirmation_id": confirmation_id})
    await call("send_inquiry", {"confirmation_id": confirmation_id})
    # refusal: a click with a forged token executes nothing
    await call("decide_confirmation", {"confirmation_id": confirmation_id, "token": "forged-token-0123456789", "decision": "send", "payload_hash": "0" * 64})


async def broker_office(call: Recorder) -> None:
    """/makler/mcp as the owner of office 1: reads, writes, an import, a reply drafted (not clicked)."""
    await call("show_situation_report", {})
    await call("show_situation_report", {"items_per_section": 2, "energy_warning_days": 90})
    stock = structured(await call("search_listings", {"statuses": ["published", "reserved"], "sort": "price_desc", "limit": 3}))
    if next_cursor(stock):
        await call("search_listings", {"statuses": ["published", "reserved"], "sort": "price_desc", "limit": 3, "cursor": next_cursor(stock)})
    await call("search_listings", {"statuses": ["draft"], "limit": 2})
    listing_id = stock["items"][0]["listing_id"]
    listing = structured(await call("get_listing", {"listing_id": listing_id}))
    await call("check_listing", {"listing_id": listing_id})
    await call("fetch", {"id": listing_id})
    await call("search", {"query": "Balkon"})
    inquiries = structured(await call("search_inquiries", {"status": ["open"], "sort": "oldest", "limit": 2}))
    await call("search_inquiries", {"query": "Besichtigung", "limit": 2})
    inquiry_id = inquiries["items"][0]["inquiry_id"]
    await call("get_inquiry", {"inquiry_id": inquiry_id})
    await call("estimate_value", {"listing_id": listing_id})
    await call("estimate_value", {"city": "Köln", "property_type": "apartment", "marketing_type": "buy", "living_area": 80, "rooms": 3})
    await call("list_valuations", {"limit": 2})
    await call("save_valuation", {
        "request_id": "answers-save-valuation-1", "owner_name": "Erika Mustermann", "address": "Musterweg 1", "postal_code": "50667",
        "city": "Köln", "property_type": "apartment", "marketing_type": "buy", "living_area": 80, "value_low": 310000, "value_high": 350000,
    })
    proposals = structured(await call("list_proposals", {"status": ["open"], "limit": 2}))
    if proposals["items"]:
        await call("decide_proposal", {"proposal_id": proposals["items"][0]["proposal_id"], "decision": "reject"})
    await call("save_listing", {
        "request_id": "answers-save-listing-1", "listing_id": listing_id, "version": listing["version"],
        "fields": {"other_text": "Besichtigungen nach Vereinbarung."},
    })
    await call("update_listing_status", {"request_id": "answers-status-1", "listing_id": listing_id, "status": "reserved", "reason": "Zusage erhalten"})
    # refusal: a stale version
    await call("update_listing_status", {"request_id": "answers-status-2", "listing_id": listing_id, "status": "published", "version": 1})
    await call("import_listings", {"xml": (OPENIMMO / "voll_drei.xml").read_text(encoding="utf-8"), "preview": True})
    await call("import_listings", {"xml": (OPENIMMO / "odd_names.xml").read_text(encoding="utf-8"), "publish": False})
    draft = await call("draft_reply", {"request_id": "answers-draft-reply-1", "inquiry_id": inquiry_id, "text": "Gern, passt Ihnen Freitag um 17 Uhr?"})
    confirmation_id = structured(draft)["confirmation"]["confirmation_id"]
    await call("get_confirmation", {"confirmation_id": confirmation_id})
    await call("send_reply", {"confirmation_id": confirmation_id})
    await call("decide_confirmation", {"confirmation_id": confirmation_id, "token": "forged-token-0123456789", "decision": "send", "payload_hash": "0" * 64})


# --- recording and comparing ---------------------------------------------------------------------------------------


def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's tools read the time from their ToolContext (athaus/app.py: tool_context); here it stands still."""
    real = athaus.app.tool_context

    def frozen(settings: Settings, db: Database) -> Any:
        return dataclasses.replace(real(settings, db), now=lambda: FIXED_NOW)

    monkeypatch.setattr(athaus.app, "tool_context", frozen)


def record(tmp: Path, era: str) -> list[Result]:
    calls: list[Result] = []
    with seeded_database(tmp, f"answers{era.replace('-', '')}") as db, LiveServer(db, secret_key=SECRET_KEY, public_url=PUBLIC_URL) as server:
        seeker = token_for(db, SEEKER.email, "suche", SEEKER_SCOPES)
        broker = token_for(db, OWNER.email, "makler", BROKER_SCOPES)
        mode = ERAS[era]
        for path, token, login, script in (
            ("suche", None, "anonymous", public_catalog),
            ("suche", seeker, "seeker", seeker_account),
            ("makler", broker, "broker", broker_office),
        ):
            anyio.run(session, server.base_url, path, mode, token, login, calls, script)
    return calls


def pretty(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=True) + "\n"


def first_difference(recorded: list[Result], answered: list[Result]) -> str:
    for index, (old, new) in enumerate(zip(recorded, answered, strict=False)):
        if old != new:
            diff = difflib.unified_diff(pretty(old).splitlines(), pretty(new).splitlines(), "recorded", "answered now", lineterm="", n=4)
            return f"call {index} ({old['server']} {old['tool']} as {old['login']}) differs:\n" + "\n".join(list(diff)[:120])
    return f"the number of calls differs: {len(recorded)} recorded, {len(answered)} made now"


@pytest.mark.parametrize("era", list(ERAS))
def test_the_answers_are_the_recorded_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, era: str) -> None:
    fixed_clock(monkeypatch)
    answered = record(tmp_path, era)
    file = RECORDINGS / f"{era}.json"
    if UPDATE:
        RECORDINGS.mkdir(parents=True, exist_ok=True)
        file.write_text(pretty(answered), encoding="utf-8")
    recorded = json.loads(file.read_text(encoding="utf-8"))
    if recorded != answered:
        pytest.fail(first_difference(recorded, answered), pytrace=False)


def test_every_tool_is_in_the_recording() -> None:
    """The recording covers every tool of both servers, a refusal and a followed cursor (after the recording: an
    update run writes the files first)."""
    for era in ERAS:
        calls = json.loads((RECORDINGS / f"{era}.json").read_text(encoding="utf-8"))
        for server, contract in (("suche", SEARCH_SERVER), ("makler", BROKER_SERVER)):
            called = {call["tool"] for call in calls if call["server"] == server}
            assert called == {spec.name for spec in contract.tools}, (era, server, {spec.name for spec in contract.tools} ^ called)
        kinds = {("error" if call["answer"].get("isError") or "jsonrpc_error" in call["answer"] else "ok") for call in calls}
        assert kinds == {"ok", "error"}
        assert any(call["arguments"].get("cursor") and not call["answer"].get("isError") for call in calls), "a cursor followed"
