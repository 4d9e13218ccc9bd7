"""The audit of personal data: every read of a seeker's personal data by a broker (contact data of an inquiry,
the shared profile of a proposal) writes one line: when, who, which office, which client, which tool, which record.

Written before the result is handed out (a failed audit write fails the call), so a read that happened is never
missing from the audit. The lines are kept; nothing here removes them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from sqlalchemy import ForeignKey, Index, String, insert
from sqlalchemy.orm import Mapped, Session, mapped_column

from shared.auth.principal import Principal
from shared.db.models import Base, UTCDateTime, utcnow
from shared.db.session import Database


class PersonalDataRead(Base):
    __tablename__ = "personal_data_reads"
    __table_args__ = (Index("ix_personal_data_reads_office_at", "office_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    office_id: Mapped[int | None] = mapped_column(ForeignKey("offices.id"))
    client_id: Mapped[str | None] = mapped_column(String(500))
    tool: Mapped[str] = mapped_column(String(100))
    record_ref: Mapped[str] = mapped_column(String(40))  # the inquiry or proposal whose personal data was shown


_INSERT_READS = insert(PersonalDataRead.__table__)  # Core executemany: the ORM's bulk insert did per-row work for nothing


def record_reads(
    session: Session, *, user_id: int, office_id: int | None, client_id: str | None, tool: str, refs: list[str], at: dt.datetime | None = None
) -> None:
    """One audit line per record whose personal data a broker is shown, all in one statement (a page of inquiries is
    one round trip, not one per inquiry)."""
    if not refs:
        return
    when = at or utcnow()
    session.execute(
        _INSERT_READS,
        [dict(at=when, user_id=user_id, office_id=office_id, client_id=client_id, tool=tool, record_ref=ref) for ref in refs],
    )


def audit_personal_data(db: Database, caller: Principal | None, tool: str, refs: Sequence[str]) -> None:
    """Writes the audit lines of a read before its result is handed out: no line, no data."""
    if caller is None or not refs:
        return
    with db.unit_of_work() as session:
        record_reads(
            session, user_id=caller.user_id, office_id=caller.office_id, client_id=caller.client_id, tool=tool, refs=list(refs)
        )
