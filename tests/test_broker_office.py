"""Athaus für Makler, the office side: Lagebericht, Bestand, Objekt, Prüfung, Wertschätzung.

Every tool runs through the runtime with a broker principal (right check included). Counts are compared with
SQL written here, independently of the handlers; both halves of every rule are tested where there are two.
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from typing import Any

import mcp_types as types
import pytest
from sqlalchemy import event, select, text

from broker_server.server import DEFINITION as BROKER
from contract.broker_stock import TOOLS as OFFICE_TOOLS
from shared.auth.principal import Principal
from shared.db.models import OfficeMember
from shared.db.session import Database
from tests.conftest import FIXED_NOW, Caller, make_context
from tests.wire_helpers import absence, amount, echoed

RESOURCE = "http://127.0.0.1:8000/makler/mcp"
ALL_STATUSES = ["draft", "published", "reserved", "sold", "let", "withdrawn"]
TODAY = FIXED_NOW.date()


def principal(db: Database, office_id: int, scopes: frozenset[str] = frozenset({"makler:lesen"})) -> Principal:
    """A broker of the office: its demo owner where the demo accounts exist, else a stand-in user id."""
    with db.read_only() as session:
        user = session.scalar(
            select(OfficeMember.user_id).where(OfficeMember.office_id == office_id).order_by(OfficeMember.user_id).limit(1)
        )
    return Principal(
        user_id=user or 900_000 + office_id, kind="broker", office_id=office_id, office_role="owner", scopes=scopes, resource=RESOURCE
    )


@pytest.fixture(scope="module")
def office(demo_db: Database) -> dict[int, Caller]:
    base = Caller(BROKER, make_context(demo_db))
    return {office_id: base.as_(principal(demo_db, office_id)) for office_id in (1, 2)}


def sql(db: Database, query: str, **params: Any) -> list[Any]:
    with db.engine.connect() as connection:
        return list(connection.execute(text(query), params).all())


def scalar(db: Database, query: str, **params: Any) -> Any:
    return sql(db, query, **params)[0][0]


def ts(db: Database, value: dt.datetime) -> Any:
    """A timestamp parameter as each backend stores it (SQLite: naive UTC text)."""
    if db.engine.dialect.name == "sqlite":
        return value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    return value


def day(db: Database, value: dt.date) -> Any:
    return value.isoformat() if db.engine.dialect.name == "sqlite" else value


def utc(value: Any) -> dt.datetime:
    if isinstance(value, str):
        value = dt.datetime.fromisoformat(value)
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def section(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(s for s in report["sections"] if s["section"] == name)


def walk(caller: Caller, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    args = dict(args)
    while True:
        page = caller(tool, args)
        items += page["items"]
        if page["completeness"]["complete"]:
            return items
        args["cursor"] = page["completeness"]["next_cursor"]


# --- rights -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", [spec.name for spec in OFFICE_TOOLS])
def test_without_the_right_the_answer_is_missing_right_with_a_challenge(tool: str, demo_db: Database) -> None:
    base = Caller(BROKER, make_context(demo_db))
    arguments = {"listing_id": "A-0000001"} if tool in {"get_listing", "check_listing", "estimate_value"} else {}
    without = base.as_(principal(demo_db, 1, scopes=frozenset({"makler:schreiben"}))).raw(tool, arguments)
    assert isinstance(without, types.CallToolResult) and without.is_error
    assert without.meta["athaus/code"] == "MISSING_RIGHT"
    challenge = without.meta["mcp/www_authenticate"]
    assert challenge.startswith("Bearer resource_metadata=") and 'scope="makler:lesen"' in challenge
    assert 'error="insufficient_scope"' in challenge
    anonymous = base.as_(None).raw(tool, arguments)
    assert anonymous.is_error and anonymous.meta["athaus/code"] == "MISSING_RIGHT"
    assert 'scope="makler:lesen"' in anonymous.meta["mcp/www_authenticate"]
    assert "insufficient_scope" not in anonymous.meta["mcp/www_authenticate"]


def test_descriptions_do_not_explain_empty_results_away() -> None:
    for spec in OFFICE_TOOLS:
        text_ = (spec.description + str(spec.input_schema())).casefold()
        for phrase in ("usually means", "likely", "wahrscheinlich", "bedeutet meist", "meistens", "vermutlich"):
            assert phrase not in text_, f"{spec.name}: {phrase!r}"


# --- show_situation_report ----------------------------------------------------------------------------------------


def expected_waiting(db: Database, office_id: int) -> list[tuple[str, dt.datetime, bool]]:
    """Open inquiries with when they started waiting (first seeker message after the last office reply)."""
    inquiries = sql(db, "SELECT id, ref, created_at FROM inquiries WHERE office_id = :o AND status = 'open'", o=office_id)
    messages = sql(
        db,
        "SELECT m.inquiry_id, m.author, m.created_at FROM inquiry_messages m JOIN inquiries i ON i.id = m.inquiry_id "
        "WHERE i.office_id = :o AND i.status = 'open'",
        o=office_id,
    )
    waiting = []
    for inquiry_id, ref, created in inquiries:
        own = [(author, utc(at)) for i, author, at in messages if i == inquiry_id]
        replies = [at for author, at in own if author == "office"]
        last_reply = max(replies) if replies else None
        unanswered = [at for author, at in own if author == "seeker" and (last_reply is None or at > last_reply)]
        waiting.append((ref, min(unanswered) if unanswered else utc(created), not replies))
    return sorted(waiting, key=lambda w: w[1])


@pytest.mark.parametrize("office_id", [1, 2])
def test_situation_report_counts_equal_independent_sql(office_id: int, office: dict[int, Caller], demo_db: Database) -> None:
    report = office[office_id]("show_situation_report", {})
    now = FIXED_NOW
    assert report["as_of"] == now.isoformat().replace("+00:00", "Z")
    assert report["status"] == "complete" and report["completeness"]["complete"] is True
    assert [s["section"] for s in report["sections"]] == ["inquiries", "confirmations", "unpublishable", "energy_certificates", "proposals"]

    waiting = expected_waiting(demo_db, office_id)
    inquiries = section(report, "inquiries")
    assert inquiries["total"] == scalar(demo_db, "SELECT count(*) FROM inquiries WHERE office_id = :o AND status = 'open'", o=office_id)
    assert inquiries["total"] == len(waiting)
    assert inquiries["new"] == scalar(
        demo_db,
        "SELECT count(*) FROM inquiries i WHERE i.office_id = :o AND i.status = 'open' AND NOT EXISTS "
        "(SELECT 1 FROM inquiry_messages m WHERE m.inquiry_id = i.id AND m.author = 'office')",
        o=office_id,
    )
    assert inquiries["follow_ups"] == inquiries["total"] - inquiries["new"]
    hours = [(now - since).total_seconds() / 3600 for _, since, _ in waiting]
    assert [b["count"] for b in inquiries["by_age"]] == [
        sum(h < 24 for h in hours),
        sum(24 <= h < 72 for h in hours),
        sum(h >= 72 for h in hours),
    ]
    assert [i["inquiry_id"] for i in inquiries["items"]] == [ref for ref, _, _ in waiting][:5]

    confirmations = section(report, "confirmations")
    assert confirmations["total"] == scalar(
        demo_db,
        "SELECT count(*) FROM pending_actions WHERE office_id = :o AND status = 'pending' AND expires_at > :now",
        o=office_id,
        now=ts(demo_db, now),
    )
    assert confirmations["expired"] == scalar(
        demo_db,
        "SELECT count(*) FROM pending_actions WHERE office_id = :o AND status IN ('pending', 'expired') "
        "AND expires_at <= :now AND expires_at > :since",
        o=office_id,
        now=ts(demo_db, now),
        since=ts(demo_db, now - dt.timedelta(days=30)),
    )

    checked = sql(
        demo_db, "SELECT ref, status FROM listings WHERE office_id = :o AND status IN ('draft', 'published', 'reserved')", o=office_id
    )
    unpublishable = section(report, "unpublishable")
    assert unpublishable["checked"] == len(checked)
    failing = {ref: status for ref, status in checked if not office[office_id]("check_listing", {"listing_id": ref})["publishable"]}
    assert unpublishable["total"] == len(failing)
    assert unpublishable["drafts"] == sum(status == "draft" for status in failing.values())
    assert unpublishable["published_or_reserved"] == unpublishable["total"] - unpublishable["drafts"]
    assert {d["listing_id"] for d in unpublishable["items"]} <= set(failing)

    energy = section(report, "energy_certificates")
    due = (
        "FROM listings WHERE office_id = :o AND status = 'published' AND energy_status = 'present' "
        "AND energy_valid_until IS NOT NULL AND energy_valid_until <= :until"
    )
    until = day(demo_db, TODAY + dt.timedelta(days=60))
    assert energy["total"] == scalar(demo_db, f"SELECT count(*) {due}", o=office_id, until=until)
    assert energy["expired"] == scalar(
        demo_db, f"SELECT count(*) {due} AND energy_valid_until < :today", o=office_id, until=until, today=day(demo_db, TODAY)
    )
    assert energy["expiring"] == energy["total"] - energy["expired"]
    days_left = [item["days_left"] for item in energy["items"]]
    assert days_left == sorted(days_left)

    proposals = section(report, "proposals")
    assert proposals["total"] == scalar(demo_db, "SELECT count(*) FROM proposals WHERE office_id = :o AND status = 'open'", o=office_id)

    assert report["total"] == sum(1 for s in report["sections"] if s["total"])  # like things only: sections with open points
    text = office[office_id].raw("show_situation_report", {}).content[0].text
    assert f"Abschnitte mit offenen Punkten: {report['total']}" in text and "Gesamt: " + str(sum(s["total"] for s in report["sections"])) not in text
    assert report["match_type"] == ("matches" if report["total"] else "none")

    for figures in report["key_figures"]:
        since = now - dt.timedelta(days=figures["days"])
        window = {"o": office_id, "since": ts(demo_db, since), "now": ts(demo_db, now)}
        assert figures["new_inquiries"] == scalar(
            demo_db, "SELECT count(*) FROM inquiries WHERE office_id = :o AND created_at > :since AND created_at <= :now", **window
        )
        assert figures["replies_sent"] == scalar(
            demo_db,
            "SELECT count(*) FROM inquiry_messages m JOIN inquiries i ON i.id = m.inquiry_id WHERE i.office_id = :o "
            "AND m.author = 'office' AND m.created_at > :since AND m.created_at <= :now",
            **window,
        )
        assert figures["listings_published"] == scalar(
            demo_db, "SELECT count(*) FROM listings WHERE office_id = :o AND published_at > :since AND published_at <= :now", **window
        )
        rows = sql(
            demo_db,
            "SELECT i.created_at, (SELECT min(m.created_at) FROM inquiry_messages m WHERE m.inquiry_id = i.id AND m.author = 'office') "
            "FROM inquiries i WHERE i.office_id = :o AND i.created_at > :since AND i.created_at <= :now",
            **window,
        )
        answered = [(utc(first) - utc(created)).total_seconds() / 3600 for created, first in rows if first is not None]
        assert figures["answered_inquiries"] == len(answered)
        assert figures["unanswered_excluded"] == len(rows) - len(answered)
        if answered:
            assert figures["average_first_response_hours"] == pytest.approx(sum(answered) / len(answered), abs=0.05)
        else:
            assert absence(report, figures, "average_first_response_hours") == "empty_in_source"


def test_situation_report_has_something_to_show_for_office_one(office: dict[int, Caller]) -> None:
    report = office[1]("show_situation_report", {})
    assert section(report, "inquiries")["total"] > 0
    assert section(report, "proposals")["total"] > 0
    assert report["key_figures"][0]["days"] == 7 and report["key_figures"][1]["days"] == 30


def test_a_section_that_shows_fewer_items_says_so(office: dict[int, Caller]) -> None:
    full = office[1]("show_situation_report", {"items_per_section": 50})
    short = office[1]("show_situation_report", {"items_per_section": 2})
    assert echoed(short, "items_per_section") == {"value": 2, "source": "caller"}
    assert echoed(full, "items_per_section") == {"value": 50, "source": "caller"}
    for name in ("inquiries", "confirmations", "unpublishable", "energy_certificates", "proposals"):
        whole, part = section(full, name), section(short, name)
        assert part["total"] == whole["total"], "counts never depend on how many items are shown"
        assert part["shown"] == len(part["items"]) == min(2, whole["total"])
        assert part["all_shown"] is (whole["total"] <= 2)
        assert part["items"] == whole["items"][:2], "the shown items are the first ones of the complete list"
        if not part["all_shown"]:
            assert f"{part['shown']} von {part['total']}" in part["summary"]
    inquiries = section(short, "inquiries")
    assert inquiries["total"] > 2 and inquiries["all_shown"] is False, "office 1 has more open inquiries than shown"


def test_situation_report_counts_move_with_the_clock(demo_db: Database) -> None:
    later = Caller(BROKER, make_context(demo_db, now=FIXED_NOW + dt.timedelta(days=3))).as_(principal(demo_db, 1))
    now_report = Caller(BROKER, make_context(demo_db)).as_(principal(demo_db, 1))("show_situation_report", {})
    later_report = later("show_situation_report", {})
    pending_now = section(now_report, "confirmations")
    pending_later = section(later_report, "confirmations")
    # the demo's pending confirmations expire a day after the demo's now: three days later they count as expired
    assert pending_now["total"] > 0 and pending_later["total"] == 0
    assert pending_later["expired"] == pending_now["expired"] + pending_now["total"]


# --- search_listings (the office's stock) -------------------------------------------------------------------------


def test_stock_search_sees_every_own_listing_and_nothing_else(office: dict[int, Caller], demo_db: Database) -> None:
    for office_id, caller in office.items():
        expected = {ref for (ref,) in sql(demo_db, "SELECT ref FROM listings WHERE office_id = :o", o=office_id)}
        first = caller("search_listings", {"limit": 50})
        assert first["total"] == len(expected)
        walked = walk(caller, "search_listings", {"limit": 50})
        refs = [item["listing_id"] for item in walked]
        assert len(refs) == len(set(refs)), "pages are disjoint"
        assert set(refs) == expected, f"office {office_id} sees exactly its own listings"


def test_stock_search_echoes_all_statuses_and_an_explicit_status_narrows(office: dict[int, Caller], demo_db: Database) -> None:
    everything = office[1]("search_listings", {"limit": 50})
    assert echoed(everything, "statuses") == {"value": ALL_STATUSES, "source": "default"}
    assert echoed(everything, "office") == {"value": "Hoffmann Immobilien", "source": "login"}
    drafts = office[1]("search_listings", {"statuses": ["Entwurf"], "limit": 50})
    assert echoed(drafts, "statuses") == {"value": ["draft"], "source": "caller"}
    expected = {ref for (ref,) in sql(demo_db, "SELECT ref FROM listings WHERE office_id = 1 AND status = 'draft'")}
    assert {i["listing_id"] for i in drafts["items"]} == expected and drafts["total"] == len(expected) > 0
    assert all(i["status"] == "draft" and absence(drafts, i, "published_at") == "empty_in_source" for i in drafts["items"])
    assert all(absence(drafts, i, "resource_uri") == "empty_in_source" for i in drafts["items"])
    assert everything["total"] > drafts["total"]
    statuses = {i["status"] for i in walk(office[1], "search_listings", {"limit": 50})}
    assert statuses - {"published"}, "other statuses than published are in the stock"


def test_stock_search_uses_the_catalog_filters_and_full_text(office: dict[int, Caller], demo_db: Database) -> None:
    result = walk(office[1], "search_listings", {"marketing_type": "Kauf", "property_types": ["Wohnung"], "limit": 50})
    expected = {
        ref
        for (ref,) in sql(
            demo_db, "SELECT ref FROM listings WHERE office_id = 1 AND marketing_type = 'buy' AND property_type = 'apartment'"
        )
    }
    assert {i["listing_id"] for i in result} == expected
    balcony = office[1]("search_listings", {"query": "Balkon", "limit": 50})
    assert balcony["total"] > 0
    assert all(i["listing_id"] in {r for (r,) in sql(demo_db, "SELECT ref FROM listings WHERE office_id = 1")} for i in balcony["items"])


def test_empty_stock_search_suggests_without_widening(office: dict[int, Caller]) -> None:
    result = office[1]("search_listings", {"query": "Schlossgespenst", "statuses": ["sold"]})
    assert result["items"] == [] and result["total"] == 0 and result["match_type"] == "none"
    assert result["completeness"]["complete"] is True
    assert "nicht erweitert" in result["hint"]
    assert {"statuses": None} in [s["arguments"] for s in result["suggestions"]]
    assert all(s["searched"] is False for s in result["suggestions"])


def test_other_office_cannot_get_check_or_estimate_a_foreign_listing(office: dict[int, Caller], demo_db: Database) -> None:
    foreign = sql(demo_db, "SELECT ref FROM listings WHERE office_id = 1 AND status = 'draft' ORDER BY id")[0][0]
    foreign_published = sql(demo_db, "SELECT ref FROM listings WHERE office_id = 1 AND status = 'published' ORDER BY id")[0][0]
    nowhere = office[2].error("get_listing", {"listing_id": "A-9999999"})
    for tool in ("get_listing", "check_listing", "estimate_value"):
        code, message = office[2].error(tool, {"listing_id": foreign})
        assert code == "NOT_FOUND"
        assert foreign not in message, "the id of another office's unpublished listing is never echoed"
        assert (code, message) == nowhere, "indistinguishable from a listing that does not exist"
        # a published listing is public anyway: the answer says so and where its exposé opens
        assert office[2].error(tool, {"listing_id": foreign_published}) == (
            "NOT_FOUND",
            f"{foreign_published} ist ein veröffentlichtes Inserat eines anderen Anbieters, nicht im Bestand deines Büros: "
            f"sein Exposé öffnest du in der Athaus Immobiliensuche, als Ressource athaus://suche/inserate/{foreign_published}.",
        )
    assert office[1]("get_listing", {"listing_id": foreign})["listing_id"] == foreign
    stock = {i["listing_id"] for i in walk(office[2], "search_listings", {"limit": 50})}
    assert foreign not in stock and foreign_published not in stock


# --- get_listing ----------------------------------------------------------------------------------------------------


def test_get_listing_has_everything_for_the_next_decision(office: dict[int, Caller], demo_db: Database) -> None:
    ref, listing_id = sql(
        demo_db,
        "SELECT l.ref, l.id FROM listings l WHERE l.office_id = 1 AND NOT l.address_published "
        "AND EXISTS (SELECT 1 FROM inquiries i WHERE i.listing_id = l.id) ORDER BY l.id",
    )[0]
    result = office[1]("get_listing", {"listing_id": ref})
    assert result["address"]["coordinates_exact"] is True and result["address_published"] is False
    assert isinstance(result["address"]["street"], str), "the office sees its own exact address"
    inquiries = result["inquiries"]
    assert inquiries["total"] == scalar(demo_db, "SELECT count(*) FROM inquiries WHERE listing_id = :l", l=listing_id)
    assert inquiries["open"] == scalar(demo_db, "SELECT count(*) FROM inquiries WHERE listing_id = :l AND status = 'open'", l=listing_id)
    assert inquiries["shown"] == len(inquiries["latest"]) == min(5, inquiries["total"])
    history = sql(demo_db, "SELECT new_status FROM listing_status_changes WHERE listing_id = :l ORDER BY changed_at, id", l=listing_id)
    if history:
        assert [h["new_status"] for h in result["status_history"]] == [s for (s,) in history]
    else:
        assert absence(result, result, "status_history") == "empty_in_source"
    assert result["check"]["listing_id"] == ref and len(result["check"]["rules"]) == 8
    assert result["proposals"]["total"] == scalar(demo_db, "SELECT count(*) FROM proposals WHERE listing_id = :l", l=listing_id)
    drafts = scalar(
        demo_db,
        "SELECT count(*) FROM pending_actions p WHERE p.office_id = 1 AND p.status = 'pending' AND (p.subject_ref IN "
        "(SELECT ref FROM inquiries WHERE listing_id = :l) OR p.subject_ref IN (SELECT ref FROM proposals WHERE listing_id = :l))",
        l=listing_id,
    )
    assert result["open_drafts"]["total"] == drafts


def test_get_listing_shows_the_status_history_and_open_drafts(office: dict[int, Caller], demo_db: Database) -> None:
    with_history = sql(
        demo_db,
        "SELECT l.ref, count(*) FROM listings l JOIN listing_status_changes c ON c.listing_id = l.id "
        "WHERE l.office_id = 1 GROUP BY l.ref ORDER BY l.ref",
    )
    assert with_history, "the demo data has status history for office 1"
    ref, changes = with_history[0]
    assert len(office[1]("get_listing", {"listing_id": ref})["status_history"]) == changes
    action = sql(
        demo_db,
        "SELECT l.ref, p.ref FROM pending_actions p JOIN inquiries i ON i.ref = p.subject_ref JOIN listings l ON l.id = i.listing_id "
        "WHERE p.office_id = 1 AND p.status = 'pending' ORDER BY p.id",
    )
    if action:
        listing_ref, confirmation = action[0]
        drafts = office[1]("get_listing", {"listing_id": listing_ref})["open_drafts"]
        assert confirmation in [d["confirmation_id"] for d in drafts["items"]]


# --- check_listing ----------------------------------------------------------------------------------------------------


def rule(result: dict[str, Any], name: str) -> dict[str, Any]:
    return next(r for r in result["rules"] if r["rule"] == name)


def owned(db: Database, where: str) -> tuple[str, int]:
    rows = sql(db, f"SELECT ref, office_id FROM listings WHERE {where} ORDER BY id")
    assert rows, f"the demo data has a listing with {where}"
    return rows[0][0], rows[0][1]


def as_office(db: Database, office_id: int) -> Caller:
    return Caller(BROKER, make_context(db)).as_(principal(db, office_id))


def test_energy_at_viewing_fails_the_energy_rule(demo_db: Database) -> None:
    ref, office_id = owned(demo_db, "energy_status = 'at_viewing' AND property_type IN ('apartment', 'house')")
    result = as_office(demo_db, office_id)("check_listing", {"listing_id": ref})
    energy = rule(result, "energy_certificate")
    assert energy["verdict"] == "failed" and energy["blocking"] is True
    assert "Besichtigung" in energy["message"]
    assert result["publishable"] is False


COMPLETE = (
    "energy_status = 'present' AND property_type IN ('apartment', 'house') AND energy_certificate_type IS NOT NULL "
    "AND energy_value IS NOT NULL AND energy_class IS NOT NULL AND energy_carrier IS NOT NULL "
    "AND energy_year_built IS NOT NULL AND energy_valid_until >= '{today}' AND length(description) >= 200 "
    "AND price IS NOT NULL AND living_area IS NOT NULL AND rooms IS NOT NULL AND photos IS NOT NULL"
)


def test_a_complete_listing_passes_every_blocking_rule(demo_db: Database) -> None:
    candidates = sql(demo_db, f"SELECT ref, office_id, photos FROM listings WHERE {COMPLETE.format(today=TODAY.isoformat())} ORDER BY id")
    ref, office_id = next((r, o) for r, o, photos in candidates if photos not in ("[]", []) and photos)
    result = as_office(demo_db, office_id)("check_listing", {"listing_id": ref})
    assert rule(result, "energy_certificate")["verdict"] == "ok"
    assert all(r["verdict"] == "ok" for r in result["rules"] if r["blocking"])
    assert result["publishable"] is True
    assert [r["rule"] for r in result["rules"]] == [
        "energy_certificate", "title", "description", "price", "living_area", "rooms", "photos", "price_plausibility",
    ]
    assert rule(result, "price_plausibility")["blocking"] is False


def test_an_expired_certificate_fails(demo_db: Database) -> None:
    ref, office_id = owned(
        demo_db,
        f"energy_status = 'present' AND property_type IN ('apartment', 'house') AND energy_valid_until < '{TODAY.isoformat()}'",
    )
    energy = rule(as_office(demo_db, office_id)("check_listing", {"listing_id": ref}), "energy_certificate")
    assert energy["verdict"] == "failed" and "abgelaufen" in energy["message"]


def test_not_required_is_accepted_only_where_plausible(demo_db: Database) -> None:
    parking, office_id = owned(demo_db, "property_type = 'parking'")
    assert rule(as_office(demo_db, office_id)("check_listing", {"listing_id": parking}), "energy_certificate")["verdict"] == "ok"
    listed, office_id = owned(
        demo_db, "energy_status = 'not_required' AND property_type IN ('apartment', 'house') AND description LIKE '%Denkmalschutz%'"
    )
    assert rule(as_office(demo_db, office_id)("check_listing", {"listing_id": listed}), "energy_certificate")["verdict"] == "ok"


def test_short_description_and_missing_photos_fail(demo_db: Database) -> None:
    short, office_id = owned(demo_db, "length(description) < 200")
    assert rule(as_office(demo_db, office_id)("check_listing", {"listing_id": short}), "description")["verdict"] == "failed"
    rows = sql(demo_db, "SELECT ref, office_id, photos FROM listings ORDER BY id")
    bare, office_id = next((r, o) for r, o, photos in rows if photos in ("[]", []))
    assert rule(as_office(demo_db, office_id)("check_listing", {"listing_id": bare}), "photos")["verdict"] == "failed"


def test_price_plausibility_against_published_comparables(demo_db: Database) -> None:
    ref, office_id, listing_id, city, marketing, kind, price, area = sql(
        demo_db,
        "SELECT ref, office_id, id, city, marketing_type, property_type, price, living_area FROM listings "
        "WHERE city = 'Berlin' AND property_type = 'apartment' AND marketing_type = 'rent' AND price IS NOT NULL ORDER BY id",
    )[0]
    result = as_office(demo_db, office_id)("check_listing", {"listing_id": ref})
    plausibility = rule(result, "price_plausibility")
    values = [
        p / a
        for p, a in sql(
            demo_db,
            "SELECT price, living_area FROM listings WHERE status = 'published' AND city = :c AND marketing_type = :m "
            "AND property_type = :k AND price IS NOT NULL AND living_area > 0 AND id <> :id",
            c=city, m=marketing, k=kind, id=listing_id,
        )
    ]
    assert len(values) >= 5
    median = statistics.median(values)
    assert result["price_comparison"]["comparables"] == len(values)
    assert result["price_comparison"]["median_price_per_sqm"] == pytest.approx(median, abs=0.01)
    ratio = price / area / median
    assert plausibility["verdict"] == ("ok" if 0.5 <= ratio <= 2 else "failed")


def test_price_plausibility_is_not_checkable_with_few_comparables(demo_db: Database) -> None:
    rows = sql(
        demo_db,
        "SELECT l.ref, l.office_id FROM listings l WHERE l.price IS NOT NULL AND l.living_area > 0 "
        "AND l.property_type IN ('apartment', 'house', 'commercial') AND (SELECT count(*) FROM listings c WHERE c.status = 'published' "
        "AND c.city = l.city AND c.marketing_type = l.marketing_type AND c.property_type = l.property_type "
        "AND c.price IS NOT NULL AND c.living_area > 0 AND c.id <> l.id) < 5 ORDER BY l.id",
    )
    ref, office_id = rows[0]
    result = as_office(demo_db, office_id)("check_listing", {"listing_id": ref})
    plausibility = rule(result, "price_plausibility")
    assert plausibility["verdict"] == "not_checkable" and "mindestens 5" in plausibility["message"]
    assert absence(result, result, "price_comparison") is not None


# --- estimate_value -----------------------------------------------------------------------------------------------------


def test_estimate_uses_only_published_comparables_of_the_same_kind_and_city(office: dict[int, Caller], demo_db: Database) -> None:
    args = {"city": "Berlin", "property_type": "Wohnung", "marketing_type": "Kauf", "living_area": 70, "rooms": 2}
    result = office[1]("estimate_value", args)
    assert result["estimable"] is True
    rows = sql(
        demo_db,
        "SELECT ref, price, living_area FROM listings WHERE status = 'published' AND city = 'Berlin' AND marketing_type = 'buy' "
        "AND property_type = 'apartment' AND living_area >= 49 AND living_area <= 91 AND price IS NOT NULL",
    )
    assert result["comparables"]["total"] == len(rows) >= 5
    listed = [item["listing_id"] for item in result["comparables"]["items"]]
    assert set(listed) <= {ref for ref, _, _ in rows}
    assert result["comparables"]["shown"] == len(listed) == min(20, len(rows))
    for ref in listed:
        status, city, marketing, kind = sql(demo_db, "SELECT status, city, marketing_type, property_type FROM listings WHERE ref = :r", r=ref)[0]
        assert (status, city, marketing, kind) == ("published", "Berlin", "buy", "apartment")
    median = statistics.median(price / area for _, price, area in rows)
    value = result["value_range"]
    assert amount(value["low"]) <= median * 70 <= amount(value["high"])
    assert value["price_per_sqm_median"] == pytest.approx(median, abs=0.01)
    excluded = scalar(
        demo_db,
        "SELECT count(*) FROM listings WHERE status = 'published' AND city = 'Berlin' AND marketing_type = 'buy' "
        "AND property_type = 'apartment' AND living_area >= 49 AND living_area <= 91 AND price IS NULL",
    )
    assert result["excluded"]["price_on_request"] == excluded
    assert result["suggestions"] == [] and result["hint"] is None
    defaults = [w["message"] for w in result["warnings"] if w["code"] == "DEFAULT_SCOPE_APPLIED"]
    assert any("±30 %" in m for m in defaults) and any("Berlin" in m for m in defaults)
    if excluded:
        assert any(w["code"] == "PRICE_ON_REQUEST_EXCLUDED" and w["message"].startswith(str(excluded)) for w in result["warnings"])
    explicit = office[1]("estimate_value", {**args, "area_tolerance_percent": 30, "postal_codes": ["10"]})
    assert [w for w in explicit["warnings"] if w["code"] == "DEFAULT_SCOPE_APPLIED"] == [], "nothing defaulted, nothing named"
    assert "Median" in result["method"] and "Quartil" in result["method"]
    # the ends follow from the method as written: quartile × area, rounded outwards to the step the method names
    assert "die Enden nach außen gerundet, die Mitte kaufmännisch, auf volle 1.000 €" in result["method"]
    assert amount(value["low"]) == math.floor(value["price_per_sqm_low"] * 70 / 1000) * 1000
    assert amount(value["high"]) == math.ceil(value["price_per_sqm_high"] * 70 / 1000) * 1000


def test_estimate_from_an_own_listing_leaves_the_listing_itself_out(office: dict[int, Caller], demo_db: Database) -> None:
    ref = sql(
        demo_db,
        "SELECT ref FROM listings WHERE office_id = 1 AND status = 'published' AND property_type = 'apartment' "
        "AND living_area IS NOT NULL AND price IS NOT NULL ORDER BY id",
    )[0][0]
    result = office[1]("estimate_value", {"listing_id": ref})
    assert result["subject"]["source"] == "listing" and result["subject"]["listing_id"] == ref
    assert ref not in [item["listing_id"] for item in result["comparables"]["items"]]
    assert result["excluded"]["subject_listing"] is True


def test_each_comparable_is_listed_with_its_figures_distance_and_public_expose(
    office: dict[int, Caller], demo_db: Database, search: Caller
) -> None:
    ref, latitude, longitude = sql(
        demo_db,
        "SELECT ref, latitude, longitude FROM listings WHERE office_id = 1 AND status = 'published' AND property_type = 'apartment' "
        "AND living_area IS NOT NULL AND price IS NOT NULL ORDER BY id",
    )[0]
    comparables = office[1]("estimate_value", {"listing_id": ref})["comparables"]
    assert comparables["distance_from"] == f"Lage des Objekts {ref}"
    assert comparables["items"] and len(comparables["items"]) == comparables["shown"]
    for item in comparables["items"]:
        price, area, year, postal_code, lat, lon = sql(
            demo_db,
            "SELECT price, living_area, year_built, postal_code, latitude, longitude FROM listings WHERE ref = :r",
            r=item["listing_id"],
        )[0]
        assert amount(item["price"]) == price and item["living_area"] == area
        assert item["price_per_sqm"] == round(price / area, 2)
        assert item["postal_code"] == postal_code
        assert item["year_built"] == year if year is not None else absence(comparables, item, "year_built") == "empty_in_source"
        km_per_lon = 111.320 * math.cos(math.radians(latitude))
        expected_km = math.hypot((lat - latitude) * 110.574, (lon - longitude) * km_per_lon)
        assert item["distance_km"] == pytest.approx(expected_km, abs=0.051)
        assert item["resource_uri"] == f"athaus://suche/inserate/{item['listing_id']}"
    berlin = office[1]("estimate_value", {"city": "Berlin", "property_type": "apartment", "marketing_type": "buy", "living_area": 70})
    other_office = next(
        item["listing_id"]
        for item in berlin["comparables"]["items"]
        if scalar(demo_db, "SELECT office_id FROM listings WHERE ref = :r", r=item["listing_id"]) != 1
    )
    assert search("get_listing", {"listing_id": other_office})["listing_id"] == other_office, "the search server opens it"
    code, message = office[1].error("get_listing", {"listing_id": other_office})
    assert code == "NOT_FOUND" and f"athaus://suche/inserate/{other_office}" in message


def test_comparables_of_caller_data_are_measured_from_the_centre_of_the_postal_code(office: dict[int, Caller]) -> None:
    result = office[1]("estimate_value", {"postal_code": "04109", "property_type": "apartment", "marketing_type": "rent", "living_area": 60})
    assert result["comparables"]["distance_from"] == "Mitte der PLZ 04109"
    assert all(isinstance(item["distance_km"], float | int) for item in result["comparables"]["items"])


def test_too_few_comparables_give_no_range_and_unsearched_suggestions(office: dict[int, Caller], demo_db: Database) -> None:
    statements: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        statements.append((statement, parameters))

    args = {"postal_code": "04109", "property_type": "house", "marketing_type": "rent", "living_area": 400}
    event.listen(demo_db.engine, "before_cursor_execute", capture)
    try:
        result = office[1]("estimate_value", args)
    finally:
        event.remove(demo_db.engine, "before_cursor_execute", capture)
    assert result["estimable"] is False and result["value_range"] is None
    assert result["comparables"]["total"] < 5
    assert result["confidence"]["level"] == "none"
    assert "nicht erweitert" in result["hint"] and "mindestens 5" in result["hint"]
    suggested = [s["arguments"] for s in result["suggestions"]]
    assert {"area_tolerance_percent": 60} in suggested and {"postal_codes": ["04"]} in suggested
    assert all(s["searched"] is False for s in result["suggestions"])

    values = [v for _, p in statements for v in (p.values() if isinstance(p, dict) else p)]  # psycopg: dict, sqlite: tuple
    assert 280.0 in values and 520.0 in values, "the caller's own area range (±30 %) is searched"
    assert "leipzig" in values, "the caller's own place is searched"
    for never in (160.0, 640.0, "04", "05"):  # ±60 % and the PLZ region (prefix and its upper bound)
        assert never not in values, f"suggestion value {never!r} was searched"


def test_estimate_asks_one_question_for_a_missing_input(office: dict[int, Caller]) -> None:
    code, question = office[1].error("estimate_value", {"city": "Leipzig", "property_type": "apartment", "marketing_type": "buy"})
    assert code == "INPUT_REQUIRED" and question.endswith("?") and question.count("?") == 1 and "Wohnfläche" in question


def test_estimate_refuses_listing_id_together_with_object_data(office: dict[int, Caller]) -> None:
    code, message = office[1].error("estimate_value", {"listing_id": "A-0000001", "living_area": 80})
    assert code == "INVALID_ARGUMENT" and "listing_id" in message
