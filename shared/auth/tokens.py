"""Authorization codes, access and refresh tokens of the built-in authorization server.

Every secret handed out is 256 random bits; the database keeps only its SHA-256 digest, so a leaked
table grants nothing. Access tokens live one hour, refresh tokens 30 days and are rotated on every
use; presenting a rotated refresh token again revokes its whole grant (token family), as does
replaying an authorization code.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import CursorResult, Select, Update, select, update
from sqlalchemy.orm import Session

from shared.auth.models import IssuedToken, OAuthCode, OAuthGrant
from shared.db.models import utcnow

ACCESS_TTL = dt.timedelta(hours=1)
REFRESH_TTL = dt.timedelta(days=30)
CODE_TTL = dt.timedelta(minutes=5)
# The client id of tokens minted by `athaus token`: only a server in development mode accepts them. Registered
# clients get random ids and metadata-document clients https URLs, so no client can take this one.
DEVELOPMENT_CLIENT_ID = "athaus-cli"
CODE_VERIFIER = re.compile(r"^[A-Za-z0-9\-._~]{43,128}$")  # RFC 7636 §4.1


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def s256(code_verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(code_verifier.encode()).digest()).decode().rstrip("=")


@dataclass(frozen=True)
class IssuedPair:
    access_token: str
    expires_in: int
    scopes: tuple[str, ...]
    refresh_token: str | None


@dataclass(frozen=True)
class Refusal:
    """An RFC 6749 §5.2 token error; returned, not raised, so a revocation it caused is still committed."""

    error: str
    description: str


@dataclass(frozen=True)
class AccessGrant:
    """What a valid access token stands for."""

    user_id: int
    client_id: str
    resource: str
    scopes: tuple[str, ...]


def store_code(
    session: Session,
    *,
    client_id: str,
    user_id: int,
    redirect_uri: str,
    code_challenge: str,
    resource: str,
    scopes: list[str],
    redirect_uri_given: bool = True,
) -> str:
    code = secrets.token_urlsafe(32)
    session.add(
        OAuthCode(
            code_hash=digest(code),
            client_id=client_id,
            user_id=user_id,
            redirect_uri=redirect_uri,
            redirect_uri_given=redirect_uri_given,
            code_challenge=code_challenge,
            resource=resource,
            scopes=" ".join(scopes),
            expires_at=utcnow() + CODE_TTL,
        )
    )
    return code


def redeem_code(
    session: Session, *, code: str, client_id: str, redirect_uri: str | None, code_verifier: str, resource: str | None
) -> IssuedPair | Refusal:
    now = utcnow()
    record = session.get(OAuthCode, digest(code))
    if record is None or record.client_id != client_id:
        return Refusal("invalid_grant", "Der Autorisierungscode ist unbekannt.")
    if record.used_at is not None:
        return _replayed_code(session, record, now)
    if record.expires_at <= now:
        return Refusal("invalid_grant", "Der Autorisierungscode ist abgelaufen.")
    if redirect_uri is None and record.redirect_uri_given:
        return Refusal("invalid_grant", "redirect_uri ist Pflicht, weil die Autorisierungsanfrage sie enthielt.")
    if redirect_uri is not None and redirect_uri != record.redirect_uri:
        return Refusal("invalid_grant", "redirect_uri weicht von der Autorisierungsanfrage ab.")
    if not CODE_VERIFIER.match(code_verifier) or not hmac.compare_digest(s256(code_verifier), record.code_challenge):
        return Refusal("invalid_grant", "code_verifier passt nicht zur code_challenge (PKCE S256).")
    if resource is not None and resource != record.resource:
        return Refusal("invalid_target", "resource weicht von der Autorisierungsanfrage ab.")
    # Single use: of two concurrent redemptions only one flips used_at.
    if not _claim(session, update(OAuthCode).where(OAuthCode.code_hash == record.code_hash, OAuthCode.used_at.is_(None)), used_at=now):
        return _replayed_code(session, record, now)
    grant = OAuthGrant(client_id=client_id, user_id=record.user_id, resource=record.resource, scopes=record.scopes)
    session.add(grant)
    session.flush()
    record.grant_id = grant.id
    return _issue(session, grant, record.scopes.split(), now, with_refresh=True)


def refresh(
    session: Session, *, refresh_token: str, client_id: str, scopes: list[str] | None, resource: str | None
) -> IssuedPair | Refusal:
    now = utcnow()
    token = session.get(IssuedToken, digest(refresh_token))
    if token is None or token.kind != "refresh" or token.grant.client_id != client_id:
        return Refusal("invalid_grant", "Das Refresh-Token ist unbekannt.")
    grant = token.grant
    if token.rotated_at is not None:
        return _reused_refresh_token(session, grant, now)
    if grant.revoked_at is not None:
        return Refusal("invalid_grant", "Die Verbindung wurde widerrufen.")
    if token.expires_at <= now:
        return Refusal("invalid_grant", "Das Refresh-Token ist abgelaufen.")
    if resource is not None and resource != grant.resource:
        return Refusal("invalid_target", "resource weicht von der ursprünglichen Autorisierung ab.")
    granted = grant.scopes.split()
    wanted = scopes if scopes is not None else granted
    if not set(wanted) <= set(granted):
        return Refusal("invalid_scope", "Es können nur Rechte verlangt werden, die bei der Zustimmung erteilt wurden.")
    if not _claim(
        session, update(IssuedToken).where(IssuedToken.token_hash == token.token_hash, IssuedToken.rotated_at.is_(None)), rotated_at=now
    ):
        return _reused_refresh_token(session, grant, now)
    return _issue(session, grant, wanted, now, with_refresh=True)


def revoke(session: Session, *, token: str, client_id: str) -> None:
    """RFC 7009: revoking either token of a grant ends the whole grant; unknown tokens are ignored."""
    issued = session.get(IssuedToken, digest(token))
    if issued is not None and issued.grant.client_id == client_id:
        _revoke_grant(session, issued.grant_id, utcnow())


def mint_access_token(session: Session, *, user_id: int, client_id: str, resource: str, scopes: list[str]) -> IssuedPair:
    """An access token without the authorization dance (the `athaus token` command in development)."""
    grant = OAuthGrant(client_id=client_id, user_id=user_id, resource=resource, scopes=" ".join(scopes))
    session.add(grant)
    session.flush()
    return _issue(session, grant, scopes, utcnow(), with_refresh=False)


def valid_access_token(token: str, *columns: Any) -> Select[Any]:
    """The grant columns of an access token that is known, unexpired and not revoked, plus `columns` of tables the
    caller joins (one statement for the token and whatever a request needs with it)."""
    return (
        select(IssuedToken.scopes, OAuthGrant.user_id, OAuthGrant.client_id, OAuthGrant.resource, *columns)
        .join(OAuthGrant, OAuthGrant.id == IssuedToken.grant_id)
        .where(
            IssuedToken.token_hash == digest(token),
            IssuedToken.kind == "access",
            IssuedToken.expires_at > utcnow(),
            OAuthGrant.revoked_at.is_(None),
        )
    )


def access_grant(row: Any) -> AccessGrant:
    return AccessGrant(user_id=row.user_id, client_id=row.client_id, resource=row.resource, scopes=tuple(row.scopes.split()))


def resolve_access_token(session: Session, token: str) -> AccessGrant | None:
    """The grant behind an access token that is known, unexpired and not revoked."""
    row = session.execute(valid_access_token(token)).one_or_none()
    return None if row is None else access_grant(row)


def _issue(session: Session, grant: OAuthGrant, scopes: list[str], now: dt.datetime, *, with_refresh: bool) -> IssuedPair:
    access = secrets.token_urlsafe(32)
    session.add(
        IssuedToken(token_hash=digest(access), grant_id=grant.id, kind="access", scopes=" ".join(scopes), expires_at=now + ACCESS_TTL)
    )
    refresh_token = None
    if with_refresh:
        refresh_token = secrets.token_urlsafe(32)
        # The refresh token keeps the whole grant, so a narrower access token never narrows the next one.
        session.add(
            IssuedToken(
                token_hash=digest(refresh_token), grant_id=grant.id, kind="refresh", scopes=grant.scopes, expires_at=now + REFRESH_TTL
            )
        )
    return IssuedPair(
        access_token=access, expires_in=int(ACCESS_TTL.total_seconds()), scopes=tuple(scopes), refresh_token=refresh_token
    )


def _replayed_code(session: Session, record: OAuthCode, now: dt.datetime) -> Refusal:
    if record.grant_id is not None:
        _revoke_grant(session, record.grant_id, now)
    return Refusal("invalid_grant", "Der Autorisierungscode wurde bereits eingelöst; die damit ausgestellten Tokens sind widerrufen.")


def _reused_refresh_token(session: Session, grant: OAuthGrant, now: dt.datetime) -> Refusal:
    # A rotated token comes back only if it was copied: end the whole family, the thief's and the owner's.
    _revoke_grant(session, grant.id, now)
    return Refusal("invalid_grant", "Das Refresh-Token wurde bereits verwendet; alle Tokens dieser Verbindung sind widerrufen.")


def _claim(session: Session, statement: Update, **values: dt.datetime) -> bool:
    """Run a guarded UPDATE; True if this transaction was the one that changed the row."""
    result = cast(CursorResult[Any], session.execute(statement.values(**values)))
    return result.rowcount == 1


def _revoke_grant(session: Session, grant_id: int, now: dt.datetime) -> None:
    session.execute(update(OAuthGrant).where(OAuthGrant.id == grant_id, OAuthGrant.revoked_at.is_(None)).values(revoked_at=now))
