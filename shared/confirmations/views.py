"""The user's waiting confirmations as the web app lists them, and one confirmation's current state as the card asks
for it when it starts: the same German content the card shows."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from contract.confirmations import CONFIRMATION_META_KEY
from contract.envelope import WithMeta
from contract.vocabulary import ConfirmationStatus, PendingActionKind, stored_label
from shared.confirmations.store import card_result, german_time, outcome_text, own_action, status_of
from shared.db.models import PendingAction


@dataclass(frozen=True)
class PendingView:
    confirmation_id: str
    action: str  # PendingActionKind value
    action_label: str  # German
    summary: str  # German, one sentence
    recipient: str  # to whom
    sender: str  # from whom
    subject: str
    text: str | None  # exactly what goes out
    shared_contact: list[tuple[str, str]]  # (German label, value) the seeker shares; empty for replies and exposés
    created_at: dt.datetime
    expires_at: dt.datetime
    expires_text: str  # "gültig bis 02.12.2026 18:00" (German time)
    payload_hash: str  # send it back with the click (shown_payload_hash)


def view_of(action: PendingAction) -> PendingView:
    payload = action.payload
    return PendingView(
        confirmation_id=action.ref,
        action=action.kind,
        action_label=stored_label(PendingActionKind, action.kind),
        summary=action.summary,
        recipient=payload.get("recipient", ""),
        sender=payload.get("sender", ""),
        subject=payload.get("subject", ""),
        text=payload.get("text"),
        shared_contact=[(label, value) for label, value in payload.get("shared_contact") or []],
        created_at=action.created_at,
        expires_at=action.expires_at,
        expires_text=f"gültig bis {german_time(action.expires_at)}",
        payload_hash=action.payload_hash or "",
    )


def list_pending(session: Session, *, user_id: int, now: dt.datetime) -> list[PendingView]:
    """The user's actions still waiting for a click (not expired), oldest first."""
    rows = session.scalars(
        select(PendingAction)
        .where(PendingAction.user_id == user_id, PendingAction.status == "pending", PendingAction.expires_at > now, PendingAction.payload_hash.is_not(None))
        .order_by(PendingAction.created_at, PendingAction.id)
    )
    return [view_of(action) for action in rows]


def one_for_page(session: Session, *, user_id: int, ref: str, now: dt.datetime) -> tuple[PendingView | None, str | None]:
    """Athaus's confirmation page of one draft: its view while it waits for this user's click, else None and what became
    of it in German (None, None: no such draft of this user)."""
    action = session.scalar(select(PendingAction).where(PendingAction.ref == ref, PendingAction.user_id == user_id))
    if action is None or action.payload_hash is None:
        return None, None
    status = status_of(action, now)
    if status is ConfirmationStatus.pending:
        return view_of(action), None
    return None, outcome_text(action, now)


def current_state(session: Session, ref: str, *, user_id: int, kinds: tuple[str, ...], now: dt.datetime, app_url: str) -> WithMeta:
    """The card's question when it starts (`get_confirmation`): what the confirmation `ref` of this user is now, so a
    card shown again long after offers no button for what was sent, discarded or expired. `_meta` carries the current
    payload hash (a revised draft no longer matches the card's) and never the token: the card has its own."""
    result = card_result(session, own_action(session, ref, user_id=user_id, kinds=kinds), now, app_url, token=False)
    shown = result.meta.get(CONFIRMATION_META_KEY)
    meta = {CONFIRMATION_META_KEY: {"confirmation_id": shown["confirmation_id"], "payload_hash": shown["payload_hash"]}} if shown else {}
    return WithMeta(result.output, meta)
