"""One throttle for every way in: logins (sign-in pages and web app), sign-ups, password resets, client
registrations and metadata-document fetches.

Counted in the database, so every instance and worker sees the same attempts, and counted *before* the expensive part
(a scrypt of 32 MiB, an outbound fetch): `attempt` increments the counter of each key and reads it back in one
statement (`INSERT … ON CONFLICT DO UPDATE … RETURNING`, atomic on SQLite and PostgreSQL alike), so of N parallel
attempts exactly the limit pass, never all of those that happened to read before anyone wrote. A login that succeeds
gives its count back (`refund`): what is limited are failed attempts, and a right password never locks anyone out of
a window it did not use. Windows are fixed (a counter restarts once its window is over). Account keys are derived from
the address typed, so the answer is the same whether or not an account exists for it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import case, literal, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from shared.auth.models import ThrottleCounter
from shared.db.models import UTCDateTime
from shared.telemetry.metrics import THROTTLED


@dataclass(frozen=True)
class Limit:
    name: str
    attempts: int
    window: dt.timedelta
    # the form it guards, as the operator's metrics count its refusals (athaus_throttled_total{form}); None: counted
    # elsewhere (the limits on tool calls, shared/runtime/limits.py: athaus_rate_limited_total)
    form: str | None = None

    def key(self, value: str) -> str:
        return f"{self.name}:{hashlib.sha256(value.strip().lower().encode()).hexdigest()[:64]}"


LOGIN_PER_ACCOUNT = Limit("login-account", 10, dt.timedelta(minutes=15), "login")
LOGIN_PER_ADDRESS = Limit("login-address", 30, dt.timedelta(minutes=15), "login")
# A login from a browser that signed in to this account before (shared.auth.devices): its own counter, so strangers'
# wrong passwords, which use up the account's, do not lock the person out.
LOGIN_FROM_KNOWN_DEVICE = Limit("login-device", 10, dt.timedelta(minutes=15), "login")
# Sign-up and reset send e-mail: few per address typed (no mailbox is flooded), more per connection.
SIGNUP_PER_ACCOUNT = Limit("signup-account", 3, dt.timedelta(hours=1), "signup")
SIGNUP_PER_ADDRESS = Limit("signup-address", 10, dt.timedelta(hours=1), "signup")
RESET_PER_ACCOUNT = Limit("reset-account", 3, dt.timedelta(hours=1), "reset")
RESET_PER_ADDRESS = Limit("reset-address", 10, dt.timedelta(hours=1), "reset")
# Setting a password from a link (reset, invitation) hashes it: counted per connection like a login.
NEW_PASSWORD_PER_ADDRESS = Limit("password-address", 30, dt.timedelta(minutes=15), "new_password")
# Each new client_id URL at /authorize is a fetch of its metadata document (a cached document is not fetched again).
METADATA_FETCH_PER_HOST = Limit("metadata-host", 30, dt.timedelta(minutes=1), "client_metadata")
METADATA_FETCH_OVERALL = Limit("metadata-all", 300, dt.timedelta(minutes=1), "client_metadata")
REGISTRATION_WINDOW = dt.timedelta(minutes=1)  # the number per window is a setting (registrations_per_minute)
LONGEST_WINDOW = dt.timedelta(hours=1)
FORMS = ("login", "signup", "reset", "new_password", "client_registration", "client_metadata")
for _form in FORMS:  # every form's count from the start, at 0
    THROTTLED.labels(_form)


def registration_limit(per_minute: int) -> Limit:
    return Limit("register-address", per_minute, REGISTRATION_WINDOW, "client_registration")


def login_checks(email: str, address: str, known_device: bool = False) -> list[tuple[Limit, str]]:
    """The address first (a stranger's address is stopped before it counts against the account), then the account,
    or for a known device its own counter."""
    return [(LOGIN_PER_ADDRESS, address), (LOGIN_FROM_KNOWN_DEVICE if known_device else LOGIN_PER_ACCOUNT, email)]


def attempt(session: Session, checks: Sequence[tuple[Limit, str]], now: dt.datetime, exceeded: list[str] | None = None) -> int | None:
    """Counts one attempt under every (limit, value) and returns the seconds to wait if any limit is now exceeded
    (this attempt included), else None; the names of the limits exceeded go into `exceeded` if given. Call it in its
    own short transaction, before the work it guards."""
    waits, forms = [], []
    for limit, value in checks:
        counted, started = count(session, limit, value, 1, now)
        if counted > limit.attempts:
            waits.append(seconds_left(limit, started, now))
            if exceeded is not None:
                exceeded.append(limit.name)
            if limit.form is not None:
                forms.append(limit.form)
    if forms:  # one refused attempt, however many of its limits it exceeded
        THROTTLED.labels(forms[0]).inc()
    return max(waits) if waits else None


def count(session: Session, limit: Limit, value: str, amount: int, now: dt.datetime) -> tuple[int, dt.datetime]:
    """Adds `amount` to the counter of (limit, value), opening a new window if its own is over, and returns the
    count after it and the start of its window: one atomic statement."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    expired = ThrottleCounter.window_start <= literal(now - limit.window, UTCDateTime())
    statement = (
        insert(ThrottleCounter)
        .values(key=limit.key(value), window_start=now, count=amount)
        .on_conflict_do_update(
            index_elements=[ThrottleCounter.key],
            set_={
                "count": case((expired, amount), else_=ThrottleCounter.count + amount),
                "window_start": case((expired, literal(now, UTCDateTime())), else_=ThrottleCounter.window_start),
            },
        )
        .returning(ThrottleCounter.count, ThrottleCounter.window_start)
    )
    counted, started = session.execute(statement).one()
    return counted, started


def seconds_left(limit: Limit, started: dt.datetime, now: dt.datetime) -> int:
    """Seconds until the window that opened at `started` is over: at least 1, and never more than the window (another
    attempt may have opened it a moment after this one's clock)."""
    left = math.ceil((started + limit.window - now).total_seconds())
    return max(1, min(left, int(limit.window.total_seconds())))


def refund(session: Session, checks: Sequence[tuple[Limit, str]]) -> None:
    """Gives back the attempt of a login that succeeded."""
    keys = [limit.key(value) for limit, value in checks]
    session.execute(update(ThrottleCounter).where(ThrottleCounter.key.in_(keys), ThrottleCounter.count > 0).values(count=ThrottleCounter.count - 1))
