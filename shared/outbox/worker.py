"""Delivering the outbox over SMTP, at most once per row.

A round claims due rows with a conditional update (queued → sending, `attempts + 1`, a lease in `claimed_until`),
on PostgreSQL after `SELECT … FOR UPDATE SKIP LOCKED`, so two workers never take the same row. Each claimed row is
sent with the Message-ID fixed when it was enqueued and then marked sent (only from sending). A temporary failure
(connection refused, 4xx) puts it back to queued with exponential backoff (`outbox_retry_seconds` × 2^(attempt−1));
a permanent one (5xx) or the last of `outbox_max_attempts` attempts marks it failed, which the sender's views show.
A lease that ran out (a worker died while sending) makes the row due again; the same Message-ID lets the receiving
side drop a duplicate in that one case.

A body is kept only while delivery needs it: a sent row keeps recipient, subject and times, its body (with any link
and its token) is emptied in the same update that marks it sent; `forget_bodies` empties those of rows that ended
failed or skipped once BODY_KEPT has passed (each round runs it), so the sender's view can still say what failed.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import smtplib
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate
from typing import Protocol
from urllib.parse import urlsplit

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.orm import Session

from shared.db.models import OutboxMessage
from shared.db.session import Database
from shared.settings import Settings, is_loopback
from shared.telemetry.metrics import DELIVERIES

log = logging.getLogger("athaus.outbox")
LEASE = dt.timedelta(minutes=5)
BATCH = 20
BODY_KEPT = dt.timedelta(days=7)  # a failed or skipped e-mail's body, for the sender to see what did not go out


class Mailer(Protocol):
    def send(self, message: EmailMessage) -> None: ...


@dataclass(frozen=True)
class SmtpMailer:
    host: str
    port: int = 25
    user: str | None = None
    password: str | None = None
    starttls: bool = False
    timeout: float = 10.0
    ehlo_name: str | None = None  # the public URL's host; None: the machine's name (smtplib's default)

    @classmethod
    def from_settings(cls, settings: Settings) -> SmtpMailer | None:
        if not settings.smtp_host:
            return None
        public_host = urlsplit(settings.public_url).hostname
        ehlo_name = None if is_loopback(public_host) else public_host
        return cls(
            settings.smtp_host, settings.smtp_port, settings.smtp_user, settings.smtp_password, settings.smtp_starttls,
            ehlo_name=ehlo_name,
        )

    def send(self, message: EmailMessage) -> None:
        with smtplib.SMTP(self.host, self.port, local_hostname=self.ehlo_name, timeout=self.timeout) as smtp:
            if self.starttls:
                smtp.starttls()
            if self.user:
                smtp.login(self.user, self.password or "")
            smtp.send_message(message)


@dataclass
class Round:
    """What one delivery round did."""

    sent: list[int] = field(default_factory=list)
    retried: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


def _due(now: dt.datetime):  # type: ignore[no-untyped-def]
    return or_(
        and_(OutboxMessage.status == "queued", OutboxMessage.next_attempt_at <= now),
        and_(OutboxMessage.status == "sending", OutboxMessage.claimed_until < now),
    )


def claim(session: Session, now: dt.datetime, limit: int = BATCH) -> list[int]:
    """Take up to `limit` due rows for this worker; a row another worker took meanwhile is left out."""
    candidates = select(OutboxMessage.id).where(_due(now)).order_by(OutboxMessage.id).limit(limit)
    if session.get_bind().dialect.name == "postgresql":
        candidates = candidates.with_for_update(skip_locked=True)
    claimed = []
    for row_id in list(session.scalars(candidates)):
        taken = session.execute(
            update(OutboxMessage)
            .where(OutboxMessage.id == row_id, _due(now))
            .values(status="sending", claimed_until=now + LEASE, attempts=OutboxMessage.attempts + 1)
        )
        if taken.rowcount == 1:
            claimed.append(row_id)
    return claimed


def email_of(row: OutboxMessage, sender: str) -> EmailMessage:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = row.recipient or ""
    message["Subject"] = row.subject
    message["Message-ID"] = row.message_id
    message["Date"] = formatdate(localtime=False, usegmt=True)
    message.set_content(row.body)
    return message


def _permanent(error: Exception) -> bool:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in error.recipients.values())
    return isinstance(error, smtplib.SMTPResponseException) and error.smtp_code >= 500


def deliver_due(db: Database, settings: Settings, mailer: Mailer, now: dt.datetime) -> Round:
    """One round: claim the due rows, send each, record the outcome."""
    done = Round()
    with db.unit_of_work() as session:
        claimed = claim(session, now)
    for row_id in claimed:
        with db.read_only() as session:
            row = session.get(OutboxMessage, row_id)
            assert row is not None
            message, attempts = email_of(row, settings.mail_from), row.attempts
        try:
            mailer.send(message)
        except (OSError, smtplib.SMTPException) as error:
            last = attempts >= settings.outbox_max_attempts or _permanent(error)
            delay = dt.timedelta(seconds=settings.outbox_retry_seconds * 2 ** (attempts - 1))
            values = {"status": "failed" if last else "queued", "last_error": f"{type(error).__name__}: {error}"[:300], "claimed_until": None}
            if not last:
                values["next_attempt_at"] = now + delay
            with db.unit_of_work() as session:
                session.execute(update(OutboxMessage).where(OutboxMessage.id == row_id, OutboxMessage.status == "sending").values(**values))
            (done.failed if last else done.retried).append(row_id)
            _told(logging.WARNING, "failed" if last else "retry", row_id, attempts, error=type(error).__name__, host=settings.smtp_host,
                  status=getattr(error, "smtp_code", None))
            continue
        with db.unit_of_work() as session:
            session.execute(
                update(OutboxMessage)
                .where(OutboxMessage.id == row_id, OutboxMessage.status == "sending")
                .values(status="sent", sent_at=now, claimed_until=None, last_error=None, body="")
            )
        done.sent.append(row_id)
        _told(logging.INFO, "sent", row_id, attempts)
    with db.unit_of_work() as session:
        forget_bodies(session, now)
    return done


def _told(level: int, outcome: str, row_id: int, attempts: int, **fields: object) -> None:
    """The one place a delivery attempt's outcome is told: its log line (`outbox_sent`, `outbox_retry`,
    `outbox_failed`; a failure with the error's type, the SMTP host and status, never the recipient) and the
    operator's count (athaus_outbox_deliveries_total{outcome})."""
    log.log(level, json.dumps({"event": f"outbox_{outcome}", "id": row_id, "attempts": attempts, **fields}))
    DELIVERIES.labels(outcome).inc()


def forget_bodies(session: Session, now: dt.datetime) -> int:
    """Empty the bodies delivery no longer needs: every sent row's, and a failed or skipped row's after BODY_KEPT.
    How many it emptied."""
    done = or_(OutboxMessage.status == "sent", and_(OutboxMessage.status.in_(("failed", "skipped")), OutboxMessage.created_at < now - BODY_KEPT))
    return session.execute(update(OutboxMessage).where(done, OutboxMessage.body != "").values(body="")).rowcount


def outbox_counts(db: Database) -> dict[str, int]:
    """The backlog (queued or being sent) and the failed e-mails, for the operator's metrics."""
    with db.read_only() as session:
        rows = dict(session.execute(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)).all())
    return {"backlog": rows.get("queued", 0) + rows.get("sending", 0), "failed": rows.get("failed", 0)}
