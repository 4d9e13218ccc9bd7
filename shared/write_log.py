"""What every write leaves behind, without MCP: the audit row and the idempotency key.

- `audit(...)`: one row per write in `audit_log`: who (user), with which client (OAuth client id), which office,
  what (`action`, `subject_ref`, the subject's version after the write), and the state before and after (JSON-safe
  dicts; None before a creation).
- Security events (sign-ups, resets, deletions, offices and staff: `SECURITY_ACTIONS`) are, besides their row, one log
  line each (`security_event`, logger `athaus.security`) once the transaction commits: the action, the subject's ref
  and the acting user's and office's internal ids; never an address, a name, a token or the before/after state.
- `replayed(...)` / `remember(...)`: a write called with an idempotency key first asks `replayed`; a stored outcome
  for the same user, operation and key is returned as it was (nothing changes twice). The same key with a different
  request is CONFLICT. After the write, `remember` stores the outcome in the same transaction, so a crash leaves
  neither the change nor the key. Two concurrent requests with one key: the second insert of the key fails on the
  unique constraint and its transaction rolls back; retried, it finds the first one's outcome.
- Keys live `KEY_TTL` (48 hours, `contract.fields.IDEMPOTENCY_KEY_HOURS`, said in every request_id's description): an
  older key counts as unknown (`replayed` removes it, so the same key starts afresh), and `forget_expired_keys`
  (housekeeping) deletes the rest.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import uuid
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import delete, event, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from contract.fields import IDEMPOTENCY_KEY_HOURS
from shared.db.models import AuditEntry, IdempotencyKey
from shared.db.session import Database

T = TypeVar("T")
KEY_TTL = dt.timedelta(hours=IDEMPOTENCY_KEY_HOURS)
security_log = logging.getLogger("athaus.security")
# what an operator watches: who got in, who changed whose access (logins are logged where they are checked,
# shared/auth/access.py)
SECURITY_ACTIONS = frozenset({
    "account.signup", "account.password_reset", "account.delete", "office.create",
    "staff.join", "staff.role", "staff.remove", "staff.invite",
})
_PENDING = "athaus_security_events"  # session.info: this transaction's events, logged on commit, dropped on rollback


def in_one_transaction(db: Database, write: Callable[[Session], T]) -> T:
    """Run a write in one transaction. A concurrent request with the same idempotency key loses the race on the
    key's unique constraint (its whole transaction rolls back) and is run once more, to find the winner's outcome."""
    try:
        with db.unit_of_work() as session:
            return write(session)
    except IntegrityError:
        with db.unit_of_work() as session:
            return write(session)


def temporary_ref() -> str:
    """A unique placeholder until a new row has its id (refs are derived from ids: `A-0000042`, `S-000012`)."""
    return "tmp-" + uuid.uuid4().hex[:16]


_PLAIN = (str, int, float, bool)


def json_safe(value: Any) -> Any:
    """A value as JSON keeps it: dates as ISO text, enums as their value, tuples as lists."""
    if value is None or type(value) in _PLAIN:
        return value
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict):  # a plain value as it is without a call (a listing's state is mostly plain values)
        return {k if type(k) is str else str(k): v if v is None or type(v) in _PLAIN else json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [v if v is None or type(v) in _PLAIN else json_safe(v) for v in value]
    if hasattr(value, "value") and isinstance(getattr(value, "value"), str):
        return value.value
    return value


def request_hash(request: dict[str, Any]) -> str:
    canonical = json.dumps(json_safe(request), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def audit_row(
    *,
    now: dt.datetime,
    user_id: int | None,
    client_id: str | None,
    office_id: int | None,
    action: str,
    subject_ref: str,
    subject_version: int | None = None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> dict[str, Any]:
    """The columns of one audit row (see `audit`), for a caller that inserts many at once."""
    return {
        "at": now, "user_id": user_id, "client_id": client_id, "office_id": office_id, "action": action,
        "subject_ref": subject_ref, "subject_version": subject_version,
        "before": json_safe(before) if before is not None else None,
        "after": json_safe(after) if after is not None else None,
    }


def audit(
    session: Session,
    *,
    now: dt.datetime,
    user_id: int | None,
    client_id: str | None,
    office_id: int | None,
    action: str,
    subject_ref: str,
    subject_version: int | None = None,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
) -> AuditEntry:
    entry = AuditEntry(**audit_row(now=now, user_id=user_id, client_id=client_id, office_id=office_id, action=action,
                                   subject_ref=subject_ref, subject_version=subject_version, before=before, after=after))
    session.add(entry)
    if action in SECURITY_ACTIONS:
        log_on_commit(session, {"action": action, "subject": subject_ref, "by_user": user_id, "office": office_id, "client_id": client_id})
    return entry


def log_on_commit(session: Session, fields: dict[str, Any]) -> None:
    """One `security_event` log line once this session's transaction commits (none if it rolls back)."""
    session.info.setdefault(_PENDING, []).append({key: value for key, value in fields.items() if value is not None})


@event.listens_for(Session, "after_commit")
def _log_pending(session: Session) -> None:
    for fields in session.info.pop(_PENDING, None) or ():
        security_log.info(json.dumps({"event": "security_event", **fields}, ensure_ascii=False))


@event.listens_for(Session, "after_rollback")
def _drop_pending(session: Session) -> None:
    session.info.pop(_PENDING, None)


def changed_keys(before: dict[str, Any] | None, after: dict[str, Any] | None) -> list[str]:
    """The keys whose values differ, in the order of `after` (then `before`)."""
    before, after = before or {}, after or {}
    keys = list(dict.fromkeys([*after, *before]))
    return [k for k in keys if before.get(k) != after.get(k) and json_safe(before.get(k)) != json_safe(after.get(k))]


def forget_expired_keys(session: Session, now: dt.datetime) -> int:
    """Housekeeping: delete every idempotency key older than KEY_TTL; how many went."""
    return session.execute(delete(IdempotencyKey).where(IdempotencyKey.created_at < now - KEY_TTL)).rowcount


def replayed(
    session: Session, *, user_id: int, operation: str, key: str | None, request: dict[str, Any], now: dt.datetime
) -> dict[str, Any] | None:
    """The stored outcome of an earlier call with this key, or None (no key, first time, or the key is older than
    KEY_TTL: then it is removed and the call runs afresh)."""
    if key is None:
        return None
    row = session.scalar(
        select(IdempotencyKey).where(IdempotencyKey.user_id == user_id, IdempotencyKey.operation == operation, IdempotencyKey.key == key)
    )
    if row is None:
        return None
    if row.created_at < now - KEY_TTL:
        session.delete(row)
        session.flush()
        return None
    if row.request_hash != request_hash(request):
        raise ToolFailure(
            ErrorCode.CONFLICT,
            f"request_id {key!r} gehört schon zu einer anderen Anfrage an {operation}: für eine neue Änderung einen neuen "
            "request_id senden, für eine Wiederholung dieselben Argumente.",
        )
    return dict(row.outcome)


def remember(
    session: Session, *, user_id: int, operation: str, key: str | None, request: dict[str, Any], outcome: dict[str, Any], now: dt.datetime
) -> None:
    if key is None:
        return
    session.add(
        IdempotencyKey(user_id=user_id, operation=operation, key=key, request_hash=request_hash(request), outcome=json_safe(outcome), created_at=now)
    )
