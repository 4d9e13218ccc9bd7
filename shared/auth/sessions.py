"""Server-side web sessions (sign-in pages and web app) and signing an account out everywhere.

The browser's cookie carries a random token; the server keeps its SHA-256 with the account and an expiry, so a
session ends on the server: logging out deletes it, and `sign_out_everywhere` (password changed, removed from an
office, account deleted) deletes every session of the account and revokes every grant, so its access and refresh
tokens get 401 at once, and every unused authorization code.
"""

from __future__ import annotations

import datetime as dt
import secrets

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from shared.auth.models import OAuthCode, OAuthGrant, WebSession
from shared.auth.tokens import digest

SESSION_TTL = dt.timedelta(hours=12)


def open_session(session: Session, user_id: int, now: dt.datetime, ttl: dt.timedelta = SESSION_TTL) -> str:
    token = secrets.token_urlsafe(32)
    session.add(WebSession(token_hash=digest(token), user_id=user_id, created_at=now, expires_at=now + ttl))
    return token


def session_user(session: Session, token: str | None, now: dt.datetime) -> int | None:
    """The account of a live session, or None (no cookie, unknown, ended or expired)."""
    if not token:
        return None
    return session.scalar(select(WebSession.user_id).where(WebSession.token_hash == digest(token), WebSession.expires_at > now))


def close_session(session: Session, token: str | None) -> None:
    if token:
        session.execute(delete(WebSession).where(WebSession.token_hash == digest(token)))


def sign_out_everywhere(session: Session, user_id: int, now: dt.datetime) -> None:
    """Ends every web session, grant (with its tokens) and pending code of the account, in the caller's transaction."""
    session.execute(delete(WebSession).where(WebSession.user_id == user_id))
    session.execute(update(OAuthGrant).where(OAuthGrant.user_id == user_id, OAuthGrant.revoked_at.is_(None)).values(revoked_at=now))
    session.execute(delete(OAuthCode).where(OAuthCode.user_id == user_id, OAuthCode.used_at.is_(None)))
