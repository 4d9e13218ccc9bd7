"""Which rights an account may hold on which server, and the Principal a verified token stands for."""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import ORMExecuteState, Session

from contract.rights import Right, ServerName
from contract.servers import SERVERS
from shared.auth import throttle
from shared.auth.passwords import hash_password, verify_password
from shared.auth.models import IssuedToken, OAuthClient, OAuthGrant
from shared.auth.principal import Principal
from shared.auth.tokens import AccessGrant, access_grant, valid_access_token
from shared.db.models import OfficeMember, User, utcnow
from shared.db.session import Database
from shared.matching.notify import held_weakly, notify_all
from shared.telemetry.metrics import LOGINS

SERVER_TITLES: dict[ServerName, str] = {name: server.title for name, server in SERVERS.items()}


@dataclass(frozen=True)
class Account:
    """A user with the office membership that decides their rights, read in one session."""

    user_id: int
    email: str
    name: str
    kind: str  # seeker | broker
    office_id: int | None
    office_role: str | None


def server_rights(server: ServerName) -> tuple[Right, ...]:
    """The rights a token for `server` can carry, in the order of the rights table (public access is none)."""
    return tuple(right for right in SERVERS[server].rights if right.scope is not None)


def server_scopes(server: ServerName) -> list[str]:
    return SERVERS[server].scopes


def allowed_scopes(account: Account, server: ServerName) -> frozenset[str]:
    """Brokers of an office hold the broker rights, seekers the seeker rights; nobody holds both."""
    if server is ServerName.broker:
        eligible = account.kind == "broker" and account.office_id is not None
    else:
        eligible = account.kind == "seeker"
    return frozenset(server_scopes(server)) if eligible else frozenset()


def account_of(session: Session, user: User | None) -> Account | None:
    if user is None:
        return None
    membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user.id))
    return Account(
        user_id=user.id,
        email=user.email,
        name=user.name,
        kind=user.kind,
        office_id=membership.office_id if membership else None,
        office_role=membership.role if membership else None,
    )


@dataclass(frozen=True)
class TokenHolder:
    """What a valid access token stands for: its grant, its user's account, when it expires, and the redirect URIs its
    OAuth client registered (None: no registration stored here, as for a metadata document's client)."""

    access: AccessGrant
    account: Account
    expires_at: dt.datetime
    redirect_uris: tuple[str, ...] | None


def account_of_token(session: Session, token: str) -> TokenHolder | None:
    """The grant behind a valid access token, its user's account, its expiry and its client's registration, in one
    statement."""
    row = session.execute(
        valid_access_token(
            token, IssuedToken.expires_at, User.email, User.name, User.kind, OfficeMember.office_id, OfficeMember.role, OAuthClient.registration
        )
        .join(User, User.id == OAuthGrant.user_id)
        .outerjoin(OfficeMember, OfficeMember.user_id == User.id)
        .outerjoin(OAuthClient, OAuthClient.client_id == OAuthGrant.client_id)
    ).one_or_none()
    if row is None:
        return None
    account = Account(user_id=row.user_id, email=row.email, name=row.name, kind=row.kind, office_id=row.office_id, office_role=row.role)
    registered = row.registration.get("redirect_uris") if isinstance(row.registration, dict) else None
    redirect_uris = tuple(str(uri) for uri in registered) if isinstance(registered, list) else None
    return TokenHolder(access_grant(row), account, row.expires_at, redirect_uris)


# What a token stands for is read from these tables: a committed write to any of them (a revocation, a rotated token,
# a password change, a left office, a deleted account) tells every cache of principals (shared.auth.resource).
ACCESS_MODELS = (OAuthGrant, IssuedToken, User, OfficeMember)
ACCESS_CHANGED = "access_changed"  # the event of the NOTIFY that tells the other instances and workers
_CHANGED = "athaus_access_changed"  # session.info: this transaction wrote one of ACCESS_MODELS (and notified)


def watch_access_changes(db: Database, changed: Callable[[], None]) -> None:
    """`changed()` after every committed unit of work of `db` that wrote one of ACCESS_MODELS; on PostgreSQL the same
    transaction notifies (delivered on commit only) the listeners of every instance (shared.matching.notify).

    The session listeners are registered once per database, however many caches watch it; a bound method is held
    weakly, so a cache that is gone (an app of a finished test) is neither called nor kept alive."""
    watchers = db.extension("access_watchers", lambda: _register_access_listeners(db))
    watchers.append(held_weakly(changed))


def _register_access_listeners(db: Database) -> list[Callable[[], Callable[[], None] | None]]:
    watchers: list[Callable[[], Callable[[], None] | None]] = []

    def wrote(session: Session) -> None:
        if not session.info.get(_CHANGED):
            session.info[_CHANGED] = True
            notify_all(session, [{"event": ACCESS_CHANGED}])

    def after_flush(session: Session, _context: Any) -> None:
        if any(isinstance(row, ACCESS_MODELS) for rows in (session.new, session.dirty, session.deleted) for row in rows):
            wrote(session)

    def bulk(state: ORMExecuteState) -> None:
        if (state.is_update or state.is_delete) and any(mapper.class_ in ACCESS_MODELS for mapper in state.all_mappers):
            wrote(state.session)

    def after_commit(session: Session) -> None:
        if not session.info.get(_CHANGED):  # every watcher of this database hears it; the transaction's end forgets it
            return
        for ref in list(watchers):
            callback = ref()
            if callback is None:
                watchers.remove(ref)
            else:
                callback()

    def after_transaction_end(session: Session, transaction: Any) -> None:
        if transaction.parent is None:
            session.info.pop(_CHANGED, None)

    db.listen_writes("after_flush", after_flush)
    db.listen_writes("do_orm_execute", bulk)
    db.listen_writes("after_commit", after_commit)
    db.listen_writes("after_transaction_end", after_transaction_end)
    return watchers


def account_by_email(session: Session, email: str) -> Account | None:
    """E-mail addresses are compared case-insensitively: people type them either way."""
    return account_of(session, session.scalar(select(User).where(func.lower(User.email) == email.strip().lower())))


def build_principal(
    account: Account, scopes: Iterable[str], server: ServerName, resource: str, client_id: str | None, *, card_host: bool = False
) -> Principal:
    """The caller behind a valid token; rights the account may no longer hold (e.g. it left its office) are dropped.
    `card_host`: the token's client is registered as a host that shows the confirmation card (shared.auth.card_hosts)."""
    return Principal(
        user_id=account.user_id,
        kind=account.kind,
        office_id=account.office_id,
        office_role=account.office_role,
        scopes=frozenset(scopes) & allowed_scopes(account, server),
        resource=resource,
        client_id=client_id,
        card_host=card_host,
    )


@functools.lru_cache(maxsize=1)
def _decoy_hash() -> str:
    return hash_password("decoy")


def check_credentials(db: Database, email: str, password: str) -> int | None:
    """The account id for this e-mail and password, or None. An unknown address is verified against a decoy hash, so
    its answer takes as long as a wrong password's and tells nothing about which addresses exist."""
    with db.read_only() as session:
        found = session.execute(select(User.id, User.password_hash).where(func.lower(User.email) == email.strip().lower())).one_or_none()
    if found is None:
        verify_password(password, _decoy_hash())
        return None
    return found.id if verify_password(password, found.password_hash) else None


@dataclass(frozen=True)
class SignIn:
    """The outcome of a login form: the account, or a wrong password, or too many attempts (seconds to wait)."""

    user_id: int | None
    retry_after: int | None = None


def guarded(db: Database, checks: list[tuple[throttle.Limit, str]]) -> int | None:
    """Counts one attempt of a password form under its throttle keys before any hash is computed (own transaction);
    the seconds to wait if the form is used up, else None."""
    with db.unit_of_work() as session:
        return throttle.attempt(session, checks, utcnow())


security_log = logging.getLogger("athaus.security")


def sign_in(db: Database, email: str, password: str, address: str, known_device: bool = False) -> SignIn:
    """Every login form (sign-in pages, web app): counted first, then verified (bounded hash work), a success gives
    its count back. The address is counted first and an address over its limit stops there, without using up the
    account's attempts; a known device (shared.auth.devices) counts under its own limit, so a person still signs in
    from their own browser while others' wrong passwords lock the account. Blocking: call it through
    `shared.auth.passwords.hashing`. One `security_event` log line each: the outcome and, on success, the account's
    internal id (never the address typed or the password)."""
    checks = throttle.login_checks(email, address, known_device)
    for check in checks:
        wait = guarded(db, [check])
        if wait is not None:
            login_event("throttled")
            return SignIn(None, wait)
    user_id = check_credentials(db, email, password)
    if user_id is not None:
        with db.unit_of_work() as session:
            throttle.refund(session, checks)
    if user_id is not None:
        login_event("ok", by_user=user_id)
    else:
        login_event("wrong_password")
    return SignIn(user_id)


def login_event(outcome: str, **fields: object) -> None:
    """The one place a login's outcome is told: its `security_event` log line and the operator's count of logins."""
    security_log.info(json.dumps({"event": "security_event", "action": "login", "outcome": outcome, **fields}))
    LOGINS.labels(outcome).inc()
