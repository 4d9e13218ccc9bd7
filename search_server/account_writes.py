"""Handlers of the seeker's account, write side: save_search_order, update_search_order, update_match, thin over
`shared.seeker_writes`."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from contract.seeker_writes import (
    SaveSearchOrderInput,
    SaveSearchOrderOutput,
    UpdateMatchInput,
    UpdateMatchOutput,
    UpdateSearchOrderInput,
    UpdateSearchOrderOutput,
)
from contract.vocabulary import MatchState, SearchOrderStatus, WriteResult, label, labelled
from search_server.account import search_order_item
from shared import german
from shared.catalog import search as engine
from shared.catalog.scope import PublicScope
from shared.db.models import Listing, Match, SearchOrder
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.saved_search import criteria_of
from shared.seeker_writes import change_search_order_status, mark_match, save_search_order, state_sentence
from shared.write_log import in_one_transaction

CHANGED_LABELS = {"name": "Name", "criteria": "Kriterien", "frequency": "Benachrichtigung", "approachable": "für Makler ansprechbar", "status": "Status"}


def _user(ctx: ToolContext) -> tuple[int, str | None]:
    ctx.seeker()  # the login check
    assert ctx.caller is not None
    return ctx.caller.user_id, ctx.caller.client_id


def _new_matches(session: Session, order: SearchOrder) -> int:
    query = select(func.count()).select_from(Match).where(Match.search_order_id == order.id, Match.state == MatchState.new.value)
    return int(session.scalar(query) or 0)


def _listings_now(session: Session, order: SearchOrder) -> int:
    scope = PublicScope(session, criteria_of(order.criteria), count_excluded=False)  # only its conditions are read
    return engine.count(session, scope.conditions)


def save_search_order_tool(args: SaveSearchOrderInput, ctx: ToolContext) -> SaveSearchOrderOutput:
    user_id, client_id = _user(ctx)
    now = ctx.now()
    values = args.model_dump(mode="json", include={"name", "criteria", "frequency", "approachable"}, exclude_unset=True)
    if "criteria" in values and args.criteria is not None:
        values["criteria"] = args.criteria.model_dump(mode="json", exclude_none=True)

    def write(session: Session) -> SaveSearchOrderOutput:
        outcome = save_search_order(
            session, user_id=user_id, client_id=client_id, values=values, order_ref=args.search_order_id,
            idempotency_key=args.request_id, now=now,
        )
        order = outcome.order
        # a saved search created in this transaction has no matches yet (they come from later listing events): not
        # counted (issue 21); a replay of its creation may be answered after some arrived, so that is counted
        fresh = outcome.result is WriteResult.created and not outcome.replayed
        item = search_order_item(order, 0 if fresh else _new_matches(session, order))
        listings_now = _listings_now(session, order)
        if outcome.result is WriteResult.created:
            sentence = f"Suchauftrag {order.ref} „{order.name}“ angelegt"
        elif outcome.result is WriteResult.changed:
            sentence = f"Suchauftrag {order.ref} geändert ({', '.join(CHANGED_LABELS.get(f, f) for f in outcome.changed_fields)})"
        else:
            sentence = f"Suchauftrag {order.ref} unverändert"
        sentence += (
            f": {german.plural(listings_now, 'veröffentlichtes Inserat passt', 'veröffentlichte Inserate passen')} heute; "
            "neue, günstigere und geänderte passende Inserate erscheinen als Treffer in list_matches."
        )
        if outcome.replayed:
            sentence = "Wiederholung (request_id): nichts doppelt gespeichert. " + sentence
        return SaveSearchOrderOutput(
            **dict(item),
            **labelled("result", outcome.result),
            changed_fields=outcome.changed_fields,
            listings_now=listings_now,
            replayed=outcome.replayed,
            summary=sentence,
        )

    return in_one_transaction(ctx.db, write)


def update_search_order(args: UpdateSearchOrderInput, ctx: ToolContext) -> UpdateSearchOrderOutput:
    user_id, client_id = _user(ctx)
    now = ctx.now()
    with ctx.db.unit_of_work() as session:
        outcome = change_search_order_status(
            session, user_id=user_id, client_id=client_id, order_ref=args.search_order_id, status=args.status, now=now
        )
        order = outcome.order
        status = SearchOrderStatus(order.status)
        effect = {
            SearchOrderStatus.active: "er bekommt wieder Treffer",
            SearchOrderStatus.paused: "bis zum Fortsetzen entstehen keine Treffer",
            SearchOrderStatus.ended: "er bekommt keine Treffer mehr und bleibt beendet",
        }[status]
        verb = "ist jetzt" if outcome.result is WriteResult.changed else "ist schon"
        return UpdateSearchOrderOutput(
            **dict(search_order_item(order, _new_matches(session, order))),
            **labelled("result", outcome.result),
            summary=f"Suchauftrag {order.ref} {verb} {label(status)}: {effect}.",
        )


def update_match(args: UpdateMatchInput, ctx: ToolContext) -> UpdateMatchOutput:
    user_id, client_id = _user(ctx)
    now = ctx.now()
    with ctx.db.unit_of_work() as session:
        outcome = mark_match(session, user_id=user_id, client_id=client_id, match_ref=args.match_id, state=args.state, now=now)
        listing_ref = session.scalar(select(Listing.ref).where(Listing.id == outcome.match.listing_id))
        if listing_ref is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, "Das Inserat dieses Treffers gibt es nicht mehr: list_matches zeigt deine Treffer.")
        new = MatchState(outcome.match.state)
        if outcome.result is WriteResult.changed:
            sentence = f"Treffer {outcome.match.ref} markiert: {state_sentence(outcome.previous, new)}."
        else:
            sentence = f"Treffer {outcome.match.ref} ist schon als {label(new)} markiert."
        return UpdateMatchOutput(
            match_id=outcome.match.ref,
            **labelled("result", outcome.result),
            **labelled("match_state", new),
            previous_state=outcome.previous,
            search_order_id=outcome.order.ref,
            listing_id=listing_ref,
            summary=sentence,
        )


HANDLERS: dict[str, Handler] = {
    "save_search_order": save_search_order_tool,
    "update_search_order": update_search_order,
    "update_match": update_match,
}
