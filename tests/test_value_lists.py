"""`shared.db.value_lists.one_of`: "one of these values" bound as one parameter, on the suite's database (SQLite, or
PostgreSQL with ATHAUS_TEST_DATABASE_URL): the same rows as `IN (…)`, and one statement whatever the list's length."""

from __future__ import annotations

from sqlalchemy import event, select

from shared.db.models import ListingTerm
from shared.db.session import Database
from shared.db.value_lists import one_of


def _terms(db: Database, values: list[str]) -> tuple[list[str], list[str]]:
    """The terms found by one_of and by a plain IN over the same values."""
    with db.read_only() as session:
        found = session.scalars(select(ListingTerm.term).where(one_of(session, ListingTerm.term, values)).distinct().order_by(ListingTerm.term))
        plain = session.scalars(select(ListingTerm.term).where(ListingTerm.term.in_(values)).distinct().order_by(ListingTerm.term))
        return list(found), list(plain)


def test_one_of_finds_exactly_the_listed_values(demo_db: Database) -> None:
    values = ["balkon", "garten", "keller", "gibtesnicht", "balk", "o'brien", "100 %", "straße", ""]
    found, plain = _terms(demo_db, values)
    assert found == plain == ["balkon", "garten", "keller"]


def test_one_of_an_empty_list_finds_nothing(demo_db: Database) -> None:
    assert _terms(demo_db, []) == ([], [])


def test_one_of_sends_one_statement_text_whatever_the_lists_length(demo_db: Database) -> None:
    sent: list[str] = []
    listener = lambda *args: sent.append(args[2])  # noqa: E731 (before_cursor_execute: conn, cursor, statement, …)
    event.listen(demo_db.engine, "before_cursor_execute", listener)
    try:
        _terms(demo_db, ["balkon"])
        _terms(demo_db, [f"wort{i}" for i in range(600)])
    finally:
        event.remove(demo_db.engine, "before_cursor_execute", listener)
    sent = [statement for statement in sent if statement.startswith("SELECT")]  # SQLite's BEGIN aside
    short, long = sent[0], sent[2]  # each call sends one_of's statement first, then the plain IN
    assert short == long and len(short) < 400
    assert sent[1] != sent[3] and len(sent[3]) > 1_500  # the plain IN: a statement per length, 600 placeholders long
