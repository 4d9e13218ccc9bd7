"""import_listings: an OpenImmo transfer into the office's stock, on the real database (SQLite and PostgreSQL).

Fixtures: tests/fixtures/openimmo/*.xml are written by hand after the OpenImmo 1.2.7 schema (each says so in its
header); larger transfers come from shared/demo/openimmo.py (generated, says so in its XML comment). The feed is
served by respx; one test goes over real HTTP with the official MCP client and its progress callback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import mcp_types as types
import pytest
import respx
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from sqlalchemy import func, select, update

from broker_server.server import DEFINITION as BROKER
from shared.auth.principal import Principal
from shared.catalog import places
from shared.db.models import AuditEntry, Listing, Office, OfficeMember
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.demo.openimmo import object_xml, transfer
from tests.conftest import Caller, LiveServer, make_context, request_key, seeded_database
from tests.test_broker_http import token_for
from bench.openimmo_corpus import corpus_dir, corpus_missing

FIXTURES = Path(__file__).parent / "fixtures" / "openimmo"
RESOURCE = "http://127.0.0.1:8000/makler/mcp"
FEED_URL = "https://feed.example.org/office-1/openimmo.xml"
OFFICE = 1
CORPUS = corpus_dir()


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def broker(db: Database, scopes: frozenset[str] = frozenset({"makler:schreiben"}), office_id: int = OFFICE) -> Caller:
    with db.read_only() as session:
        user = session.scalar(select(OfficeMember.user_id).where(OfficeMember.office_id == office_id).order_by(OfficeMember.user_id).limit(1))
    principal = Principal(user_id=user, kind="broker", office_id=office_id, office_role="owner", scopes=scopes, resource=RESOURCE)
    return Caller(BROKER, make_context(db), principal)


def stock(db: Database, feed_prefix: str = "openimmo") -> dict[str, tuple[str, float | None, float | None]]:
    """objektnr_extern → (status, price, living_area) of the office's imported listings."""
    with db.read_only() as session:
        rows = session.execute(
            select(Listing.external_id, Listing.status, Listing.price, Listing.living_area)
            .where(Listing.office_id == OFFICE, Listing.feed.like(f"{feed_prefix}%"))
        ).all()
    return {key: (status, price, area) for key, status, price, area in rows}


def outcomes(result: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(r["objektnr_extern"], r["outcome"]) for r in result["results"]]


def keys(n: int, start: int = 0) -> list[str]:
    return [f"T-{i:03d}" for i in range(start, start + n)]


def flats(names: list[str], scope: str, **kw: Any) -> str:
    return transfer([object_xml(k, i, **kw) for i, k in enumerate(names)], scope=scope)


@pytest.fixture
def db(tmp_path: Path) -> Any:
    with seeded_database(tmp_path, "imports", listings=60) as database:
        yield database


# --- a full transfer, then the same one again -------------------------------------------------------------------


def test_full_transfer_creates_each_object_and_twice_changes_nothing(db: Database) -> None:
    call = broker(db)
    first = call("import_listings", {"xml": fixture("voll_drei.xml")})
    assert (first["scope"], first["source"], first["objects_read"]) == ("full", "upload", 3)
    assert first["counts"] == {"created": 3, "changed": 0, "unchanged": 0, "withdrawn": 0, "refused": 0}
    assert outcomes(first) == [("W-101", "created"), ("H-202", "created"), ("W-303", "created")]
    assert first["withdrawn_missing"] == [] and first["excluded_values"] == []
    assert stock(db) == {
        "W-101": ("draft", 420000.0, 78.5), "H-202": ("draft", 2150.0, 132.0), "W-303": ("draft", None, 165.0)
    }
    with db.read_only() as session:
        audit_rows = session.scalar(select(func.count()).select_from(AuditEntry))
    again = call("import_listings", {"xml": fixture("voll_drei.xml")})
    assert again["counts"] == {"created": 0, "changed": 0, "unchanged": 3, "withdrawn": 0, "refused": 0}
    assert outcomes(again) == [("W-101", "unchanged"), ("H-202", "unchanged"), ("W-303", "unchanged")]
    with db.read_only() as session:
        assert session.scalar(select(func.count()).select_from(AuditEntry)) == audit_rows  # nothing written twice


def test_new_objects_that_pass_the_check_are_published_others_stay_draft_with_the_reason(db: Database) -> None:
    result = broker(db)("import_listings", {"xml": flats(keys(2), "TEIL")})
    assert [r["reason"] for r in result["results"]] == ["Angelegt und veröffentlicht."] * 2
    assert {k: v[0] for k, v in stock(db).items()} == {"T-000": "published", "T-001": "published"}
    short = broker(db)("import_listings", {"xml": fixture("voll_drei.xml"), "publish": True})
    assert all(r["reason"].startswith("Als Entwurf angelegt, nicht veröffentlicht: ") for r in short["results"])


# --- TEIL keeps what VOLL withdraws ------------------------------------------------------------------------------


def test_partial_transfer_never_withdraws_what_it_omits(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(6), "VOLL")})
    result = call("import_listings", {"xml": flats(keys(3), "TEIL")})
    assert result["counts"] == {"created": 0, "changed": 0, "unchanged": 3, "withdrawn": 0, "refused": 0}
    assert result["withdrawn_missing"] == []
    assert {k: v[0] for k, v in stock(db).items()} == dict.fromkeys(keys(6), "published")


def test_full_transfer_withdraws_only_missing_listings_of_its_feed_and_names_them(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(6), "VOLL")})
    other_feed = transfer([object_xml("T-003", 3)], scope="VOLL", provider="ANDERER")  # same key, another feed
    call("import_listings", {"xml": other_feed})
    with db.read_only() as session:
        by_hand = session.scalar(select(func.count()).select_from(Listing).where(Listing.office_id == OFFICE, Listing.feed.is_(None), Listing.status == "published"))
    result = call("import_listings", {"xml": flats(keys(3), "VOLL")})
    assert result["withdrawn_missing"] == ["T-003", "T-004", "T-005"]
    assert result["counts"] == {"created": 0, "changed": 0, "unchanged": 3, "withdrawn": 3, "refused": 0}
    assert outcomes(result)[3:] == [("T-003", "withdrawn"), ("T-004", "withdrawn"), ("T-005", "withdrawn")]
    assert {k: v[0] for k, v in stock(db, "openimmo:DEMO01").items()} == {
        "T-000": "published", "T-001": "published", "T-002": "published",
        "T-003": "withdrawn", "T-004": "withdrawn", "T-005": "withdrawn",
    }
    assert stock(db, "openimmo:ANDERER")["T-003"][0] == "published"
    with db.read_only() as session:  # listings made in Athaus are never touched by an import
        assert session.scalar(select(func.count()).select_from(Listing).where(Listing.office_id == OFFICE, Listing.feed.is_(None), Listing.status == "published")) == by_hand
        withdrawn = session.scalar(select(Listing.ref).where(Listing.external_id == "T-004"))
    # a withdrawn listing stays in the office's stock and leaves the catalog
    read = broker(db, frozenset({"makler:lesen"}))
    assert read("get_listing", {"listing_id": withdrawn})["status"] == "withdrawn"
    again = call("import_listings", {"xml": flats(keys(3), "VOLL")})
    assert (again["withdrawn_missing"], again["counts"]["withdrawn"]) == ([], 0)


def test_full_transfer_with_an_object_without_key_withdraws_nothing(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(4), "VOLL")})
    keyless = object_xml("X", 9).replace("<objektnr_extern>X</objektnr_extern>", "")
    result = call("import_listings", {"xml": transfer([object_xml("T-000", 0), keyless], scope="VOLL")})
    assert result["withdrawn_missing"] == []
    assert result["warnings"] == [
        "1 Objekt hat keine objektnr_extern; weil nicht zu erkennen ist, welches Objekt im Bestand gemeint ist, wurde "
        "trotz umfang VOLL nichts zurückgezogen."
    ]
    assert {k: v[0] for k, v in stock(db).items()} == dict.fromkeys(keys(4), "published")


# --- CHANGE and DELETE per object ----------------------------------------------------------------------------------


def test_change_and_delete_act_per_object(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(3), "VOLL")})
    changed = object_xml("T-000", 0, price=199000, action="CHANGE")
    deleted = object_xml("T-001", 1, action="DELETE")
    unknown = object_xml("T-999", 1, action="DELETE")
    result = call("import_listings", {"xml": transfer([changed, deleted, unknown], scope="TEIL")})
    assert outcomes(result) == [("T-000", "changed"), ("T-001", "withdrawn"), ("T-999", "refused")]
    assert result["results"][2]["reason"] == "Löschung eines Objekts, das im Bestand aus diesem Feed nicht vorkommt; nichts zurückgezogen."
    assert stock(db) == {
        "T-000": ("published", 199000.0, 45.5), "T-001": ("withdrawn", 151000.0, 46.5), "T-002": ("published", 152000.0, 47.5)
    }
    again = call("import_listings", {"xml": transfer([changed, deleted, unknown], scope="TEIL")})
    assert outcomes(again) == [("T-000", "unchanged"), ("T-001", "unchanged"), ("T-999", "refused")]


# --- rule 14: a non-number is declared, a number is stored; rule 13: a collision names both ---------------------


def test_non_numbers_are_declared_with_counts_and_numbers_are_stored(db: Database) -> None:
    result = broker(db)("import_listings", {"xml": fixture("odd_names.xml")})
    assert result["counts"] == {"created": 2, "changed": 0, "unchanged": 0, "withdrawn": 0, "refused": 0}
    assert result["excluded_values"] == [
        {"field": "bedrooms", "reason": "out_of_range", "count": 1, "example": "2.5"},
        {"field": "living_area", "reason": "approximate", "count": 1, "example": "ca. 85"},
        {"field": "plot_area", "reason": "on_request", "count": 1, "example": "auf Anfrage"},
        {"field": "price", "reason": "approximate", "count": 1, "example": "ca. 85"},
        {"field": "service_charges", "reason": "approximate", "count": 1, "example": "ca. 400"},
        {"field": "year_built", "reason": "approximate", "count": 1, "example": "ca. 1905"},
    ]
    assert [r["excluded_fields"] for r in result["results"]] == [
        ["bedrooms", "plot_area", "service_charges", "year_built"], ["living_area", "price"]
    ]
    assert stock(db) == {"K-1": ("draft", 1250000.0, 85.5), "K-2": ("draft", None, None)}
    with db.read_only() as session:
        k1 = session.execute(select(Listing.plot_area, Listing.year_built, Listing.service_charges, Listing.rooms).where(Listing.external_id == "K-1")).one()
    assert tuple(k1) == (None, None, None, 3.5)


def test_a_basement_flat_with_three_decimal_coordinates_imports_and_a_garbled_point_is_declared(db: Database) -> None:
    def flat(key: str, floor: str, lat: str, lon: str) -> str:
        return (object_xml(key, 0).replace("<etage>0</etage>", f"<etage>{floor}</etage>")
                .replace('breitengrad="52.5321" laengengrad="13.3849"', f'breitengrad="{lat}" laengengrad="{lon}"'))

    xml = transfer([flat("S-1", "-1", "52.530", "13.385"), flat("S-2", "UG", "52.530.000", "13.385")], scope="TEIL")
    result = broker(db)("import_listings", {"xml": xml})
    assert result["counts"] == {"created": 2, "changed": 0, "unchanged": 0, "withdrawn": 0, "refused": 0}
    assert result["excluded_values"] == [
        {"field": "floor", "reason": "not_a_number", "count": 1, "example": "UG"},
        {"field": "latitude", "reason": "not_a_number", "count": 1, "example": "52.530.000"},
    ]
    with db.read_only() as session:
        rows = {
            key: (floor, lat, lon) for key, floor, lat, lon in session.execute(
                select(Listing.external_id, Listing.floor, Listing.latitude, Listing.longitude)
                .where(Listing.office_id == OFFICE, Listing.external_id.in_(["S-1", "S-2"]))
            )
        }
    assert rows["S-1"] == (-1, 52.53, 13.385)
    # the garbled point is not half kept: both coordinates come from the postal code, as for a feed without any
    berlin = places.places_of_code("10115")[0]
    assert rows["S-2"] == (None, berlin.latitude, berlin.longitude)


def test_two_spellings_of_one_element_refuse_that_object_only(db: Database) -> None:
    result = broker(db)("import_listings", {"xml": fixture("collision.xml")})
    assert outcomes(result) == [("C-1", "refused"), ("C-2", "created")]
    assert result["results"][0]["reason"] == (
        "In ‹immobilie/flaechen› stehen ‹wohnflaeche› und ‹WohnFlaeche›, die beide ‹wohnflaeche› bedeuten; welcher "
        "Wert gilt, ist nicht zu entscheiden."
    )
    assert set(stock(db)) == {"C-2"}


# --- refused transfers change nothing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("xml", "code"),
    [
        ('<!DOCTYPE openimmo [<!ENTITY a "a">]><openimmo><uebertragung umfang="VOLL"/></openimmo>', "INVALID_ARGUMENT"),
        ("<immobilien><immobilie/></immobilien>", "UPSTREAM_SCHEMA"),
        ('<openimmo><uebertragung umfang="VOLL"/><anbieter>', "INVALID_ARGUMENT"),
    ],
)
def test_an_unreadable_transfer_changes_nothing(db: Database, xml: str, code: str) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(2), "VOLL")})
    before = stock(db)
    got, message = call.error("import_listings", {"xml": xml})
    assert got == code
    assert message.endswith(" Nichts wurde geändert.")
    assert stock(db) == before


def test_exactly_one_source_and_the_write_right(db: Database) -> None:
    assert broker(db).error("import_listings", {}) == (
        "INVALID_ARGUMENT",
        "Bitte genau eine Quelle angeben: die Übertragung als xml, als zip_base64 oder from_feed true für die "
        "Feed-Adresse des Büros.",
    )
    assert broker(db).error("import_listings", {"xml": "<openimmo/>", "from_feed": True})[0] == "INVALID_ARGUMENT"
    assert broker(db, frozenset({"makler:lesen"})).error("import_listings", {"xml": "<openimmo/>"})[0] == "MISSING_RIGHT"


# --- the office's feed URL (respx) --------------------------------------------------------------------------------


def set_feed(db: Database, url: str | None) -> None:
    with db.unit_of_work() as session:
        session.execute(update(Office).where(Office.id == OFFICE).values(openimmo_feed_url=url))


@respx.mock
def test_feed_url_is_fetched_and_imported(db: Database) -> None:
    set_feed(db, FEED_URL)
    route = respx.get(FEED_URL).mock(return_value=httpx.Response(200, content=fixture("voll_drei.xml").encode()))
    result = broker(db)("import_listings", {"from_feed": True})
    assert route.call_count == 1
    assert (result["source"], result["counts"]["created"]) == ("feed", 3)


@respx.mock
@pytest.mark.parametrize(
    ("response", "code", "message"),
    [
        (httpx.Response(503), "SOURCE_UNAVAILABLE",
         "Die Feed-Adresse des Büros antwortet mit HTTP 503 statt mit der Übertragung; nichts wurde geändert: bitte die "
         "Feed-Adresse des Büros prüfen oder die Übertragung als xml übergeben."),
        (httpx.ConnectTimeout("timeout"), "SOURCE_UNAVAILABLE",
         "Die Feed-Adresse des Büros hat nicht innerhalb von 30 Sekunden geantwortet; nichts wurde geändert: bitte später "
         "erneut versuchen oder die Übertragung als xml übergeben."),
        (httpx.ConnectError("refused"), "SOURCE_UNAVAILABLE",
         "Die Feed-Adresse des Büros ist nicht erreichbar; nichts wurde geändert: bitte die Feed-Adresse des Büros "
         "prüfen oder die Übertragung als xml übergeben."),
    ],
)
def test_feed_failures_say_what_and_name_no_host(db: Database, response: Any, code: str, message: str) -> None:
    set_feed(db, FEED_URL)
    if isinstance(response, Exception):
        respx.get(FEED_URL).mock(side_effect=response)
    else:
        respx.get(FEED_URL).mock(return_value=response)
    assert broker(db).error("import_listings", {"from_feed": True}) == (code, message)


@respx.mock
def test_feed_larger_than_the_limit_is_refused(db: Database) -> None:
    set_feed(db, FEED_URL)
    respx.get(FEED_URL).mock(return_value=httpx.Response(200, content=b"<openimmo>" + b" " * (11 * 1024 * 1024)))
    code, message = broker(db).error("import_listings", {"from_feed": True})
    assert code == "INVALID_ARGUMENT"
    assert message.startswith("Die Übertragung ist größer als die erlaubten 10 MB; nichts wurde geändert.")


def test_without_a_feed_url_the_tool_says_how_to_go_on(db: Database) -> None:
    set_feed(db, None)
    assert broker(db).error("import_listings", {"from_feed": True})[0] == "INVALID_ARGUMENT"


# --- over real HTTP with the official client: result and progress notifications ----------------------------------
# The server as it ships: a call that asks for progress (a progressToken) is answered as a stream (athaus/transport.py).


def test_progress_reaches_the_handler_reporter(db: Database) -> None:
    call = broker(db)
    seen: list[tuple[float, float | None, str | None]] = []
    params = types.CallToolRequestParams(name="import_listings", arguments={"xml": flats(keys(3), "TEIL")})
    result = anyio.run(call.runner.call, params, None, call.principal, lambda *a: seen.append(a))
    assert not result.is_error
    assert seen[-1] == (3, 3, "3 von 3 Objekten verarbeitet")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_import_over_http_reports_progress(tmp_path: Path, mode: str) -> None:
    owner = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
    with seeded_database(tmp_path, "imports_http", listings=60) as db, LiveServer(db) as server:
        token = token_for(db, owner.email, ["makler:schreiben"])
        xml = flats(keys(150), "VOLL")
        seen: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append((progress, total, message))

        async def use() -> Any:
            async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120) as http:
                async with Client(streamable_http_client(f"{server.base_url}/makler/mcp", http_client=http), mode=mode) as client:
                    first = await client.call_tool("import_listings", {"xml": xml}, progress_callback=on_progress)
                    return first, await client.call_tool("import_listings", {"xml": xml})

        result, again = anyio.run(use)
    assert not result.is_error, result.content[0].text
    assert result.structured_content["counts"]["created"] == 150
    assert again.structured_content["counts"] == {"created": 0, "changed": 0, "unchanged": 150, "withdrawn": 0, "refused": 0}
    assert seen[-1] == (150, 150, "150 von 150 Objekten verarbeitet")


# --- the console command (SPEC section 10) ---------------------------------------------------------------------


def test_console_command_imports_a_file(db: Database, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from athaus.cli import main

    path = tmp_path / "transfer.xml"
    path.write_text(fixture("odd_names.xml"), encoding="utf-8")
    monkeypatch.setenv("ATHAUS_DATABASE_URL", db.engine.url.render_as_string(hide_password=False))
    assert main(["import", "openimmo", str(path), "--office", str(OFFICE), "--drafts"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "2 Objekte gelesen (Teilübertragung (TEIL)): 2 angelegt. 6 Werte waren keine Zahl und wurden nicht gespeichert."
    )
    assert stock(db) == {"K-1": ("draft", 1250000.0, 85.5), "K-2": ("draft", None, None)}
    path.write_text("<immobilien/>", encoding="utf-8")
    assert main(["import", "openimmo", str(path), "--office", str(OFFICE)]) == 1


def test_only_a_call_that_asks_for_progress_is_answered_as_a_stream(tmp_path: Path) -> None:
    owner = next(a for a in DEMO_ACCOUNTS if a.office_role == "owner")
    with seeded_database(tmp_path, "imports_form", listings=60) as db, LiveServer(db) as server:
        token = token_for(db, owner.email, ["makler:schreiben"])
        headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream", "MCP-Protocol-Version": "2025-11-25"}
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "import_listings", "arguments": {"xml": flats(keys(2), "TEIL")}}}
        plain = httpx2.post(f"{server.base_url}/makler/mcp", json=call, headers=headers, timeout=60)
        call["params"]["_meta"] = {"progressToken": "p-1"}
        streamed = httpx2.post(f"{server.base_url}/makler/mcp", json=call, headers=headers, timeout=60)
    assert plain.headers["content-type"].split(";")[0] == "application/json"
    assert plain.json()["result"]["structuredContent"]["counts"]["created"] == 2
    assert streamed.headers["content-type"].split(";")[0] == "text/event-stream"
    events = [json.loads(line[5:]) for line in streamed.text.splitlines() if line.startswith("data:")]
    progress = [e["params"] for e in events if e.get("method") == "notifications/progress"]
    assert progress[-1] == {"progressToken": "p-1", "progress": 2, "total": 2, "message": "2 von 2 Objekten verarbeitet"}
    assert events[-1]["result"]["structuredContent"]["counts"]["unchanged"] == 2


# --- as real exports come (issue 20): no <uebertragung>, a preview, the feed's key in the stock tools -------------


def audit_rows(db: Database) -> int:
    with db.read_only() as session:
        return int(session.scalar(select(func.count()).select_from(AuditEntry)) or 0)


@pytest.mark.skipif(corpus_missing(CORPUS) is not None, reason=corpus_missing(CORPUS) or "")
def test_a_real_portal_export_is_read_as_partial_says_so_and_stays_a_draft_for_what_it_leaves_out(db: Database) -> None:
    """The immowelt export of the corpus (../shared/openimmo-corpus/, see its SOURCES.md; not part of the project)."""
    xml = (CORPUS / "immowelt-export_laravel-openimmo_example.xml").read_text(encoding="utf-8")
    result = broker(db)("import_listings", {"xml": xml})  # publish: true, yet a draft (marketing type and kind assumed)
    assert (result["scope"], result["scope_assumed"], result["preview"]) == ("partial", True, False)
    assert result["warnings"] == [
        "Die Übertragung hat kein Element ‹uebertragung› (so kommen Exporte von Portalen); sie wird als Teilübertragung "
        "(TEIL) gelesen, es wird also nichts zurückgezogen, außer Objekten mit aktion DELETE."
    ]
    assert outcomes(result) == [("8333", "created")]
    assert result["results"][0]["reason"] == (
        "Als Entwurf angelegt, nicht veröffentlicht: in der Übertragung fehlt Vermarktungsart (Miete angenommen), "
        "Objektart (Wohnung angenommen); bitte prüfen und ergänzen, dann veröffentlichen."
    )
    assert result["summary"] == "1 Objekt gelesen (Teilübertragung (TEIL), angenommen, weil ‹uebertragung› fehlt): 1 angelegt."
    assert stock(db)["8333"] == ("draft", 940.0, 72.3)


def test_without_header_a_delete_still_withdraws_and_nothing_else_does(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(3), "VOLL")})
    bare = transfer([object_xml("T-001", 1, action="DELETE")], scope="VOLL").replace(
        '<uebertragung art="ONLINE" umfang="VOLL" modus="CHANGE" version="1.2.7" sendersoftware="Athaus-Demo"/>', "")
    assert "<uebertragung" not in bare
    result = call("import_listings", {"xml": bare})
    assert (result["scope"], result["scope_assumed"], outcomes(result)) == ("partial", True, [("T-001", "withdrawn")])
    assert {k: v[0] for k, v in stock(db).items()} == {"T-000": "published", "T-001": "withdrawn", "T-002": "published"}


def test_preview_lists_what_would_happen_and_writes_nothing(db: Database) -> None:
    call = broker(db)
    call("import_listings", {"xml": flats(keys(4), "VOLL")})
    before, rows = stock(db), audit_rows(db)
    changed = object_xml("T-000", 0, price=199000)
    new = object_xml("T-009", 9)
    xml = transfer([changed, object_xml("T-001", 1), new, object_xml("T-002", 2).replace("<plz>", "<plz>0")], scope="VOLL")
    raw = call.raw("import_listings", {"xml": xml, "preview": True})
    preview = raw.structured_content
    assert preview["preview"] is True
    assert outcomes(preview) == [
        ("T-000", "changed"), ("T-001", "unchanged"), ("T-009", "created"), ("T-002", "refused"), ("T-003", "withdrawn"),
    ]
    text = raw.content[0].text  # the text says "would": würde geändert, würde angelegt, …
    assert all(f"würde {verb}" in text for verb in ("geändert", "angelegt", "abgelehnt", "zurückgezogen")), text
    assert preview["results"][0]["reason"] == "Würde ändern: Preis."
    assert preview["results"][2]["reason"] == "Würde angelegt und veröffentlicht."
    assert preview["withdrawn_missing"] == ["T-003"]
    assert preview["summary"] == (
        "Vorschau, nichts wurde geändert. 4 Objekte gelesen (vollständig (VOLL)): 1 würde angelegt, 1 würde geändert, "
        "1 unverändert, 1 würde zurückgezogen, 1 würde abgelehnt. Davon 1 würde zurückgezogen, weil die vollständige "
        "Übertragung sie nicht mehr enthielt."
    )
    assert (stock(db), audit_rows(db)) == (before, rows)
    done = call("import_listings", {"xml": xml})  # the real import does what the preview said
    assert [(r["objektnr_extern"], r["outcome"]) for r in done["results"]] == [
        (r["objektnr_extern"], r["outcome"]) for r in preview["results"]
    ]


def test_the_feeds_key_is_shown_and_filterable_in_the_stock_tools(db: Database) -> None:
    broker(db)("import_listings", {"xml": flats(keys(3), "TEIL"), "publish": False})
    read = broker(db, frozenset({"makler:lesen"}))
    found = read("search_listings", {"objektnr_extern": ["T-002", "T-000"]})
    assert sorted((i["objektnr_extern"], i["listing_id"]) for i in found["items"]) == sorted(
        (k, ref) for k, ref in refs(db).items() if k in ("T-000", "T-002")
    )
    assert found["total"] == 2
    detail = read("get_listing", {"listing_id": refs(db)["T-001"]})
    assert detail["objektnr_extern"] == "T-001"
    with db.read_only() as session:
        by_hand = session.scalar(select(Listing.ref).where(Listing.office_id == OFFICE, Listing.feed.is_(None)).limit(1))
    made_here = read("get_listing", {"listing_id": by_hand})
    assert "objektnr_extern" not in made_here  # absent on the wire, with why
    assert made_here["absent"]["objektnr_extern"] == "empty_in_source"
    assert made_here["absence_notes"]["objektnr_extern"] == {"empty_in_source": "In Athaus angelegt, nicht importiert."}
    assert read("search_listings", {"objektnr_extern": ["X-404"]})["total"] == 0


def refs(db: Database) -> dict[str, str]:
    with db.read_only() as session:
        rows = session.execute(select(Listing.external_id, Listing.ref).where(Listing.office_id == OFFICE, Listing.feed.is_not(None))).all()
    return {key: ref for key, ref in rows}


def test_the_same_object_twice_in_one_transfer_is_created_once(db: Database) -> None:
    xml = transfer([object_xml("T-000", 0), object_xml("T-000", 0, price=180000), object_xml("T-001", 1)], scope="TEIL")
    result = broker(db)("import_listings", {"xml": xml, "publish": False})
    assert outcomes(result) == [("T-000", "created"), ("T-000", "changed"), ("T-001", "created")]
    assert stock(db) == {"T-000": ("draft", 180000.0, 45.5), "T-001": ("draft", 151000.0, 46.5)}


def test_a_listing_changed_since_the_last_import_is_compared_and_the_next_run_passes_over_it(db: Database) -> None:
    """The import passes over an object whose fields it last wrote unchanged (Listing.import_digest); a write by
    anyone else raises the version, so the object is compared again and written back; a status change is no field
    the object sends, so it stays unchanged, and the next run finds nothing to do and moves neither version nor
    updated_at."""
    call = broker(db)
    call("import_listings", {"xml": fixture("voll_drei.xml")})
    ref = refs(db)["W-101"]
    call("save_listing", {"request_id": request_key(), "listing_id": ref, "fields": {"price": 399000}})
    call("update_listing_status", {"listing_id": refs(db)["H-202"], "status": "withdrawn"})
    again = call("import_listings", {"xml": fixture("voll_drei.xml")})
    assert outcomes(again) == [("W-101", "changed"), ("H-202", "unchanged"), ("W-303", "unchanged")]
    assert stock(db)["W-101"] == ("draft", 420000.0, 78.5)

    def versions() -> dict[str, tuple[int, Any]]:
        with db.read_only() as session:
            rows = session.execute(select(Listing.external_id, Listing.version, Listing.updated_at).where(Listing.feed.is_not(None)))
            return {key: (version, updated) for key, version, updated in rows}

    before = versions()
    third = call("import_listings", {"xml": fixture("voll_drei.xml")})
    assert outcomes(third) == [("W-101", "unchanged"), ("H-202", "unchanged"), ("W-303", "unchanged")]
    assert versions() == before


def test_the_previews_verbs_agree_with_their_number() -> None:
    from contract.vocabulary import ImportOutcome
    from shared.stock_import.importing import PREVIEW_LABELS, _numerus

    assert [_numerus(PREVIEW_LABELS[ImportOutcome.withdrawn], n) for n in (1, 2)] == ["würde zurückgezogen", "würden zurückgezogen"]
    assert _numerus(PREVIEW_LABELS[ImportOutcome.unchanged], 3) == "unverändert"
