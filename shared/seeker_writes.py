"""Writing a seeker's account, without MCP: saved searches (Suchaufträge) and the marks on their Treffer.

- `save_search_order(session, *, user_id, client_id, values, order_ref, idempotency_key, now)`: create (order_ref None)
  or change a saved search. `values` holds the sent keys of name, criteria (the filters of search_listings, as a
  dict), frequency, approachable. Criteria are checked and stored as the catalog reads them: the full text parsed
  (nothing searchable is INVALID_ARGUMENT), places resolved (a short form completed, an ambiguous one asked, an
  unknown one an error), so matching a listing later (`shared.matching.events.fits`) needs no second guess.
- `change_search_order_status(...)`: pause, resume, end; an ended search stays ended.
- `mark_match(...)`: new, seen, interesting, not interested.

Each real change leaves one audit row (`shared.write_log`); saving under an idempotency key stores the outcome, so a
retry creates nothing twice. A row of another seeker is NOT_FOUND, the same as a missing one.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import flag_modified

from contract.catalog import CatalogFilters
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import AlertFrequency, MatchState, SearchOrderStatus, WriteResult, label
from shared.catalog import places
from shared.catalog.scope import parse_query
from shared.db.models import Match, SearchOrder
from shared.runtime.validation import german_message
from shared.saved_search import criteria_text
from shared.write_log import audit, changed_keys, remember, replayed, temporary_ref

ORDER_NOT_FOUND = "Diesen Suchauftrag gibt es in deinem Konto nicht: list_search_orders zeigt deine Suchaufträge."
MATCH_NOT_FOUND = "Diesen Treffer gibt es in deinem Konto nicht: list_matches zeigt deine Treffer."
DEFAULT_FREQUENCY = AlertFrequency.daily


@dataclass(frozen=True)
class SearchOrderOutcome:
    result: WriteResult
    order: SearchOrder
    changed_fields: list[str]
    replayed: bool = False


@dataclass(frozen=True)
class MatchOutcome:
    result: WriteResult
    match: Match
    order: SearchOrder
    previous: MatchState


def stored_criteria(session: Session, criteria: dict[str, Any]) -> dict[str, Any]:
    """The criteria as the catalog reads them, as stored (no nulls)."""
    try:
        filters = CatalogFilters.model_validate(criteria)
    except ValidationError as error:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, german_message(error).replace("Das Argument ", "Das Kriterium ", 1)) from None
    parse_query(filters)
    resolved = places.resolve_filters(filters)
    return resolved.filters.model_dump(mode="json", exclude_none=True)


def _state(order: SearchOrder) -> dict[str, Any]:
    return {
        "name": order.name,
        "criteria": order.criteria,
        "frequency": order.frequency,
        "approachable": bool(order.approachable),
        "status": order.status,
    }


def own_order(session: Session, user_id: int, order_ref: str) -> SearchOrder:
    order = session.scalar(select(SearchOrder).where(SearchOrder.user_id == user_id, SearchOrder.ref == order_ref).with_for_update())
    if order is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, ORDER_NOT_FOUND)
    return order


def save_search_order(
    session: Session,
    *,
    user_id: int,
    client_id: str | None,
    values: dict[str, Any],
    order_ref: str | None,
    idempotency_key: str | None,
    now: dt.datetime,
) -> SearchOrderOutcome:
    request = {"order_ref": order_ref, "values": values}
    if stored := replayed(session, user_id=user_id, operation="save_search_order", key=idempotency_key, request=request, now=now):
        order = own_order(session, user_id, stored["order_ref"])
        return SearchOrderOutcome(WriteResult(stored["result"]), order, stored["changed_fields"], True)
    sent = dict(values)
    if "criteria" in sent:
        sent["criteria"] = stored_criteria(session, sent["criteria"] or {})
    if "frequency" in sent and sent["frequency"] is not None:
        sent["frequency"] = AlertFrequency(sent["frequency"]).value
    if order_ref is None:
        if "criteria" not in sent:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, "Zum Anlegen fehlen die Kriterien (criteria): bitte wie bei search_listings senden.")
        order = SearchOrder(
            ref=temporary_ref(),
            user_id=user_id,
            name=sent.get("name") or criteria_text(CatalogFilters.model_validate(sent["criteria"]))[:200],
            criteria=sent["criteria"],
            frequency=sent.get("frequency") or DEFAULT_FREQUENCY.value,
            status=SearchOrderStatus.active.value,
            approachable=bool(sent.get("approachable")),
            created_at=now,
            updated_at=now,
        )
        session.add(order)
        session.flush()
        order.ref = f"S-{order.id:06d}"
        flag_modified(order, "updated_at")  # the same value as on insert: written anyway, or onupdate takes the clock
        before = None
    else:
        order = own_order(session, user_id, order_ref)
        if order.status == SearchOrderStatus.ended.value:
            raise ToolFailure(ErrorCode.CONFLICT, f"{order.ref} ist beendet: bitte einen neuen Suchauftrag anlegen (ohne search_order_id).")
        before = _state(order)
        for name in ("name", "criteria", "frequency", "approachable"):
            if name in sent and sent[name] is not None:
                setattr(order, name, sent[name])
    after = _state(order)
    changed = sorted(after) if before is None else changed_keys(before, after)
    if before is None or changed:
        order.updated_at = now
        flag_modified(order, "updated_at")
        audit(
            session, now=now, user_id=user_id, client_id=client_id, office_id=None,
            action="search_order.create" if before is None else "search_order.change", subject_ref=order.ref, before=before, after=after,
        )
    result = WriteResult.created if before is None else (WriteResult.changed if changed else WriteResult.unchanged)
    remember(
        session, user_id=user_id, operation="save_search_order", key=idempotency_key, request=request, now=now,
        outcome={"result": result.value, "order_ref": order.ref, "changed_fields": changed},
    )
    session.flush()
    return SearchOrderOutcome(result, order, changed)


def change_search_order_status(
    session: Session, *, user_id: int, client_id: str | None, order_ref: str, status: SearchOrderStatus | str, now: dt.datetime
) -> SearchOrderOutcome:
    new = SearchOrderStatus(status)
    order = own_order(session, user_id, order_ref)
    old = SearchOrderStatus(order.status)
    if old is new:
        return SearchOrderOutcome(WriteResult.unchanged, order, [])
    if old is SearchOrderStatus.ended:
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"{order.ref} ist beendet und bleibt es: für dieselbe Suche einen neuen Suchauftrag mit save_search_order anlegen.",
        )
    order.status = new.value
    order.updated_at = now
    flag_modified(order, "updated_at")
    audit(
        session, now=now, user_id=user_id, client_id=client_id, office_id=None, action="search_order.status",
        subject_ref=order.ref, before={"status": old.value}, after={"status": new.value},
    )
    session.flush()
    return SearchOrderOutcome(WriteResult.changed, order, ["status"])


def mark_match(session: Session, *, user_id: int, client_id: str | None, match_ref: str, state: MatchState | str, now: dt.datetime) -> MatchOutcome:
    new = MatchState(state)
    row = session.execute(
        select(Match, SearchOrder)
        .join(SearchOrder, Match.search_order_id == SearchOrder.id)
        .where(SearchOrder.user_id == user_id, Match.ref == match_ref)
    ).first()
    if row is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, MATCH_NOT_FOUND)
    match, order = row
    old = MatchState(match.state)
    if old is not new:
        match.state = new.value
        audit(
            session, now=now, user_id=user_id, client_id=client_id, office_id=None, action="match.state",
            subject_ref=match.ref, before={"state": old.value}, after={"state": new.value},
        )
        session.flush()
    return MatchOutcome(WriteResult.unchanged if old is new else WriteResult.changed, match, order, old)


def state_sentence(old: MatchState, new: MatchState) -> str:
    return f"{label(old)} → {label(new)}"
