"""Executing a prepared action: the click of a person (card or web app), or a send_/decide_ call where the office
allowed that kind without a click. Checks come first and execute nothing when one fails; the status moves from
pending with one conditional UPDATE, so a double click or a retried request sends once."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from contract.confirmations import APP_PATH, OutboundResult, Refusal, confirm_page_url
from contract.envelope import PageVisit, WithMeta
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import ConfirmationStatus, Decision, PendingActionKind
from shared.confirmations.kinds import discarded_with_subject, lock_subject, run
from shared.confirmations.store import card_result, outcome_text, status_of
from shared.confirmations.tokens import payload_hash, token_matches
from shared.db.models import Inquiry, Office, OfficeMember, OutboxMessage, PendingAction

Via = Literal["card", "page", "app", "no_click"]  # ConfirmedVia: recorded in PendingAction.via
PAGE_VISIT_KEY = "confirm:"  # + the confirmation's number: the key of the page's URL-mode elicitation
# What the client's answer to that elicitation means, said before the draft's state (which stays pending either way).
PAGE_ANSWERS = {
    "accept": "Die Person hat zugestimmt, die Athaus-Bestätigungsseite zu öffnen; gesendet wird erst mit ihrem Klick dort. ",
    "decline": "Die Person hat abgelehnt, die Athaus-Bestätigungsseite zu öffnen; nichts ist hinausgegangen. ",
    "cancel": "Die Athaus-Bestätigungsseite wurde nicht geöffnet (abgebrochen); nichts ist hinausgegangen. ",
}
OFFICE_KINDS = (PendingActionKind.send_reply.value, PendingActionKind.decide_proposal.value)

INVALID = (
    "Diese Bestätigung lässt sich so nicht ausführen: das Token passt nicht zu ihr, zu deinem Konto oder zu deinem Büro "
    "(oder die Karte ist durch eine neuere ersetzt). Ausgeführt wurde nichts; bitte die neueste Karte benutzen oder in "
    "der Web-App unter /app/ bestätigen."
)


@dataclass(frozen=True)
class Outcome:
    """What became of the action: its status now, whether this call found it already done, and the tool's answer."""

    confirmation_id: str
    status: ConfirmationStatus
    replayed: bool
    result: OutboundResult
    inquiry_id: str | None = None


def not_from_a_card(confirmation_id: str, public_url: str) -> str:
    """The refusal of a click from a client that shows no card, naming where the person confirms."""
    return (
        "Ausgeführt wurde nichts: „Senden“ und „Verwerfen“ klickt ein Mensch, und dieser Client zeigt keine "
        "Bestätigungskarte (er ist nicht als Chat angemeldet, der sie zeigt, oder meldet die MCP-Apps-Erweiterung nicht). "
        "Bitte die Person bestätigen lassen: auf der "
        f"Athaus-Bestätigungsseite {confirm_page_url(public_url, confirmation_id)} (im Browser bei Athaus angemeldet), in der "
        f"Web-App unter {public_url.rstrip('/')}{APP_PATH} oder in der Karte eines Chats, der sie zeigt."
    )


def allowed_without_click(session: Session, office_id: int | None, kind: str) -> bool:
    """Has the office's owner allowed `kind` to run without a click? Never for a seeker's action."""
    if office_id is None or kind not in OFFICE_KINDS:
        return False
    office = session.get(Office, office_id)
    return office is not None and kind in (office.send_without_click or [])


def set_without_click(session: Session, *, office_id: int, user_id: int, kinds_allowed: Collection[str]) -> list[str]:
    """The office owner's setting (web app): which kinds run without a click. Only the owner may change it."""
    role = session.scalar(select(OfficeMember.role).where(OfficeMember.office_id == office_id, OfficeMember.user_id == user_id))
    if role != "owner":
        raise ToolFailure(ErrorCode.MISSING_RIGHT, "Nur die Inhaberin oder der Inhaber des Büros kann Taten ohne Klick freigeben.")
    unknown = set(kinds_allowed) - set(OFFICE_KINDS)
    if unknown:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Ohne Klick freigeben lassen sich nur {', '.join(OFFICE_KINDS)}.")
    office = session.get(Office, office_id)
    assert office is not None
    office.send_without_click = sorted(set(kinds_allowed))
    return list(office.send_without_click)


def _belongs(session: Session, action: PendingAction, user_id: int) -> bool:
    if action.user_id != user_id:
        return False
    if action.office_id is None:
        return action.kind not in OFFICE_KINDS
    member = session.scalar(select(OfficeMember.office_id).where(OfficeMember.user_id == user_id))
    return member == action.office_id


def execute(
    session: Session,
    *,
    confirmation_id: str,
    user_id: int,
    decision: Decision | str,
    token: str | None,
    shown_payload_hash: str | None,
    via: Via,
    now: dt.datetime,
    app_url: str = "",
    kinds_here: Collection[str] | None = None,
    from_app_host: bool = False,
) -> Outcome:
    """Execute (send) or discard the pending action `confirmation_id` of `user_id`.

    via="card" needs a request from a registered card host that declares MCP Apps (`from_app_host`, decided by
    shared.runtime.hosts.shows_card; refused before anything is read)
    and the card's token; via="page"/"app" (Athaus's confirmation page, the web app's list) are authenticated by the
    web app's login and CSRF (token None); all three need the payload hash that was shown. via="no_click" is only for
    kinds the office allowed without a click. `app_url` is the deployment's public URL. How it was decided is
    recorded in `PendingAction.via` and said in the answer.
    Raises ToolFailure: CONFIRMATION_INVALID (unknown, another user's or office's, wrong token, wrong server: nothing
    executed), CONFIRMATION_EXPIRED, CONFLICT (payload changed since shown, or the world changed). A second call for a
    decided action executes nothing and returns it as it is (replayed=True)."""
    decision = Decision(decision)
    if via == "card" and not from_app_host:
        raise ToolFailure(ErrorCode.CONFIRMATION_INVALID, not_from_a_card(confirmation_id, app_url))
    action = session.scalar(select(PendingAction).where(PendingAction.ref == confirmation_id))
    if action is None or not _belongs(session, action, user_id) or (kinds_here is not None and action.kind not in kinds_here):
        raise ToolFailure(ErrorCode.CONFIRMATION_INVALID, INVALID)
    if via == "card" and (token is None or not token_matches(token, action.token_hash)):
        raise ToolFailure(ErrorCode.CONFIRMATION_INVALID, INVALID)
    if via == "no_click" and not allowed_without_click(session, action.office_id, action.kind):
        raise ToolFailure(
            ErrorCode.CONFIRMATION_REQUIRED,
            f"Diese Tat braucht den Klick eines Menschen: bitte auf der Athaus-Bestätigungsseite {confirm_page_url(app_url, action.ref)} bestätigen.",
        )
    # What the execution writes besides the draft is locked before the draft is claimed (the one lock order of
    # shared/confirmations/kinds.py), then the draft is read afresh: a reject that won the race has discarded it.
    if lock_subject(session, action):
        session.refresh(action)
    if decision is Decision.send and (why := discarded_with_subject(action)):
        raise ToolFailure(ErrorCode.CONFLICT, why)
    if action.status in ("sent", "discarded"):
        return _outcome(session, action, now, app_url, replayed=True)
    if action.status == "expired" or action.expires_at <= now:
        session.execute(update(PendingAction).where(PendingAction.id == action.id, PendingAction.status == "pending").values(status="expired"))
        raise ToolFailure(
            ErrorCode.CONFIRMATION_EXPIRED,
            f"Die Bestätigung {action.ref} ist abgelaufen; nichts ist hinausgegangen. Bitte den Entwurf neu vorbereiten lassen und neu bestätigen.",
        )
    stored = payload_hash(action.payload)
    if via != "no_click" and (shown_payload_hash is None or shown_payload_hash != action.payload_hash or stored != action.payload_hash):
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"Der Entwurf {action.ref} hat sich geändert, seit die Karte ihn gezeigt hat; nichts ist hinausgegangen. "
            "Bitte die neue Fassung in der neuesten Karte oder in der Web-App prüfen und dort klicken.",
            Refusal.changed,
        )
    values = {"status": "sent" if decision is Decision.send else "discarded", "decision": decision.value, "via": via, "executed_at": now}
    # The claim holds only for the payload that was checked: a revision committed since (same condition on status)
    # makes it miss, and the click is CONFLICT instead of sending the text it never showed.
    claimed = session.execute(
        update(PendingAction)
        .where(PendingAction.id == action.id, PendingAction.status == "pending", PendingAction.payload_hash == action.payload_hash)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.refresh(action)
    if claimed.rowcount != 1:
        if action.status == "pending":
            raise ToolFailure(
                ErrorCode.CONFLICT,
                f"Der Entwurf {action.ref} wurde eben geändert; nichts ist hinausgegangen. Bitte die neue Fassung prüfen und dort klicken.",
                Refusal.changed,
            )
        return _outcome(session, action, now, app_url, replayed=True)
    inquiry_ref = run(session, action, now) if decision is Decision.send else None
    return _outcome(session, action, now, app_url, replayed=False, inquiry_id=inquiry_ref)


def _outcome(session: Session, action: PendingAction, now: dt.datetime, app_url: str, *, replayed: bool, inquiry_id: str | None = None) -> Outcome:
    if inquiry_id is None and action.kind == PendingActionKind.send_inquiry.value and action.status == "sent":
        inquiry_id = _inquiry_of(session, action)
    result = card_result(session, action, now, app_url, token=False, outcome=outcome_text(action, now, replayed=replayed), inquiry_id=inquiry_id).output
    return Outcome(action.ref, status_of(action, now), replayed, result, inquiry_id)


def _inquiry_of(session: Session, action: PendingAction) -> str | None:
    return session.scalar(
        select(Inquiry.ref).join(OutboxMessage, OutboxMessage.inquiry_id == Inquiry.id).where(OutboxMessage.pending_action_id == action.id).limit(1)
    )


def send_or_show(
    session: Session, action: PendingAction, *, user_id: int, now: dt.datetime, app_url: str, token: bool, page_answers: Mapping[str, str]
) -> WithMeta:
    """What a send_/decide_ call by the model does: executes at once where the office allowed the kind without a
    click, otherwise shows the card again (status pending), never an error for a waiting action. A client that shows
    no card is offered Athaus's confirmation page for the person (`visit`, URL-mode elicitation where the client can);
    its answer only changes what the result says: nothing goes out before the person's click on that page."""
    if action.status == "pending" and action.expires_at <= now:
        raise ToolFailure(
            ErrorCode.CONFIRMATION_EXPIRED,
            f"Die Bestätigung {action.ref} ist abgelaufen; nichts ist hinausgegangen. Bitte den Entwurf neu vorbereiten lassen.",
        )
    if action.status == "pending" and allowed_without_click(session, action.office_id, action.kind):
        outcome = execute(
            session, confirmation_id=action.ref, user_id=user_id, decision=Decision.send, token=None, shown_payload_hash=None,
            via="no_click", now=now, app_url=app_url,
        )
        return WithMeta(outcome.result, {})
    key = f"{PAGE_VISIT_KEY}{action.ref}"
    answer = page_answers.get(key) if action.status == "pending" else None
    shown = card_result(session, action, now, app_url, token=token, outcome=PAGE_ANSWERS.get(answer or "", "") + outcome_text(action, now) if answer else None)
    if action.status != "pending" or token or answer is not None:
        return shown
    summary = shown.output.confirmation.summary if isinstance(shown.output, OutboundResult) and shown.output.confirmation else action.ref
    message = f"Bitte auf Athaus prüfen und bestätigen: {summary}. Hinaus geht erst dein Klick auf „Senden“ dort, angemeldet bei Athaus."
    return WithMeta(shown.output, shown.meta, visit=PageVisit(key=key, message=message, url=confirm_page_url(app_url, action.ref)))
