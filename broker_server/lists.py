"""What the office's lists share: each is limited to the office of the login and echoes it (`office_scope`); the
three account lists (inquiries, valuations, proposals) page with the account walk (`shared.paging.walk`) owned by
the office, echo the walk's reference time with the request, say when the office's rows last changed, and suggest
dropping one filter at a time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from broker_server.lookups import office_name
from contract.envelope import EffectiveValue, Freshness, Suggestion, ValueSource
from shared.db.scoped import OfficeData
from shared.paging.walk import Walk
from shared.runtime.envelope import effective_request


def office_key(office: OfficeData) -> str:
    """The owner of an office's walks: a cursor of one office is refused for another."""
    return f"office:{office.office_id}"


def office_scope(session: Session, office: OfficeData) -> dict[str, EffectiveValue]:
    """The office an answer is limited to, as the login gives it: by its name, never by an internal id."""
    return named_scope(office_name(session, office))


def named_scope(name: str) -> dict[str, EffectiveValue]:
    """`office_scope` with the office's name read by another statement of the call."""
    return {"office": EffectiveValue(value=name, source=ValueSource.login)}


def request_of(args: BaseModel, walk_: Walk, implied: dict[str, Any], scope: dict[str, EffectiveValue]) -> dict[str, EffectiveValue]:
    """The executed request of a walk: every argument, the walk's reference time, and the office (`office_scope`)."""
    request = effective_request(args, implied, exclude={"cursor"})
    request["as_of"] = EffectiveValue(value=walk_.as_of, source=ValueSource.cursor if walk_.from_cursor else ValueSource.default)
    return {**request, **scope}


def freshness(walk_: Walk, family: str) -> Freshness:
    """The data as of the walk's reference time: when the first page read it (a later page reads the same state).
    Not the newest row's time: "Datenstand 01.11." on 1 December would say the list is a month old."""
    return Freshness(data_as_of=walk_.as_of, snapshot=f"{family}-{walk_.fingerprint}")


def removal(name: str, reason: str) -> Suggestion:
    """The suggestion to call again without the filter `name`."""
    return Suggestion(arguments={name: None}, reason=reason)
