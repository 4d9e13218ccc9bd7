"""No text of a server names a tool that server does not have: a model that calls it gets a protocol error.

Collected are the server's own words (title, summary, instructions), every tool's title, description and the field
descriptions of its input and output schemas, the prompts (declared and rendered over the demo data) and the
resource templates, and the text of every tool's result over the demo data: pages, empty results and errors.
A tool-like name is snake_case with a verb of the contract first (`decide_proposal`); a field name that starts
with a verb (`search_order_id`) is a field, not a tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import select

from broker_server.server import DEFINITION as BROKER
from contract.tool import VERB_EFFECTS
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import Inquiry, Listing, OfficeMember, PendingAction, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.demo.openimmo import object_xml, transfer
from shared.runtime.definition import ServerDefinition
from tests.confirmation_helpers import outbound_calls
from tests.conftest import Caller, FIXED_NOW, make_context, request_key, seeded_database

TOOL_LIKE = re.compile(r"\b(?:" + "|".join(sorted(VERB_EFFECTS)) + r")_[a-z]+(?:_[a-z]+)*\b")
NOBODY = 990_001  # a signed-in user without any rows: the empty answers of every account list


def tool_like_names(text: str) -> set[str]:
    return set(TOOL_LIKE.findall(text))


def schema_texts(schema: Any) -> Iterator[str]:
    """Every description in a JSON schema, at any depth ($defs included)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from schema_texts(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from schema_texts(item)


def property_names(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            yield from property_names(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from property_names(item)


def field_names() -> set[str]:
    """Every input and output field name of both servers."""
    return {
        name
        for definition in (SEARCH, BROKER)
        for tool in definition.spec.tools
        for schema in (tool.input_schema(), tool.output_schema())
        for name in property_names(schema)
    }


def declared_texts(definition: ServerDefinition) -> Iterator[tuple[str, str]]:
    spec = definition.spec
    yield "server", f"{spec.title} {spec.summary} {spec.instructions}"
    for tool in spec.tools:
        yield f"{tool.name}: title, description", f"{tool.title} {tool.description}"
        for kind, schema in (("input", tool.input_schema()), ("output", tool.output_schema())):
            for text in schema_texts(schema):
                yield f"{tool.name}: {kind} schema", text
    for resource in spec.resources:
        yield f"resource {resource.name}", f"{resource.title} {resource.description}"
    for prompt in spec.prompts:
        yield f"prompt {prompt.name}", " ".join([prompt.title, prompt.description, *(a.description for a in prompt.arguments)])


def unknown_names(definition: ServerDefinition, texts: Iterator[tuple[str, str]]) -> list[tuple[str, str]]:
    tools = {tool.name for tool in definition.spec.tools}
    fields = field_names()
    return sorted({(where, name) for where, text in texts for name in tool_like_names(text) if name not in tools | fields})


# --- the calls over the demo data ------------------------------------------------------------------------------


def broker(db: Database, office_id: int) -> Principal:
    with db.read_only() as session:
        user = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == office_id).order_by(OfficeMember.user_id).limit(1))
    assert user is not None
    return Principal(
        user_id=user, kind="broker", office_id=office_id, office_role="owner", scopes=frozenset({"makler:lesen", "makler:schreiben"}), resource="makler"
    )


def seeker(user_id: int) -> Principal:
    return Principal(
        user_id=user_id, kind="seeker", office_id=None, office_role=None, scopes=frozenset({"suche:konto"}), resource="suche"
    )


def demo_seeker_id(db: Database) -> int:
    email = next(a.email for a in DEMO_ACCOUNTS if a.kind == "seeker")
    with db.read_only() as session:
        user_id = session.scalar(select(User.id).where(User.email == email))
    assert user_id is not None
    return user_id


def first(db: Database, statement: Any) -> str:
    with db.read_only() as session:
        found = session.scalar(statement.limit(1))
    assert found is not None, "the demo data has such a row"
    return str(found)


# an OpenImmo transfer that writes nothing: the deletion of an object the office does not have
NOTHING_TO_IMPORT = transfer([object_xml("X-1", 1, action="DELETE")], scope="TEIL")


def broker_calls(db: Database) -> list[tuple[str, dict[str, Any]]]:
    own = select(Listing.ref).where(Listing.office_id == 1).order_by(Listing.id)
    published = first(db, own.where(Listing.status == "published", Listing.property_type == "apartment"))
    draft = first(db, own.where(Listing.status == "draft"))
    foreign = first(db, select(Listing.ref).where(Listing.office_id != 1, Listing.status == "published").order_by(Listing.id))
    drafted = select(PendingAction.subject_ref).where(PendingAction.office_id == 1, PendingAction.status == "pending")
    inquiry = first(db, select(Inquiry.ref).where(Inquiry.office_id == 1, Inquiry.ref.in_(drafted)).order_by(Inquiry.id))
    with_drafts = first(db, select(Listing.ref).join(Inquiry, Inquiry.listing_id == Listing.id).where(Inquiry.ref == inquiry))
    return [
        ("show_situation_report", {}),
        ("search_listings", {}),
        ("search_listings", {"query": "Schlossgespenst"}),
        ("get_listing", {"listing_id": published}),
        ("get_listing", {"listing_id": draft}),
        ("get_listing", {"listing_id": with_drafts}),
        ("get_listing", {"listing_id": foreign}),
        ("get_listing", {"listing_id": "A-9999999"}),
        ("search", {"query": "Balkon"}),
        ("search", {"query": "Schwimmbadkeller Leipzig"}),
        ("fetch", {"id": published}),
        ("fetch", {"id": foreign}),
        ("check_listing", {"listing_id": draft}),
        ("check_listing", {"listing_id": published}),
        ("search_inquiries", {}),
        ("search_inquiries", {"query": "Schlossgespenst", "unanswered_for_days": 3}),
        ("get_inquiry", {"inquiry_id": inquiry}),
        ("get_inquiry", {"inquiry_id": "I-999999"}),
        ("estimate_value", {"listing_id": published}),
        ("estimate_value", {"postal_code": "04109", "property_type": "house", "marketing_type": "rent", "living_area": 400}),
        ("estimate_value", {"city": "Leipzig", "property_type": "apartment", "marketing_type": "buy"}),
        ("list_valuations", {}),
        ("list_valuations", {"listing_id": draft}),
        ("list_proposals", {}),
        ("list_proposals", {"listing_id": draft}),
        # the write side, called so that nothing is written to the shared demo catalog
        ("save_listing", {"request_id": request_key(), "fields": {"title": "Nur ein Titel"}}),
        ("save_listing", {"request_id": request_key(), "listing_id": foreign, "fields": {"price": 1000}}),
        ("save_listing", {"request_id": request_key(), "listing_id": published, "version": 1, "fields": {}}),
        ("update_listing_status", {"listing_id": published, "status": "published"}),
        ("update_listing_status", {"listing_id": draft, "status": "sold"}),
        ("save_valuation", {"listing_id": foreign, "value_low": 1, "value_high": 2, "request_id": "tool-names-0001"}),
        ("import_listings", {"xml": NOTHING_TO_IMPORT}),
        ("import_listings", {"from_feed": True}),
    ]


def search_calls(db: Database, user_id: int) -> list[tuple[Principal | None, str, dict[str, Any]]]:
    listing = first(db, select(Listing.ref).where(Listing.status == "published", Listing.marketing_type == "buy").order_by(Listing.id))
    on_request = first(
        db, select(Listing.ref).where(Listing.status == "published", Listing.marketing_type == "buy", Listing.price.is_(None)).order_by(Listing.id)
    )
    inquiry = first(db, select(Inquiry.ref).where(Inquiry.seeker_id == user_id).order_by(Inquiry.id))
    order = first(db, select(SearchOrder.ref).where(SearchOrder.user_id == user_id).order_by(SearchOrder.id))
    me, nobody = seeker(user_id), seeker(NOBODY)
    writer = Principal(
        user_id=user_id, kind="seeker", office_id=None, office_role=None, scopes=frozenset({"suche:konto", "suche:konto.schreiben"}), resource="suche"
    )
    return [
        (None, "search_listings", {"city": "Leipzig"}),
        (None, "search_listings", {"query": "Schlossgespenst"}),
        (None, "count_listings", {"city": "Leipzig"}),
        (None, "count_listings", {"query": "Schlossgespenst"}),
        (None, "get_listing", {"listing_id": listing}),
        (None, "get_listing", {"listing_id": "A-9999999"}),
        (None, "search", {"query": "3 Zimmer Balkon Leipzig"}),
        (None, "search", {"query": "Schwimmbadkeller Leipzig"}),
        (None, "fetch", {"id": listing}),
        (None, "fetch", {"id": "I-000001"}),
        (None, "calculate_purchase_costs", {"listing_id": listing}),
        (None, "calculate_purchase_costs", {"listing_id": on_request}),
        (None, "calculate_purchase_costs", {"price": 300000}),
        (me, "list_search_orders", {}),
        (me, "list_search_orders", {"status": ["paused"]}),
        (nobody, "list_search_orders", {}),
        (me, "list_matches", {}),
        (me, "list_matches", {"search_order_id": order, "kinds": ["proposal"], "since": "2026-11-01"}),
        (nobody, "list_matches", {}),
        (me, "list_inquiries", {}),
        (me, "list_inquiries", {"listing_id": "A-9999999"}),
        (nobody, "list_inquiries", {}),
        (me, "get_inquiry", {"inquiry_id": inquiry}),
        (nobody, "get_inquiry", {"inquiry_id": inquiry}),
        # the write side, called so that nothing is written to the shared demo catalog
        (writer, "save_search_order", {"request_id": request_key(), "name": "ohne Kriterien"}),
        (writer, "save_search_order", {"request_id": request_key(), "criteria": {"city": "Xyzzyhausen"}}),
        (me, "save_search_order", {"request_id": request_key(), "criteria": {"city": "Leipzig"}}),
        (writer, "update_search_order", {"search_order_id": "S-999999", "status": "paused"}),
        (writer, "update_match", {"match_id": "T-999999", "state": "seen"}),
    ]


def result_text(result: Any) -> str:
    if isinstance(result, types.CallToolResult):
        return "\n".join(part.text for part in result.content if isinstance(part, types.TextContent))
    return str(result)


def rendered_texts(db: Database, scratch: Database | None = None) -> dict[str, list[tuple[str, str]]]:
    """Per server: (where, text) of every call above and of every prompt rendered over the demo data; the tools that
    write (draft_, send_, decide_) on `scratch`, a database of their own."""
    context = make_context(db)
    texts: dict[str, list[tuple[str, str]]] = {"makler": [], "suche": []}
    if scratch is not None:
        for server, tool, arguments, result in outbound_calls(scratch, FIXED_NOW):
            texts[server].append((f"{tool} {arguments}", result_text(result)))
    office = Caller(BROKER, context).as_(broker(db, 1))
    for tool, arguments in broker_calls(db):
        texts["makler"].append((f"{tool} {arguments}", result_text(office.raw(tool, arguments))))
    base = Caller(SEARCH, context)
    for principal, tool, arguments in search_calls(db, demo_seeker_id(db)):
        texts["suche"].append((f"{tool} {arguments}", result_text(base.as_(principal).raw(tool, arguments))))
    for server, definition, arguments in (
        ("makler", BROKER, {"older_than_days": "2"}),
        ("suche", SEARCH, {"place": "Leipzig", "marketing_type": "rent", "budget": "900"}),
    ):
        for name, render in definition.prompts.items():
            texts[server].append((f"prompt {name}", render(arguments, context)))
    return texts


@pytest.fixture(scope="module")
def rendered(demo_db: Database, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[str, str]]]:
    with seeded_database(tmp_path_factory.mktemp("outbound"), "outbound") as scratch:
        return rendered_texts(demo_db, scratch)


# --- the tests -----------------------------------------------------------------------------------------------------


def test_the_finder_sees_a_tool_name_and_passes_over_words_and_fields() -> None:
    assert tool_like_names("Entscheiden: decide_proposal. Dann list_matches(since=…).") == {"decide_proposal", "list_matches"}
    assert tool_like_names("Inserate listen, update-match, Listing_id, searching_x") == set()
    assert unknown_names(BROKER, iter([("probe", "search_order_id und send_offer")])) == [("probe", "send_offer")]


def test_no_tool_name_is_a_field_name() -> None:
    tools = {tool.name for definition in (SEARCH, BROKER) for tool in definition.spec.tools}
    assert tools & field_names() == set(), "a field with a tool's name would hide that tool from this check"


@pytest.mark.parametrize("definition", [SEARCH, BROKER], ids=["suche", "makler"])
def test_declared_texts_name_only_tools_of_their_server(definition: ServerDefinition) -> None:
    assert unknown_names(definition, declared_texts(definition)) == []


@pytest.mark.parametrize("server", ["suche", "makler"])
def test_result_and_prompt_texts_name_only_tools_of_their_server(server: str, rendered: dict[str, list[tuple[str, str]]]) -> None:
    definition = SEARCH if server == "suche" else BROKER
    called = {where.split(" ")[0] for where, _ in rendered[server] if not where.startswith("prompt ")}
    assert called == {tool.name for tool in definition.spec.tools}, "every tool's text is read"
    assert all(text for _, text in rendered[server])
    assert unknown_names(definition, iter(rendered[server])) == []
