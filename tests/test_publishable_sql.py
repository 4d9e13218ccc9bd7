"""The blocking rules of the publishing check exist twice, in Python (`blocking_rules`, with its sentences) and in SQL
(`failing_conditions`, to filter and count the office's stock in the database). Both must say the same of every
listing, on every day: compared here rule by rule over the whole demo catalog (every office's stock, every
status), on the demo's today and on days that move certificates across their expiry, and on rows built to sit on
each edge of a rule.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from sqlalchemy import case, select

from contract.broker_stock import CheckRule
from shared.db.models import Listing
from shared.db.session import Database
from shared.publishing import failed_blocking_rules, failing_conditions, publishable_condition
from tests.conftest import FIXED_NOW
from tests.test_publishing_rules import listing

TODAY = FIXED_NOW.date()


def sql_verdicts(db: Database, today: dt.date, *where: Any) -> dict[str, set[CheckRule]]:
    """Per listing: the blocking rules SQL says it fails on `today`."""
    conditions = failing_conditions(today)
    columns = [case((condition, 1), else_=0).label(rule.value) for rule, condition in conditions.items()]
    with db.read_only() as session:
        rows = session.execute(select(Listing.ref, *columns).where(*where)).all()
    return {row.ref: {rule for rule in conditions if getattr(row, rule.value)} for row in rows}


def python_verdicts(db: Database, today: dt.date, *where: Any) -> dict[str, set[CheckRule]]:
    with db.read_only() as session:
        return {listing.ref: {r.rule for r in failed_blocking_rules(listing, today)} for listing in session.scalars(select(Listing).where(*where))}


def refs_where(db: Database, condition: Any) -> set[str]:
    with db.read_only() as session:
        return set(session.scalars(select(Listing.ref).where(condition)))


@pytest.mark.parametrize("days", [0, -400, 400], ids=["today", "a year earlier", "a year later"])
def test_sql_and_python_fail_the_same_rules_on_every_listing(demo_db: Database, days: int) -> None:
    today = TODAY + dt.timedelta(days=days)
    in_sql, in_python = sql_verdicts(demo_db, today), python_verdicts(demo_db, today)
    assert len(in_sql) == len(in_python) > 2000
    differing = {ref: (in_sql[ref], in_python[ref]) for ref in in_python if in_sql[ref] != in_python[ref]}
    assert differing == {}
    assert refs_where(demo_db, publishable_condition(False, today)) == {ref for ref, failed in in_python.items() if failed}
    assert refs_where(demo_db, publishable_condition(True, today)) == {ref for ref, failed in in_python.items() if not failed}


def test_the_demo_catalog_fails_every_rule_somewhere_and_expiry_moves_with_the_day(demo_db: Database) -> None:
    """Without listings on both sides of every rule the comparison above would prove little."""
    failed = {rule for rules in python_verdicts(demo_db, TODAY).values() for rule in rules}
    assert failed >= {CheckRule.energy_certificate, CheckRule.description, CheckRule.photos}
    now = refs_where(demo_db, publishable_condition(False, TODAY))
    later = refs_where(demo_db, publishable_condition(False, TODAY + dt.timedelta(days=400)))
    assert now < later, "certificates that are valid today have expired a year later"


EDGES: list[dict[str, Any]] = [
    {},
    {"title": " \t"},
    {"title": "\xa0Villa"},
    {"description": "x" * 199 + "  \n"},
    {"description": " " + "x" * 200},
    {"description": "Ein DENKMAL " + "x" * 200, "energy_status": "not_required"},
    {"title": "Baudenkmal am Markt", "energy_status": "not_required"},
    {"title": "Denk mal nach", "energy_status": "not_required"},
    {"energy_status": "not_required", "property_type": "parking", "living_area": None, "rooms": None},
    {"energy_status": "at_viewing"},
    {"energy_status": "missing", "property_type": "land", "living_area": None, "rooms": None},
    {"energy_class": ""},
    {"energy_class": None, "property_type": "commercial"},
    {"energy_carrier": ""},
    {"energy_valid_until": TODAY},
    {"energy_valid_until": TODAY - dt.timedelta(days=1)},
    {"energy_valid_until": None},
    {"price": None, "price_on_request": True},
    {"price": 0.0, "price_on_request": False},
    {"living_area": 0.0},
    {"rooms": None, "property_type": "commercial"},
    {"photos": []},
    {"photos": None},
    {"photos": {"url": "x"}},
]


def edge_listing(number: int, changes: dict[str, Any]) -> Listing:
    """The complete listing of the rule tests, with what a row needs besides, and `changes` on one rule's edge."""
    stored = {"id": None, "ref": f"Z-{number:07d}", "office_id": 1, "postal_code": "04109", "city_key": "leipzig", "state": "Sachsen"}
    valid = {"energy_valid_until": TODAY + dt.timedelta(days=30)}
    return listing(**stored, latitude=51.34, longitude=12.37, **{**valid, **changes})


def test_sql_and_python_agree_on_the_edges_of_every_rule(scratch_db: Database) -> None:
    with scratch_db.unit_of_work() as session:
        session.add_all(edge_listing(n, changes) for n, changes in enumerate(EDGES))
    edges = Listing.ref.like("Z-%")
    in_python = python_verdicts(scratch_db, TODAY, edges)
    assert sql_verdicts(scratch_db, TODAY, edges) == in_python
    assert in_python["Z-0000000"] == set() and in_python["Z-0000003"] == {CheckRule.description}
    assert in_python["Z-0000005"] == set() and in_python["Z-0000007"] == {CheckRule.energy_certificate}
    assert in_python["Z-0000015"] == {CheckRule.energy_certificate} and in_python["Z-0000014"] == set()
