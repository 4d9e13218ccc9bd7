"""The capped count of a prefix or a word with other spellings counts each exact index term it stands for, up to the
cap, and unites them (shared.catalog.spelled, engine.count_up_to). The union must give the same answer as one count
over the whole match: the exact total below the cap, the honest lower bound at and above it. Checked against
count_listings (which always counts the whole match at once) for queries that are spelled out and for queries that
are not, with the cap set just below, at and just above each exact number, on the backend of the run."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session

from contract.catalog import SearchListingsInput
from shared.catalog import search as engine
from shared.catalog.query import Clause, ParsedQuery, Term, parse
from shared.catalog.scope import PublicScope
from shared.catalog.spelled import spelled_out
from shared.db.session import Database
from shared.runtime.read_cache import forget_all
from tests.conftest import Caller

# query -> how many alternatives the count unites in the demo catalog (1: not spelled out)
QUERIES = {
    "Dachgeschoss*": 2,  # dachgeschoss, dachgeschosswohnung
    "Dachgeschoss* Balkon": 2,
    "Dachgeschoss* OR Garten": 3,
    "Dachgeschoss* -Balkon": 2,  # the exclusion stays whole in each alternative
    "Wohn*": 6,
    "Sch*": 1,  # more index terms than alternatives allowed: counted over every posting at once
    "Balkon": 1,
}


def _exact(search: Caller, query: str) -> int:
    return search("count_listings", {"query": query, "facets": []})["total"]


@pytest.mark.parametrize("query", QUERIES)
def test_the_count_unites_the_alternatives_it_was_meant_to(demo_db: Database, query: str) -> None:
    with Session(demo_db.engine) as session:
        scope = PublicScope(session, SearchListingsInput(query=query))
        assert len(scope.count_alternatives(session)) == QUERIES[query]


@pytest.mark.parametrize("query", QUERIES)
def test_the_spelled_out_count_is_exact_below_the_cap_and_a_lower_bound_from_it(
    query: str, search: Caller, monkeypatch: pytest.MonkeyPatch
) -> None:
    exact = _exact(search, query)
    assert exact > 2
    for cap, expected in (
        (exact + 1, (exact, True, None)),
        (exact, (None, False, exact)),
        (exact - 1, (None, False, exact - 1)),
    ):
        monkeypatch.setattr(engine, "COUNT_CAP", cap)
        forget_all()  # the cap is a deployment's constant: an answer kept under another cap is not this one's
        found = search("search_listings", {"query": query, "limit": 1})
        assert (found["total"], found["total_exact"], found["total_at_least"]) == expected, cap


def test_a_prefix_without_any_term_in_the_index_counts_nothing(demo_db: Database, search: Caller) -> None:
    with Session(demo_db.engine) as session:
        scope = PublicScope(session, SearchListingsInput(query="Qxzyw*"))
        assert scope.count_alternatives(session) == []
    found = search("search_listings", {"query": "Qxzyw*"})
    assert (found["total"], found["total_exact"], found["returned"]) == (0, True, 0)


# --- spelled_out alone ----------------------------------------------------------------------------------------

INDEX = {"dach": ["dach", "dachgeschoss"], "alt": ["altbau"], "leer": []}


def _lookup(term: Term) -> list[str] | None:
    return INDEX.get(term.text)


def _texts(alternatives: list[ParsedQuery] | None) -> list[list[list[tuple[str, ...]]]] | None:
    if alternatives is None:
        return None
    return [[[tuple(t.text for t in c.terms) for c in group] for group in a.groups] for a in alternatives]


def test_each_prefix_becomes_its_exact_terms_and_alternatives_multiply() -> None:
    assert _texts(spelled_out(parse("dach* alt*"), _lookup)) == [
        [[("dach",), ("altbau",)]],
        [[("dachgeschoss",), ("altbau",)]],
    ]


def test_or_groups_are_spelled_out_each_on_its_own() -> None:
    assert _texts(spelled_out(parse("leer* OR dach*"), _lookup)) == [[[("dach",)]], [[("dachgeschoss",)]]]


def test_a_word_with_other_spellings_is_spelled_out_too() -> None:
    parsed = ParsedQuery(groups=[[Clause(terms=(Term("dg", also=("dachgeschoss",)),), typed="DG")]])
    assert _texts(spelled_out(parsed, _lookup)) == [[[("dg",)]], [[("dachgeschoss",)]]]


def test_exclusions_and_hyphenated_words_stay_whole() -> None:
    parsed = parse("dach* -alt*")
    alternatives = spelled_out(parsed, _lookup)
    assert alternatives is not None and len(alternatives) == 2
    assert all(a.groups[0][1] == parsed.groups[0][1] for a in alternatives)


def test_nothing_to_spell_out_too_many_or_unknown_gives_none() -> None:
    assert spelled_out(parse("Balkon Garten"), _lookup) is None
    assert spelled_out(parse("dach* dach* dach* dach*"), _lookup) is None  # 16 alternatives > 8
    assert spelled_out(parse("wohn*"), _lookup) is None  # the lookup cannot name them
    assert spelled_out(parse("leer*"), _lookup) == []  # no listing can match
