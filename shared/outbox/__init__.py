"""The outbox: e-mails that announce what went out, written in the same transaction as the message itself.

`enqueue` adds a row (status queued, or skipped when there is nobody to write to); `shared.outbox.worker` delivers
due rows over SMTP, at most once each: a row is claimed by a conditional update (queued → sending, `FOR UPDATE SKIP
LOCKED` on PostgreSQL), sent with the Message-ID fixed at enqueue time, and marked sent. A temporary failure goes
back to queued with exponential backoff; a permanent one (5xx) or the last attempt ends in failed, which the
sender's views report (`delivery_notes`).
"""

from __future__ import annotations

import datetime as dt
import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from shared.db.models import OutboxMessage

MESSAGE_ID_DOMAIN = "athaus.outbox"


def enqueue(
    session: Session,
    *,
    kind: str,
    recipient: str | None,
    subject: str,
    body: str,
    now: dt.datetime,
    pending_action_id: int | None = None,
    inquiry_id: int | None = None,
    sender_user_id: int | None = None,
    sender_office_id: int | None = None,
) -> OutboxMessage:
    row = OutboxMessage(
        kind=kind,
        recipient=recipient,
        subject=subject[:300],
        body=body,
        message_id=f"<{uuid.uuid4().hex}@{MESSAGE_ID_DOMAIN}>",
        status="queued" if recipient else "skipped",
        attempts=0,
        next_attempt_at=now,
        last_error=None if recipient else "keine E-Mail-Adresse",
        created_at=now,
        pending_action_id=pending_action_id,
        inquiry_id=inquiry_id,
        sender_user_id=sender_user_id,
        sender_office_id=sender_office_id,
    )
    session.add(row)
    session.flush()
    return row


def failed_for_inquiry(session: Session, inquiry_id: int, *, office_side: bool) -> list[OutboxMessage]:
    """E-mails about this inquiry that could not be delivered, sent by the office (office_side) or by the seeker."""
    sender = OutboxMessage.sender_office_id.is_not(None) if office_side else OutboxMessage.sender_office_id.is_(None)
    rows = session.scalars(
        select(OutboxMessage).where(OutboxMessage.inquiry_id == inquiry_id, OutboxMessage.status == "failed", sender).order_by(OutboxMessage.id)
    )
    return list(rows)


def delivery_note(row: OutboxMessage) -> str:
    """What the sender reads about an e-mail that could not be delivered (German)."""
    return (
        f"Die E-Mail-Benachrichtigung „{row.subject}“ konnte nach {row.attempts} Versuchen nicht zugestellt werden; "
        "die Nachricht selbst steht im Verlauf bei Athaus. Bitte die Empfängerin oder den Empfänger auf anderem Weg "
        "erreichen, falls es eilt."
    )
