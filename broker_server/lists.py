"""What the office's three lists (inquiries, valuations, proposals) share: each pages with the account walk
(`shared.paging.walk`) owned by the office, echoes the walk's reference time with the request, says when the
office's rows last changed, and suggests dropping one filter at a time."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from contract.envelope import EffectiveValue, Freshness, Suggestion, ValueSource
from shared.db.scoped import OfficeData
from shared.paging.walk import Walk
from shared.runtime.envelope import effective_request


def office_key(office: OfficeData) -> str:
    """The owner of an office's walks: a cursor of one office is refused for another."""
    return f"office:{office.office_id}"


def request_of(args: BaseModel, walk_: Walk, implied: dict[str, Any]) -> dict[str, EffectiveValue]:
    request = effective_request(args, implied, exclude={"cursor"})
    request["as_of"] = EffectiveValue(value=walk_.as_of, source=ValueSource.cursor if walk_.from_cursor else ValueSource.default)
    return request


def freshness(session: Session, columns: list[Any], walk_: Walk, family: str) -> Freshness:
    """When this office's rows of `family` last changed (the walk's reference time if it has none)."""
    changed = [v for v in (session.scalar(c) for c in columns) if v is not None]
    return Freshness(data_as_of=max(changed, default=walk_.as_of), snapshot=f"{family}-{walk_.fingerprint}")


def removal(name: str, reason: str) -> Suggestion:
    """The suggestion to call again without the filter `name`."""
    return Suggestion(arguments={name: None}, reason=reason)
