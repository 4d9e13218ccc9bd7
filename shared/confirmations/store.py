"""Prepared actions: stored with their exact payload, user, office, expiry and the hash of the card's token, and the
result a tool returns about them (the card's data; the token only in `_meta`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from contract.confirmations import APP_PATH, CONFIRMATION_META_KEY, ConfirmationBlock, OutboundResult, ProfileLine, confirm_page_url
from contract.envelope import WithMeta
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import ConfirmationStatus, ConfirmedVia, PendingActionKind
from shared.confirmations.kinds import summary_of
from shared.confirmations.tokens import derive_token, new_salt, payload_hash, token_hash
from shared.db.models import PendingAction
from shared.db.session import Database
from shared.write_log import in_one_transaction, remember, replayed

GERMAN_TIME = ZoneInfo("Europe/Berlin")
DEFAULT_TTL = dt.timedelta(hours=48)


def german_time(value: dt.datetime) -> str:
    return value.astimezone(GERMAN_TIME).strftime("%d.%m.%Y %H:%M")


def where_to_click(app_url: str, ref: str, status: ConfirmationStatus = ConfirmationStatus.pending) -> str:
    """Where the person confirms: `app_url` is the deployment's public URL."""
    if status is not ConfirmationStatus.pending:
        return "Nichts mehr zu klicken: die Bestätigung ist erledigt."
    return (
        f"Die Person öffnet {confirm_page_url(app_url, ref)} (im Browser bei Athaus angemeldet) und klickt dort auf „Senden“ "
        f"oder „Verwerfen“; alles Wartende steht in der Web-App unter {app_url.rstrip('/')}{APP_PATH}. In einem Chat, der "
        "die Bestätigungskarte zeigt, geht es auch dort."
    )


VIA_PHRASES = {
    ConfirmedVia.card: "nach dem Klick in der Bestätigungskarte",
    ConfirmedVia.page: "nach dem Klick auf der Athaus-Bestätigungsseite",
    ConfirmedVia.app: "nach dem Klick in der Athaus-Web-App",
}


def confirmed_via(action: PendingAction) -> ConfirmedVia | None:
    """How the person decided (recorded by `execute`); None while pending, expired, or for a reject's discarded drafts."""
    return ConfirmedVia(action.via) if action.via in ConfirmedVia.__members__ else None


def status_of(action: PendingAction, now: dt.datetime) -> ConfirmationStatus:
    if action.status == "pending":
        return ConfirmationStatus.expired if action.expires_at <= now else ConfirmationStatus.pending
    if action.status == "sent":
        return ConfirmationStatus.sent_without_click if action.via == "no_click" else ConfirmationStatus.sent
    return ConfirmationStatus(action.status)


def prepare(
    session: Session,
    *,
    payload: dict[str, Any],
    user_id: int,
    office_id: int | None,
    subject_ref: str,
    now: dt.datetime,
    ttl: dt.timedelta = DEFAULT_TTL,
    revise: str | None = None,
) -> PendingAction:
    """A new pending action for `payload`, or the waiting action `revise` of the same user and kind with the new
    payload (its earlier card then no longer matches: a click on it gives CONFLICT). A revision changes the draft only
    while it is pending, in one conditional UPDATE (the click claims it with the same condition), so a revision that
    loses the race against a click is CONFLICT and never rewrites what was sent."""
    digest = payload_hash(payload)
    if revise is not None:
        action = session.scalar(
            select(PendingAction).where(PendingAction.ref == revise, PendingAction.user_id == user_id, PendingAction.kind == payload["kind"])
        )
        if action is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, f"Einen Entwurf {revise} dieser Art gibt es in deinem Konto nicht: ohne confirmation_id entsteht ein neuer.")
        revised = session.execute(
            update(PendingAction)
            .where(PendingAction.id == action.id, PendingAction.status == "pending")
            .values(payload=payload, payload_hash=digest, summary=summary_of(payload), subject_ref=subject_ref, expires_at=now + ttl, updated_at=now)
            .execution_options(synchronize_session=False)
        )
        session.refresh(action)
        if revised.rowcount != 1:
            raise ToolFailure(ErrorCode.CONFLICT, f"Der Entwurf {revise} ist schon erledigt ({action.status}): ohne confirmation_id entsteht ein neuer.")
        return action
    salt = new_salt()
    action = PendingAction(
        ref=f"tmp-{salt[:12]}",
        kind=payload["kind"],
        user_id=user_id,
        office_id=office_id,
        subject_ref=subject_ref,
        payload=payload,
        summary=summary_of(payload),
        status="pending",
        token_hash="",
        token_salt=salt,
        payload_hash=digest,
        created_at=now,
        expires_at=now + ttl,
    )
    session.add(action)
    session.flush()
    action.ref = f"C-{action.id:06d}"
    action.token_hash = token_hash(derive_token(session, action.ref, salt))
    session.flush()
    return action


def draft_once(
    db: Database,
    *,
    user_id: int,
    operation: str,
    key: str | None,
    request: dict[str, Any],
    now: dt.datetime,
    app_url: str,
    token: bool,
    make: Callable[[Session], PendingAction],
) -> WithMeta:
    """A draft_ tool's unit of work under its idempotency key: the same key and arguments again show the first
    draft (as it is now) and prepare nothing twice; a new key, or none, runs `make` (which prepares or revises)."""

    def write(session: Session) -> WithMeta:
        stored = replayed(session, user_id=user_id, operation=operation, key=key, request=request, now=now)
        if stored is not None:
            earlier = session.scalar(select(PendingAction).where(PendingAction.ref == stored["confirmation_id"], PendingAction.user_id == user_id))
            if earlier is not None:
                return card_result(session, earlier, now, app_url, token=token)
        action = make(session)
        remember(session, user_id=user_id, operation=operation, key=key, request=request, outcome={"confirmation_id": action.ref}, now=now)
        return card_result(session, action, now, app_url, token=token)

    return in_one_transaction(db, write)


# A tool's answer about a prepared action: the structured result and the `_meta` only the card reads.
CardResult = WithMeta


def confirmation_block(action: PendingAction, now: dt.datetime, app_url: str) -> ConfirmationBlock:
    return ConfirmationBlock(
        confirmation_id=action.ref,
        action=PendingActionKind(action.kind),
        summary=action.summary,
        status=status_of(action, now),
        expires_at=action.expires_at,
        where_to_click=where_to_click(app_url, action.ref, status_of(action, now)),
        confirm_url=confirm_page_url(app_url, action.ref),
        confirmed_via=confirmed_via(action),
    )


def outcome_text(action: PendingAction, now: dt.datetime, *, replayed: bool = False) -> str:
    status = status_of(action, now)
    if status is ConfirmationStatus.pending:
        return (
            f"Vorbereitet, noch nicht gesendet: wartet bis {german_time(action.expires_at)} auf den Klick eines Menschen "
            "auf „Senden“ (auf der Athaus-Bestätigungsseite, in der Web-App oder in der Karte). Ein erneuter Aufruf sendet nicht."
        )
    done = german_time(action.executed_at) if action.executed_at else "?"
    via = VIA_PHRASES.get(confirmed_via(action) or ConfirmedVia.no_click, "")
    if status is ConfirmationStatus.sent:
        return f"Gesendet am {done} {via}." + (" Schon vorher gesendet; nichts wurde doppelt gesendet." if replayed else "")
    if status is ConfirmationStatus.sent_without_click:
        return f"Ohne Klick gesendet am {done}: dein Büro hat diese Art ohne Klick freigegeben (Rechte)." + (
            " Schon vorher gesendet; nichts wurde doppelt gesendet." if replayed else ""
        )
    if status is ConfirmationStatus.discarded:
        return f"Verworfen am {done}{' ' + via if via else ''}; nichts ist hinausgegangen."
    return "Abgelaufen, nichts ist hinausgegangen: bitte neu vorbereiten lassen."


def card_result(
    session: Session,
    action: PendingAction,
    now: dt.datetime,
    app_url: str,
    *,
    token: bool,
    outcome: str | None = None,
    inquiry_id: str | None = None,
) -> CardResult:
    """A tool's answer about `action`. The card's token is in `_meta` only with `token` (a request from a host that
    renders MCP Apps, shared/runtime/hosts.py): no other client can show the card, so none gets what its click needs."""
    payload = action.payload
    status = status_of(action, now)
    meta: dict[str, Any] = {}
    if status is ConfirmationStatus.pending and action.token_salt:
        shown = {"confirmation_id": action.ref, "payload_hash": action.payload_hash}
        if token:
            shown["token"] = derive_token(session, action.ref, action.token_salt, matching=action.token_hash)
        meta[CONFIRMATION_META_KEY] = shown
    output = OutboundResult(
        outcome=outcome or outcome_text(action, now),
        recipient=payload.get("recipient", ""),
        sender=payload.get("sender", ""),
        subject=payload.get("subject", ""),
        text=payload.get("text"),
        shared_contact=[ProfileLine(label=label, value=value) for label, value in payload.get("shared_contact") or []],
        inquiry_id=inquiry_id or payload.get("inquiry_id") if payload.get("kind") != PendingActionKind.decide_proposal.value else None,
        confirmation=confirmation_block(action, now, app_url),
    )
    return WithMeta(output, meta)


def own_action(session: Session, ref: str, *, user_id: int, kinds: tuple[str, ...]) -> PendingAction:
    action = session.scalar(select(PendingAction).where(PendingAction.ref == ref, PendingAction.user_id == user_id, PendingAction.kind.in_(kinds)))
    if action is None:
        raise ToolFailure(ErrorCode.NOT_FOUND, f"Eine Bestätigung {ref} dieser Art gibt es in deinem Konto nicht: bitte zuerst einen Entwurf vorbereiten.")
    return action
