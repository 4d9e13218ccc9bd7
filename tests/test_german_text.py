"""German throughout: every tool of both servers, called over the demo data, answers with a text that contains
no output field name and no enum value from the code. Structured keys stay English; the text is for people
and models that read German.

Where a text tells the model which argument to send, it names it after the German words, in parentheses:
"für ältere Treffer den Zeitpunkt früher setzen (since)"; the paging sentence names `cursor`. Those are the only
code words a text may carry.

Every declared tool needs at least one case here, so a new tool is read too."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Iterator
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from contract.labels import nested_models
from contract.server import ServerSpec
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.catalog import search as engine
from shared.db.models import Inquiry, Listing, OfficeMember, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.demo.openimmo import object_xml, transfer
from tests.confirmation_helpers import APPS_META, outbound_calls
from tests.conftest import Caller, FIXED_NOW, make_context, request_key, seeded_database
from tests.test_stock_writes import complete_fields

BROKER_OWNER = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
SEEKER = next(a for a in DEMO_ACCOUNTS if a.kind == "seeker")
# Tokens that are data, not words of the text: cursors, URLs, e-mail addresses, ids.
NOT_WORDS = re.compile(r"\S{40,}|https?://\S+|\S+@\S+")


def enum_values(model: type[BaseModel], seen: set[type[BaseModel]] | None = None) -> set[str]:
    seen = seen if seen is not None else set()
    if model in seen:
        return set()
    seen.add(model)
    values: set[str] = set()
    for info in model.model_fields.values():
        values |= {member.value for enum in _enums(info.annotation) for member in enum}
        for nested in nested_models(info.annotation):
            values |= enum_values(nested, seen)
    return values


def _enums(annotation: Any) -> Iterator[type[StrEnum]]:
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _enums(argument)


def field_names(model: type[BaseModel], seen: set[type[BaseModel]] | None = None) -> set[str]:
    seen = seen if seen is not None else set()
    if model in seen:
        return set()
    seen.add(model)
    names = set(model.model_fields)
    for info in model.model_fields.values():
        for nested in nested_models(info.annotation):
            names |= field_names(nested, seen)
    return names


def forbidden_words(server: ServerSpec) -> set[str]:
    words: set[str] = set()
    for tool in server.tools:
        words |= field_names(tool.output_model) | enum_values(tool.output_model) | enum_values(tool.input_model)
    return {w for w in words if len(w) > 1}


def english_in(text: str, words: set[str], arguments: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The code words in `text`; an argument named in parentheses after its German words is allowed."""
    readable = NOT_WORDS.sub(" ", text).replace("cursor", " ")
    named = re.compile(r"\((?:" + "|".join(sorted(arguments)) + r")\b[^()]*\)") if arguments else None
    if named is not None:
        readable = named.sub(" ", readable)
    found = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", readable)) & words
    return sorted(found)


def principal(db: Database, email: str, scopes: frozenset[str]) -> Principal:
    with db.read_only() as session:
        user = session.scalar(select(User).where(User.email == email))
        membership = session.scalar(select(OfficeMember).where(OfficeMember.user_id == user.id))
        return Principal(
            user_id=user.id,
            kind=user.kind,
            office_id=membership.office_id if membership else None,
            office_role=membership.role if membership else None,
            scopes=scopes,
            resource="test",
        )


Case = tuple[str, Callable[[dict[str, Any]], dict[str, Any]]]


def search_cases(db: Database) -> list[tuple[str, dict[str, Any]]]:
    with db.read_only() as session:
        listing = session.scalar(select(Listing.ref).where(Listing.status == "published", Listing.marketing_type == "rent").limit(1))
        on_request = session.scalar(select(Listing.ref).where(Listing.status == "published", Listing.price_on_request).limit(1))
        seeker_id = session.scalar(select(User.id).where(User.email == SEEKER.email))
        inquiry = session.scalar(select(Inquiry.ref).where(Inquiry.seeker_id == seeker_id).limit(1))
    return [
        ("search_listings", {"query": "Balkon", "city": "Leipzig", "limit": 10}),
        ("search_listings", {"query": "Schlossgespenst Balkon", "city": "Leipzig", "max_price": 900}),
        ("search_listings", {"city": "Freiburg im Breisgau", "query": "Balkon~ OR Loggia", "max_warm_rent": 1200, "limit": 3}),
        ("search_listings", {"marketing_type": "rent", "near": {"place": "Leipzig", "radius_km": 5}, "sort": "price_desc", "limit": 3}),
        ("count_listings", {"city": "Leipzig"}),
        ("count_listings", {"query": "Schlossgespenst"}),
        ("get_listing", {"listing_id": listing}),
        ("get_listing", {"listing_id": on_request}),
        ("calculate_purchase_costs", {"price": 400000, "state": "Bayern"}),
        ("list_search_orders", {}),
        ("list_matches", {}),
        ("list_matches", {"since": "2026-01-01T00:00:00Z", "limit": 3}),
        ("list_inquiries", {"limit": 3}),
        ("get_inquiry", {"inquiry_id": inquiry}),
        ("search", {"query": "3 Zimmer Balkon Leipzig"}),
        ("search", {"query": "Schlossgespenst Leipzig"}),
        ("fetch", {"id": listing}),
    ]


def broker_cases(db: Database, office_id: int) -> list[tuple[str, dict[str, Any]]]:
    with db.read_only() as session:
        own = session.scalar(select(Listing.ref).where(Listing.office_id == office_id, Listing.status == "published").limit(1))
        draft = session.scalar(select(Listing.ref).where(Listing.office_id == office_id, Listing.status == "draft").limit(1))
        inquiry = session.scalar(select(Inquiry.ref).where(Inquiry.office_id == office_id).limit(1))
    return [
        ("show_situation_report", {}),
        ("search_listings", {"limit": 10}),
        ("search_listings", {"query": "Schlossgespenst", "statuses": ["draft"]}),
        ("get_listing", {"listing_id": own}),
        ("get_listing", {"listing_id": draft or own}),
        ("check_listing", {"listing_id": draft or own}),
        ("search_inquiries", {"limit": 5}),
        ("get_inquiry", {"inquiry_id": inquiry}),
        ("estimate_value", {"listing_id": own}),
        ("estimate_value", {"city": "Leipzig", "property_type": "apartment", "marketing_type": "buy", "living_area": 70}),
        ("list_valuations", {"limit": 5}),
        ("list_proposals", {"limit": 5}),
        ("search", {"query": "Balkon"}),
        ("search", {"query": "Schlossgespenst"}),
        ("fetch", {"id": inquiry}),
        # writes that find nothing to change: the shared demo catalog stays as seeded
        ("save_listing", {"request_id": request_key(), "listing_id": own, "fields": {}}),
        ("update_listing_status", {"listing_id": own, "status": "published"}),
        # an OpenImmo transfer that writes nothing: an empty full transfer and the deletion of an unknown object
        ("import_listings", {"xml": transfer([object_xml("X-1", 1, action="DELETE")], scope="TEIL")}),
        ("import_listings", {"xml": transfer([], scope="VOLL")}),
    ]


def all_cases(db: Database) -> Iterator[tuple[Caller, ServerSpec, str, dict[str, Any]]]:
    context = make_context(db)
    seeker = Caller(SEARCH, context, principal(db, SEEKER.email, frozenset(SEARCH.spec.scopes)), APPS_META)
    broker = Caller(BROKER, context, principal(db, BROKER_OWNER.email, frozenset(BROKER.spec.scopes)), APPS_META)
    for name, args in search_cases(db):
        yield seeker, SEARCH.spec, name, args
    for name, args in broker_cases(db, BROKER_OWNER.office_id):
        yield broker, BROKER.spec, name, args


# Tools that write are read on a catalog of their own (test_every_write_text_is_german), as they change it.
WRITE_CASES = {
    ("makler", "save_listing"),
    ("makler", "update_listing_status"),
    ("makler", "save_valuation"),
    ("suche", "save_search_order"),
    ("suche", "update_search_order"),
    ("suche", "update_match"),
}


OUTBOUND = {"draft_inquiry", "send_inquiry", "decide_confirmation", "get_confirmation", "draft_reply", "send_reply", "decide_proposal"}


@pytest.fixture(scope="module")
def outbound(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, str, dict[str, Any], Any]]:
    """The tools that write, called in a real flow on a database of their own (tests/confirmation_helpers.py)."""
    with seeded_database(tmp_path_factory.mktemp("outbound"), "outbound") as db:
        return outbound_calls(db, FIXED_NOW)


def test_every_tool_of_both_servers_has_a_case(demo_db: Database, outbound: list[tuple[str, str, dict[str, Any], Any]]) -> None:
    covered = (
        {(spec.name.value, name) for _, spec, name, _ in all_cases(demo_db)}
        | {(server, tool) for server, tool, _, _ in outbound}
        | WRITE_CASES
    )
    declared = {(spec.name.value, tool.name) for spec in (SEARCH.spec, BROKER.spec) for tool in spec.tools}
    assert declared - covered == set()


def readable(spec: ServerSpec, name: str, result: Any) -> str:
    """What a person reads of a result: its text, or for the connector tools (whose text is OpenAI's JSON shape, with
    English keys by that contract) the German sentences inside it."""
    if not spec.tool(name).json_text:
        return result.content[0].text
    data = result.structured_content
    parts = [data.get("read_as"), data.get("hint"), data.get("title"), data.get("text")]
    parts += [r["message"] for r in data.get("completeness", {}).get("reasons", [])]
    parts += [w["message"] for w in data.get("warnings", [])] + [s["reason"] for s in data.get("suggestions") or []]
    parts += [r["title"] for r in data.get("results", [])] + list((data.get("metadata") or {}).values())[1:]
    return "\n".join(p for p in parts if p)


def test_every_text_is_german(demo_db: Database) -> None:
    problems = []
    words = {SEARCH.spec.name: forbidden_words(SEARCH.spec), BROKER.spec.name: forbidden_words(BROKER.spec)}
    for caller, spec, name, args in all_cases(demo_db):
        result = caller.raw(name, args)
        text = readable(spec, name, result)
        assert not result.is_error, (name, args, text)
        found = english_in(text, words[spec.name], set(spec.tool(name).input_model.model_fields))
        if found:
            problems.append(f"{spec.name.value}/{name} {args}: {found}")
    assert problems == [], "\n".join(problems)


def test_every_text_of_the_tools_that_write_is_german(outbound: list[tuple[str, str, dict[str, Any], Any]]) -> None:
    problems = []
    specs = {"suche": SEARCH.spec, "makler": BROKER.spec}
    for server, tool, args, result in outbound:
        spec = specs[server]
        found = english_in(result.content[0].text, forbidden_words(spec), set(spec.tool(tool).input_model.model_fields))
        if found:
            problems.append(f"{server}/{tool} {args}: {found}")
    assert sorted({tool for _, tool, _, _ in outbound}) == sorted(OUTBOUND)
    assert problems == [], "\n".join(problems)


def test_the_check_finds_english_in_a_text() -> None:
    assert english_in("Preis: 950 € · marketing_type rent · https://x.example/rent", {"marketing_type", "rent"}) == ["marketing_type", "rent"]
    assert english_in("Miete: 950 € kalt", {"marketing_type", "rent"}) == []
    assert english_in("Nur Miete (marketing_type = rent).", {"marketing_type", "rent"}, {"marketing_type"}) == []
    assert english_in("Nur Miete (marketing_type = rent).", {"marketing_type", "rent"}, {"city"}) == ["marketing_type", "rent"]


def test_years_are_written_without_thousands_separator_and_long_waits_in_days(demo_db: Database) -> None:
    caller = next(c for c, _, name, _ in all_cases(demo_db) if name == "get_listing")
    listing = next(args for _, _, name, args in all_cases(demo_db) if name == "get_listing")
    text = caller.raw("get_listing", listing).content[0].text
    year = caller("get_listing", listing)["year_built"]
    if year is not None:
        assert f"Baujahr: {year}" in text and f"Baujahr: {year // 1000}.{year % 1000:03d}" not in text
    broker = next(c for c, spec, name, _ in all_cases(demo_db) if name == "show_situation_report")
    report = broker.raw("show_situation_report", {}).content[0].text
    assert "(Stunden)" not in report and re.search(r"\d+ Tage", report)


def test_every_write_text_is_german(tmp_path: Path) -> None:
    with seeded_database(tmp_path, "german", listings=200) as db:
        context = make_context(db)
        broker = Caller(BROKER, context, principal(db, BROKER_OWNER.email, frozenset(BROKER.spec.scopes)), APPS_META)
        seeker = Caller(SEARCH, context, principal(db, SEEKER.email, frozenset(SEARCH.spec.scopes)), APPS_META)
        words = forbidden_words(BROKER.spec)
        problems: list[str] = []
        called: set[tuple[str, str]] = set()

        def run(caller: Caller, spec: ServerSpec, name: str, args: dict[str, Any]) -> dict[str, Any]:
            result = caller.raw(name, args)
            text = result.content[0].text
            assert not result.is_error, (name, args, text)
            found = english_in(text, words if spec is BROKER.spec else forbidden_words(spec), set(spec.tool(name).input_model.model_fields))
            if found:
                problems.append(f"{spec.name.value}/{name} {args}: {found}")
            called.add((spec.name.value, name))
            return result.structured_content

        order = run(
            seeker,
            SEARCH.spec,
            "save_search_order",
            {"criteria": {"city": "Leipzig", "query": "Parkblick", "marketing_type": "buy"}, "approachable": True, "frequency": "sofort", "request_id": request_key()},
        )["search_order_id"]
        run(seeker, SEARCH.spec, "save_search_order", {"request_id": request_key(), "search_order_id": order, "frequency": "weekly", "name": "Leipzig mit Parkblick"})
        run(seeker, SEARCH.spec, "update_search_order", {"search_order_id": order, "status": "paused"})
        run(seeker, SEARCH.spec, "update_search_order", {"search_order_id": order, "status": "active"})
        created = run(broker, BROKER.spec, "save_listing", {"fields": complete_fields(db, title="Wohnung mit Parkblick"), "request_id": "german-text-0001"})
        run(broker, BROKER.spec, "save_listing", {"fields": complete_fields(db, title="Wohnung mit Parkblick"), "request_id": "german-text-0001"})
        ref = created["listing_id"]
        run(broker, BROKER.spec, "save_listing", {"request_id": request_key(), "listing_id": ref, "version": 1, "fields": {"price": 250000, "title": "Ruhige Wohnung mit Parkblick"}})
        run(broker, BROKER.spec, "save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 250000}})
        run(broker, BROKER.spec, "update_listing_status", {"listing_id": ref, "status": "published"})
        treffer = run(seeker, SEARCH.spec, "list_matches", {"search_order_id": order})["items"]
        assert treffer, "publishing made a Treffer for the fitting search"
        run(seeker, SEARCH.spec, "update_match", {"match_id": treffer[0]["match_id"], "state": "interessant"})
        run(seeker, SEARCH.spec, "update_match", {"match_id": treffer[0]["match_id"], "state": "interessant"})
        run(broker, BROKER.spec, "update_listing_status", {"listing_id": ref, "status": "withdrawn", "reason": "Eigentümer verkauft privat"})
        run(broker, BROKER.spec, "save_valuation", {"listing_id": ref, "value_low": 240000, "value_high": 265000, "request_id": "german-text-0003"})
        run(
            broker,
            BROKER.spec,
            "save_valuation",
            {"owner_name": "Familie Berger", "postal_code": "04109", "city": "Leipzig", "property_type": "house", "marketing_type": "buy",
             "living_area": 140, "value_low": 390000, "value_high": 430000, "request_id": "german-text-0002"},
        )
    assert called - {("suche", "list_matches")} == WRITE_CASES
    assert problems == [], "\n".join(problems)


def test_an_uncounted_total_reads_as_a_lower_bound(demo_db: Database, monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond the count cap the text says 'mindestens N Treffer', never a total it did not count."""
    monkeypatch.setattr(engine, "COUNT_CAP", 100)
    caller = Caller(SEARCH, make_context(demo_db))
    result = caller.raw("search_listings", {"query": "Balkon", "limit": 3})
    text = result.content[0].text
    assert english_in(text, forbidden_words(SEARCH.spec), set(SEARCH.spec.tool("search_listings").input_model.model_fields)) == []
    assert text.startswith("Mindestens 100 Treffer (nicht genau gezählt), diese Seite zeigt 3.")
    assert "Gesamtzahl nicht gezählt: mindestens 100 Treffer" in text and "insgesamt" not in text
