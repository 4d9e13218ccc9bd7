"""One real call per tool for the docs: made at build time against a fresh demo catalog, with a fixed clock.

`run_examples` seeds the demo data (the same 2,400 listings `scripts/serve` starts with) into a temporary SQLite
file, calls every tool of both servers through the runner the HTTP servers use (argument validation, right
check, envelope, German text, output schema), as a documented demo login or without login, and returns what
came back. Settings are the defaults whatever the environment says, the clock and the cursor key are fixed:
the same contract and demo data give the same pages on every build.

Every declared tool needs an entry in EXAMPLES (tests/test_docs.py fails naming the tool that has none).
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from sqlalchemy import select

from athaus.servers import DEFINITIONS
from contract.confirmations import CONFIRMATION_META_KEY
from shared.runtime.hosts import app_host_meta
from contract.rights import ServerName
from shared.auth.access import account_by_email, allowed_scopes, build_principal
from shared.auth.principal import Principal
from shared.db.migrate import upgrade
from shared.db.models import Inquiry, Listing, Match, Proposal, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS, DEMO_NOW, seed_demo
from shared.demo.openimmo import object_xml
from shared.demo.openimmo import transfer as openimmo_transfer
from shared.paging.cursor import CursorCodec
from shared.runtime.adapter import ToolRunner
from shared.runtime.context import ToolContext
from shared.settings import Settings

DEMO_LISTINGS: int = Settings.model_fields["demo_listings"].default  # the embedded default's catalog: a reader can repeat a call
EXAMPLES_NOW = DEMO_NOW + dt.timedelta(days=1)  # the clock every example call sees
CURSOR_KEY = b"athaus-docs-examples"
BROKER_LOGIN = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
SEEKER_LOGIN = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")


@dataclass(frozen=True)
class Picks:
    """Ids the examples refer to, looked up in the seeded demo data (so they follow the demo generator)."""

    published: str  # a published listing of the catalog in Leipzig
    buy: str  # a published buy listing with a price
    seeker_inquiry: str  # an inquiry of the demo seeker
    office_listing: str  # a published listing of the demo broker's office
    office_draft: str  # a draft of that office (or its published listing when it has none)
    office_inquiry: str  # an inquiry to that office
    office_proposal: str  # an open proposal of that office
    seeker_order: str  # an active saved search of the demo seeker
    seeker_match: str  # a Treffer of the demo seeker
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)  # tool → the card `_meta` of its example's result


Arguments = Callable[[Picks], dict[str, Any]]


@dataclass(frozen=True)
class Example:
    arguments: Arguments
    login: str | None = None  # the demo login the call is made as (all rights of that server); None: without login


EXAMPLES: dict[ServerName, dict[str, Example]] = {
    ServerName.search: {
        "search_listings": Example(lambda p: {"query": "Balkon", "city": "Leipzig", "limit": 2}),
        "count_listings": Example(lambda p: {"city": "Leipzig", "facets": ["marketing_type", "property_type"]}),
        "get_listing": Example(lambda p: {"listing_id": p.published}),
        "search": Example(lambda p: {"query": "3 Zimmer Balkon Leipzig"}),
        "fetch": Example(lambda p: {"id": p.published}),
        "calculate_purchase_costs": Example(lambda p: {"listing_id": p.buy}),
        "list_search_orders": Example(lambda p: {}, SEEKER_LOGIN.email),
        "list_matches": Example(lambda p: {"limit": 2}, SEEKER_LOGIN.email),
        "list_inquiries": Example(lambda p: {"limit": 2}, SEEKER_LOGIN.email),
        "get_inquiry": Example(lambda p: {"inquiry_id": p.seeker_inquiry}, SEEKER_LOGIN.email),
        "draft_inquiry": Example(
            lambda p: {"listing_id": p.published, "message": "Guten Tag, ist die Wohnung noch frei? Ich würde sie gern besichtigen.", "share": ["name", "email"], "request_id": "beispiel-anfrage-0001"},
            SEEKER_LOGIN.email,
        ),
        "send_inquiry": Example(lambda p: {"confirmation_id": p.cards["draft_inquiry"]["confirmation_id"]}, SEEKER_LOGIN.email),
        "decide_confirmation": Example(lambda p: _click(p.cards["draft_inquiry"]), SEEKER_LOGIN.email),
        "get_confirmation": Example(lambda p: {"confirmation_id": p.cards["draft_inquiry"]["confirmation_id"]}, SEEKER_LOGIN.email),
        "save_search_order": Example(
            lambda p: {
                "name": "3 Zimmer mit Balkon in Leipzig",
                "criteria": {"marketing_type": "rent", "city": "Leipzig", "min_rooms": 3, "max_price": 1100, "features": ["balcony"]},
                "frequency": "täglich",
                "approachable": True,
                "request_id": "beispiel-suche-0001",
            },
            SEEKER_LOGIN.email,
        ),
        "update_search_order": Example(lambda p: {"search_order_id": p.seeker_order, "status": "paused"}, SEEKER_LOGIN.email),
        "update_match": Example(lambda p: {"match_id": p.seeker_match, "state": "interesting"}, SEEKER_LOGIN.email),
    },
    ServerName.broker: {
        "show_situation_report": Example(lambda p: {}, BROKER_LOGIN.email),
        "search_listings": Example(lambda p: {"query": "Balkon", "limit": 2}, BROKER_LOGIN.email),
        "get_listing": Example(lambda p: {"listing_id": p.office_listing}, BROKER_LOGIN.email),
        "search": Example(lambda p: {"query": "Besichtigung"}, BROKER_LOGIN.email),
        "fetch": Example(lambda p: {"id": p.office_listing}, BROKER_LOGIN.email),
        "check_listing": Example(lambda p: {"listing_id": p.office_draft}, BROKER_LOGIN.email),
        "search_inquiries": Example(lambda p: {"limit": 2}, BROKER_LOGIN.email),
        "get_inquiry": Example(lambda p: {"inquiry_id": p.office_inquiry}, BROKER_LOGIN.email),
        "estimate_value": Example(
            lambda p: {"city": "Leipzig", "property_type": "apartment", "marketing_type": "buy", "living_area": 70}, BROKER_LOGIN.email
        ),
        "list_valuations": Example(lambda p: {"limit": 2}, BROKER_LOGIN.email),
        "list_proposals": Example(lambda p: {"limit": 2}, BROKER_LOGIN.email),
        "draft_reply": Example(
            lambda p: {"inquiry_id": p.office_inquiry, "text": "Guten Tag, die Wohnung ist noch frei. Passt Ihnen Freitag um 17 Uhr zur Besichtigung?", "request_id": "beispiel-antwort-0001"},
            BROKER_LOGIN.email,
        ),
        "send_reply": Example(lambda p: {"confirmation_id": p.cards["draft_reply"]["confirmation_id"]}, BROKER_LOGIN.email),
        "decide_proposal": Example(lambda p: {"proposal_id": p.office_proposal, "decision": "accept", "message": "Das Objekt passt zu Ihrer Suche."}, BROKER_LOGIN.email),
        "decide_confirmation": Example(lambda p: _click(p.cards["draft_reply"]), BROKER_LOGIN.email),
        "get_confirmation": Example(lambda p: {"confirmation_id": p.cards["draft_reply"]["confirmation_id"]}, BROKER_LOGIN.email),
        "save_listing": Example(
            lambda p: {
                "fields": {
                    "marketing_type": "buy",
                    "property_type": "apartment",
                    "title": "Helle 3-Zimmer-Wohnung mit Südbalkon",
                    "postal_code": "04109",
                    "city": "Leipzig",
                    "price": 289000,
                    "living_area": 78.5,
                    "rooms": 3,
                    "features": ["balcony", "cellar"],
                },
                "request_id": "beispiel-2026-0001",
            },
            BROKER_LOGIN.email,
        ),
        "save_valuation": Example(
            lambda p: {
                "owner_name": "Familie Berger",
                "postal_code": "04109",
                "city": "Leipzig",
                "property_type": "house",
                "marketing_type": "buy",
                "living_area": 140,
                "value_low": 390000,
                "value_high": 430000,
                "method": "Vergleichswert aus estimate_value",
                "request_id": "9f1c2e7a-bewertung-berger",
            },
            BROKER_LOGIN.email,
        ),
        "update_listing_status": Example(
            lambda p: {"listing_id": p.office_listing, "status": "reserved", "reason": "Reservierung nach Besichtigung"}, BROKER_LOGIN.email
        ),
        # a partial transfer of two flats; the second gives its living area as "ca. 85" (not stored, declared)
        "import_listings": Example(
            lambda p: {"xml": openimmo_transfer([object_xml("W-1001", 1), object_xml("W-1002", 49)], scope="TEIL")},
            BROKER_LOGIN.email,
        ),
    },
}


TOKEN_SHOWN = "<Token aus _meta der Karte>"  # the docs never show a real token (it is random per call)


def _click(card: dict[str, Any]) -> dict[str, Any]:
    return {"confirmation_id": card["confirmation_id"], "token": card["token"], "decision": "send", "payload_hash": card["payload_hash"]}


@dataclass(frozen=True)
class ExampleCall:
    """One call as it was made and answered."""

    server: ServerName
    tool: str
    login: str | None
    arguments: dict[str, Any]
    text: str  # the German text (content)
    structured: dict[str, Any]  # structuredContent


class ExampleFailed(RuntimeError):
    """An example call did not answer with a result; the docs are not built from a failing call."""


ExampleCalls = dict[tuple[ServerName, str], ExampleCall]


def dump_calls(calls: ExampleCalls) -> str:
    """The calls as JSON (load_calls reads them back), to hand them to another process."""
    return json.dumps([[c.server.value, c.tool, c.login, c.arguments, c.text, c.structured] for c in calls.values()], ensure_ascii=False)


def load_calls(saved: str) -> ExampleCalls:
    calls = [ExampleCall(ServerName(server), *rest) for server, *rest in json.loads(saved)]
    return {(call.server, call.tool): call for call in calls}


def missing_examples() -> list[str]:
    """Declared tools without an entry in EXAMPLES, and entries for tools nobody declares ("server/tool")."""
    declared = {(name, spec.name) for name, definition in DEFINITIONS.items() for spec in definition.spec.tools}
    listed = {(name, tool) for name, tools in EXAMPLES.items() for tool in tools}
    return sorted(f"{name.value}/{tool}" for name, tool in declared ^ listed)


def _fixed_settings(database_url: str) -> Settings:
    """The defaults of every setting, whatever ATHAUS_* variables say (init arguments outrank the environment)."""
    defaults = {name: field.get_default(call_default_factory=True) for name, field in Settings.model_fields.items()}
    return Settings(**{**defaults, "database_url": database_url})


def _picks(db: Database) -> Picks:
    office_id = BROKER_LOGIN.office_id
    with db.read_only() as session:
        published = select(Listing.ref).where(Listing.status == "published").order_by(Listing.ref).limit(1)
        seeker = session.scalar(select(User.id).where(User.email == SEEKER_LOGIN.email))
        own = select(Listing.ref).where(Listing.office_id == office_id).order_by(Listing.ref).limit(1)
        office_listing = session.scalar(own.where(Listing.status == "published"))
        return Picks(
            published=session.scalar(published.where(Listing.city == "Leipzig")),
            buy=session.scalar(published.where(Listing.marketing_type == "buy", Listing.price.is_not(None))),
            seeker_inquiry=session.scalar(select(Inquiry.ref).where(Inquiry.seeker_id == seeker).order_by(Inquiry.ref).limit(1)),
            office_listing=office_listing,
            office_draft=session.scalar(own.where(Listing.status == "draft")) or office_listing,
            office_inquiry=session.scalar(
                select(Inquiry.ref).where(Inquiry.office_id == office_id, Inquiry.status == "open").order_by(Inquiry.ref).limit(1)
            ),
            office_proposal=session.scalar(
                select(Proposal.ref)
                .join(SearchOrder, SearchOrder.id == Proposal.search_order_id)
                .join(Listing, Listing.id == Proposal.listing_id)
                .where(Proposal.office_id == office_id, Proposal.status == "open", Listing.status == "published", SearchOrder.approachable.is_(True))
                .order_by(Proposal.ref)
                .limit(1)
            ),
            seeker_order=session.scalar(
                select(SearchOrder.ref).where(SearchOrder.user_id == seeker, SearchOrder.status == "active").order_by(SearchOrder.ref).limit(1)
            ),
            seeker_match=session.scalar(
                select(Match.ref).join(SearchOrder, Match.search_order_id == SearchOrder.id).where(SearchOrder.user_id == seeker).order_by(Match.ref).limit(1)
            ),
        )


def _principal(db: Database, settings: Settings, server: ServerName, login: str | None) -> Principal | None:
    if login is None:
        return None
    with db.read_only() as session:
        account = account_by_email(session, login)
    if account is None:
        raise ExampleFailed(f"the demo data has no login {login}")
    resource = settings.resource_url(server.value)
    # the examples show what a chat that shows the card gets (app_host_meta), so the caller is registered as such a host
    return build_principal(account, allowed_scopes(account, server), server, resource, client_id="athaus-docs", card_host=True)


@contextmanager
def _quiet(logger: str) -> Iterator[None]:
    """The runner logs one line per call; a docs build does not need 17 of them."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.WARNING)
    try:
        yield
    finally:
        log.setLevel(level)


def call_examples(db: Database, settings: Settings) -> ExampleCalls:
    """Every example, called against `db` (seeded demo data) with the fixed clock; raises ExampleFailed on an error."""
    context = ToolContext(db=db, settings=settings, cursors=CursorCodec(CURSOR_KEY, dt.timedelta(hours=1)), now=lambda: EXAMPLES_NOW)
    picks = _picks(db)
    calls: ExampleCalls = {}
    with _quiet("athaus.calls"):
        for server, examples in EXAMPLES.items():
            runner = ToolRunner(DEFINITIONS[server], context)
            for tool, example in examples.items():
                arguments = example.arguments(picks)
                params = types.CallToolRequestParams(name=tool, arguments=arguments)
                # as a host that renders MCP Apps: the drafts show the card, its click is the card's
                result = anyio.run(runner.call, params, app_host_meta(), _principal(db, settings, server, example.login))
                if not isinstance(result, types.CallToolResult) or result.is_error or result.structured_content is None:
                    raise ExampleFailed(f"{server.value}/{tool} {arguments}: no result ({result!r:.300})")
                text = "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))
                card = (result.meta or {}).get(CONFIRMATION_META_KEY)
                if card:
                    picks.cards[tool] = card
                shown = {**arguments, "token": TOKEN_SHOWN} if "token" in arguments else arguments
                calls[server, tool] = ExampleCall(server, tool, example.login, shown, text, result.structured_content)
    return calls


def run_examples() -> ExampleCalls:
    """Seed a temporary demo catalog, call every example, throw the catalog away."""
    with tempfile.TemporaryDirectory(prefix="athaus-docs-") as tmp:
        settings = _fixed_settings(f"sqlite:///{Path(tmp) / 'demo.sqlite3'}")
        db = Database.from_url(settings.database_url)
        try:
            with _quiet("alembic"):
                upgrade(db.engine)
            seed_demo(db.engine, listings=DEMO_LISTINGS)
            return call_examples(db, settings)
        finally:
            db.engine.dispose()
