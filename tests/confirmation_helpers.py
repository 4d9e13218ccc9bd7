"""Logins and picks the confirmation tests share: demo accounts as principals, a published listing of office 1, an open
inquiry of office 1, an open proposal of office 1."""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.client.extension import advertise
from sqlalchemy import select

from contract.confirmations import CONFIRMATION_META_KEY
from shared.auth.principal import Principal
from shared.db.models import Inquiry, Listing, OfficeMember, Proposal, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import request_key

OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner" and a.office_id == 1)
STAFF = next(a for a in DEMO_ACCOUNTS if a.office_role == "staff")
OTHER_OWNER = next(a for a in DEMO_ACCOUNTS if a.office_id == 2)
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")
OTHER_SEEKER = [a for a in DEMO_ACCOUNTS if a.kind == "seeker"][1]

# The request `_meta` of a host that renders MCP Apps (the extension declared in the client capabilities, per request).
APPS_META = {"io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}}

# The same declared by the official client (2026-07-28 sends it with every request): Client(extensions=APPS_EXTENSIONS).
APPS_EXTENSIONS = [advertise("io.modelcontextprotocol/ui", {"mimeTypes": ["text/html;profile=mcp-app"]})]

# The client id the live tests mint their tokens for; a test that plays a chat showing the card lists it as a card host
# (LiveServer(db, card_hosts=[CARD_HOST_CLIENT]), ATHAUS_CARD_HOSTS), since declaring the extension alone gets no token.
CARD_HOST_CLIENT = "test"

BROKER_SCOPES = frozenset({"makler:lesen", "makler:schreiben", "makler:senden"})
SEEKER_SCOPES = frozenset({"suche:konto", "suche:konto.schreiben", "suche:anfragen"})


def principal_of(db: Database, email: str, scopes: frozenset[str] | None = None, *, card_host: bool = True) -> Principal:
    """The demo login `email` as a caller; connected through a client registered as a card host unless `card_host` is
    False (shared/auth/card_hosts.py: only then does a declared MCP Apps host get the card's token)."""
    with db.read_only() as session:
        user = session.scalar(select(User).where(User.email == email))
        assert user is not None
        membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user.id))
        return Principal(
            user_id=user.id,
            kind=user.kind,
            office_id=membership.office_id if membership else None,
            office_role=membership.role if membership else None,
            scopes=scopes if scopes is not None else (BROKER_SCOPES if membership else SEEKER_SCOPES),
            resource="test",
            card_host=card_host,
        )


def published_listing(db: Database, office_id: int = 1) -> str:
    with db.read_only() as session:
        ref = session.scalar(select(Listing.ref).where(Listing.office_id == office_id, Listing.status == "published").order_by(Listing.id).limit(1))
    assert ref is not None
    return ref


def open_inquiry(db: Database, office_id: int = 1) -> str:
    with db.read_only() as session:
        ref = session.scalar(select(Inquiry.ref).where(Inquiry.office_id == office_id, Inquiry.status == "open").order_by(Inquiry.id).limit(1))
    assert ref is not None
    return ref


def open_proposal(db: Database, office_id: int = 1) -> tuple[str, int]:
    """An open proposal of the office on a published listing, and the id of its seeker."""
    with db.read_only() as session:
        row = session.execute(
            select(Proposal.ref, SearchOrder.user_id)
            .join(SearchOrder, SearchOrder.id == Proposal.search_order_id)
            .join(Listing, Listing.id == Proposal.listing_id)
            .where(Proposal.office_id == office_id, Proposal.status == "open", Listing.status == "published", SearchOrder.approachable.is_(True))
            .order_by(Proposal.id)
            .limit(1)
        ).first()
    assert row is not None
    return row[0], row[1]


def card_of(result: Any) -> dict[str, Any]:
    """The card's `_meta` of a tool result: confirmation_id, token, payload_hash."""
    assert isinstance(result, types.CallToolResult) and not result.is_error, result
    return dict(result.meta[CONFIRMATION_META_KEY])


def click(card: dict[str, Any], decision: str = "send", **changes: Any) -> dict[str, Any]:
    return {"confirmation_id": card["confirmation_id"], "token": card["token"], "decision": decision, "payload_hash": card["payload_hash"], **changes}


def outbound_calls(db: Database, now: Any) -> list[tuple[str, str, dict[str, Any], types.CallToolResult]]:
    """Every draft_/send_/decide_ tool of both servers called once in a real flow on `db` (which it changes):
    (server, tool, arguments, result). The click tool is called with the token from the card's `_meta`."""
    from broker_server.server import DEFINITION as BROKER
    from search_server.server import DEFINITION as SEARCH
    from tests.conftest import Caller, make_context

    context = make_context(db, now)
    seeker = Caller(SEARCH, context, principal_of(db, SEEKER.email), APPS_META)
    owner = Caller(BROKER, context, principal_of(db, OWNER.email), APPS_META)
    calls: list[tuple[str, str, dict[str, Any], types.CallToolResult]] = []

    def call(caller: Caller, server: str, tool: str, arguments: dict[str, Any]) -> types.CallToolResult:
        result = caller.raw(tool, arguments)
        assert isinstance(result, types.CallToolResult) and not result.is_error, (tool, result)
        calls.append((server, tool, arguments, result))
        return result

    card = card_of(call(seeker, "suche", "draft_inquiry", {"request_id": request_key(), "listing_id": published_listing(db), "message": "Ist die Wohnung noch frei?", "about": "Zwei Personen, Einzug ab März"}))
    call(seeker, "suche", "send_inquiry", {"confirmation_id": card["confirmation_id"]})
    call(seeker, "suche", "decide_confirmation", click(card))
    call(seeker, "suche", "get_confirmation", {"confirmation_id": card["confirmation_id"]})
    reply = card_of(call(owner, "makler", "draft_reply", {"request_id": request_key(), "inquiry_id": open_inquiry(db), "text": "Ja, gern. Passt Ihnen Freitag um 17 Uhr?"}))
    call(owner, "makler", "send_reply", {"confirmation_id": reply["confirmation_id"]})
    call(owner, "makler", "decide_confirmation", click(reply))
    call(owner, "makler", "get_confirmation", {"confirmation_id": reply["confirmation_id"]})
    proposal, _ = open_proposal(db)
    call(owner, "makler", "decide_proposal", {"proposal_id": proposal, "decision": "accept", "message": "Passt zu Ihrer Suche."})
    return calls
