"""No tool of either server, for any argument, returns data of another office or another seeker.

Arguments come from each tool's own input schema, with every id argument drawn
from the ids of ALL offices and seekers, so foreign ids are tried on purpose. Every id and e-mail address
in a result must belong to the caller, or be public catalog data (published listings, providers).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from contract.rights import RIGHTS, ServerName
from contract.tool import Effect
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import (
    Inquiry,
    Listing,
    Match,
    Office,
    OfficeMember,
    PendingAction,
    Proposal,
    SearchOrder,
    User,
    Valuation,
)
from shared.db.session import Database
from shared.runtime.definition import ServerDefinition
from tests.conftest import Caller, make_context, seeded_database
from tests.schema_strategies import from_schema

REF = re.compile(r"\b[AIVPSTC]-\d{6,7}\b")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")


@dataclass
class Ownership:
    listings: dict[str, tuple[int, str]]  # ref → (office, status)
    inquiries: dict[str, tuple[int, int]]  # ref → (office, seeker)
    valuations: dict[str, int]
    proposals: dict[str, tuple[int, int]]  # ref → (office, seeker of the search)
    orders: dict[str, int]  # ref → seeker
    matches: dict[str, int]  # ref → seeker
    actions: dict[str, tuple[int | None, int]]  # ref → (office, user)
    user_emails: dict[int, str]
    office_emails: set[str]
    shared_emails: dict[str, set[str]]  # inquiry ref → e-mails the seeker shared with the office
    seeker_listings: dict[int, set[str]]  # seeker → listings they asked about or were matched with

    def all_refs(self) -> list[str]:
        return sorted({*self.listings, *self.inquiries, *self.valuations, *self.proposals, *self.orders, *self.matches})


@pytest.fixture(scope="module")
def ownership(demo_db: Any) -> Ownership:
    return ownership_of(demo_db)


def ownership_of(db: Any) -> Ownership:
    """Who owns what, read from the database (again after a call that created something)."""
    with db.read_only() as s:
        order_user = dict(s.execute(select(SearchOrder.id, SearchOrder.user_id)).all())
        inquiries = {r: (o, u) for r, o, u in s.execute(select(Inquiry.ref, Inquiry.office_id, Inquiry.seeker_id))}
        shared = {r: set(EMAIL.findall(str(p))) for r, p in s.execute(select(Inquiry.ref, Inquiry.shared_profile))}
        seeker_listings: dict[int, set[str]] = {}
        asked = select(Inquiry.seeker_id, Listing.ref).join(Listing, Inquiry.listing_id == Listing.id)
        matched = (
            select(SearchOrder.user_id, Listing.ref)
            .join(Match, Match.search_order_id == SearchOrder.id)
            .join(Listing, Match.listing_id == Listing.id)
        )
        for user, ref in [*s.execute(asked), *s.execute(matched)]:
            seeker_listings.setdefault(user, set()).add(ref)
        return Ownership(
            listings={r: (o, st_) for r, o, st_ in s.execute(select(Listing.ref, Listing.office_id, Listing.status))},
            inquiries=inquiries,
            valuations=dict(s.execute(select(Valuation.ref, Valuation.office_id)).all()),
            proposals={r: (o, order_user[so]) for r, o, so in s.execute(select(Proposal.ref, Proposal.office_id, Proposal.search_order_id))},
            orders=dict(s.execute(select(SearchOrder.ref, SearchOrder.user_id)).all()),
            matches={r: order_user[so] for r, so in s.execute(select(Match.ref, Match.search_order_id))},
            actions={r: (o, u) for r, o, u in s.execute(select(PendingAction.ref, PendingAction.office_id, PendingAction.user_id))},
            user_emails=dict(s.execute(select(User.id, User.email)).all()),
            office_emails={e for (e,) in s.execute(select(Office.email)) if e},
            shared_emails=shared,
            seeker_listings=seeker_listings,
        )


def principals(demo_db: Any) -> list[Principal]:
    with demo_db.read_only() as s:
        brokers = s.execute(
            select(OfficeMember.user_id, OfficeMember.office_id, OfficeMember.role).order_by(OfficeMember.office_id).limit(40)
        ).all()
        seekers = s.scalars(select(User.id).where(User.kind == "seeker").order_by(User.id).limit(2)).all()
    first_per_office = {office: (user, role) for user, office, role in reversed(brokers)}
    broker_scopes = frozenset(r.scope for r in RIGHTS[ServerName.broker] if r.scope)
    seeker_scopes = frozenset(r.scope for r in RIGHTS[ServerName.search] if r.scope)
    chosen = [
        Principal(user, "broker", office, role, broker_scopes, "http://127.0.0.1:8000/makler/mcp")
        for office, (user, role) in sorted(first_per_office.items())[:2]
    ]
    chosen += [Principal(user, "seeker", None, None, seeker_scopes, "http://127.0.0.1:8000/suche/mcp") for user in seekers]
    return chosen


def allowed(ref: str, who: Principal, own: Ownership) -> bool:
    kind = ref[0]
    if kind == "A":
        office, status = own.listings.get(ref, (None, ""))
        if status == "published" or (who.office_id is not None and office == who.office_id):
            return True
        # a seeker keeps seeing listings they asked about or were matched with, also after they went off market
        return who.office_id is None and ref in own.seeker_listings.get(who.user_id, set())
    if kind == "I":
        office, seeker = own.inquiries[ref]
        return office == who.office_id if who.office_id is not None else seeker == who.user_id
    if kind == "V":
        return who.office_id is not None and own.valuations[ref] == who.office_id
    if kind == "P":
        office, seeker = own.proposals[ref]
        return office == who.office_id if who.office_id is not None else seeker == who.user_id
    if kind == "S":
        if who.office_id is not None:  # an office sees a saved search only through its own proposals
            return any(o == who.office_id for o, _ in own.proposals.values())
        return own.orders[ref] == who.user_id
    if kind == "T":
        return who.office_id is None and own.matches[ref] == who.user_id
    if kind == "C":
        office, user = own.actions[ref]
        return office == who.office_id if who.office_id is not None else user == who.user_id
    return False


def allowed_emails(who: Principal, own: Ownership) -> set[str]:
    emails = set(own.office_emails) | {own.user_emails[who.user_id]}
    if who.office_id is not None:
        for ref, (office, _) in own.inquiries.items():
            if office == who.office_id:
                emails |= own.shared_emails[ref]
    return emails


def id_fields(schema: dict[str, Any]) -> list[str]:
    return [name for name in schema.get("properties", {}) if name.endswith("_id") or name in {"cursor", "ref"}]


def arguments(schema: dict[str, Any], refs: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    ids = id_fields(schema)
    rest = {**schema, "properties": {k: v for k, v in schema.get("properties", {}).items() if k not in ids}}
    rest["required"] = [r for r in schema.get("required", []) if r not in ids]
    id_values = st.fixed_dictionaries({}, optional={name: st.sampled_from(refs) for name in ids})
    return st.tuples(from_schema(rest), id_values).map(lambda pair: {**pair[0], **pair[1]})


WRITES = (Effect.save, Effect.update, Effect.draft, Effect.outbound)  # everything that writes runs on its own catalog


def tool_cases(writes: bool = False) -> list[tuple[ServerDefinition, str]]:
    """The tools that need a login; the reading ones (on the shared demo catalog) or the writing ones (on their own)."""
    return [
        (d, spec.name) for d in (BROKER, SEARCH) for spec in d.spec.tools if spec.right.scope is not None and (spec.effect in WRITES) == writes
    ]


@pytest.fixture(scope="module")
def write_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(tmp_path_factory.mktemp("isolation-writes"), "isolationwrites", listings=300) as db:
        yield db


@pytest.mark.parametrize(("definition", "tool"), tool_cases(), ids=lambda v: v if isinstance(v, str) else v.spec.name.value)
def test_no_tool_returns_foreign_data(definition: ServerDefinition, tool: str, demo_db: Any, ownership: Ownership) -> None:
    check_tool(definition, tool, demo_db, lambda: ownership)


@pytest.mark.parametrize(("definition", "tool"), tool_cases(writes=True), ids=lambda v: v if isinstance(v, str) else v.spec.name.value)
def test_no_write_tool_returns_or_changes_foreign_data(definition: ServerDefinition, tool: str, write_db: Database) -> None:
    """The writing tools, on a catalog of their own; what they create belongs to the caller (ownership read after)."""
    check_tool(definition, tool, write_db, lambda: ownership_of(write_db), foreign_state)


def foreign_state(db: Any, who: Principal) -> tuple[Any, ...]:
    """What the caller must not change: other offices' listings and valuations, other seekers' searches and Treffer."""
    with db.read_only() as s:
        return (
            s.execute(select(Listing.ref, Listing.version, Listing.status, Listing.price).where(Listing.office_id != (who.office_id or 0)).order_by(Listing.id)).all(),
            s.execute(select(Valuation.ref).where(Valuation.office_id != (who.office_id or 0)).order_by(Valuation.id)).all(),
            s.execute(select(SearchOrder.ref, SearchOrder.status, SearchOrder.criteria).where(SearchOrder.user_id != who.user_id).order_by(SearchOrder.id)).all(),
            s.execute(
                select(Match.ref, Match.state).join(SearchOrder, Match.search_order_id == SearchOrder.id)
                .where(SearchOrder.user_id != who.user_id, Match.kind != "proposal").order_by(Match.id)
            ).all() if who.office_id is None else (),
        )


def check_tool(
    definition: ServerDefinition, tool: str, db: Any, owned: Callable[[], Ownership], untouched: Callable[[Any, Principal], Any] | None = None
) -> None:
    spec = next(s for s in definition.spec.tools if s.name == tool)
    callers = [p for p in principals(db) if (p.office_id is not None) == (definition is BROKER)]
    refs = owned().all_refs()

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
    @given(args=arguments(spec.input_schema(), refs), who=st.sampled_from(callers))
    def check(args: dict[str, Any], who: Principal) -> None:
        before = untouched(db, who) if untouched else None
        result = Caller(definition, make_context(db), who).raw(tool, args)
        if untouched:
            assert untouched(db, who) == before, f"{tool} as {who.kind} {who.office_id or who.user_id} changed foreign data"
        ownership = owned()
        text = str(getattr(result, "structured_content", None)) + " ".join(
            c.text for c in getattr(result, "content", []) if hasattr(c, "text")
        )
        echoed = set(REF.findall(str(args)))  # the caller's own input may be repeated back; it reveals nothing
        foreign = sorted(ref for ref in set(REF.findall(text)) - echoed if not allowed(ref, who, ownership))
        assert not foreign, f"{tool} as {who.kind} {who.office_id or who.user_id} returned {foreign[:5]}"
        leaked = set(EMAIL.findall(text)) - allowed_emails(who, ownership)
        assert not leaked, f"{tool} returned foreign e-mail addresses {sorted(leaked)[:3]}"

    check()
