"""Tables of the built-in authorization server. Codes and tokens are kept only as SHA-256 digests."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Integer, String, true
from sqlalchemy.orm import Mapped, mapped_column, relationship

from shared.db.models import Base, UTCDateTime, utcnow

# A Client ID Metadata Document's URL is the client_id, so client ids can be long.
CLIENT_ID = String(500)
DIGEST = String(64)  # sha256, hex


class OAuthClient(Base):
    """A client registered by dynamic client registration (RFC 7591); CIMD clients are fetched, not stored."""

    __tablename__ = "oauth_clients"

    client_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    secret_hash: Mapped[str | None] = mapped_column(DIGEST)  # None: public client (token_endpoint_auth_method none)
    registration: Mapped[dict[str, Any]] = mapped_column(JSON)  # the registered metadata, without the secret
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class OAuthGrant(Base):
    """One consent of a user for a client and one MCP server: the family of every token issued from it.

    Revoking the grant ends all of its access and refresh tokens at once (revocation, refresh reuse).
    """

    __tablename__ = "oauth_grants"

    id: Mapped[int] = mapped_column(primary_key=True)
    client_id: Mapped[str] = mapped_column(CLIENT_ID)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    resource: Mapped[str] = mapped_column(String(300))  # RFC 8707: the one server the tokens are for
    scopes: Mapped[str] = mapped_column(String(500))  # granted on the consent page, space-separated
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class OAuthCode(Base):
    """An authorization code: single use, five minutes, bound to client, redirect URI, PKCE challenge and resource."""

    __tablename__ = "oauth_codes"

    code_hash: Mapped[str] = mapped_column(DIGEST, primary_key=True)
    client_id: Mapped[str] = mapped_column(CLIENT_ID)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    redirect_uri: Mapped[str] = mapped_column(String(1000))
    # The authorization request named redirect_uri: then the token request must name it too (OAuth 2.1 §4.1.3).
    redirect_uri_given: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    code_challenge: Mapped[str] = mapped_column(String(128))
    resource: Mapped[str] = mapped_column(String(300))
    scopes: Mapped[str] = mapped_column(String(500))
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # Set on exchange, so a replayed code can revoke what it was exchanged for (OAuth 2.1 §4.1.3).
    grant_id: Mapped[int | None] = mapped_column(ForeignKey("oauth_grants.id"))


class IssuedToken(Base):
    """An access token (one hour) or refresh token (30 days, rotated on every use) of one grant."""

    __tablename__ = "oauth_tokens"

    token_hash: Mapped[str] = mapped_column(DIGEST, primary_key=True)
    grant_id: Mapped[int] = mapped_column(ForeignKey("oauth_grants.id"), index=True)
    kind: Mapped[str] = mapped_column(String(10))  # access | refresh
    scopes: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    rotated_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)  # refresh: when it was used

    grant: Mapped[OAuthGrant] = relationship()


class ThrottleCounter(Base):
    """Attempts under one throttle key (a login for an address, a sign-up from a connection, …) in the current fixed
    window; shared by every instance. Counted and read in one statement (an upsert with RETURNING), so parallel attempts
    can never all pass a check that a separate count would only record afterwards."""

    __tablename__ = "auth_throttle_counters"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)  # e.g. login-account:<sha256 of the address>
    window_start: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    count: Mapped[int] = mapped_column(Integer)


class WebSession(Base):
    """A browser's login (sign-in pages, web app): the cookie carries a random token, the server keeps its digest, so
    logging out, a password change, removal from an office or deleting the account ends it at once."""

    __tablename__ = "web_sessions"

    token_hash: Mapped[str] = mapped_column(DIGEST, primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)


class AccountToken(Base):
    """A link sent by e-mail: confirming a sign-up, resetting a password, joining an office. Single use (a conditional
    update sets used_at), short-lived, kept only as the SHA-256 of the link's token. A sign-up creates no account before
    its link is followed: the name and password hash wait here (and are cleared when the link is used)."""

    __tablename__ = "account_tokens"

    token_hash: Mapped[str] = mapped_column(DIGEST, primary_key=True)
    purpose: Mapped[str] = mapped_column(String(20))  # signup | reset | invitation
    email: Mapped[str] = mapped_column(String(200), index=True)
    user_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"), index=True)  # reset: the account
    office_id: Mapped[int | None] = mapped_column(ForeignKey("offices.id"))  # invitation: the office
    role: Mapped[str | None] = mapped_column(String(10))  # invitation: owner | staff
    invited_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    payload: Mapped[dict[str, Any] | None] = mapped_column(JSON)  # sign-up: name, password hash, the sign-in to continue
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    used_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class UsedAuthorizationRequest(Base):
    """A pending authorization request that was decided on: each may be decided once (replays are refused)."""

    __tablename__ = "oauth_used_requests"

    nonce: Mapped[str] = mapped_column(String(64), primary_key=True)
    expires_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, index=True)
