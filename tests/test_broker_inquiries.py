"""Athaus für Makler: search_inquiries, get_inquiry, list_valuations, list_proposals through the runtime.

The demo catalog is seeded into a database of this module and, on top of it, a small world of inquiries,
valuations and proposals for offices 1 and 2 whose every property the tests know (ties on created_at, the
German day boundary, drafts in every state). Expectations are computed independently from the rows.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import DateTime, bindparam, select, text

from broker_server.server import DEFINITION as BROKER
from contract.broker_inquiries import TOOLS
from shared.auth.principal import Principal
from shared.catalog.text import normalise
from shared.db.migrate import upgrade
from shared.db.models import (
    Inquiry,
    InquiryMessage,
    Listing,
    OfficeMember,
    PendingAction,
    Proposal,
    SearchOrder,
    User,
    Valuation,
)
from shared.db.session import Database
from shared.demo import seed_demo
from shared.paging.cursor import CursorCodec
from tests.conftest import FIXED_NOW, Caller, _fresh_database_url, make_context
from tests.wire_helpers import absence, amount, echoed

RESOURCE = "http://127.0.0.1:8000/makler/mcp"
TOKEN_HASH = "tokenhash-must-never-leave-the-database"
ALL_STATUSES = ["open", "answered", "closed"]


@dataclass
class World:
    db: Database
    brokers: dict[int, int]  # office → user id of its owner
    seeker_ids: list[int]
    listings: dict[int, list[str]]  # office → listing refs used here
    drafted: str  # an inquiry of office 1 with drafts in every state
    boundary: str  # an inquiry of office 1 received 00:30 German time on 2026-10-15 (22:30 UTC the day before)
    office_only_word: str  # a word that occurs only in office messages


def _at(hours_ago: float) -> dt.datetime:
    return FIXED_NOW - dt.timedelta(hours=hours_ago)


# (author, hours after the inquiry) per message; the seeker's words rotate through SEEKER_TEXTS
PATTERNS: list[list[tuple[str, float]]] = [
    [("seeker", 0)],  # waiting since the first message
    [("seeker", 0), ("office", 5)],  # answered
    [("seeker", 0), ("office", 3), ("seeker", 30)],  # waiting again since the third
    [("seeker", 0), ("office", 2), ("seeker", 20), ("seeker", 50)],  # waiting since the third, not the fourth
    [("seeker", 0), ("seeker", 1), ("office", 80)],  # answered after two seeker messages
    [],  # no message at all: not waiting
]
SEEKER_TEXTS = [
    "Guten Tag, ist eine Besichtigung am Samstag möglich?",
    "Wir interessieren uns für die Wohnung mit dem Südbalkon.",
    "Sind Haustiere erlaubt? Wir haben einen kleinen Hund.",
    "Die Finanzierungsbestätigung der Bank liegt vor.",
]


def _principal(office: int, user: int, scopes: frozenset[str] = frozenset({"makler:lesen"})) -> Principal:
    return Principal(user_id=user, kind="broker", office_id=office, office_role="owner", scopes=scopes, resource=RESOURCE)


def build_world(db: Database) -> World:
    with db.unit_of_work() as s:
        listings = {
            office: list(s.scalars(select(Listing).where(Listing.office_id == office).order_by(Listing.id).limit(4)))
            for office in (1, 2)
        }
        assert all(len(v) >= 3 for v in listings.values()), "offices 1 and 2 need listings in the demo catalog"
        brokers: dict[int, int] = {}
        for office in (1, 2):
            user = User(email=f"inhaber{office}@inquiries.test", name=f"Maklerin Büro {office}", password_hash="x", kind="broker")
            s.add(user)
            s.flush()
            s.add(OfficeMember(office_id=office, user_id=user.id, role="owner"))
            brokers[office] = user.id
        seekers = [User(email=f"suche{n}@inquiries.test", name=f"Suchende {n}", password_hash="x", kind="seeker") for n in range(4)]
        s.add_all(seekers)
        s.flush()

        number = iter(range(900_001, 999_999))

        def inquiry(office: int, n: int, created: dt.datetime, status: str, pattern: list[tuple[str, float]]) -> Inquiry:
            seeker = seekers[n % len(seekers)]
            profile: dict[str, Any] = [
                {"name": seeker.name, "email": seeker.email, "phone": "0341 1234567", "household": "2 Erwachsene"},
                {"email": seeker.email},
                {},
            ][n % 3]
            row = Inquiry(
                ref=f"I-{next(number)}",
                listing_id=listings[office][n % 3].id,
                office_id=office,
                seeker_id=seeker.id,
                status=status,
                shared_profile=profile,
                created_at=created,
                last_message_at=created,
            )
            s.add(row)
            s.flush()
            texts = iter(SEEKER_TEXTS[n % len(SEEKER_TEXTS) :] + SEEKER_TEXTS)
            for author, hours in pattern:
                sent = created + dt.timedelta(hours=hours)
                body = next(texts) if author == "seeker" else "Gern, der Notartermin wäre danach möglich."
                s.add(
                    InquiryMessage(
                        inquiry_id=row.id,
                        author=author,
                        author_user_id=brokers[office] if author == "office" else seeker.id,
                        body=body,
                        created_at=sent,
                    )
                )
                row.last_message_at = max(row.last_message_at, sent)
            return row

        made = []
        for n in range(30):
            hours_ago = 200 + 23 * n if n != 11 else 200 + 23 * 10  # n = 10 and 11 share their created_at
            made.append(inquiry(1, n, _at(hours_ago), ALL_STATUSES[n % 3], PATTERNS[n % len(PATTERNS)]))
        boundary = inquiry(1, 31, dt.datetime(2026, 10, 14, 22, 30, tzinfo=dt.UTC), "open", PATTERNS[0])
        for n in range(5):
            inquiry(2, n, _at(100 + 17 * n), ALL_STATUSES[n % 3], PATTERNS[n % len(PATTERNS)])

        drafted = made[0]
        for ref, office, status, expires in (
            ("C-900001", 1, "pending", FIXED_NOW + dt.timedelta(days=1)),
            ("C-900002", 1, "pending", FIXED_NOW - dt.timedelta(hours=1)),  # expired by time
            ("C-900003", 1, "executed", FIXED_NOW + dt.timedelta(days=1)),
            ("C-900004", 2, "pending", FIXED_NOW + dt.timedelta(days=1)),  # another office
        ):
            s.add(
                PendingAction(
                    ref=ref,
                    kind="send_reply",
                    user_id=brokers[office],
                    office_id=office,
                    subject_ref=drafted.ref,
                    payload={"body": "Entwurf"},
                    summary=f"Antwort an die/den Suchende/n ({ref})",
                    status=status,
                    token_hash=TOKEN_HASH,
                    created_at=_at(2),
                    expires_at=expires,
                )
            )

        number_v = iter(range(900_001, 999_999))
        for office, count in ((1, 5), (2, 2)):
            for n in range(count):
                on_listing = n % 2 == 0
                listing = listings[office][n % 3]
                s.add(
                    Valuation(
                        ref=f"V-{next(number_v)}",
                        office_id=office,
                        listing_id=listing.id if on_listing else None,
                        owner_name=None if on_listing else f"Eigentümer {n}",
                        address=None,
                        postal_code=listing.postal_code,
                        city=listing.city,
                        property_type=listing.property_type,
                        marketing_type=listing.marketing_type,
                        living_area=80.0 if n != 3 else None,
                        value_low=300_000.0,
                        value_high=340_000.0,
                        method="Vergleichswertverfahren",
                        comparables=["A-0000001", "A-0000002", "A-0000003"][: n % 4],
                        note=None,
                        created_by=brokers[office],
                        created_at=_at(10 + 24 * n) if n != 2 else _at(10),  # n = 0 and 2 share their created_at
                    )
                )

        orders = []
        for n, (approachable, status) in enumerate(((True, "active"), (True, "paused"), (False, "active"), (True, "ended"))):
            order = SearchOrder(
                ref=f"S-{900_001 + n}",
                user_id=seekers[n].id,
                name="Meine Suche",
                criteria={"marketing_type": "buy", "property_types": ["apartment"], "city": "Leipzig", "min_price": 200000, "max_price": 400000},
                frequency="daily",
                status=status,
                approachable=approachable,
            )
            s.add(order)
            orders.append(order)
        s.flush()
        number_p = iter(range(900_001, 999_999))
        for office, order, status, hours_ago in (
            (1, orders[0], "open", 5),
            (1, orders[1], "open", 6),
            (1, orders[0], "open", 6),  # ties with the one before
            (1, orders[2], "open", 7),  # the seeker withdrew the opt-in: not listed
            (1, orders[3], "open", 8),  # the search has ended: not listed
            (1, orders[2], "accepted", 30),  # decided ones stay in the history
            (1, orders[1], "rejected", 40),
            (2, orders[0], "open", 5),
        ):
            s.add(
                Proposal(
                    ref=f"P-{next(number_p)}",
                    office_id=office,
                    listing_id=listings[office][0].id,
                    search_order_id=order.id,
                    status=status,
                    created_at=_at(hours_ago),
                    decided_at=_at(hours_ago - 1) if status != "open" else None,
                )
            )
        return World(
            db=db,
            brokers=brokers,
            seeker_ids=[u.id for u in seekers],
            listings={office: [lst.ref for lst in rows] for office, rows in listings.items()},
            drafted=drafted.ref,
            boundary=boundary.ref,
            office_only_word="Notartermin",
        )


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    url, drop = _fresh_database_url(tmp_path_factory.mktemp("inquiries"), "inquiries")
    db = Database.from_url(url)
    upgrade(db.engine)
    seed_demo(db.engine, listings=300)
    yield build_world(db)
    db.engine.dispose()
    drop()


@pytest.fixture
def office1(world: World) -> Caller:
    return Caller(BROKER, make_context(world.db), _principal(1, world.brokers[1]))


@pytest.fixture
def office2(world: World) -> Caller:
    return Caller(BROKER, make_context(world.db), _principal(2, world.brokers[2]))


def refs(result: dict[str, Any], key: str) -> list[str]:
    return [item[key] for item in result["items"]]


def walk_all(caller: Caller, tool: str, args: dict[str, Any], key: str) -> tuple[list[str], list[dict[str, Any]]]:
    seen: list[str] = []
    pages: list[dict[str, Any]] = []
    arguments = dict(args)
    while True:
        page = caller(tool, arguments)
        pages.append(page)
        seen += refs(page, key)
        if page["completeness"]["complete"]:
            assert page["completeness"]["next_cursor"] is None and page["status"] == "complete"
            return seen, pages
        assert page["status"] == "partial"
        assert [r["code"] for r in page["completeness"]["reasons"]] == ["MORE_PAGES_AVAILABLE"]
        arguments["cursor"] = page["completeness"]["next_cursor"]


def office_refs(db: Database, model: Any, office: int) -> set[str]:
    with db.read_only() as s:
        return set(s.scalars(select(model.ref).where(model.office_id == office)))


# --- office isolation -------------------------------------------------------------------------------


def test_each_office_sees_exactly_its_own_inquiries(world: World, office1: Caller, office2: Caller) -> None:
    for caller, office in ((office1, 1), (office2, 2)):
        seen, pages = walk_all(caller, "search_inquiries", {"limit": 50}, "inquiry_id")
        assert set(seen) == office_refs(world.db, Inquiry, office)
        assert pages[0]["total"] == len(seen)
    assert not office_refs(world.db, Inquiry, 1) & set(walk_all(office2, "search_inquiries", {"limit": 50}, "inquiry_id")[0])


def test_another_offices_inquiry_is_not_found_without_echoing_it(world: World, office2: Caller) -> None:
    code, message = office2.error("get_inquiry", {"inquiry_id": world.drafted})
    assert code == "NOT_FOUND"
    assert world.drafted not in message
    assert office2.error("get_inquiry", {"inquiry_id": "I-999998"})[0] == "NOT_FOUND"  # same answer as for none at all


def test_filter_on_another_offices_listing_is_not_found(world: World, office2: Caller) -> None:
    foreign = world.listings[1][0]
    for tool in ("search_inquiries", "list_valuations", "list_proposals"):
        code, message = office2.error(tool, {"listing_id": foreign})
        assert code == "NOT_FOUND" and foreign not in message


def test_each_office_sees_exactly_its_own_valuations_and_proposals(world: World, office1: Caller, office2: Caller) -> None:
    for caller, office in ((office1, 1), (office2, 2)):
        valuations, _ = walk_all(caller, "list_valuations", {"limit": 3}, "valuation_id")
        assert set(valuations) == office_refs(world.db, Valuation, office)
        proposals, _ = walk_all(caller, "list_proposals", {"status": ["open", "accepted", "rejected"], "limit": 3}, "proposal_id")
        assert set(proposals) <= office_refs(world.db, Proposal, office)
        assert len(proposals) == len(set(proposals)) > 0


def test_cursor_of_one_office_is_refused_for_another(office1: Caller, office2: Caller) -> None:
    cursor = office1("search_inquiries", {"limit": 2})["completeness"]["next_cursor"]
    assert office2.error("search_inquiries", {"limit": 2, "cursor": cursor})[0] == "CURSOR_EXPIRED"


# --- rights -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", [spec.name for spec in TOOLS])
def test_missing_right(world: World, tool: str) -> None:
    without = Caller(BROKER, make_context(world.db), _principal(1, world.brokers[1], frozenset({"makler:schreiben"})))
    args = {"inquiry_id": world.drafted} if tool == "get_inquiry" else {}
    result = without.raw(tool, args)
    assert result.is_error and result.meta["athaus/code"] == "MISSING_RIGHT"
    assert 'scope="makler:lesen"' in result.meta["mcp/www_authenticate"]
    anonymous = Caller(BROKER, make_context(world.db), None).raw(tool, args)
    assert anonymous.is_error and anonymous.meta["athaus/code"] == "MISSING_RIGHT"


def test_right_without_office_membership_is_refused(world: World) -> None:
    seeker = Principal(world.seeker_ids[0], "seeker", None, None, frozenset({"makler:lesen"}), RESOURCE)
    assert Caller(BROKER, make_context(world.db), seeker).error("search_inquiries")[0] == "MISSING_RIGHT"


# --- order and pages (rule 7, seed 002) -----------------------------------------------------------------


def _created(db: Database, office: int) -> list[tuple[dt.datetime, str]]:
    with db.read_only() as s:
        rows = s.execute(select(Inquiry.created_at, Inquiry.ref).where(Inquiry.office_id == office)).all()
    return [(c if c.tzinfo else c.replace(tzinfo=dt.UTC), r) for c, r in rows]


@pytest.mark.parametrize("limit", [1, 4, 7])
def test_walking_all_pages_yields_total_distinct_refs_in_a_stable_documented_order(world: World, office1: Caller, limit: int) -> None:
    first, pages = walk_all(office1, "search_inquiries", {"limit": limit}, "inquiry_id")
    again, _ = walk_all(office1, "search_inquiries", {"limit": limit}, "inquiry_id")
    assert first == again
    assert len(first) == len(set(first)) == pages[0]["total"] == pages[-1]["total"]
    assert all(len(p["items"]) == p["returned"] <= limit for p in pages)
    expected = [ref for _, ref in sorted(_created(world.db, 1), reverse=True)]
    assert first == expected
    assert pages[0]["sort_key"] == "created_at desc, inquiry_id desc"
    oldest, oldest_pages = walk_all(office1, "search_inquiries", {"limit": limit, "sort": "älteste"}, "inquiry_id")
    assert oldest == expected[::-1]
    assert oldest_pages[0]["sort_key"] == "created_at asc, inquiry_id asc"


def test_ties_on_created_at_are_broken_by_the_id(world: World, office1: Caller) -> None:
    created = _created(world.db, 1)
    times = [c for c, _ in created]
    assert len(times) > len(set(times)), "the world has inquiries sharing created_at"
    seen, _ = walk_all(office1, "search_inquiries", {"limit": 2}, "inquiry_id")
    position = {ref: i for i, ref in enumerate(seen)}
    for when in {t for t in times if times.count(t) > 1}:
        tied = sorted(ref for c, ref in created if c == when)
        assert [position[r] for r in tied] == sorted(position[r] for r in tied)[::-1]


def test_cursor_with_other_arguments_is_refused(office1: Caller) -> None:
    cursor = office1("search_inquiries", {"limit": 2})["completeness"]["next_cursor"]
    code, message = office1.error("search_inquiries", {"limit": 2, "status": ["open"], "cursor": cursor})
    assert code == "CURSOR_EXPIRED" and "neu beginnen" in message
    assert office1.error("search_inquiries", {"cursor": "kaputt"})[0] == "CURSOR_EXPIRED"
    # the page size may change within a walk
    assert office1("search_inquiries", {"limit": 5, "cursor": cursor})["returned"] == 5


def test_later_pages_keep_the_reference_time_of_the_first(world: World) -> None:
    codec = CursorCodec(b"test-secret", dt.timedelta(days=7))
    first = Caller(BROKER, replace(make_context(world.db, FIXED_NOW), cursors=codec), _principal(1, world.brokers[1]))
    page = first("search_inquiries", {"unanswered_for_days": 9, "limit": 2})
    # three days later more inquiries have waited nine days; the walk still counts as of its first page
    later = Caller(BROKER, replace(make_context(world.db, FIXED_NOW + dt.timedelta(days=3)), cursors=codec), _principal(1, world.brokers[1]))
    assert later("search_inquiries", {"unanswered_for_days": 9, "limit": 1})["total"] > page["total"]
    rest = later("search_inquiries", {"unanswered_for_days": 9, "limit": 50, "cursor": page["completeness"]["next_cursor"]})
    assert echoed(rest, "as_of") == {"value": FIXED_NOW.isoformat().replace("+00:00", "Z"), "source": "cursor"}
    assert rest["total"] == page["total"] == page["returned"] + rest["returned"]
    assert echoed(page, "as_of")["source"] == "default"


@pytest.fixture
def changing_world(tmp_path: Path) -> Iterator[World]:
    url, drop = _fresh_database_url(tmp_path, "changing")
    db = Database.from_url(url)
    upgrade(db.engine)
    seed_demo(db.engine, listings=300)
    yield build_world(db)
    db.engine.dispose()
    drop()


def test_walk_ends_with_cursor_expired_when_the_result_changes(changing_world: World) -> None:
    caller = Caller(BROKER, make_context(changing_world.db), _principal(1, changing_world.brokers[1]))
    page = caller("search_inquiries", {"status": ["open"], "limit": 3})
    with changing_world.db.unit_of_work() as s:
        last = s.scalar(select(Inquiry).where(Inquiry.ref == page["items"][-1]["inquiry_id"]))
        last.status = "answered"  # leaves the result behind the walk's position
    code, message = caller.error("search_inquiries", {"status": ["open"], "limit": 3, "cursor": page["completeness"]["next_cursor"]})
    assert code == "CURSOR_EXPIRED" and "geändert" in message


def test_rows_created_after_the_first_page_do_not_join_the_walk(changing_world: World) -> None:
    caller = Caller(BROKER, make_context(changing_world.db), _principal(1, changing_world.brokers[1]))
    page = caller("search_inquiries", {"sort": "oldest", "limit": 5})
    with changing_world.db.unit_of_work() as s:
        template = s.scalar(select(Inquiry).where(Inquiry.ref == page["items"][0]["inquiry_id"]))
        s.add(
            Inquiry(
                ref="I-999999", listing_id=template.listing_id, office_id=1, seeker_id=template.seeker_id, status="open",
                shared_profile={}, created_at=FIXED_NOW + dt.timedelta(minutes=5), last_message_at=FIXED_NOW + dt.timedelta(minutes=5),
            )
        )
    later = Caller(BROKER, make_context(changing_world.db, FIXED_NOW + dt.timedelta(minutes=10)), _principal(1, changing_world.brokers[1]))
    seen = refs(page, "inquiry_id")
    args: dict[str, Any] = {"sort": "oldest", "limit": 5, "cursor": page["completeness"]["next_cursor"]}
    while args.get("cursor"):
        result = later("search_inquiries", args)
        seen += refs(result, "inquiry_id")
        args["cursor"] = result["completeness"]["next_cursor"]
    assert "I-999999" not in seen and len(seen) == len(set(seen)) == page["total"]
    assert "I-999999" in refs(later("search_inquiries", {"sort": "newest", "limit": 1}), "inquiry_id")


# --- filters ----------------------------------------------------------------------------------------


def test_omitted_status_equals_all_three_explicitly(office1: Caller) -> None:
    omitted = office1("search_inquiries", {"limit": 1})
    explicit = office1("search_inquiries", {"limit": 1, "status": ALL_STATUSES})
    by_status = sum(office1("search_inquiries", {"limit": 1, "status": [s]})["total"] for s in ALL_STATUSES)
    assert omitted["total"] == explicit["total"] == by_status > 0
    assert echoed(omitted, "status") == {"value": ALL_STATUSES, "source": "default"}
    assert echoed(explicit, "status") == {"value": ALL_STATUSES, "source": "caller"}
    assert "DEFAULT_SCOPE_APPLIED" not in {w["code"] for w in omitted["warnings"]}


def test_status_accepts_german_words(office1: Caller) -> None:
    german = office1("search_inquiries", {"status": ["Offen", "beantwortet"], "limit": 50})
    english = office1("search_inquiries", {"status": ["open", "answered"], "limit": 50})
    assert german["total"] == english["total"] and refs(german, "inquiry_id") == refs(english, "inquiry_id")
    assert echoed(german, "status")["value"] == ["open", "answered"]
    assert {i["status"] for i in german["items"]} <= {"open", "answered"}


INDEPENDENT_WAITING = text(
    """
    SELECT i.ref FROM inquiries i
    WHERE i.office_id = :office AND i.status = 'open' AND EXISTS (
        SELECT 1 FROM inquiry_messages s
        WHERE s.inquiry_id = i.id AND s.author = 'seeker' AND s.created_at <= :cutoff
          AND NOT EXISTS (
              SELECT 1 FROM inquiry_messages o
              WHERE o.inquiry_id = i.id AND o.author = 'office' AND o.created_at >= s.created_at))
    """
).bindparams(bindparam("cutoff", type_=DateTime(timezone=True)))


@pytest.mark.parametrize("days", [0, 3, 9, 15, 40])
def test_unanswered_for_days_equals_an_independent_sql_computation(world: World, office1: Caller, days: int) -> None:
    seen, pages = walk_all(office1, "search_inquiries", {"unanswered_for_days": days, "limit": 50}, "inquiry_id")
    with world.db.read_only() as s:
        expected = set(s.scalars(INDEPENDENT_WAITING, {"office": 1, "cutoff": FIXED_NOW - dt.timedelta(days=days)}))
    assert set(seen) == expected and pages[0]["total"] == len(expected)
    items = [i for p in pages for i in p["items"]]
    assert all(i["days_awaiting_reply"] is not None and i["days_awaiting_reply"] >= days for i in items)


def test_unanswered_for_days_is_a_strict_subset_for_some_n(office1: Caller) -> None:
    waiting = office1("search_inquiries", {"unanswered_for_days": 0, "limit": 1})["total"]
    older = office1("search_inquiries", {"unanswered_for_days": 9, "limit": 1})["total"]
    everything = office1("search_inquiries", {"limit": 1})["total"]
    assert everything > waiting > older > 0


def test_awaiting_since_is_the_oldest_seeker_message_after_the_last_office_message(world: World, office1: Caller) -> None:
    seen, pages = walk_all(office1, "search_inquiries", {"limit": 50}, "inquiry_id")
    with world.db.read_only() as s:
        messages = s.execute(
            select(Inquiry.ref, InquiryMessage.author, InquiryMessage.created_at)
            .join(InquiryMessage, InquiryMessage.inquiry_id == Inquiry.id)
            .where(Inquiry.office_id == 1)
            .order_by(InquiryMessage.created_at, InquiryMessage.id)
        ).all()
    thread: dict[str, list[tuple[str, dt.datetime]]] = {}
    for ref, author, at in messages:
        thread.setdefault(ref, []).append((author, at if at.tzinfo else at.replace(tzinfo=dt.UTC)))
    for item in (i for p in pages for i in p["items"]):
        msgs = thread.get(item["inquiry_id"], [])
        tail = []
        for author, at in msgs:
            tail = [] if author == "office" else tail + [at]
        # only an open inquiry waits for the office; an answered or closed one never does, whoever wrote last
        expected = tail[0].isoformat().replace("+00:00", "Z") if tail and item["status"] == "open" else None
        assert item["awaiting_reply_since"] == expected, item["inquiry_id"]
        assert item["office_replied"] == any(a == "office" for a, _ in msgs)
        assert item["message_count"] == len(msgs)


def test_received_days_are_german_calendar_days(world: World, office1: Caller) -> None:
    on_the_day = office1("search_inquiries", {"received_since": "2026-10-15", "received_until": "2026-10-15", "limit": 50})
    assert world.boundary in refs(on_the_day, "inquiry_id")
    day_before = office1("search_inquiries", {"received_since": "2026-10-14", "received_until": "2026-10-14", "limit": 50})
    assert world.boundary not in refs(day_before, "inquiry_id")
    assert echoed(on_the_day, "received_since") == {"value": "2026-10-15", "source": "caller"}


def test_received_range_must_be_ordered(office1: Caller) -> None:
    code, message = office1.error("search_inquiries", {"received_since": "2026-10-15", "received_until": "2026-10-01"})
    assert code == "INVALID_ARGUMENT" and "received_since" in message


def test_listing_filter(world: World, office1: Caller) -> None:
    listing = world.listings[1][1]
    result = office1("search_inquiries", {"listing_id": listing.lower(), "limit": 50})
    with world.db.read_only() as s:
        expected = set(s.scalars(select(Inquiry.ref).join(Listing, Listing.id == Inquiry.listing_id).where(Listing.ref == listing)))
    assert set(refs(result, "inquiry_id")) == expected and expected
    assert {i["listing_id"] for i in result["items"]} == {listing}


def test_text_search_matches_whole_words_of_the_seekers_messages(world: World, office1: Caller) -> None:
    with world.db.read_only() as s:
        messages = s.execute(
            select(Inquiry.ref, InquiryMessage.author, InquiryMessage.body)
            .join(InquiryMessage, InquiryMessage.inquiry_id == Inquiry.id)
            .where(Inquiry.office_id == 1)
        ).all()

    def whole_word(word: str, author: str = "seeker") -> set[str]:  # independent: a regex over the folded text
        pattern = re.compile(rf"(?<![a-z0-9]){word}(?![a-z0-9])")
        return {ref for ref, by, body in messages if by == author and pattern.search(normalise(body))}

    def found(query: str) -> set[str]:
        return set(walk_all(office1, "search_inquiries", {"query": query, "limit": 50}, "inquiry_id")[0])

    besichtigung, hund, balkon = whole_word("besichtigung"), whole_word("hund"), whole_word("suedbalkon")
    assert all(any(ref.startswith("I-9") for ref in found_) for found_ in (besichtigung, hund, balkon))
    assert found("besichtigung") == found("BESICHTIGUNG") == besichtigung
    assert found("Besicht*") >= besichtigung
    assert found("Besichtigung Hund") == besichtigung & hund  # all words
    assert found("Südbalkon") == found("Suedbalkon") == balkon  # ä = ae, ü = ue
    assert found("Balkon") >= balkon | whole_word("balkon")  # a compound part finds the compound
    assert found("Besichtig") == whole_word("besichtig")  # whole words only
    assert not {r for r in found("Besichtig") if r.startswith("I-9")}
    office_word = normalise(world.office_only_word)
    assert {r for r in whole_word(office_word, "office") if r.startswith("I-9")}
    assert found(world.office_only_word) == whole_word(office_word)  # the office's own messages are not searched


def test_query_of_filler_words_only_is_an_error(office1: Caller) -> None:
    code, message = office1.error("search_inquiries", {"query": "und mit der"})
    assert code == "INVALID_ARGUMENT" and "kein suchbares Wort" in message


def test_ignored_terms_are_named(office1: Caller) -> None:
    result = office1("search_inquiries", {"query": "Besichtigung am Be*", "limit": 1})
    warning = next(w for w in result["warnings"] if w["code"] == "TERMS_IGNORED")
    assert "am" in warning["message"] and "Be*" in warning["message"]


def test_an_exclusion_is_refused_rather_than_searched(office1: Caller) -> None:
    code, message = office1.error("search_inquiries", {"query": "Besichtigung -Hund"})
    assert code == "INVALID_ARGUMENT" and "(-Wort)" in message
    assert office1("search_inquiries", {"query": "Besichtigung Hund-", "limit": 1})["total"] >= 0  # a trailing dash is no exclusion


def test_empty_result_echoes_the_request_and_suggests_from_it(office1: Caller) -> None:
    result = office1("search_inquiries", {"received_until": "2001-01-01", "status": ["closed"]})
    assert result["items"] == [] and result["total"] == 0 and result["match_type"] == "none"
    assert result["completeness"] == {"complete": True, "reasons": [], "next_cursor": None}
    assert echoed(result, "received_until") == {"value": "2001-01-01", "source": "caller"}
    assert "nicht erweitert" in result["hint"]
    assert {tuple(s["arguments"]) for s in result["suggestions"]} == {("status",), ("received_until",)}
    assert all(s["searched"] is False for s in result["suggestions"])


# --- get_inquiry ------------------------------------------------------------------------------------


def test_get_inquiry_thread_in_order_with_listing_profile_and_open_drafts(world: World, office1: Caller) -> None:
    detail = office1("get_inquiry", {"inquiry_id": world.drafted.lower()})
    with world.db.read_only() as s:
        inquiry = s.scalar(select(Inquiry).where(Inquiry.ref == world.drafted))
        bodies = list(
            s.scalars(select(InquiryMessage.body).where(InquiryMessage.inquiry_id == inquiry.id).order_by(InquiryMessage.created_at, InquiryMessage.id))
        )
        listing = s.get(Listing, inquiry.listing_id)
        listing_ref, listing_title, listing_status = listing.ref, listing.title, listing.status
        profile = dict(inquiry.shared_profile)
    assert detail["inquiry_id"] == world.drafted
    assert [m["text"] for m in detail["thread"]] == bodies and detail["message_count"] == len(bodies)
    times = [m["sent_at"] for m in detail["thread"]]
    assert times == sorted(times)
    assert detail["listing"]["listing_id"] == listing_ref and detail["listing"]["title"] == listing_title
    assert detail["listing"]["status"] == listing_status
    assert detail["seeker"]["name"] == profile["name"] and detail["seeker"]["email"] == profile["email"]
    assert {"label": "Haushalt", "value": "2 Erwachsene"} in detail["seeker"]["further"]
    assert [d["confirmation_id"] for d in detail["open_drafts"]] == ["C-900001"]  # not expired, not executed, not office 2's


def test_get_inquiry_withholds_what_the_seeker_did_not_share(world: World, office1: Caller) -> None:
    with world.db.read_only() as s:
        ref = s.scalar(select(Inquiry.ref).where(Inquiry.office_id == 1, Inquiry.ref.like("I-9%")).order_by(Inquiry.ref).offset(1).limit(1))
    detail = office1("get_inquiry", {"inquiry_id": ref})  # the second profile shares only the e-mail address
    assert absence(detail, detail["seeker"], "name") == "withheld" and absence(detail, detail["seeker"], "phone") == "withheld"
    assert isinstance(detail["seeker"]["email"], str)
    seeker_messages = [m for m in detail["thread"] if m["author"] == "seeker"]
    assert all(absence(detail, m, "author_name") == "withheld" for m in seeker_messages)
    office_messages = [m for m in detail["thread"] if m["author"] == "office"]
    assert all(m["author_name"] == "Maklerin Büro 1" for m in office_messages)


def test_no_token_or_hash_in_any_output(world: World, office1: Caller) -> None:
    outputs = [
        office1.raw("get_inquiry", {"inquiry_id": world.drafted}),
        office1.raw("search_inquiries", {"limit": 50}),
        office1.raw("list_proposals", {"status": ["open", "accepted", "rejected"]}),
        office1.raw("list_valuations", {}),
    ]
    for result in outputs:
        everything = json.dumps(result.structured_content) + " ".join(c.text for c in result.content) + json.dumps(result.meta or {})
        assert TOKEN_HASH not in everything
        assert "token" not in everything.casefold()


def test_get_inquiry_text_is_german_and_complete(world: World, office1: Caller) -> None:
    result = office1.raw("get_inquiry", {"inquiry_id": world.drafted})
    body = result.content[0].text
    assert "Verlauf:" in body and "Offene Entwürfe:" in body and world.drafted in body
    for english in ("inquiry_id", "open_drafts", "thread", "seeker_name"):
        assert english not in body


def test_search_text_names_every_item(office1: Caller) -> None:
    result = office1.raw("search_inquiries", {"limit": 3})
    body = result.content[0].text
    for item in result.structured_content["items"]:
        assert f"- {item['inquiry_id']}; " in body
    assert "Weitere Seiten: dieselben Argumente mit cursor = " in body


# --- valuations -------------------------------------------------------------------------------------


def test_valuations_newest_first_with_range_method_and_comparables(world: World, office1: Caller) -> None:
    seen, pages = walk_all(office1, "list_valuations", {"limit": 2}, "valuation_id")
    with world.db.read_only() as s:
        rows = s.execute(select(Valuation.created_at, Valuation.ref).where(Valuation.office_id == 1)).all()
    assert seen == [ref for _, ref in sorted(rows, reverse=True)]
    assert pages[0]["sort_key"] == "created_at desc, valuation_id desc"
    items = {i["valuation_id"]: i for p in pages for i in p["items"]}
    mine = {ref: items[ref] for ref in items if ref.startswith("V-9")}
    assert len(mine) == 5
    for item in mine.values():
        assert amount(item["value_low"]) == 300000.0 and item["method"] == "Vergleichswertverfahren"
        if item["subject"] == "owner_lead":
            assert absence(item, item, "listing_id") == "empty_in_source" and isinstance(item["owner_name"], str)
        else:
            assert item["listing_id"] in world.listings[1]
    assert sorted(i["comparables_count"] for i in mine.values()) == [0, 0, 1, 2, 3]
    assert any(i["price_per_sqm_low"] == 3750.0 for i in mine.values())
    assert any(absence(i, i, "price_per_sqm_low") == "empty_in_source" for i in mine.values())  # no living area: absent


def test_valuations_filtered_by_listing(world: World, office1: Caller) -> None:
    listing = world.listings[1][0]
    result = office1("list_valuations", {"listing_id": listing})
    with world.db.read_only() as s:
        expected = set(s.scalars(select(Valuation.ref).join(Listing, Listing.id == Valuation.listing_id).where(Listing.ref == listing)))
    assert set(refs(result, "valuation_id")) == expected and expected
    assert echoed(result, "listing_id") == {"value": listing, "source": "caller"}


# --- proposals --------------------------------------------------------------------------------------


def _visible_proposals(db: Database, office: int, statuses: list[str]) -> set[str]:
    with db.read_only() as s:
        rows = s.execute(
            select(Proposal.ref, Proposal.status, SearchOrder.approachable, SearchOrder.status)
            .join(SearchOrder, SearchOrder.id == Proposal.search_order_id)
            .where(Proposal.office_id == office)
        ).all()
    return {
        ref for ref, status, approachable, order_status in rows
        if status in statuses and (status != "open" or (approachable and order_status != "ended"))
    }


def test_proposals_default_to_open_and_say_so(world: World, office1: Caller) -> None:
    result = office1("list_proposals", {"limit": 50})
    assert set(refs(result, "proposal_id")) == _visible_proposals(world.db, 1, ["open"])
    assert {"P-900004", "P-900005"}.isdisjoint(refs(result, "proposal_id"))  # opt-in withdrawn, search ended
    assert {"P-900001", "P-900002", "P-900003"} <= set(refs(result, "proposal_id"))
    assert echoed(result, "status") == {"value": ["open"], "source": "default"}
    assert "DEFAULT_SCOPE_APPLIED" in {w["code"] for w in result["warnings"]}
    explicit = office1("list_proposals", {"limit": 50, "status": ["offen"]})
    assert refs(explicit, "proposal_id") == refs(result, "proposal_id")
    assert "DEFAULT_SCOPE_APPLIED" not in {w["code"] for w in explicit["warnings"]}


def test_all_proposals_in_a_total_order(world: World, office1: Caller) -> None:
    statuses = ["open", "accepted", "rejected"]
    seen, pages = walk_all(office1, "list_proposals", {"limit": 2, "status": statuses}, "proposal_id")
    assert set(seen) == _visible_proposals(world.db, 1, statuses) and len(seen) == pages[0]["total"]
    assert seen.index("P-900003") < seen.index("P-900002")  # same created_at: the id decides, descending
    assert pages[0]["sort_key"] == "created_at desc, proposal_id desc"


def test_proposal_shows_the_search_pseudonymously(world: World, office1: Caller) -> None:
    result = office1.raw("list_proposals", {"limit": 50, "status": ["open", "accepted", "rejected"]})
    item = next(i for i in result.structured_content["items"] if i["proposal_id"] == "P-900001")
    assert item["seeker_label"] == "Suchende/r S-900001"
    assert item["criteria"] == {
        "marketing_type": "buy", "property_types": ["apartment"], "places": ["Leipzig"],
        "min_price": 200000.0, "max_price": 400000.0, "min_living_area": None, "min_rooms": None,
    }
    assert item["criteria_summary"] == "Kauf · Wohnung · Leipzig · 200.000–400.000 €"
    assert item["listing_id"] == world.listings[1][0]
    everything = json.dumps(result.structured_content, ensure_ascii=False) + result.content[0].text
    with world.db.read_only() as s:
        seekers = s.execute(select(User.name, User.email).where(User.id.in_(world.seeker_ids))).all()
    for name, email in seekers:
        assert name not in everything and email not in everything


# --- descriptions (rule 4) ----------------------------------------------------------------------------


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_descriptions_do_not_explain_empty_results_away(spec: Any) -> None:
    text_ = (spec.description + str(spec.input_schema()) + str(spec.documented_output_schema())).casefold()
    for phrase in ("usually means", "likely", "wahrscheinlich", "bedeutet meist", "meistens", "vermutlich"):
        assert phrase not in text_, f"{spec.name}: {phrase!r}"
