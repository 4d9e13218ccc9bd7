"""Every read of a seeker's personal data by a broker writes an audit line: when, who, which office, which client,
which tool, which record. Public catalog reads write none."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from contract.rights import ServerName
from search_server.server import DEFINITION as SEARCH
from shared.audit import PersonalDataRead
from shared.auth.access import account_by_email, build_principal
from shared.auth.principal import Principal
from shared.db.session import Database
from shared.db.models import utcnow
from tests.conftest import Caller, make_context

OWNER = "inhaberin@athaus-demo.example"
RESOURCE = "http://127.0.0.1:8000/makler/mcp"


@pytest.fixture
def owner(scratch_db: Database) -> Principal:
    with scratch_db.read_only() as session:
        account = account_by_email(session, OWNER)
        assert account is not None
        return build_principal(account, ["makler:lesen"], ServerName.broker, RESOURCE, "client-of-the-test")


@pytest.fixture
def broker(scratch_db: Database, owner: Principal) -> Iterator[Caller]:
    yield Caller(BROKER, make_context(scratch_db), owner)


def audit_lines(db: Database) -> list[PersonalDataRead]:
    with db.read_only() as session:
        lines = list(session.scalars(select(PersonalDataRead).order_by(PersonalDataRead.id)))
        session.expunge_all()
        return lines


def test_a_broker_reading_an_inquiry_writes_exactly_one_line(scratch_db: Database, broker: Caller, owner: Principal) -> None:
    listed = broker("search_inquiries", {"limit": 1})
    ref = listed["items"][0]["inquiry_id"]
    before = len(audit_lines(scratch_db))
    started = utcnow()
    detail = broker("get_inquiry", {"inquiry_id": ref})
    assert detail["seeker"]  # the shared profile is in the result
    lines = audit_lines(scratch_db)[before:]
    assert len(lines) == 1
    line = lines[0]
    assert (line.user_id, line.office_id, line.client_id, line.tool, line.record_ref) == (
        owner.user_id,
        owner.office_id,
        "client-of-the-test",
        "get_inquiry",
        ref,
    )
    assert started - dt.timedelta(seconds=1) <= line.at <= utcnow() + dt.timedelta(seconds=1)


def test_search_inquiries_writes_one_line_per_inquiry_shown_with_a_name(scratch_db: Database, broker: Caller) -> None:
    before = len(audit_lines(scratch_db))
    listed = broker("search_inquiries", {"limit": 3})
    lines = audit_lines(scratch_db)[before:]
    named = [item["inquiry_id"] for item in listed["items"] if isinstance(item["seeker_name"], str)]
    assert named and [(line.tool, line.record_ref) for line in lines] == [("search_inquiries", ref) for ref in named]


def test_public_catalog_reads_and_refused_reads_write_none(scratch_db: Database, broker: Caller, owner: Principal) -> None:
    search = Caller(SEARCH, make_context(scratch_db))
    search("search_listings", {"city": "Leipzig"})
    search("count_listings", {"city": "Leipzig"})
    broker("search_listings", {})
    broker.as_(replace(owner, scopes=frozenset())).raw("get_inquiry", {"inquiry_id": "I-000001"})  # MISSING_RIGHT
    broker.error("get_inquiry", {"inquiry_id": "I-999999"})  # not found: nothing was read
    assert audit_lines(scratch_db) == []
