"""Demo accounts: documented logins, plausible and consistent account data, catalog rows untouched, deterministic."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from contract.catalog import CatalogFilters
from shared.auth.passwords import verify_password
from shared.catalog.text import normalise
from shared.db.migrate import upgrade
from shared.db.models import (
    Inquiry,
    InquiryMessage,
    Listing,
    ListingFeature,
    ListingStatusChange,
    ListingTerm,
    Match,
    Office,
    OfficeMember,
    PendingAction,
    Place,
    Proposal,
    SearchOrder,
    User,
    Valuation,
)
from shared.db.session import make_engine
from shared.demo import DEMO_ACCOUNTS, DEMO_NOW, SeedSummary, seed_demo

LISTINGS = 600
# sha256 over every catalog row (listings, features, terms, offices, places) of seed_demo(listings=600, seed=7),
# recorded before the accounts existed: adding them must not change a single catalog byte. Re-recorded once when the
# full-text index began to store hyphenated words also closed ("Stuttgart-West" → "stuttgartwest"); only terms changed.
CATALOG_DIGEST_600 = "2499f27b2a2fae350c58b3a909e105c8f038c5ad94fb29a2c6950c76d7efe323"
WINDOW = dt.timedelta(days=30)
KM_PER_DEGREE_LAT = 110.574
KM_PER_DEGREE_LON_EQUATOR = 111.320


def _seeded(path: Path, listings: int, seed: int = 7) -> tuple[Engine, SeedSummary]:
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    return engine, seed_demo(engine, listings=listings, seed=seed)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, SeedSummary]]:
    engine, summary = _seeded(tmp_path_factory.mktemp("accounts") / "demo.sqlite3", LISTINGS)
    yield engine, summary
    engine.dispose()


@pytest.fixture(scope="module")
def engine(seeded: tuple[Engine, SeedSummary]) -> Engine:
    return seeded[0]


def _rows(engine: Engine, model: Any, *order: Any) -> list[Any]:
    with engine.connect() as connection:
        return connection.execute(select(model).order_by(*order)).all()


# --- logins ---


def test_demo_accounts_sign_in_with_their_documented_roles(engine: Engine) -> None:
    emails = [account.email for account in DEMO_ACCOUNTS]
    assert len(set(emails)) == len(emails)
    kinds = Counter((account.kind, account.office_id, account.office_role) for account in DEMO_ACCOUNTS)
    assert kinds[("broker", 1, "owner")] == 1 and kinds[("broker", 1, "staff")] >= 1
    assert kinds[("broker", 2, "owner")] == 1 and kinds[("seeker", None, None)] >= 2
    assert ("suchende@athaus-demo.example", "suche-demo") in {(a.email, a.password) for a in DEMO_ACCOUNTS}
    with engine.connect() as connection:
        for account in DEMO_ACCOUNTS:
            user = connection.execute(select(User).where(User.email == account.email)).one()
            assert verify_password(account.password, user.password_hash), account.email
            assert not verify_password(account.password + "x", user.password_hash)
            assert user.kind == account.kind and user.name == account.name
            assert account.role  # German description
            membership = connection.execute(select(OfficeMember).where(OfficeMember.user_id == user.id)).one_or_none()
            if account.office_id is None:
                assert membership is None and account.office is None
            else:
                assert (membership.office_id, membership.role) == (account.office_id, account.office_role)
                office_name = connection.scalar(select(Office.name).where(Office.id == account.office_id))
                assert office_name == account.office  # the fixture uses the default seed


def test_every_office_has_an_owner_and_staff_and_seekers_are_plausible(engine: Engine) -> None:
    users = {user.id: user for user in _rows(engine, User, User.id)}
    members = _rows(engine, OfficeMember, OfficeMember.office_id, OfficeMember.user_id)
    offices = _rows(engine, Office, Office.id)
    roles: dict[int, Counter[str]] = defaultdict(Counter)
    for member in members:
        roles[member.office_id][member.role] += 1
        assert users[member.user_id].kind == "broker"
    assert set(roles) == {office.id for office in offices}
    assert all(counts["owner"] == 1 and 1 <= counts["staff"] <= 3 for counts in roles.values())
    assert {u.id for u in users.values() if u.kind == "broker"} == {m.user_id for m in members}

    seekers = [u for u in users.values() if u.kind == "seeker"]
    assert 120 <= len(seekers) <= 200
    assert len({u.email for u in users.values()}) == len(users)
    assert all(re.fullmatch(r"[a-z0-9.\-]+@(example\.org|example\.com|athaus-demo\.example)", u.email) for u in seekers)
    assert 0.2 < sum(u.phone is not None for u in seekers) / len(seekers) < 0.8
    assert all(u.created_at < DEMO_NOW for u in users.values())
    # One hash per distinct password, shared by all users with it (hashing is the expensive part).
    assert len({u.password_hash for u in users.values()}) == 2


# --- office 1, the documented broker office ---


def test_office_one_has_unanswered_inquiries_open_proposals_and_drafts(engine: Engine) -> None:
    two_days_ago = DEMO_NOW - dt.timedelta(days=2)
    inquiries = [i for i in _rows(engine, Inquiry, Inquiry.id) if i.office_id == 1]
    stale = [i for i in inquiries if i.status == "open" and i.created_at < two_days_ago]
    assert len(stale) >= 5
    assert any(i.status == "open" and i.created_at >= two_days_ago for i in inquiries)  # new ones too
    proposals = [p for p in _rows(engine, Proposal, Proposal.id) if p.office_id == 1]
    assert sum(p.status == "open" for p in proposals) >= 3

    actions = _rows(engine, PendingAction, PendingAction.id)
    office_one = {m.user_id for m in _rows(engine, OfficeMember, OfficeMember.user_id) if m.office_id == 1}
    by_ref = {i.ref: i for i in inquiries}
    assert sum(a.status == "pending" for a in actions) >= 2 and sum(a.status == "expired" for a in actions) == 1
    for action in actions:
        assert action.office_id == 1 and action.user_id in office_one and action.kind == "send_reply"
        assert by_ref[action.subject_ref].status == "open"
        assert action.payload["body"].startswith("Guten Tag") and action.summary
        assert re.fullmatch(r"[0-9a-f]{64}", action.token_hash)
        if action.status == "pending":
            assert action.expires_at == DEMO_NOW + dt.timedelta(days=2)
        else:
            assert action.expires_at < DEMO_NOW
        assert action.created_at <= DEMO_NOW


# --- inquiries ---


def test_inquiries_go_to_the_office_of_their_listing_with_alternating_threads(
    seeded: tuple[Engine, SeedSummary],
) -> None:
    engine, summary = seeded
    listings = {row.id: row for row in _rows(engine, Listing, Listing.id)}
    users = {user.id: user for user in _rows(engine, User, User.id)}
    members = {(m.office_id, m.user_id) for m in _rows(engine, OfficeMember, OfficeMember.user_id)}
    threads: dict[int, list[Any]] = defaultdict(list)
    for message in _rows(engine, InquiryMessage, InquiryMessage.created_at, InquiryMessage.id):
        threads[message.inquiry_id].append(message)
    inquiries = _rows(engine, Inquiry, Inquiry.id)
    published = sum(row.status == "published" for row in listings.values())
    assert len(inquiries) == summary.inquiries == min(2000, round(published / 6))
    assert [i.ref for i in inquiries] == [f"I-{n:06d}" for n in range(1, len(inquiries) + 1)]
    assert {i.status for i in inquiries} == {"open", "answered", "closed"}
    for inquiry in inquiries:
        listing = listings[inquiry.listing_id]
        assert inquiry.office_id == listing.office_id
        assert listing.status == "published" and users[inquiry.seeker_id].kind == "seeker"
        created = inquiry.created_at
        assert DEMO_NOW - WINDOW <= created <= DEMO_NOW and created > listing.published_at
        messages = threads[inquiry.id]
        assert 1 <= len(messages) <= 4
        assert [m.author for m in messages] == ["seeker", "office", "seeker", "office"][: len(messages)]
        assert messages[0].created_at == created
        assert inquiry.last_message_at == messages[-1].created_at <= DEMO_NOW
        if inquiry.status == "open":
            assert len(messages) == 1
        if inquiry.status == "answered":
            assert messages[-1].author == "office"
        for message in messages:
            if message.author == "seeker":
                assert message.author_user_id == inquiry.seeker_id
            else:
                assert (inquiry.office_id, message.author_user_id) in members
            assert message.body.strip()
        profile = inquiry.shared_profile
        assert profile["name"] == users[inquiry.seeker_id].name and profile["email"] == users[inquiry.seeker_id].email
        assert profile["household"] and ("financing" in profile) == (listing.marketing_type == "buy")
    # Some open inquiries wait on purpose for days.
    assert any(i.status == "open" and DEMO_NOW - i.created_at > dt.timedelta(days=3) for i in inquiries)


# --- saved searches, Treffer, proposals ---


def _centre(engine: Engine, place: str) -> tuple[float, float]:
    with engine.connect() as connection:
        latitude, longitude = connection.execute(
            select(func.avg(Place.latitude), func.avg(Place.longitude)).where(Place.name_key == normalise(place))
        ).one()
    return float(latitude), float(longitude)


def _fits(engine: Engine, criteria: CatalogFilters, listing: Any) -> bool:
    """Checked here without the search engine: place, kind, type, price and rooms as the contract describes them."""
    if criteria.city is not None and listing.city_key != normalise(criteria.city):
        return False
    if criteria.near is not None:
        latitude, longitude = _centre(engine, criteria.near.place or "")
        km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(latitude))
        distance = math.hypot(
            (listing.latitude - latitude) * KM_PER_DEGREE_LAT, (listing.longitude - longitude) * km_per_lon
        )
        if distance > criteria.near.radius_km + 1e-9:
            return False
    if criteria.marketing_type is not None and listing.marketing_type != criteria.marketing_type.value:
        return False
    if criteria.property_types and listing.property_type not in {p.value for p in criteria.property_types}:
        return False
    for name in ("price", "rooms"):
        low, high, value = getattr(criteria, f"min_{name}"), getattr(criteria, f"max_{name}"), getattr(listing, name)
        if (low is not None or high is not None) and value is None:
            return False
        if (low is not None and value < low) or (high is not None and value > high):
            return False
    return True


def test_search_orders_carry_valid_catalog_filters(engine: Engine) -> None:
    orders = _rows(engine, SearchOrder, SearchOrder.id)
    seekers = {u.id for u in _rows(engine, User, User.id) if u.kind == "seeker"}
    assert [o.ref for o in orders] == [f"S-{n:06d}" for n in range(1, len(orders) + 1)]
    for order in orders:
        criteria = CatalogFilters.model_validate(order.criteria)
        assert criteria.model_dump(mode="json", exclude_none=True) == order.criteria
        assert (criteria.city is None) != (criteria.near is None) and criteria.marketing_type is not None
        assert order.user_id in seekers and order.name
        assert order.frequency in {"instant", "daily", "weekly"} and order.status in {"active", "paused", "ended"}
        assert order.created_at <= order.updated_at <= DEMO_NOW
    statuses = Counter(order.status for order in orders)
    assert statuses["active"] > statuses["paused"] + statuses["ended"] > 0
    assert 0.25 < sum(order.approachable for order in orders) / len(orders) < 0.55
    with_orders = {order.user_id for order in orders}
    assert 0.55 < len(with_orders) / len(seekers) < 0.8
    assert max(Counter(order.user_id for order in orders).values()) <= 3


def test_matches_belong_to_a_search_and_fit_its_criteria(engine: Engine) -> None:
    orders = {order.id: order for order in _rows(engine, SearchOrder, SearchOrder.id)}
    listings = {row.id: row for row in _rows(engine, Listing, Listing.id)}
    matches = _rows(engine, Match, Match.id)
    assert [m.ref for m in matches] == [f"T-{n:06d}" for n in range(1, len(matches) + 1)]
    kinds = Counter(match.kind for match in matches)
    assert set(kinds) == {"new_listing", "price_drop", "status_change", "proposal"}
    assert kinds["new_listing"] == max(kinds.values())
    assert {match.state for match in matches} == {"new", "seen", "interesting", "not_interested"}
    per_order = Counter(match.search_order_id for match in matches)
    assert max(per_order.values()) <= 12 + 3  # up to 12 Treffer plus accepted proposals
    for match in matches:
        order = orders[match.search_order_id]
        listing = listings[match.listing_id]
        assert order.status == "active" and listing.status == "published"
        assert _fits(engine, CatalogFilters.model_validate(order.criteria), listing), (match.ref, order.criteria)
        created = match.created_at
        assert DEMO_NOW - WINDOW <= created <= DEMO_NOW and created >= order.created_at
        if match.kind == "price_drop":
            assert match.detail["new_price"] == listing.price < match.detail["old_price"]
        if match.kind == "status_change":
            assert match.detail == {"old_status": "reserved", "new_status": "published"}
        if match.kind == "new_listing":
            assert listing.published_at >= order.created_at


def test_proposals_offer_own_listings_to_approachable_searches(engine: Engine) -> None:
    orders = {order.id: order for order in _rows(engine, SearchOrder, SearchOrder.id)}
    listings = {row.id: row for row in _rows(engine, Listing, Listing.id)}
    proposals = _rows(engine, Proposal, Proposal.id)
    assert [p.ref for p in proposals] == [f"P-{n:06d}" for n in range(1, len(proposals) + 1)]
    assert {p.status for p in proposals} == {"open", "accepted", "rejected"}
    assert Counter(p.office_id for p in proposals)[2] >= 1  # the second documented office has some too
    for proposal in proposals:
        order, listing = orders[proposal.search_order_id], listings[proposal.listing_id]
        assert order.approachable and order.status == "active"
        assert listing.office_id == proposal.office_id and listing.status == "published"
        assert _fits(engine, CatalogFilters.model_validate(order.criteria), listing)
        assert (proposal.decided_at is None) == (proposal.status == "open")
        assert DEMO_NOW - WINDOW <= proposal.created_at <= DEMO_NOW


# --- valuations and status history ---


def test_valuations_are_plausible(engine: Engine) -> None:
    listings = {row.id: row for row in _rows(engine, Listing, Listing.id)}
    refs = {row.ref for row in listings.values()}
    valuations = _rows(engine, Valuation, Valuation.id)
    per_office = Counter(v.office_id for v in valuations)
    assert len(per_office) == 40 and all(2 <= n <= 6 for n in per_office.values())
    assert any(v.listing_id for v in valuations) and any(v.owner_name for v in valuations)
    for valuation in valuations:
        assert 0 < valuation.value_low < valuation.value_high < 1.5 * valuation.value_low
        assert set(valuation.comparables) <= refs and valuation.method
        if valuation.listing_id is not None:
            assert listings[valuation.listing_id].office_id == valuation.office_id
            assert listings[valuation.listing_id].ref not in valuation.comparables
        else:
            assert valuation.owner_name and valuation.address
        per_sqm = valuation.value_high / valuation.living_area
        assert (800 < per_sqm < 20_000) if valuation.marketing_type == "buy" else (4 < per_sqm < 40)


def test_offices_one_and_two_have_a_status_history(engine: Engine) -> None:
    listings = [row for row in _rows(engine, Listing, Listing.id) if row.office_id in (1, 2)]
    history: dict[int, list[Any]] = defaultdict(list)
    for change in _rows(engine, ListingStatusChange, ListingStatusChange.changed_at, ListingStatusChange.id):
        history[change.listing_id].append(change)
    assert set(history) == {row.id for row in listings}
    transitions = Counter((c.old_status, c.new_status) for changes in history.values() for c in changes)
    assert transitions[("published", "reserved")] >= 1
    for listing in listings:
        changes = history[listing.id]
        assert (changes[0].old_status, changes[0].new_status) == (None, "draft")
        assert all(a.new_status == b.old_status for a, b in zip(changes, changes[1:], strict=False))
        assert changes[-1].new_status == listing.status
        assert all(c.changed_at <= DEMO_NOW for c in changes)


# --- the catalog stays as it was, the accounts are deterministic ---


COLUMNS_ADDED_LATER = frozenset({"version", "feed", "external_id", "openimmo_feed_url"})


def _catalog_digest(engine: Engine) -> str:
    digest = hashlib.sha256()
    with engine.connect() as connection:
        for model, keys in (
            (Listing, [Listing.id]),
            (ListingFeature, [ListingFeature.listing_id, ListingFeature.feature]),
            (ListingTerm, [ListingTerm.listing_id, ListingTerm.position, ListingTerm.term]),
            (Office, [Office.id]),
            (Place, [Place.id]),
        ):
            # columns added after the digest was taken (the write side: version, import origin) are left out
            columns = [c for c in model.__table__.columns if c.name not in COLUMNS_ADDED_LATER]
            for row in connection.execute(select(*columns).order_by(*keys)):
                # Times as naive UTC: the digest was taken of the stored values, before they were read back aware.
                plain = tuple(v.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(v, dt.datetime) else v for v in row)
                digest.update(repr(plain).encode())
    return digest.hexdigest()


def test_catalog_rows_are_the_same_as_before_the_accounts(engine: Engine) -> None:
    assert _catalog_digest(engine) == CATALOG_DIGEST_600


# Salted password hashes and the hashes of random confirmation tokens differ on purpose.
SECRET_COLUMNS = {"password_hash", "token_hash"}
ACCOUNT_TABLES = (
    (User, [User.id]),
    (OfficeMember, [OfficeMember.office_id, OfficeMember.user_id]),
    (SearchOrder, [SearchOrder.id]),
    (Match, [Match.id]),
    (Inquiry, [Inquiry.id]),
    (InquiryMessage, [InquiryMessage.id]),
    (Valuation, [Valuation.id]),
    (Proposal, [Proposal.id]),
    (ListingStatusChange, [ListingStatusChange.id]),
    (PendingAction, [PendingAction.id]),
)


def _accounts_snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as connection:
        return {
            model.__tablename__: [
                tuple(value for column, value in row._mapping.items() if column not in SECRET_COLUMNS)
                for row in connection.execute(
                    select(*(c for c in model.__table__.columns if c.name not in SECRET_COLUMNS)).order_by(*keys)
                )
            ]
            for model, keys in ACCOUNT_TABLES
        }


def test_same_seed_gives_identical_accounts(tmp_path: Path) -> None:
    snapshots, summaries = [], []
    for name in ("a", "b"):
        engine, summary = _seeded(tmp_path / f"{name}.sqlite3", 300, seed=11)
        snapshots.append(_accounts_snapshot(engine))
        summaries.append(summary)
        engine.dispose()
    assert summaries[0] == summaries[1]
    assert snapshots[0] == snapshots[1]
    assert all(snapshots[0][model.__tablename__] for model, _ in ACCOUNT_TABLES)
    other, _ = _seeded(tmp_path / "other.sqlite3", 300, seed=12)
    assert _accounts_snapshot(other)["inquiries"] != snapshots[0]["inquiries"]
    other.dispose()


def test_summary_counts_the_accounts(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, summary = seeded
    with engine.connect() as connection:
        counts = [connection.scalar(select(func.count()).select_from(m)) for m in (User, Inquiry, SearchOrder)]
    assert [summary.users, summary.inquiries, summary.search_orders] == counts


@pytest.mark.parametrize("listings", [0, 25])
def test_documented_accounts_exist_in_every_catalog_size(tmp_path: Path, listings: int) -> None:
    engine, summary = _seeded(tmp_path / "tiny.sqlite3", listings)
    with engine.connect() as connection:
        emails = set(connection.scalars(select(User.email)))
        orders = connection.scalar(select(func.count()).select_from(SearchOrder))
    assert {account.email for account in DEMO_ACCOUNTS} <= emails
    assert summary.users == len(emails) and orders > 0
    engine.dispose()
