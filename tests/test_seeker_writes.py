"""The seeker's account, written (save_search_order, update_search_order, update_match), and where it meets the broker's
stock: a published listing, a price drop, a status change make Treffer for the saved searches it fits and proposals
for the opted-in seekers, once per event. Through the runtime with real principals, on a demo catalog of its own, on
both backends. Both halves: a fitting search gets a Treffer, a search that does not fit (or is paused) gets none; an
event makes its Treffer once, a repeated request none.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from broker_server.server import DEFINITION as BROKER
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import AuditEntry, ListingEvent, Match, Proposal, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from tests.conftest import Caller, make_context, request_key, seeded_database
from tests.test_stock_writes import broker_principal, complete_fields, request_id

SEEKERS = [a for a in DEMO_ACCOUNTS if a.kind == "seeker"]
SCOPES = frozenset({"suche:konto", "suche:konto.schreiben"})


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("seeker-writes"), "seekerwrites", listings=200) as database:
        yield database


def seeker_principal(db: Database, email: str, scopes: frozenset[str] = SCOPES) -> Principal:
    with db.read_only() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
    return Principal(user_id=user_id, kind="seeker", office_id=None, office_role=None, scopes=scopes, resource="suche", client_id="test-client")


@pytest.fixture(scope="module")
def seeker(db: Database) -> Caller:
    return Caller(SEARCH, make_context(db), seeker_principal(db, SEEKERS[0].email))


@pytest.fixture(scope="module")
def other_seeker(db: Database) -> Caller:
    return Caller(SEARCH, make_context(db), seeker_principal(db, SEEKERS[1].email))


@pytest.fixture(scope="module")
def broker(db: Database) -> Caller:
    return Caller(BROKER, make_context(db), broker_principal(db, 1))


def count(db: Database, model: Any, *where: Any) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def matches_of(db: Database, order_ref: str) -> list[tuple[str, str, dict[str, Any]]]:
    with db.read_only() as session:
        rows = session.execute(
            select(Match.kind, Match.listing_id, Match.detail)
            .join(SearchOrder, Match.search_order_id == SearchOrder.id)
            .where(SearchOrder.ref == order_ref)
            .order_by(Match.id)
        ).all()
    return [(kind, listing_id, detail) for kind, listing_id, detail in rows]


# --- save_search_order, update_search_order, update_match ------------------------------------------------------


def test_a_search_order_is_saved_with_criteria_as_the_catalog_reads_them(seeker: Caller, db: Database) -> None:
    saved = seeker(
        "save_search_order",
        {"criteria": {"marketing_type": "Miete", "city": "leipzig", "min_rooms": 2, "features": ["Balkon"]}, "frequency": "wöchentlich", "request_id": request_key()},
    )
    assert (saved["result"], saved["status"], saved["frequency"], saved["approachable"], saved["replayed"]) == ("created", "active", "weekly", False, False)
    assert saved["criteria"]["city"] == "Leipzig" and saved["criteria"]["marketing_type"] == "rent" and saved["criteria"]["features"] == ["balcony"]
    assert saved["name"] == saved["criteria_text"]
    # listings_now is what search_listings finds with the same criteria
    found = seeker("search_listings", {"marketing_type": "rent", "city": "Leipzig", "min_rooms": 2, "features": ["balcony"], "limit": 1})
    assert saved["listings_now"] == found["total"]
    listed = seeker("list_search_orders", {})
    assert saved["search_order_id"] in [o["search_order_id"] for o in listed["items"]]
    with db.read_only() as session:
        entry = session.scalar(select(AuditEntry).where(AuditEntry.subject_ref == saved["search_order_id"]))
        assert (entry.action, entry.before, entry.client_id) == ("search_order.create", None, "test-client")


def test_a_retry_with_the_same_request_id_creates_one_search_order_and_a_new_one_another(seeker: Caller, db: Database) -> None:
    key = request_id()
    arguments = {"criteria": {"city": "Leipzig", "max_price": 300000}, "request_id": key}
    first = seeker("save_search_order", arguments)
    again = seeker("save_search_order", arguments)
    assert again["search_order_id"] == first["search_order_id"] and (first["replayed"], again["replayed"]) == (False, True)
    assert count(db, SearchOrder, SearchOrder.ref == first["search_order_id"]) == 1
    other = seeker("save_search_order", {**arguments, "request_id": request_id()})
    assert other["search_order_id"] != first["search_order_id"]


def test_a_change_names_what_changed_and_the_same_values_change_nothing(seeker: Caller) -> None:
    ref = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig"}})["search_order_id"]
    changed = seeker("save_search_order", {"request_id": request_key(), "search_order_id": ref, "approachable": True, "frequency": "sofort"})
    assert (changed["result"], sorted(changed["changed_fields"]), changed["approachable"]) == ("changed", ["approachable", "frequency"], True)
    same = seeker("save_search_order", {"request_id": request_key(), "search_order_id": ref, "approachable": True})
    assert (same["result"], same["changed_fields"]) == ("unchanged", [])


def test_bad_criteria_are_errors_naming_them(seeker: Caller) -> None:
    code, text = seeker.error("save_search_order", {"request_id": request_key(), "criteria": {"city": "Xyzzyhausen"}})
    assert code == "INVALID_ARGUMENT" and "Xyzzyhausen" in text
    code, text = seeker.error("save_search_order", {"request_id": request_key(), "criteria": {"query": "~ +"}})
    assert code == "INVALID_ARGUMENT" and "query" in text
    code, text = seeker.error("save_search_order", {"request_id": request_key(), "name": "ohne Kriterien"})
    assert code == "INVALID_ARGUMENT" and "criteria" in text


def test_pause_resume_and_end_and_an_ended_search_stays_ended(seeker: Caller) -> None:
    ref = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig"}})["search_order_id"]
    assert seeker("update_search_order", {"search_order_id": ref, "status": "pausieren"})["status"] == "paused"
    assert seeker("update_search_order", {"search_order_id": ref, "status": "paused"})["result"] == "unchanged"
    assert seeker("update_search_order", {"search_order_id": ref, "status": "active"})["status"] == "active"
    assert seeker("update_search_order", {"search_order_id": ref, "status": "ended"})["status"] == "ended"
    code, text = seeker.error("update_search_order", {"search_order_id": ref, "status": "active"})
    assert code == "CONFLICT" and "save_search_order" in text
    assert seeker.error("save_search_order", {"request_id": request_key(), "search_order_id": ref, "name": "wieder da"})[0] == "CONFLICT"


def test_another_seekers_rows_are_not_found(seeker: Caller, other_seeker: Caller, db: Database) -> None:
    ref = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig"}})["search_order_id"]
    assert other_seeker.error("update_search_order", {"search_order_id": ref, "status": "ended"})[0] == "NOT_FOUND"
    assert other_seeker.error("save_search_order", {"request_id": request_key(), "search_order_id": ref, "name": "fremd"})[0] == "NOT_FOUND"
    with db.read_only() as session:
        match = session.scalar(
            select(Match.ref).join(SearchOrder, Match.search_order_id == SearchOrder.id).join(User, User.id == SearchOrder.user_id)
            .where(User.email == SEEKERS[0].email).order_by(Match.id).limit(1)
        )
    assert other_seeker.error("update_match", {"match_id": match, "state": "seen"})[0] == "NOT_FOUND"
    marked = seeker("update_match", {"match_id": match, "state": "interessant"})
    assert (marked["match_state"], marked["match_id"]) == ("interesting", match)
    assert seeker("update_match", {"match_id": match, "state": "interesting"})["result"] == "unchanged"
    listed = seeker("list_matches", {"states": ["interesting"], "since": "2000-01-01T00:00:00Z", "limit": 50})
    assert match in [m["match_id"] for m in listed["items"]]


def test_without_the_write_right_the_seeker_tools_answer_missing_right(db: Database) -> None:
    reader = Caller(SEARCH, make_context(db), seeker_principal(db, SEEKERS[0].email, frozenset({"suche:konto"})))
    assert reader.error("save_search_order", {"request_id": request_key(), "criteria": {}})[0] == "MISSING_RIGHT"
    assert reader.error("update_match", {"match_id": "T-000001", "state": "seen"})[0] == "MISSING_RIGHT"


# --- where they meet ---------------------------------------------------------------------------------------------


def test_publishing_makes_a_treffer_for_a_fitting_search_once_and_none_for_others(seeker: Caller, other_seeker: Caller, broker: Caller, db: Database) -> None:
    fitting = seeker("save_search_order", {"request_id": request_key(), "criteria": {"marketing_type": "buy", "city": "Leipzig", "query": "Wasserturmblick"}, "approachable": True})
    elsewhere = seeker("save_search_order", {"request_id": request_key(), "criteria": {"marketing_type": "buy", "city": "Dresden", "query": "Wasserturmblick"}})
    too_cheap = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Wasserturmblick", "max_price": 100000}})
    paused = other_seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Wasserturmblick"}})
    other_seeker("update_search_order", {"search_order_id": paused["search_order_id"], "status": "paused"})
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Altbauwohnung mit Wasserturmblick")})["listing_id"]
    assert matches_of(db, fitting["search_order_id"]) == []  # a draft makes none
    key = request_id()
    published = broker("update_listing_status", {"listing_id": ref, "status": "published", "request_id": key})
    with db.read_only() as session:
        event = session.scalar(select(ListingEvent.id).where(ListingEvent.kind == "published").order_by(ListingEvent.id.desc()).limit(1))
        proposed = session.scalars(select(SearchOrder.ref).join(Proposal, Proposal.search_order_id == SearchOrder.id).where(Proposal.event_id == event)).all()
    # every Treffer and proposal the call reports is one row of this event; the opted-in fitting search has its proposal
    assert published["matches_made"] == count(db, Match, Match.event_id == event) >= 1
    assert published["proposals_made"] == len(proposed) and fitting["search_order_id"] in proposed
    [(kind, _, _)] = matches_of(db, fitting["search_order_id"])
    assert kind == "new_listing"
    assert matches_of(db, elsewhere["search_order_id"]) == [] and matches_of(db, too_cheap["search_order_id"]) == []
    assert matches_of(db, paused["search_order_id"]) == []
    # the same request again, and the same status again: no second Treffer
    assert broker("update_listing_status", {"listing_id": ref, "status": "published", "request_id": key})["replayed"] is True
    assert broker("update_listing_status", {"listing_id": ref, "status": "published"})["matches_made"] == 0
    assert len(matches_of(db, fitting["search_order_id"])) == 1
    # the seeker sees the Treffer, the broker the proposal
    treffer = seeker("list_matches", {"search_order_id": fitting["search_order_id"]})
    assert [(m["kind"], m["listing_id"]) for m in treffer["items"]] == [("new_listing", ref)]
    proposals = broker("list_proposals", {"listing_id": ref})
    assert proposals["total"] == len(proposed)


def test_a_price_drop_and_a_status_change_make_treffer_and_a_price_rise_none(seeker: Caller, broker: Caller, db: Database) -> None:
    order = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Kranichgarten"}})["search_order_id"]
    saved = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Wohnung am Kranichgarten")})
    ref = saved["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    assert broker("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 299000}})["matches_made"] == 0  # a rise
    dropped = broker("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 259000}})
    assert dropped["matches_made"] >= 1
    broker("update_listing_status", {"listing_id": ref, "status": "reserved"})
    kinds = [(kind, detail.get("old_price"), detail.get("new_price"), detail.get("new_status")) for kind, _, detail in matches_of(db, order)]
    assert kinds == [("new_listing", None, None, None), ("price_drop", 299000, 259000, None), ("status_change", None, None, "reserved")]
    # a reserved listing's price drop is no news for the catalog's searches (it is not published)
    assert broker("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 249000}})["matches_made"] == 0


def test_a_new_search_has_no_new_matches_and_a_replay_of_its_creation_counts_those_made_since(seeker: Caller, broker: Caller, db: Database) -> None:
    # the creation answers 0 without counting (issue 21); its replay reads the Treffer that arrived in between
    key = request_id()
    arguments = {"criteria": {"city": "Leipzig", "query": "Nachzählgasse"}, "request_id": key}
    created = seeker("save_search_order", arguments)
    assert (created["result"], created["new_matches"]) == ("created", 0)
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Wohnung in der Nachzählgasse")})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    again = seeker("save_search_order", arguments)
    assert (again["search_order_id"], again["result"], again["replayed"], again["new_matches"]) == (created["search_order_id"], "created", True, 1)


def test_one_treffer_per_search_and_event_is_enforced_by_the_database(seeker: Caller, broker: Caller, db: Database) -> None:
    order = seeker("save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig", "query": "Einmalbrunnen"}})["search_order_id"]
    ref = broker("save_listing", {"request_id": request_key(), "fields": complete_fields(db, title="Haus am Einmalbrunnen", property_type="house")})["listing_id"]
    broker("update_listing_status", {"listing_id": ref, "status": "published"})
    with db.read_only() as session:
        match = session.scalar(select(Match).join(SearchOrder, Match.search_order_id == SearchOrder.id).where(SearchOrder.ref == order))
        event = session.get(ListingEvent, match.event_id)
        assert (event.kind, event.version) == ("published", 2)
        session.expunge_all()
    with pytest.raises(IntegrityError):
        with db.unit_of_work() as session:
            session.add(Match(ref="T-dup", search_order_id=match.search_order_id, listing_id=match.listing_id, kind="new_listing", detail={}, state="new", event_id=match.event_id))
    with pytest.raises(IntegrityError):
        with db.unit_of_work() as session:
            session.add(ListingEvent(listing_id=event.listing_id, version=event.version, kind=event.kind, detail={}, created_at=event.created_at))
    assert count(db, Proposal, Proposal.event_id == event.id, Proposal.search_order_id == match.search_order_id) == 0  # not opted in
