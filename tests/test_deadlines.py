"""Every call has a deadline and full text has a bounded cost: caps on words and phrase length, a plan that does not
grow with them, the database statement cancelled past the deadline (statement timeout on PostgreSQL, progress
handler on SQLite) and TIME_BUDGET_EXCEEDED as the answer."""

from __future__ import annotations

import dataclasses
import time

import pytest

from search_server.server import DEFINITION as SEARCH
from shared.catalog.query import MAX_PHRASE_WORDS, MAX_TERMS
from shared.db.session import Database
from shared.runtime import failures
from shared.settings import Settings
from tests.conftest import Caller, make_context

WORDS = ["wohnung", "balkon", "garten", "keller", "aufzug", "altbau", "parkett", "terrasse", "garage", "kamin", "dachterrasse", "einbaukueche", "stellplatz", "fussbodenheizung"]


def _caller(db: Database, deadline: float) -> Caller:
    context = make_context(db)
    settings = Settings(database_url=str(db.engine.url), call_deadline_seconds=deadline)
    return Caller(SEARCH, dataclasses.replace(context, settings=settings))


def test_at_most_max_terms_words(search: Caller) -> None:
    search("search_listings", {"query": " ".join(WORDS[:MAX_TERMS]), "limit": 1})
    code, message = search.error("search_listings", {"query": " ".join(WORDS[: MAX_TERMS + 1]), "limit": 1})
    assert code == "INVALID_ARGUMENT"
    assert message == (
        "query hat 13 Suchwörter, gesucht werden höchstens 12: bitte auf die wichtigsten Wörter kürzen (Ort, Preis, Zimmer "
        "und Ausstattung haben eigene Filter) und erneut aufrufen."
    )


def test_at_most_max_phrase_words_in_a_phrase(search: Caller) -> None:
    search("search_listings", {"query": '"' + " ".join(WORDS[:MAX_PHRASE_WORDS]) + '"', "limit": 1})
    code, message = search.error("search_listings", {"query": '"' + " ".join(WORDS[: MAX_PHRASE_WORDS + 1]) + '"', "limit": 1})
    assert code == "INVALID_ARGUMENT"
    assert message.startswith('Die Phrase "wohnung balkon garten keller aufzug altbau parkett" in query hat 7 Wörter')


def test_sixty_five_words_are_refused_not_internal(search: Caller) -> None:
    code, _ = search.error("search_listings", {"query": '"' + " ".join(["haus"] * 65) + '"'})
    assert code == "INVALID_ARGUMENT"


def test_a_long_phrase_costs_about_what_a_short_one_does(search: Caller) -> None:
    """The plan does not grow with the phrase: six words of a phrase that occurs cost no more than a few times two."""

    def timed(query: str) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            search("count_listings", {"query": query})
            best = min(best, time.perf_counter() - started)
        return best

    short = timed('"wohnung mit balkon"')
    long = timed('"' + " ".join(["wohnung"] * MAX_PHRASE_WORDS) + '"')
    assert long < max(10 * short, 0.5), (short, long)


def test_past_the_deadline_the_answer_is_time_budget_exceeded(demo_db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """The statement runs past the work's deadline (here 1 ms of the 2 s: the rest is the answer's reserve) and is
    cancelled; the thread returns within the deadline, so the answer says why."""
    monkeypatch.setattr(failures, "RESERVE_SHARE", 0.9995)
    tiny = _caller(demo_db, 2)
    code, message = tiny.error("search_listings", {"query": "Wohnung OR Balkon OR Garten OR Keller"})
    assert code == "TIME_BUDGET_EXCEEDED"
    assert message.startswith("Die Anfrage hat länger gedauert als die erlaubten 2 Sekunden und wurde abgebrochen: bitte enger fragen")


def test_the_answer_reserve_is_a_fifth_of_the_deadline_and_at_most_two_seconds() -> None:
    assert [failures.answer_reserve(seconds) for seconds in (1, 5, 10, 600)] == [0.2, 1.0, 2.0, 2.0]


def test_within_the_deadline_the_same_search_answers(demo_db: Database) -> None:
    result = _caller(demo_db, 10)("search_listings", {"query": "Wohnung OR Balkon OR Garten OR Keller", "limit": 1})
    assert result["returned"] == 1
