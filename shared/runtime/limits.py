"""Limits on use: tool calls and writes per person, per OAuth client and per office, each per minute.

Counted in the database, so every instance and worker counts against the same numbers, but not one write per call:
each process claims a share of a limit at a time (a *lease*, a fiftieth of the limit, at least one call) with one
atomic upsert on the throttle's counter (`shared.auth.throttle.count`), and admits calls from it until it is used up
or the window is over. The database never grants more than the limit in a window, so no more calls than the limit
ever run; a share one process claimed and did not use is missing to the others, so with P processes a holder may be
refused up to (P − 1) leases early (person limit 300, four processes: from 282 calls on). A limit of 50 or less is
claimed call by call and therefore exact: of N parallel calls over it exactly the limit get through. The client's
counter is shared by every person of ChatGPT or Claude: counted call by call it would make every call of the
installation queue for one row.

A write (every effect but `read`) counts as a call and as a write. The numbers are settings
(`limit_*_per_minute`; 0 switches that limit off). Over a limit the call is not run: it gets `RATE_LIMITED` with the
seconds to wait in `_meta["athaus/retryAfter"]`, and `athaus_rate_limited_total` counts it by scope."""

from __future__ import annotations

import datetime as dt
import threading
from dataclasses import dataclass

from contract.tool import Effect, ToolSpec
from shared.auth import throttle
from shared.auth.principal import Principal
from shared.db.session import Database
from shared.settings import Settings
from shared.telemetry.metrics import RATE_LIMITED

WINDOW = dt.timedelta(minutes=1)
LEASE_SHARE = 50  # a lease is this fraction of a limit: fewer writes against a bound on early refusals
PRUNE_ABOVE = 4096
CLAIM_ROUNDS = 8  # claims of one call racing other threads of this process for the same leases
SCOPES, KINDS = ("person", "client", "office"), ("calls", "writes")
for _scope in SCOPES:  # every limit's count from the start, at 0
    for _kind in KINDS:
        RATE_LIMITED.labels(_scope, _kind)


@dataclass(frozen=True)
class Check:
    """One limit one call counts under: its kind ("calls", "writes"), scope ("person", "client", "office") and holder."""

    kind: str
    scope: str
    limit: throttle.Limit
    holder: str

    @property
    def key(self) -> str:
        return self.limit.key(self.holder)

    @property
    def lease(self) -> int:
        return max(1, self.limit.attempts // LEASE_SHARE)


@dataclass(frozen=True)
class Refusal:
    wait: int  # seconds until the window of the exhausted limit is over
    check: Check


@dataclass
class _Lease:
    left: int  # calls this process may still admit
    ends: dt.datetime  # when the window it was claimed in is over
    last: bool  # the database granted less than asked: nothing more is to be had in this window


ASK_THE_DATABASE = object()  # `admit`'s answer when no lease held decides the call


def usage_checks(settings: Settings, spec: ToolSpec, caller: Principal) -> list[Check]:
    """The limits one call of `spec` by `caller` counts under."""
    holders = {"person": str(caller.user_id), "client": caller.client_id, "office": str(caller.office_id) if caller.office_id else None}
    kinds = ["calls"] if spec.effect is Effect.read else ["calls", "writes"]
    checks = []
    for kind in kinds:
        for scope, holder in holders.items():
            number = getattr(settings, f"limit_{kind}_per_{scope}_per_minute")
            if holder is not None and number > 0:
                checks.append(Check(kind, scope, throttle.Limit(f"{kind}-{scope}", number, WINDOW), holder))
    return checks


class UsageLedger:
    """This process's leases, by counter key. Thread-safe: tool calls run in worker threads."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._leases: dict[str, _Lease] = {}
        self._lock = threading.Lock()

    def admit(self, checks: list[Check], now: dt.datetime) -> Refusal | object | None:
        """Decides one call from the leases this process holds, without the database: None admitted, a Refusal if a
        limit's window is known to be used up, else ASK_THE_DATABASE (then `charge`)."""
        with self._lock:
            if not checks or self._take(checks, now):
                return None
            refused = self._used_up(checks, now)
        if refused is None:
            return ASK_THE_DATABASE
        RATE_LIMITED.labels(refused.check.scope, refused.check.kind).inc()
        return refused

    def charge(self, checks: list[Check], now: dt.datetime) -> Refusal | None:
        """Admits one call under every check (None) or refuses it (what to wait for); a refused call uses up nothing."""
        if not checks:
            return None
        for _ in range(CLAIM_ROUNDS):
            with self._lock:
                if self._take(checks, now):
                    return None
                refused = self._used_up(checks, now)
                short = [check for check in checks if not self._covers(check, now)]
            if refused is not None:
                break
            claimed = self._claim(short, now)
            with self._lock:
                self._keep(claimed, now)
                if self._take(checks, now):
                    return None
            # Another thread used up a lease that covered this call while the claim ran: the next round claims that one
            # too (the database, not this race, decides when a limit is reached)
        else:
            refused = Refusal(1, checks[0])  # every round's claim was taken by other threads at once: ask to retry
        RATE_LIMITED.labels(refused.check.scope, refused.check.kind).inc()
        return refused

    def _keep(self, claimed: dict[Check, _Lease], now: dt.datetime) -> None:
        """Adds what a claim got to the leases held (under the lock)."""
        if len(self._leases) > PRUNE_ABOVE:  # one lease per holder seen: forget those whose window is over
            self._leases = {key: lease for key, lease in self._leases.items() if now < lease.ends}
        for check, lease in claimed.items():
            held = self._leases.get(check.key)
            if held is not None and held.ends == lease.ends:  # another thread claimed in this window meanwhile
                held.left, held.last = held.left + lease.left, held.last or lease.last
            else:
                self._leases[check.key] = lease

    def _covers(self, check: Check, now: dt.datetime) -> bool:
        lease = self._leases.get(check.key)
        return lease is not None and lease.left > 0 and now < lease.ends

    def _used_up(self, checks: list[Check], now: dt.datetime) -> Refusal | None:
        for check in checks:
            lease = self._leases.get(check.key)
            if lease is not None and lease.last and lease.left <= 0 and now < lease.ends:
                return Refusal(throttle.seconds_left(check.limit, lease.ends - WINDOW, now), check)
        return None

    def _take(self, checks: list[Check], now: dt.datetime) -> bool:
        if not all(self._covers(check, now) for check in checks):
            return False
        for check in checks:
            self._leases[check.key].left -= 1
        return True

    def _claim(self, checks: list[Check], now: dt.datetime) -> dict[Check, _Lease]:
        """One short transaction: a lease for each check, as much of it as the database still grants (maybe none)."""
        claimed = {}
        with self.db.unit_of_work() as session:
            for check in checks:
                counted, started = throttle.count(session, check.limit, check.holder, check.lease, now)
                granted = max(0, min(check.lease, check.limit.attempts - (counted - check.lease)))
                claimed[check] = _Lease(granted, started + WINDOW, last=granted < check.lease)
        return claimed


def refusal(spec: ToolSpec, refused: Refusal) -> str:
    what = {"calls": "Aufrufe", "writes": "Änderungen"}[refused.check.kind]
    whose = {"person": "für dieses Konto", "client": "für diese Anwendung", "office": "für dieses Maklerbüro"}[refused.check.scope]
    return f"{spec.title}: zu viele {what} {whose} in der letzten Minute; bitte in {refused.wait} Sekunden erneut versuchen."
