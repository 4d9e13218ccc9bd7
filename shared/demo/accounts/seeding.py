"""Seeding the demo accounts: the parts in their fixed order on one random stream, then every row written."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection

from shared.auth.passwords import hash_password
from shared.db.models import (
    Inquiry,
    InquiryMessage,
    Listing,
    ListingStatusChange,
    Match,
    OfficeMember,
    PendingAction,
    Proposal,
    SearchOrder,
    User,
    Valuation,
)
from shared.demo.accounts.confirmations import pending_confirmations
from shared.demo.accounts.ground import Ground
from shared.demo.accounts.history import status_history
from shared.demo.accounts.inquiries import Inquiries
from shared.demo.accounts.logins import BROKER_PASSWORD, SEEKER_PASSWORD
from shared.demo.accounts.people import People
from shared.demo.accounts.searches import SavedSearches
from shared.demo.accounts.stock import Stock
from shared.demo.accounts.valuations import Valuations
from shared.demo.offices import DemoOffice
from shared.demo.rows import Row, insert_in_chunks

INQUIRIES_PER_PUBLISHED = 1 / 6
MAX_INQUIRIES = 2_000

# Models with explicit integer ids (PostgreSQL sequences must continue after them).
ACCOUNT_MODELS_WITH_IDS = (
    User, SearchOrder, Match, Proposal, Inquiry, InquiryMessage, Valuation, ListingStatusChange, PendingAction,
)


@dataclass(frozen=True)
class AccountsSummary:
    users: int
    search_orders: int
    matches: int
    inquiries: int
    messages: int
    valuations: int
    proposals: int
    status_changes: int
    pending_actions: int


def seed_accounts(connection: Connection, offices: Sequence[DemoOffice], seed: int) -> AccountsSummary:
    """Write the demo accounts for the catalog just written on `connection` (same transaction)."""
    rng = random.Random(f"athaus-demo-accounts/{seed}")
    offices_by_id = {office.id: office for office in offices}
    people = People(rng, offices_by_id)
    people.draw()
    stock = Stock(connection)
    inquiry_target = min(MAX_INQUIRIES, round(stock.published_count() * INQUIRIES_PER_PUBLISHED))
    ground = Ground(
        rng=rng,
        offices=offices_by_id,
        people=people,
        stock=stock,
        pool=stock.published_sample(rng, inquiry_target + 400),
        office_listings={
            office_id: stock.office_stock(office_id)
            for office_id in (1, 2)
            if office_id in offices_by_id
        },
    )
    searches = SavedSearches(ground)
    searches.draw()
    inquiries = Inquiries(ground, searches)
    inquiries.draw(inquiry_target)
    valuations = Valuations(ground).draw()
    _write(connection, people, searches, inquiries, valuations)
    # The history grows with the offices' stock (every listing of offices 1 and 2): written as it is drawn, never
    # held whole. It draws from `rng` before the confirmations, as it always has.
    status_changes = insert_in_chunks(connection, ListingStatusChange, status_history(ground, searches.matches.events))
    pending = pending_confirmations(ground, inquiries.threads)
    insert_in_chunks(connection, PendingAction, pending)
    return AccountsSummary(
        users=len(people.users),
        search_orders=len(searches.orders),
        matches=len(searches.matches.rows),
        inquiries=len(inquiries.threads),
        messages=sum(len(thread.messages) for thread in inquiries.threads),
        valuations=len(valuations),
        proposals=len(searches.proposals.rows),
        status_changes=status_changes,
        pending_actions=len(pending),
    )


def _write(
    connection: Connection,
    people: People,
    searches: SavedSearches,
    inquiries: Inquiries,
    valuations: list[Row],
) -> None:
    # scrypt costs ~50–150 ms per hash, so each distinct demo password is hashed once and that hash string is
    # shared by every user with the password (the salt travels inside the hash, so it verifies for all).
    password_hashes = {password: hash_password(password) for password in (BROKER_PASSWORD, SEEKER_PASSWORD)}
    users = [
        {
            "id": u.id,
            "email": u.email,
            "name": u.name,
            "password_hash": password_hashes[u.password],
            "kind": u.kind,
            "phone": u.phone,
            "created_at": u.created_at,
        }
        for u in people.users
    ]
    members = [
        {"office_id": u.office_id, "user_id": u.id, "role": u.role} for u in people.users if u.office_id is not None
    ]
    threads = inquiries.threads
    inquiry_rows = [
        {
            "id": t.id,
            "ref": t.ref,
            "listing_id": t.listing.id,
            "office_id": t.listing.office_id,
            "seeker_id": t.seeker.id,
            "status": t.status,
            "shared_profile": t.profile,
            "created_at": t.created_at,
            "last_message_at": t.messages[-1][3],
        }
        for t in threads
    ]
    messages = [
        {"inquiry_id": t.id, "author": author, "author_user_id": user_id, "body": body, "created_at": at}
        for t in threads
        for author, user_id, body, at in t.messages
    ]
    for number, message in enumerate(messages, start=1):
        message["id"] = number
    for model, rows in (
        (User, users),
        (OfficeMember, members),
        (SearchOrder, [order.row for order in searches.orders]),
        (Match, searches.matches.rows),
        (Proposal, searches.proposals.rows),
        (Inquiry, inquiry_rows),
        (InquiryMessage, messages),
        (Valuation, valuations),
    ):
        insert_in_chunks(connection, model, rows)
