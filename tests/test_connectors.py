"""`search` and `fetch` as ChatGPT's research and company-knowledge connectors call them (contract/connectors.py).

Each line of a table is answered like the equivalent search_listings / get_listing call (same listings, same order,
same total), the shape is OpenAI's (one text content item holding the structured result as JSON; results with id,
title, url; a document with id, title, text, url, metadata), an office sees only its own records (another office's
number is the same NOT_FOUND as a missing one) and reading an inquiry writes the personal-data audit."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import text

from broker_server.server import DEFINITION as BROKER
from contract.tool import ContractError, ToolSpec, declare_tools
from contract.connectors import SEARCH_CATALOG
from contract.rights import ServerName
from shared.catalog.free_text import read_line
from shared.catalog.places import classify_place
from shared.db.session import Database
from tests.conftest import Caller, LiveServer, make_context
from tests.test_broker_http import OWNER, token_for
from tests.test_broker_office import principal

PUBLIC_URL = "http://127.0.0.1:8000"  # the settings' default public URL, as the in-process context has it
CHATGPT_META = {"openai/userAgent": "ChatGPT/1.0 (research)", "openai/locale": "de-DE"}

# A line as a person types it, and the search_listings call it must equal.
CATALOG_LINES: list[tuple[str, dict[str, Any]]] = [
    ("3 Zimmer Balkon Leipzig", {"features": ["balcony"], "city": "Leipzig", "min_rooms": 3, "max_rooms": 3.5}),
    ("04109", {"postal_codes": ["04109"]}),
    ("Wohnung zur Miete in Berlin bis 1.200 €", {"marketing_type": "rent", "property_types": ["apartment"], "city": "Berlin", "max_price": 1200}),
    ("Altbau Parkett", {"query": "Altbau Parkett"}),
    ("Haus kaufen München ab 120 m²", {"marketing_type": "buy", "property_types": ["house"], "city": "München", "min_living_area": 120}),
    ("2-3 Zimmer Wohnung Balkon Würzburg", {"property_types": ["apartment"], "city": "Würzburg", "min_rooms": 2, "max_rooms": 3, "features": ["balcony"]}),
    ("Wohnung zwischen 500 und 800 Euro in Leipzig", {"marketing_type": "rent", "property_types": ["apartment"], "city": "Leipzig", "min_price": 500, "max_price": 800}),
]


def structured_and_text(result: Any) -> dict[str, Any]:
    """OpenAI's shape: exactly one text item, its JSON equal to structuredContent."""
    assert not result.is_error, result.content[0].text
    assert [c.type for c in result.content] == ["text"]
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


@pytest.mark.parametrize(("line", "equivalent"), CATALOG_LINES)
def test_a_line_finds_what_search_listings_finds(line: str, equivalent: dict[str, Any], search: Caller) -> None:
    found = structured_and_text(search.raw("search", {"query": line}))
    expected = search("search_listings", {**equivalent, "limit": 10})
    assert [r["id"] for r in found["results"]] == [i["listing_id"] for i in expected["items"]]
    assert (found["total"], found["total_exact"], found["returned"]) == (expected["total"], expected["total_exact"], expected["returned"])
    assert found["request"]["line"] == line
    for name, value in equivalent.items():
        assert found["request"][name] == value and found["request_sources"][name] == "caller"
    assert [r["url"] for r in found["results"]] == [f"{PUBLIC_URL}/inserate/{i['listing_id']}" for i in expected["items"]]
    more = expected["total"] is None or expected["total"] > expected["returned"]
    codes = [r["code"] for r in found["completeness"]["reasons"]]
    assert found["completeness"]["complete"] is (not more) and found["status"] == ("partial" if more else "complete")
    assert ("RESULT_LIMIT_REACHED" in codes) is more
    assert expected["total"] != 0, "the table's lines are meant to find something in the demo catalog"


def test_the_words_left_over_are_full_text_and_nothing_is_read_twice() -> None:
    reading = read_line("3,5-Zimmer-Wohnung Frankfurt am Main mit Balkon ab 300.000 € Altbau", classify_place)
    assert reading.filters == {
        "min_rooms": 3.5, "max_rooms": 3.5, "property_types": ["apartment"], "min_price": 300000.0, "marketing_type": "buy",
        "city": "Frankfurt am Main", "features": ["balcony"],
    }
    assert reading.query == "Altbau"
    bare = read_line("Balkon", lambda t: None)
    assert (bare.filters, bare.query) == ({"features": ["balcony"]}, None)


@pytest.mark.parametrize(
    ("line", "city", "query", "unclear"),
    [
        ("Wohnung in Stuttgart-West, Stuttgart", "Stuttgart", "West", []),  # the town named again
        ("Wohnung in Stuttgart-West, Leipzig", "Stuttgart", "West Leipzig", ["Leipzig"]),  # another town: said
    ],
)
def test_a_town_named_twice_is_one_place(line: str, city: str, query: str, unclear: list[str]) -> None:
    reading = read_line(line, classify_place)
    assert (reading.filters["city"], reading.query, [u.typed for u in reading.unclear]) == (city, query, unclear)


@pytest.mark.parametrize(
    ("line", "city", "query", "unclear", "ambiguous"),
    [
        # A district before its town: the town, the district a word. Göggingen is also a village 150 km from Augsburg,
        # and the gazetteer does not list Augsburg's districts; before the fix this searched the village for "Augsburg".
        ("Wohnung in Göggingen, Augsburg", "Augsburg", "Göggingen", [], []),
        ("Wohnung in Paradies, Konstanz", "Konstanz", "Paradies", [], []),  # a district the gazetteer lists
        # "Altstadt" is a district of several towns, none of them named: in Halle a word, not a choice among others
        ("Wohnung in Altstadt, Halle (Saale)", "Halle (Saale)", "Altstadt", [], []),
        # The other halves: a village near the town is that village, two towns are two places, a district alone
        # still asks
        ("Wohnung in Kasel, Trier", "Kasel", "Trier", ["Kasel", "Trier"], []),
        ("Wohnung in Fürth, Nürnberg", "Fürth (Bayern)", "Nürnberg", ["Nürnberg"], []),
        ("Wohnung in Altstadt", None, "Altstadt", [], ["Altstadt"]),
    ],
)
def test_a_district_named_with_its_town_is_a_word_of_that_town(
    line: str, city: str | None, query: str, unclear: list[str], ambiguous: list[str]
) -> None:
    reading = read_line(line, classify_place)
    assert (reading.filters.get("city"), reading.query, [u.typed for u in reading.unclear], [a.typed for a in reading.ambiguous]) == (
        city, query, unclear, ambiguous,
    )
    said = [part for part in reading.parts if part.startswith("Ortsteil")]
    assert said == ([f"Ortsteil {query} als Suchwort"] if line in DISTRICTS_SAID else [])


DISTRICTS_SAID = {"Wohnung in Göggingen, Augsburg", "Wohnung in Paradies, Konstanz"}


def test_an_empty_line_result_says_what_was_read_and_suggests_shorter_lines(search: Caller) -> None:
    found = structured_and_text(search.raw("search", {"query": "Schwimmbadkeller Leipzig 3 Zimmer"}))
    assert (found["results"], found["total"], found["match_type"]) == ([], 0, "none")
    assert found["read_as"] == "3 bis 3,5 Zimmer („3 Zimmer“ schließt 3,5 ein), Ort Leipzig, Suchwörter „Schwimmbadkeller“"
    assert found["hint"].startswith("Keine Treffer für diese Anfrage.")
    assert [s["arguments"] for s in found["suggestions"]] == [{"query": "Schwimmbadkeller Leipzig"}, {"query": "Schwimmbadkeller 3 Zimmer"}]
    assert found["status"] == "complete"  # every part read: a word no listing has, nothing spelt like it
    assert {s["searched"] for s in found["suggestions"]} == {False}


def test_a_listing_number_is_that_listing_and_fetch_is_its_expose(search: Caller, demo_db: Database) -> None:
    listing_id = search("search_listings", {"limit": 1})["items"][0]["listing_id"]
    found = structured_and_text(search.raw("search", {"query": listing_id.lower()}))
    assert [r["id"] for r in found["results"]] == [listing_id] and found["total"] == 1
    document = structured_and_text(search.raw("fetch", {"id": listing_id}))
    expose = search.raw("get_listing", {"listing_id": listing_id})
    assert document["id"] == listing_id and document["url"] == f"{PUBLIC_URL}/inserate/{listing_id}"
    assert document["text"] == expose.content[0].text  # the whole exposé, as get_listing words it
    assert document["metadata"]["city"] == expose.structured_content["address"]["city"]
    with demo_db.read_only() as session:
        draft = session.execute(text("SELECT ref FROM listings WHERE status = 'draft' ORDER BY id LIMIT 1")).scalar_one()
    missing = search.error("fetch", {"id": "A-9999999"})
    assert search.error("fetch", {"id": draft}) == ("NOT_FOUND", missing[1].replace("A-9999999", draft))
    assert search.error("fetch", {"id": "Wohnung"})[0] == "NOT_FOUND"
    unknown = structured_and_text(search.raw("search", {"query": draft}))
    assert (unknown["results"], unknown["match_type"]) == ([], "none")


def broker(db: Database, office_id: int) -> Caller:
    return Caller(BROKER, make_context(db)).as_(principal(db, office_id))


def refs(db: Database, query: str, **params: Any) -> list[str]:
    with db.read_only() as session:
        return list(session.execute(text(query), params).scalars())


def test_the_office_search_finds_its_stock_and_its_inquiries_only(demo_db: Database) -> None:
    office = broker(demo_db, 1)
    found = structured_and_text(office.raw("search", {"query": "Balkon"}))
    stock = office("search_listings", {"features": ["balcony"], "limit": 10})
    inquiries = office("search_inquiries", {"query": "Balkon", "limit": 10})
    assert [r["id"] for r in found["results"]] == [i["listing_id"] for i in stock["items"]] + [i["inquiry_id"] for i in inquiries["items"]]
    assert found["total"] == stock["total"] + inquiries["total"]
    own = set(refs(demo_db, "SELECT ref FROM listings WHERE office_id = 1")) | set(
        refs(demo_db, "SELECT i.ref FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 1")
    )
    assert {r["id"] for r in found["results"]} <= own
    kinds = {r["kind"]: r["url"].rsplit("/", 2)[-2] for r in found["results"]}
    assert kinds.get("listing", "bestand") == "bestand" and kinds.get("inquiry", "anfragen") == "anfragen"


def test_another_offices_number_is_the_same_not_found_as_a_missing_one(demo_db: Database) -> None:
    office = broker(demo_db, 1)
    foreign_draft = refs(demo_db, "SELECT ref FROM listings WHERE office_id = 2 AND status NOT IN ('published', 'reserved') ORDER BY id LIMIT 1")[0]
    foreign_inquiry = refs(demo_db, "SELECT i.ref FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 2 ORDER BY i.id LIMIT 1")[0]
    assert office.error("fetch", {"id": foreign_draft}) == office.error("fetch", {"id": "A-9999999"})
    assert office.error("fetch", {"id": foreign_inquiry}) == office.error("fetch", {"id": "I-999999"})
    for ref in (foreign_draft, foreign_inquiry):
        found = structured_and_text(office.raw("search", {"query": ref}))
        assert (found["results"], found["match_type"]) == ([], "none") and ref not in found["hint"]


def test_fetching_an_inquiry_writes_the_personal_data_audit(scratch_db: Database) -> None:
    office = broker(scratch_db, 1)
    inquiry = refs(scratch_db, "SELECT i.ref FROM inquiries i JOIN listings l ON l.id = i.listing_id WHERE l.office_id = 1 ORDER BY i.id LIMIT 1")[0]
    document = structured_and_text(office.raw("fetch", {"id": inquiry}))
    assert document["text"] == office.raw("get_inquiry", {"inquiry_id": inquiry}).content[0].text
    assert document["url"] == f"{PUBLIC_URL}/app/anfragen/{inquiry}"
    audited = refs(scratch_db, "SELECT tool || ':' || record_ref FROM personal_data_reads ORDER BY id")
    assert audited[-2:] == [f"fetch:{inquiry}", f"get_inquiry:{inquiry}"]


def test_only_search_and_fetch_may_break_the_name_rule_and_only_as_reads() -> None:
    broken = ToolSpec(**{**SEARCH_CATALOG.__dict__, "name": "lookup", "json_text": False})
    with pytest.raises(ContractError, match="snake_case"):
        declare_tools(ServerName.search, [broken])
    with pytest.raises(ContractError, match="JSON shape"):
        declare_tools(ServerName.search, [ToolSpec(**{**SEARCH_CATALOG.__dict__, "json_text": False})])


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_chatgpt_calls_both_servers_over_http(live_server: LiveServer, demo_db: Database, mode: str, search: Caller) -> None:
    token = token_for(demo_db, OWNER.email, ["makler:lesen"])
    expected = search("search_listings", {"features": ["balcony"], "city": "Leipzig", "min_rooms": 3, "max_rooms": 3.5, "limit": 10})

    async def calls() -> tuple[Any, Any, Any, Any]:
        async with Client(f"{live_server.base_url}/suche/mcp", mode=mode) as client:
            found = await client.call_tool("search", {"query": "3 Zimmer Balkon Leipzig"}, meta=CHATGPT_META)
            first = found.structured_content["results"][0]["id"]
            document = await client.call_tool("fetch", {"id": first}, meta=CHATGPT_META)
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            async with Client(streamable_http_client(f"{live_server.base_url}/makler/mcp", http_client=http), mode=mode) as client:
                office = await client.call_tool("search", {"query": "Balkon"}, meta=CHATGPT_META)
                record = await client.call_tool("fetch", {"id": office.structured_content["results"][0]["id"]}, meta=CHATGPT_META)
        return found, document, office, record

    found, document, office, record = anyio.run(calls)
    assert [r["id"] for r in structured_and_text(found)["results"]] == [i["listing_id"] for i in expected["items"]]
    assert structured_and_text(document)["id"] == expected["items"][0]["listing_id"]
    assert structured_and_text(office)["results"] and structured_and_text(record)["url"].startswith(f"{PUBLIC_URL}/app/")
