"""Limits on use: tool calls and writes per person, per OAuth client and per office, each per minute.

Counted in the database by the one throttle (`shared.auth.throttle.attempt`: an atomic upsert per key), so every
instance and worker counts against the same numbers, and of N parallel calls over a limit exactly the limit get
through. A write (every effect but `read`) counts as a call and as a write. The numbers are settings
(`limit_*_per_minute`; 0 switches that limit off). Over a limit the call is not run: it gets `RATE_LIMITED` with the
seconds to wait in `_meta["athaus/retryAfter"]`, and `athaus_rate_limited_total` counts it by scope."""

from __future__ import annotations

import datetime as dt

from contract.tool import Effect, ToolSpec
from shared.auth import throttle
from shared.auth.principal import Principal
from shared.db.session import Database
from shared.settings import Settings
from shared.telemetry.metrics import RATE_LIMITED

WINDOW = dt.timedelta(minutes=1)
SCOPES, KINDS = ("person", "client", "office"), ("calls", "writes")
for _scope in SCOPES:  # every limit's count from the start, at 0
    for _kind in KINDS:
        RATE_LIMITED.labels(_scope, _kind)


def usage_checks(settings: Settings, spec: ToolSpec, caller: Principal) -> list[tuple[throttle.Limit, str]]:
    """The (limit, holder) pairs one call of `spec` by `caller` counts under."""
    holders = {"person": str(caller.user_id), "client": caller.client_id, "office": str(caller.office_id) if caller.office_id else None}
    kinds = ["calls"] if spec.effect is Effect.read else ["calls", "writes"]
    checks = []
    for kind in kinds:
        for scope, holder in holders.items():
            number = getattr(settings, f"limit_{kind}_per_{scope}_per_minute")
            if holder is not None and number > 0:
                checks.append((throttle.Limit(f"{kind}-{scope}", number, WINDOW), holder))
    return checks


def charge(db: Database, checks: list[tuple[throttle.Limit, str]], now: dt.datetime) -> tuple[int, str] | None:
    """Counts one call (own short transaction); None if it may run, else the seconds to wait and the scope it ran over."""
    if not checks:
        return None
    exceeded: list[str] = []
    with db.unit_of_work() as session:
        wait = throttle.attempt(session, checks, now, exceeded)
    if wait is None:
        return None
    RATE_LIMITED.labels(exceeded[0].split("-", 1)[1], exceeded[0].split("-", 1)[0]).inc()
    return wait, exceeded[0]


def refusal(spec: ToolSpec, wait: int, limit: str) -> str:
    kind, scope = limit.split("-", 1)
    what = {"calls": "Aufrufe", "writes": "Änderungen"}[kind]
    whose = {"person": "für dieses Konto", "client": "für diese Anwendung", "office": "für dieses Maklerbüro"}[scope]
    return f"{spec.title}: zu viele {what} {whose} in der letzten Minute; bitte in {wait} Sekunden erneut versuchen."
