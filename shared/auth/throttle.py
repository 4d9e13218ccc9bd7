"""Throttling of the sign-in: failed logins per account and per address, registrations per address.

Counted in the database, so every instance and worker sees the same attempts. A login is checked before the
password hash is computed (a scrypt of 32 MiB per attempt is the expensive part), and the account key is derived
from the address typed, so the answer is the same whether or not an account exists for it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from shared.auth.models import ThrottleEvent


@dataclass(frozen=True)
class Limit:
    name: str
    attempts: int
    window: dt.timedelta

    def key(self, value: str) -> str:
        return f"{self.name}:{hashlib.sha256(value.strip().lower().encode()).hexdigest()[:64]}"


LOGIN_PER_ACCOUNT = Limit("login-account", 10, dt.timedelta(minutes=15))
LOGIN_PER_ADDRESS = Limit("login-address", 30, dt.timedelta(minutes=15))
REGISTRATION_WINDOW = dt.timedelta(minutes=1)  # the number per window is a setting (registrations_per_minute)
LONGEST_WINDOW = max(LOGIN_PER_ACCOUNT.window, LOGIN_PER_ADDRESS.window, REGISTRATION_WINDOW)


def registration_limit(per_minute: int) -> Limit:
    return Limit("register-address", per_minute, REGISTRATION_WINDOW)


def retry_after(session: Session, checks: Sequence[tuple[Limit, str]], now: dt.datetime) -> int | None:
    """Seconds until the next attempt is allowed, if any of the (limit, value) pairs is used up; else None."""
    waits = []
    for limit, value in checks:
        since = now - limit.window
        count, oldest = session.execute(
            select(func.count(), func.min(ThrottleEvent.at)).where(ThrottleEvent.key == limit.key(value), ThrottleEvent.at > since)
        ).one()
        if count >= limit.attempts and oldest is not None:
            waits.append(max(1, math.ceil((oldest + limit.window - now).total_seconds())))
    return max(waits) if waits else None


def count(session: Session, checks: Sequence[tuple[Limit, str]], now: dt.datetime) -> None:
    session.add_all(ThrottleEvent(key=limit.key(value), at=now) for limit, value in checks)
