"""Server-side web sessions (sign-in pages and web app) and signing an account out everywhere.

The browser's cookie carries a random token; the server keeps its SHA-256 with the account and an expiry, so a
session ends on the server: logging out deletes it, and `sign_out_everywhere` (password changed, removed from an
office, account deleted) deletes every session of the account and revokes every grant, so its access and refresh
tokens get 401 at once, and every unused authorization code.

`CookiePolicy` is how the sign-in pages and the web app name and set their cookies (session and CSRF nonce): the
`__Host-` prefix, `Path=/`, Secure, HttpOnly, SameSite=Lax, so no other host or path can set or shadow them. A local
http development setup (development mode, public URL http on a loopback name) is the one exception: a Secure cookie
would not come back over plain http to every client (Python's cookie jars, older browsers, Firefox on 127.0.0.1), and
the prefix requires Secure, so there the cookies are plain `Path=/` cookies under the plain name (docs/engineering.md).
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session
from starlette.requests import Request
from starlette.responses import Response

from shared.auth.clients import LOOPBACK_HOSTS
from shared.auth.models import OAuthCode, OAuthGrant, WebSession
from shared.auth.tokens import digest

HOST_PREFIX = "__Host-"


@dataclass(frozen=True)
class CookiePolicy:
    """Names and attributes of this deployment's cookies (see the module's docstring)."""

    secure: bool

    @classmethod
    def of(cls, public_url: str, development: bool) -> CookiePolicy:
        public = urlsplit(public_url)
        return cls(secure=not (development and public.scheme == "http" and public.hostname in LOOPBACK_HOSTS))

    def name(self, base: str) -> str:
        """The cookie's name on the wire: `__Host-` + base where cookies are Secure."""
        return f"{HOST_PREFIX}{base}" if self.secure else base

    def read(self, request: Request, base: str) -> str | None:
        return request.cookies.get(self.name(base))

    def set(self, response: Response, base: str, value: str, max_age: int | None) -> None:
        response.set_cookie(self.name(base), value, max_age=max_age, path="/", secure=self.secure, httponly=True, samesite="lax")

    def delete(self, response: Response, base: str) -> None:
        response.delete_cookie(self.name(base), path="/", secure=self.secure, httponly=True, samesite="lax")

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
