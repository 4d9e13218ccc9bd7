"""The e-mail links of accounts: where they point, how long they live, and using one exactly once."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from shared.auth.models import AccountToken
from shared.auth.tokens import digest
from shared.db.models import User

# Under /oauth, beside the sign-in pages: their session and CSRF cookies are scoped there.
CONFIRM_PATH = "/oauth/konto-bestaetigen"
RESET_PATH = "/oauth/passwort-neu"
INVITATION_PATH = "/oauth/einladung"

LIFETIMES = {"signup": dt.timedelta(hours=24), "reset": dt.timedelta(hours=1), "invitation": dt.timedelta(days=7)}
PATHS = {"signup": CONFIRM_PATH, "reset": RESET_PATH, "invitation": INVITATION_PATH}


def link(public_url: str, purpose: str, token: str) -> str:
    return f"{public_url.rstrip('/')}{PATHS[purpose]}?t={token}"


def new_token(session: Session, *, purpose: str, email: str, now: dt.datetime, **fields: Any) -> str:
    token = secrets.token_urlsafe(32)
    session.add(
        AccountToken(
            token_hash=digest(token), purpose=purpose, email=email, created_at=now, expires_at=now + LIFETIMES[purpose], **fields
        )
    )
    return token


def valid(session: Session, token: str | None, purpose: str, now: dt.datetime) -> AccountToken | None:
    """The unused, unexpired link of this purpose, or None."""
    if not token or len(token) > 100:
        return None
    row = session.get(AccountToken, digest(token))
    if row is None or row.purpose != purpose or row.used_at is not None or row.expires_at <= now:
        return None
    return row


def use(session: Session, row: AccountToken, now: dt.datetime) -> bool:
    """Marks the link used; only one of two concurrent uses succeeds. Its stored data (a password hash) goes."""
    moved = session.execute(
        update(AccountToken)
        .where(AccountToken.token_hash == row.token_hash, AccountToken.used_at.is_(None))
        .values(used_at=now, payload=None)
        .execution_options(synchronize_session=False)
    ).rowcount
    return moved == 1


def user_by_email(session: Session, email: str) -> User | None:
    return session.scalar(select(User).where(func.lower(User.email) == normal_email(email)))


def normal_email(email: str) -> str:
    return email.strip().lower()


def user_ref(user_id: int) -> str:
    return f"K-{user_id:06d}"


def office_ref(office_id: int) -> str:
    return f"B-{office_id:06d}"
