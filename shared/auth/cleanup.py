"""Housekeeping of the authorization server: expired codes and tokens, token families with nothing left, unused
registrations, old throttle counters, ended web sessions, expired e-mail links and decided authorization requests are removed;
so are the writes' idempotency keys older than 48 hours (`shared.write_log.forget_expired_keys`).

`Housekeeping.due()` runs it at most every few minutes per process, from the endpoints clients call anyway
(registration, token), so no separate job is needed; `remove_expired` is also callable on its own."""

from __future__ import annotations

import datetime as dt
import json
import logging
import time

import anyio.to_thread
from sqlalchemy import delete, exists, select
from sqlalchemy.orm import Session

from shared.auth.models import (
    AccountToken,
    IssuedToken,
    OAuthClient,
    OAuthCode,
    OAuthGrant,
    ThrottleCounter,
    UsedAuthorizationRequest,
    WebSession,
)
from shared.auth.throttle import LONGEST_WINDOW
from shared.db.models import utcnow
from shared.db.session import Database
from shared.write_log import forget_expired_keys

log = logging.getLogger("athaus.oauth")

UNUSED_REGISTRATION_TTL = dt.timedelta(hours=24)  # a registered client that never got a grant is forgotten after this
GRANT_GRACE = dt.timedelta(hours=1)
INTERVAL_SECONDS = 300.0


def remove_expired(session: Session, now: dt.datetime | None = None) -> dict[str, int]:
    now = now or utcnow()
    removed = {
        "codes": session.execute(delete(OAuthCode).where(OAuthCode.expires_at < now)).rowcount,
        "tokens": session.execute(delete(IssuedToken).where(IssuedToken.expires_at < now)).rowcount,
    }
    has_token = exists().where(IssuedToken.grant_id == OAuthGrant.id)
    has_code = exists().where(OAuthCode.grant_id == OAuthGrant.id)
    removed["grants"] = session.execute(
        delete(OAuthGrant).where(~has_token, ~has_code, OAuthGrant.created_at < now - GRANT_GRACE)
    ).rowcount
    granted = select(OAuthGrant.client_id).where(OAuthGrant.client_id == OAuthClient.client_id)
    pending = select(OAuthCode.client_id).where(OAuthCode.client_id == OAuthClient.client_id)
    removed["registrations"] = session.execute(
        delete(OAuthClient).where(OAuthClient.created_at < now - UNUSED_REGISTRATION_TTL, ~granted.exists(), ~pending.exists())
    ).rowcount
    removed["throttle_counters"] = session.execute(
        delete(ThrottleCounter).where(ThrottleCounter.window_start < now - LONGEST_WINDOW)
    ).rowcount
    removed["web_sessions"] = session.execute(delete(WebSession).where(WebSession.expires_at < now)).rowcount
    removed["account_links"] = session.execute(delete(AccountToken).where(AccountToken.expires_at < now)).rowcount
    removed["used_requests"] = session.execute(
        delete(UsedAuthorizationRequest).where(UsedAuthorizationRequest.expires_at < now)
    ).rowcount
    removed["idempotency_keys"] = forget_expired_keys(session, now)
    return removed


class Housekeeping:
    def __init__(self, db: Database, interval_seconds: float = INTERVAL_SECONDS) -> None:
        self.db = db
        self.interval = interval_seconds
        self.next_run = 0.0

    async def due(self) -> None:
        """Runs remove_expired if the interval has passed since the last run in this process."""
        if time.monotonic() < self.next_run:
            return
        self.next_run = time.monotonic() + self.interval

        def run() -> dict[str, int]:
            with self.db.unit_of_work() as session:
                return remove_expired(session)

        try:
            removed = await anyio.to_thread.run_sync(run)
        except Exception:
            log.exception("housekeeping failed")
            return
        if any(removed.values()):
            log.info(json.dumps({"event": "oauth_housekeeping", **removed}))
