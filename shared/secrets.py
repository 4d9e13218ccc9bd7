"""Deployment secrets: from settings, or created once and kept in the database (shared by all instances).

A stored secret can be rotated (`rotate_secret`, `athaus admin secret rotate`): the new value signs from the next
start of each instance on, and the previous one stays under `<name>:previous` with the time it retires, so what it
signed (sign-in steps, CSRF tokens, MCP session ids, paging cursors) is still accepted until then: nobody who should
stay signed in is logged out. Web sessions and OAuth tokens are random values stored as hashes, not signed, so a
rotation never touches them."""

from __future__ import annotations

import datetime as dt
import secrets

from sqlalchemy import bindparam, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from shared.db.models import ServerSecret


_VALUE = select(ServerSecret.value).where(ServerSecret.name == bindparam("name"))  # built once

# The secrets the deployment keeps for itself, with what each signs (the CLI lists them).
ROTATABLE = {
    "oauth": "Anmeldeschritte, CSRF-Marken der Anmeldeseiten und der Web-App, MCP-Sitzungskennungen",
    "cursor": "Blätter-Marken (cursor) der Werkzeuge",
    "confirmations": "Bestätigungslinks vorbereiteter Aktionen",
    "pseudonym": "Pseudonyme in Logs und Spans (ohne Überlappung: ab dem Neustart neue Pseudonyme)",
}
DEFAULT_OVERLAP = dt.timedelta(hours=24)


class Secret(str):
    """A secret's current value (as the plain string) with the previous values still accepted and when they retire."""

    previous: tuple[tuple[str, dt.datetime], ...] = ()

    @classmethod
    def of(cls, value: str, previous: tuple[tuple[str, dt.datetime], ...] = ()) -> Secret:
        secret = cls(value)
        secret.previous = previous
        return secret

    def accepted(self, now: dt.datetime) -> list[str]:
        """The values a signature may be made with at `now`: the current first, then those not yet retired."""
        return [str(self), *(value for value, retires in self.previous if retires > now)]


def ensure_secret(session: Session, name: str) -> str:
    """The stored secret `name`; the first caller creates it, concurrent callers agree on one value."""
    stored = session.connection().execute(_VALUE, {"name": name}).scalar()
    if stored is not None:  # the common case: one read of the column, no insert on every call
        return str(stored)
    dialect = session.get_bind().dialect.name
    insert = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(ServerSecret)
    session.execute(insert.values(name=name, value=secrets.token_urlsafe(32)).on_conflict_do_nothing(index_elements=["name"]))
    value = session.get(ServerSecret, name)
    assert value is not None
    return value.value


def load_secret(session: Session, name: str, now: dt.datetime) -> Secret:
    """The secret `name` with its previous value while that is still accepted."""
    current = ensure_secret(session, name)
    stored = session.get(ServerSecret, f"{name}:previous")
    if stored is None:
        return Secret.of(current)
    retires, _, value = stored.value.partition(" ")
    retire_at = dt.datetime.fromisoformat(retires)
    return Secret.of(current, ((value, retire_at),) if retire_at > now else ())


def rotate_secret(session: Session, name: str, overlap: dt.timedelta, now: dt.datetime) -> dt.datetime:
    """A new value for `name`; the current one is kept as previous until `now + overlap`, when it retires."""
    if name not in ROTATABLE:
        raise ValueError(name)
    current = ensure_secret(session, name)
    retire_at = now + overlap
    session.execute(delete(ServerSecret).where(ServerSecret.name.in_([name, f"{name}:previous"])))
    session.add(ServerSecret(name=name, value=secrets.token_urlsafe(32)))
    session.add(ServerSecret(name=f"{name}:previous", value=f"{retire_at.isoformat()} {current}"))
    return retire_at
