"""The seeker's account, read side (right suche:konto): list_search_orders, list_matches, list_inquiries,
get_inquiry. Own rows only, the default time scope named, pages disjoint and complete, empty results with a
next step built from the request, and listings that left the catalog still shown with their status."""

from __future__ import annotations

from contract.rights import right_rank

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import event, func, select, update

from contract.search import SERVER as SEARCH_SERVER
from search_server.server import DEFINITION as SEARCH
from shared.auth.principal import Principal
from shared.db.models import Inquiry, InquiryMessage, Listing, Match, SearchOrder, User
from shared.db.session import Database
from shared.demo import DEMO_ACCOUNTS
from shared.runtime import render
from tests.conftest import FIXED_NOW, Caller, make_context
from tests.wire_helpers import absence, amount, echoed

ACCOUNT_TOOLS = ["list_search_orders", "list_matches", "list_inquiries", "get_inquiry"]
RESOURCE = "http://127.0.0.1:8000/suche/mcp"
LONG_AGO = "2000-01-01T00:00:00Z"
DEFAULT_SINCE = FIXED_NOW - dt.timedelta(days=14)


def seeker(user_id: int, scopes: frozenset[str] = frozenset({"suche:konto"})) -> Principal:
    return Principal(user_id=user_id, kind="seeker", office_id=None, office_role=None, scopes=scopes, resource=RESOURCE)


def utc(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def when(value: dt.datetime) -> str:
    return render.when(value)


def walk(caller: Caller, tool: str, args: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page of one walk; checks the envelope of each page on the way."""
    pages: list[dict[str, Any]] = []
    arguments = dict(args)
    while True:
        page = caller(tool, arguments)
        pages.append(page)
        cursor = page["completeness"]["next_cursor"]
        if cursor is None:
            assert page["status"] == "complete" and page["completeness"]["complete"] is True
            return pages
        assert page["status"] == "partial" and page["completeness"]["complete"] is False
        assert [r["code"] for r in page["completeness"]["reasons"]] == ["MORE_PAGES_AVAILABLE"]
        arguments["cursor"] = cursor
        assert len(pages) < 500, "the walk does not end"


def demo_user_id(db: Database, email_prefix: str) -> int:
    account = next(a for a in DEMO_ACCOUNTS if a.email.startswith(f"{email_prefix}@") and a.kind == "seeker")
    with db.read_only() as session:
        user_id = session.scalar(select(User.id).where(User.email == account.email))
    assert user_id is not None, f"demo seeker {account.email} is not seeded"
    return user_id


def own_refs(db: Database, user_id: int) -> dict[str, set[str]]:
    """The caller's rows, read straight from the tables (independent of SeekerData)."""
    with db.read_only() as session:
        orders = set(session.scalars(select(SearchOrder.ref).where(SearchOrder.user_id == user_id)))
        matches = set(
            session.scalars(
                select(Match.ref).where(Match.search_order_id.in_(select(SearchOrder.id).where(SearchOrder.user_id == user_id)))
            )
        )
        inquiries = set(session.scalars(select(Inquiry.ref).where(Inquiry.seeker_id == user_id)))
    return {"orders": orders, "matches": matches, "inquiries": inquiries}


def busiest_seeker(db: Database, column: Any, *where: Any) -> tuple[int, int]:
    """(user id, count) of the seeker with the most rows of `column`'s kind."""
    with db.read_only() as session:
        if column is Inquiry.seeker_id:
            query = select(Inquiry.seeker_id, func.count()).where(*where).group_by(Inquiry.seeker_id)
        else:
            query = select(SearchOrder.user_id, func.count()).join(Match, Match.search_order_id == SearchOrder.id).where(*where).group_by(SearchOrder.user_id)
        user_id, n = session.execute(query.order_by(func.count().desc(), column).limit(1)).one()
    return int(user_id), int(n)


@pytest.fixture(scope="module")
def lena(demo_db: Database) -> int:
    return demo_user_id(demo_db, "suchende")


@pytest.fixture(scope="module")
def tobias(demo_db: Database) -> int:
    return demo_user_id(demo_db, "suchender")


@pytest.fixture(scope="module")
def nobody(demo_db: Database) -> int:
    """A user id without a single account row."""
    with demo_db.read_only() as session:
        return int(session.scalar(select(func.max(User.id))) or 0) + 1000


# --- contract -----------------------------------------------------------------------------------


def test_account_tools_are_declared_read_only_under_suche_konto() -> None:
    specs = {s.name: s for s in SEARCH_SERVER.tools}
    for name in ACCOUNT_TOOLS:
        spec = specs[name]
        assert spec.right.scope == "suche:konto"
        assert spec.annotations.as_mcp() == {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
        assert spec.security_schemes() == [{"type": "oauth2", "scopes": ["suche:konto"]}]
    ordered = [s.name for s in SEARCH_SERVER.tools]
    ranks = [right_rank(specs[name].right) for name in ordered]
    assert ranks == sorted(ranks), "tools/list: by right (public first)"
    assert [name for name in ordered if name in ACCOUNT_TOOLS] == sorted(ACCOUNT_TOOLS), "then by name"


# --- rights ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ACCOUNT_TOOLS)
def test_without_login_the_account_tools_answer_missing_right_with_a_challenge(search: Caller, tool: str) -> None:
    args = {"inquiry_id": "I-000001"} if tool == "get_inquiry" else {}
    result = search.as_(None).raw(tool, args)
    assert result.is_error and result.structured_content is None
    assert result.meta["athaus/code"] == "MISSING_RIGHT"
    challenge = result.meta["mcp/www_authenticate"]
    assert challenge.startswith("Bearer resource_metadata=") and 'scope="suche:konto"' in challenge
    assert "Anmeldung" in result.content[0].text


def test_a_token_without_suche_konto_is_told_to_widen_access(search: Caller, lena: int) -> None:
    result = search.as_(seeker(lena, frozenset({"suche:anfragen"}))).raw("list_matches", {})
    assert result.is_error and result.meta["athaus/code"] == "MISSING_RIGHT"
    assert 'scope="suche:konto"' in result.meta["mcp/www_authenticate"]
    assert 'error="insufficient_scope"' in result.meta["mcp/www_authenticate"]


def test_public_tools_still_work_without_login(search: Caller) -> None:
    anonymous = search.as_(None)
    found = anonymous("search_listings", {"city": "Leipzig", "limit": 1})
    assert found["returned"] == 1
    assert anonymous("count_listings", {"city": "Leipzig", "facets": []})["total"] > 0
    listing_id = found["items"][0]["listing_id"]
    assert anonymous("get_listing", {"listing_id": listing_id})["listing_id"] == listing_id
    assert anonymous("calculate_purchase_costs", {"price": 300000, "state": "Sachsen", "contract_date": "2026-11-30"})


# --- isolation: own rows only -------------------------------------------------------------------------


def test_search_orders_are_exactly_the_callers_own(search: Caller, demo_db: Database, lena: int, tobias: int) -> None:
    mine, theirs = own_refs(demo_db, lena), own_refs(demo_db, tobias)
    assert mine["orders"] and theirs["orders"]
    result = search.as_(seeker(lena))("list_search_orders")
    shown = {item["search_order_id"] for item in result["items"]}
    assert shown == mine["orders"] and not shown & theirs["orders"]
    assert result["total"] == len(mine["orders"]) and result["status"] == "complete"


def test_matches_are_exactly_the_callers_own(search: Caller, demo_db: Database, lena: int, tobias: int) -> None:
    mine, theirs = own_refs(demo_db, lena), own_refs(demo_db, tobias)
    assert mine["matches"] and theirs["matches"]
    pages = walk(search.as_(seeker(lena)), "list_matches", {"since": LONG_AGO, "limit": 3})
    items = [item for page in pages for item in page["items"]]
    assert {i["match_id"] for i in items} == mine["matches"]
    assert {i["search_order_id"] for i in items} <= mine["orders"]
    assert echoed(pages[0], "search_order_id") == {"value": None, "source": "default"}  # what the tool accepts back
    assert echoed(pages[0], "search_orders") == {"value": sorted(mine["orders"]), "source": "default"}


def test_inquiries_are_exactly_the_callers_own(search: Caller, demo_db: Database, lena: int, tobias: int) -> None:
    mine, theirs = own_refs(demo_db, lena), own_refs(demo_db, tobias)
    assert mine["inquiries"] and theirs["inquiries"]
    pages = walk(search.as_(seeker(lena)), "list_inquiries", {"limit": 2})
    assert {i["inquiry_id"] for p in pages for i in p["items"]} == mine["inquiries"]


def test_another_seekers_inquiry_is_not_found_like_a_missing_one(search: Caller, demo_db: Database, lena: int, tobias: int) -> None:
    as_lena = search.as_(seeker(lena))
    foreign = sorted(own_refs(demo_db, tobias)["inquiries"])[0]
    code, text = as_lena.error("get_inquiry", {"inquiry_id": foreign})
    missing_code, missing_text = as_lena.error("get_inquiry", {"inquiry_id": "I-999999"})
    assert code == missing_code == "NOT_FOUND"
    assert text.replace(foreign, "<ref>") == missing_text.replace("I-999999", "<ref>"), "the answer must not reveal that it exists"
    assert search.as_(seeker(tobias))("get_inquiry", {"inquiry_id": foreign})["inquiry_id"] == foreign


def test_another_seekers_search_order_as_a_filter_is_not_found(search: Caller, demo_db: Database, lena: int, tobias: int) -> None:
    foreign = sorted(own_refs(demo_db, tobias)["orders"])[0]
    code, text = search.as_(seeker(lena)).error("list_matches", {"search_order_id": foreign})
    assert code == "NOT_FOUND" and foreign in text and "list_search_orders" in text


# --- list_matches: the default time scope is named ------------------------------------------------------


def older_counts(db: Database, user_id: int) -> tuple[int, int, int]:
    """(in the default window, older and unseen, older and seen) Treffer of the seeker, straight from the tables."""
    own = select(func.count()).select_from(Match).join(SearchOrder, Match.search_order_id == SearchOrder.id)
    own = own.where(SearchOrder.user_id == user_id)
    with db.read_only() as session:
        in_window = session.scalar(own.where(Match.created_at >= DEFAULT_SINCE))
        older_new = session.scalar(own.where(Match.created_at < DEFAULT_SINCE, Match.state == "new"))
        older_seen = session.scalar(own.where(Match.created_at < DEFAULT_SINCE, Match.state != "new"))
    return in_window or 0, older_new or 0, older_seen or 0


def test_default_since_is_named_and_echoed(search: Caller, demo_db: Database) -> None:
    user_id, _ = busiest_seeker(demo_db, SearchOrder.user_id, Match.created_at >= DEFAULT_SINCE)
    in_window, older_new, older_seen = older_counts(demo_db, user_id)
    as_seeker = search.as_(seeker(user_id))
    default = as_seeker("list_matches", {"limit": 50})
    assert default["total"] == in_window + older_new and in_window > 0
    assert echoed(default, "since") == {"value": DEFAULT_SINCE.isoformat(), "source": "default"}
    assert echoed(default, "unseen_before_since") == {"value": True, "source": "default"}
    unseen = (
        f"dazu {older_new} {'älterer, noch nicht angesehener Treffer' if older_new == 1 else 'ältere, noch nicht angesehene Treffer'} "
        f"(Zustand neu; list_search_orders zählt {'ihn' if older_new == 1 else 'sie'} bei den neuen Treffern mit)"
        if older_new
        else "ältere, noch nicht angesehene Treffer gibt es nicht"
    )
    beyond = (
        f"{older_seen} {'älterer, schon angesehener Treffer' if older_seen == 1 else 'ältere, schon angesehene Treffer'} zu "
        f"diesen Filtern {'ist' if older_seen == 1 else 'sind'} nicht enthalten; dafür den Zeitpunkt früher setzen (since)."
        if older_seen
        else "Ältere, schon angesehene Treffer zu diesen Filtern gibt es nicht."
    )
    assert default["warnings"] == [
        {
            "code": "DEFAULT_SCOPE_APPLIED",
            "message": f"Ohne Zeitpunkt (since) gezeigt: die Treffer seit {when(DEFAULT_SINCE)} (Standard: 14 Tage vor jetzt); "
            f"{unseen}. {beyond}",
        }
    ]
    assert all(dt.datetime.fromisoformat(i["created_at"]) >= DEFAULT_SINCE or i["match_state"] == "new" for i in default["items"])

    explicit = as_seeker("list_matches", {"since": (FIXED_NOW - dt.timedelta(days=90)).isoformat(), "limit": 50})
    assert "unseen_before_since" not in explicit["request"]
    assert explicit["total"] >= default["total"]
    assert explicit["total"] == in_window + older_new + older_seen, "the demo keeps every Treffer within 90 days"


def test_default_scope_counts_what_it_leaves_out(search: Caller, demo_db: Database, lena: int) -> None:
    _, _, older_seen = older_counts(demo_db, lena)
    result = search.as_(seeker(lena))("list_matches")
    (warning,) = result["warnings"]
    assert warning["code"] == "DEFAULT_SCOPE_APPLIED"
    if older_seen:
        assert f"{older_seen} ältere, schon angesehene Treffer" in warning["message"]
    everything = search.as_(seeker(lena))("list_matches", {"since": LONG_AGO, "limit": 50})
    assert everything["total"] == result["total"] + older_seen


def test_since_without_zone_is_utc_and_an_offset_is_converted(search: Caller, lena: int) -> None:
    as_lena = search.as_(seeker(lena))
    naive = as_lena("list_matches", {"since": "2026-10-01T08:00:00", "limit": 50})
    offset = as_lena("list_matches", {"since": "2026-10-01T10:00:00+02:00", "limit": 50})
    assert echoed(naive, "since")["value"] == echoed(offset, "since")["value"] == "2026-10-01T08:00:00+00:00"
    assert [i["match_id"] for i in naive["items"]] == [i["match_id"] for i in offset["items"]]


# --- order and pages ---------------------------------------------------------------------------


def test_match_pages_are_disjoint_complete_and_in_the_documented_order(search: Caller, demo_db: Database) -> None:
    user_id, count = busiest_seeker(demo_db, SearchOrder.user_id)
    assert count >= 5, "the demo needs a seeker with several Treffer"
    pages = walk(search.as_(seeker(user_id)), "list_matches", {"since": LONG_AGO, "limit": 2})
    items = [i for p in pages for i in p["items"]]
    ids = [i["match_id"] for i in items]
    assert len(ids) == len(set(ids)) == pages[0]["total"] == count
    assert all(p["total"] == count and p["sort_key"] == "created_at desc, match_id asc" for p in pages)
    keys = [(-dt.datetime.fromisoformat(i["created_at"]).timestamp(), i["match_id"]) for i in items]
    assert keys == sorted(keys)
    assert all(echoed(p, "since")["source"] == "caller" for p in pages)


def test_inquiry_pages_are_disjoint_and_complete(search: Caller, demo_db: Database) -> None:
    user_id, count = busiest_seeker(demo_db, Inquiry.seeker_id)
    assert count >= 2
    pages = walk(search.as_(seeker(user_id)), "list_inquiries", {"limit": 1})
    ids = [i["inquiry_id"] for p in pages for i in p["items"]]
    assert len(ids) == len(set(ids)) == pages[0]["total"] == count == len(pages)


def test_default_since_is_kept_by_the_cursor(search: Caller, demo_db: Database) -> None:
    user_id, count = busiest_seeker(demo_db, SearchOrder.user_id, Match.created_at >= DEFAULT_SINCE)
    assert count >= 2
    pages = walk(search.as_(seeker(user_id)), "list_matches", {"limit": 1})
    assert len({i["match_id"] for p in pages for i in p["items"]}) == count
    assert echoed(pages[0], "since") == {"value": DEFAULT_SINCE.isoformat(), "source": "default"}
    assert all(echoed(p, "since") == {"value": DEFAULT_SINCE.isoformat(), "source": "cursor"} for p in pages[1:])
    assert all(p["warnings"][0]["code"] == "DEFAULT_SCOPE_APPLIED" for p in pages)


def test_a_cursor_for_other_arguments_or_another_seeker_is_refused(search: Caller, demo_db: Database, lena: int) -> None:
    user_id, _ = busiest_seeker(demo_db, SearchOrder.user_id)
    as_seeker = search.as_(seeker(user_id))
    cursor = as_seeker("list_matches", {"since": LONG_AGO, "limit": 1})["completeness"]["next_cursor"]
    code, _ = as_seeker.error("list_matches", {"since": LONG_AGO, "limit": 1, "kinds": ["price_drop"], "cursor": cursor})
    assert code == "CURSOR_EXPIRED"
    other = lena if lena != user_id else user_id + 1
    code, _ = search.as_(seeker(other)).error("list_matches", {"since": LONG_AGO, "limit": 1, "cursor": cursor})
    assert code == "CURSOR_EXPIRED"


# --- empty results: echo, hint, suggestions from the input, never searched ------------------------------


def test_empty_matches_echo_the_request_and_suggest_from_the_input(search: Caller, demo_db: Database, lena: int) -> None:
    statements: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, executemany: bool) -> None:
        statements.append((statement, parameters))

    since = FIXED_NOW.isoformat()  # after every Treffer of the demo
    args = {"since": since, "kinds": ["Vorschlag"], "states": ["interessant"]}
    event.listen(demo_db.engine, "before_cursor_execute", capture)
    try:
        result = search.as_(seeker(lena))("list_matches", args)
    finally:
        event.remove(demo_db.engine, "before_cursor_execute", capture)

    assert result["items"] == [] and result["total"] == 0 and result["returned"] == 0
    assert result["match_type"] == "none" and result["status"] == "complete"
    assert echoed(result, "since") == {"value": since, "source": "caller"}
    assert echoed(result, "kinds") == {"value": ["proposal"], "source": "caller"}
    assert echoed(result, "states") == {"value": ["interesting"], "source": "caller"}
    assert result["warnings"] == []
    assert "nicht erweitert" in result["hint"]
    assert f"seit {when(FIXED_NOW)}" in result["hint"] and "Vorschlag eines Maklers" in result["hint"] and "interessant" in result["hint"]
    earlier = (FIXED_NOW - dt.timedelta(days=90)).isoformat()
    assert [s["arguments"] for s in result["suggestions"]] == [{"states": None}, {"kinds": None}, {"since": earlier}]
    assert all(s["searched"] is False for s in result["suggestions"])

    # never searched: every query on the Treffer carried the caller's own filters, none the suggested time
    values = [v for _, p in statements for v in (p.values() if isinstance(p, dict) else p)]
    earlier_forms = {earlier, earlier.replace("T", " ").replace("+00:00", ""), dt.datetime.fromisoformat(earlier)}
    assert not any(str(v).startswith(str(form)[:19]) for v in values for form in earlier_forms)
    on_matches = [(s, p) for s, p in statements if "matches" in s]
    assert on_matches
    for _, parameters in on_matches:
        sent = set(parameters.values() if isinstance(parameters, dict) else parameters)
        assert "proposal" in sent and "interesting" in sent, "a query ran without the caller's filters"


def test_empty_inquiries_name_the_filters_and_suggest_dropping_them(search: Caller, demo_db: Database, lena: int) -> None:
    with demo_db.read_only() as session:
        asked = set(session.scalars(select(Inquiry.listing_id).where(Inquiry.seeker_id == lena)))
        other = session.scalar(select(Listing.ref).where(Listing.id.not_in(asked), Listing.status == "published").order_by(Listing.id).limit(1))
    result = search.as_(seeker(lena))("list_inquiries", {"status": ["offen"], "listing_id": other})
    assert result["items"] == [] and result["match_type"] == "none" and result["completeness"]["complete"] is True
    assert echoed(result, "status") == {"value": ["open"], "source": "caller"}
    assert echoed(result, "listing_id") == {"value": other, "source": "caller"}
    assert f"zum Inserat {other}" in result["hint"] and "offen" in result["hint"]
    assert [s["arguments"] for s in result["suggestions"]] == [{"status": None}, {"listing_id": None}]


def test_empty_search_orders_with_a_status_filter(search: Caller, demo_db: Database) -> None:
    with demo_db.read_only() as session:
        statuses: dict[int, set[str]] = {}
        for owner, status in session.execute(select(SearchOrder.user_id, SearchOrder.status)):
            statuses.setdefault(owner, set()).add(status)
    user_id = min(owner for owner, seen in statuses.items() if "ended" not in seen)
    result = search.as_(seeker(user_id))("list_search_orders", {"status": ["beendet"]})
    assert result["items"] == [] and result["total"] == 0 and result["match_type"] == "none"
    assert echoed(result, "status") == {"value": ["ended"], "source": "caller"}
    assert "beendet" in result["hint"]
    assert [s["arguments"] for s in result["suggestions"]] == [{"status": None}]


def test_an_account_without_rows_says_how_to_start(search: Caller, nobody: int) -> None:
    as_nobody = search.as_(seeker(nobody))
    orders = as_nobody("list_search_orders")
    assert orders["total"] == 0 and orders["status"] == "complete" and "search_listings" in orders["hint"]
    assert echoed(orders, "status") == {"value": ["active", "paused", "ended"], "source": "default"}
    matches = as_nobody("list_matches", {"since": LONG_AGO})
    assert matches["total"] == 0 and "keinen Suchauftrag" in matches["hint"] and matches["suggestions"] == []
    assert echoed(matches, "search_orders") == {"value": [], "source": "default"}
    inquiries = as_nobody("list_inquiries")
    assert inquiries["total"] == 0 and "search_listings" in inquiries["hint"]


# --- content -----------------------------------------------------------------------------------------


def test_search_orders_carry_criteria_and_unseen_counts(search: Caller, demo_db: Database, lena: int) -> None:
    result = search.as_(seeker(lena))("list_search_orders")
    with demo_db.read_only() as session:
        rows = {o.ref: o for o in session.scalars(select(SearchOrder).where(SearchOrder.user_id == lena))}
        unseen = dict(
            session.execute(
                select(SearchOrder.ref, func.count())
                .join(Match, Match.search_order_id == SearchOrder.id)
                .where(SearchOrder.user_id == lena, Match.state == "new")
                .group_by(SearchOrder.ref)
            ).all()
        )
        for item in result["items"]:
            row = rows[item["search_order_id"]]
            assert {k: v for k, v in item["criteria"].items() if v is not None} == row.criteria
            assert item["criteria_text"] and item["name"] == row.name
            assert (item["status"], item["frequency"], item["approachable"]) == (row.status, row.frequency, row.approachable)
            assert item["new_matches"] == unseen.get(row.ref, 0)
    created = [dt.datetime.fromisoformat(i["created_at"]) for i in result["items"]]
    assert created == sorted(created, reverse=True)
    assert result["sort_key"] == "created_at desc, search_order_id asc"


def test_status_filter_accepts_german_and_narrows(search: Caller, lena: int) -> None:
    as_lena = search.as_(seeker(lena))
    everything = as_lena("list_search_orders")
    active = as_lena("list_search_orders", {"status": ["aktiv"]})
    assert echoed(active, "status") == {"value": ["active"], "source": "caller"}
    assert {i["search_order_id"] for i in active["items"]} == {i["search_order_id"] for i in everything["items"] if i["status"] == "active"}


def test_match_filters_accept_german_and_narrow(search: Caller, demo_db: Database) -> None:
    user_id, _ = busiest_seeker(demo_db, SearchOrder.user_id)
    as_seeker = search.as_(seeker(user_id))
    everything = [i for p in walk(as_seeker, "list_matches", {"since": LONG_AGO, "limit": 50}) for i in p["items"]]
    kind = everything[0]["kind"]
    german = {"new_listing": "Neues Inserat", "price_drop": "Preissenkung", "status_change": "Statusänderung", "proposal": "Vorschlag"}[kind]
    narrowed = as_seeker("list_matches", {"since": LONG_AGO, "kinds": [german], "limit": 50})
    assert echoed(narrowed, "kinds") == {"value": [kind], "source": "caller"}
    assert {i["match_id"] for i in narrowed["items"]} == {i["match_id"] for i in everything if i["kind"] == kind}
    order = everything[0]["search_order_id"]
    by_order = as_seeker("list_matches", {"since": LONG_AGO, "search_order_id": order.lower(), "limit": 50})
    assert {i["match_id"] for i in by_order["items"]} == {i["match_id"] for i in everything if i["search_order_id"] == order}


def test_match_items_carry_kind_detail_and_the_listing(search: Caller, demo_db: Database) -> None:
    with demo_db.read_only() as session:
        drop = session.execute(
            select(Match, SearchOrder.user_id).join(SearchOrder, Match.search_order_id == SearchOrder.id).where(Match.kind == "price_drop").order_by(Match.id).limit(1)
        ).one_or_none()
        if drop is None:
            pytest.skip("the demo has no price drop")
        match, user_id = drop
        listing_ref = session.scalar(select(Listing.ref).where(Listing.id == match.listing_id))
        match_ref, detail = match.ref, dict(match.detail)
    result = search.as_(seeker(user_id))("list_matches", {"since": LONG_AGO, "kinds": ["price_drop"], "limit": 50})
    item = next(i for i in result["items"] if i["match_id"] == match_ref)
    assert item["kind"] == "price_drop" and "kind_label" not in item  # the German label is in the text only
    assert amount(item["detail"]["old_price"]) == detail["old_price"]
    assert amount(item["detail"]["new_price"]) == detail["new_price"]
    assert item["detail"]["old_status"] is None and item["detail"]["proposed_by"] is None
    assert item["listing"]["listing_id"] == item["listing_id"] == listing_ref
    assert item["summary"].startswith("Preissenkung zu „")


def test_include_false_leaves_parts_of_the_listing_out(search: Caller, demo_db: Database, lena: int) -> None:
    inquiry = sorted(own_refs(demo_db, lena)["inquiries"])[0]
    as_lena = search.as_(seeker(lena))
    full = as_lena("get_inquiry", {"inquiry_id": inquiry})
    narrow = as_lena("get_inquiry", {"inquiry_id": inquiry, "include": {"energy": False, "features": False}})
    assert absence(full, full["listing"], "energy_class") != "not_collected"
    assert "energy_class" not in narrow["listing"]
    assert narrow["not_collected"]["energy_class"] == "include.energy = true"
    assert absence(narrow, narrow["listing"], "features") == "not_collected"
    wide = as_lena("get_inquiry", {"inquiry_id": inquiry, "include": {"description": True}})
    assert isinstance(wide["listing"]["description"], str)


def test_get_inquiry_shows_the_whole_thread_and_what_was_shared(search: Caller, demo_db: Database, lena: int) -> None:
    with demo_db.read_only() as session:
        inquiry = session.scalar(
            select(Inquiry)
            .where(Inquiry.seeker_id == lena, Inquiry.id.in_(select(InquiryMessage.inquiry_id).where(InquiryMessage.author == "office")))
            .order_by(Inquiry.id)
            .limit(1)
        )
        assert inquiry is not None, "the demo seeker has an answered inquiry"
        ref, profile = inquiry.ref, dict(inquiry.shared_profile)
        bodies = [m.body for m in session.scalars(select(InquiryMessage).where(InquiryMessage.inquiry_id == inquiry.id).order_by(InquiryMessage.created_at, InquiryMessage.id))]
    result = search.as_(seeker(lena))("get_inquiry", {"inquiry_id": ref.lower()})
    assert result["inquiry_id"] == ref and result["provider_replied"] is True
    assert [m["text"] for m in result["messages"]] == bodies
    sent = [dt.datetime.fromisoformat(m["sent_at"]) for m in result["messages"]]
    assert sent == sorted(sent)
    assert {m["author"] for m in result["messages"] if not m["from_provider"]} == {"Du"}
    assert {m["author"] for m in result["messages"] if m["from_provider"]} == {result["provider"]}
    assert [s["key"] for s in result["shared_profile"]] == list(profile)
    assert next(s for s in result["shared_profile"] if s["key"] == "email")["label"] == "E-Mail"


def test_list_inquiries_says_who_wrote_last_and_whether_the_provider_replied(search: Caller, demo_db: Database, lena: int) -> None:
    result = search.as_(seeker(lena))("list_inquiries")
    with demo_db.read_only() as session:
        for item in result["items"]:
            inquiry_id = session.scalar(select(Inquiry.id).where(Inquiry.ref == item["inquiry_id"]))
            authors = list(session.scalars(select(InquiryMessage.author).where(InquiryMessage.inquiry_id == inquiry_id).order_by(InquiryMessage.created_at, InquiryMessage.id)))
            assert item["message_count"] == len(authors)
            assert item["provider_replied"] == ("office" in authors)
            assert item["last_message_from"] == (item["provider"] if authors[-1] == "office" else "dir")


def test_text_is_german_and_complete_on_its_own(search: Caller, lena: int) -> None:
    result = search.as_(seeker(lena)).raw("list_matches", {})
    text = result.content[0].text
    warning = next(w for w in result.structured_content["warnings"] if w["code"] == "DEFAULT_SCOPE_APPLIED")
    assert f"Hinweis: {warning['message']}" in text and "DEFAULT_SCOPE_APPLIED" not in text
    listed = search.as_(seeker(lena)).raw("list_matches", {"since": LONG_AGO, "limit": 1})
    assert listed.structured_content["items"][0]["summary"] in listed.content[0].text


# --- data that changes: a scratch database ---------------------------------------------------------


@pytest.fixture
def changing(scratch_db: Database) -> Iterator[tuple[Database, int, list[str]]]:
    """A seeker of the scratch database with four Treffer of one search order of their own, all 'new'."""
    with scratch_db.unit_of_work() as session:
        user = User(email="konto-test@example.test", name="Konto Test", password_hash="-", kind="seeker")
        session.add(user)
        session.flush()
        order = SearchOrder(
            ref=f"S-{900000 + user.id}", user_id=user.id, name="Test", criteria={"city": "Leipzig"},
            frequency="daily", status="active", approachable=False,
        )
        session.add(order)
        session.flush()
        listing_ids = list(session.scalars(select(Listing.id).where(Listing.status == "published").order_by(Listing.id).limit(4)))
        refs = []
        for n, listing_id in enumerate(listing_ids):
            ref = f"T-{900000 + order.id * 10 + n}"
            session.add(Match(ref=ref, search_order_id=order.id, listing_id=listing_id, kind="new_listing", detail={}, state="new",
                              created_at=FIXED_NOW - dt.timedelta(days=1, hours=n)))
            refs.append(ref)
        user_id = user.id
    yield scratch_db, user_id, refs


def test_a_listing_no_longer_published_stays_with_its_status(changing: tuple[Database, int, list[str]]) -> None:
    db, user_id, refs = changing
    with db.unit_of_work() as session:
        listing_id = session.scalar(select(Match.listing_id).where(Match.ref == refs[0]))
        listing = session.get(Listing, listing_id)
        listing.status = "sold"
        sold_ref = listing.ref
    result = Caller(SEARCH, make_context(db), seeker(user_id))("list_matches")
    item = next(i for i in result["items"] if i["match_id"] == refs[0])
    assert item["listing_id"] == sold_ref and item["listing"]["listing_id"] == sold_ref
    assert item["listing_status"] == "sold" and item["listing_available"] is False
    assert "derzeit nicht veröffentlicht (verkauft)" in item["summary"]
    assert result["total"] == len(refs)


def test_a_walk_whose_scope_changes_ends_with_cursor_expired(changing: tuple[Database, int, list[str]]) -> None:
    db, user_id, refs = changing
    caller = Caller(SEARCH, make_context(db), seeker(user_id))
    first = caller("list_matches", {"states": ["new"], "limit": 2})
    assert first["total"] == 4 and first["completeness"]["next_cursor"]
    with db.unit_of_work() as session:  # the seeker marks a Treffer of the next page as seen (update_match)
        session.execute(Match.__table__.update().where(Match.ref == refs[3]).values(state="seen"))
    code, text = caller.error("list_matches", {"states": ["new"], "limit": 2, "cursor": first["completeness"]["next_cursor"]})
    assert code == "CURSOR_EXPIRED" and "ohne cursor neu" in text


def test_a_treffer_arriving_during_a_walk_stays_out_of_it(changing: tuple[Database, int, list[str]]) -> None:
    db, user_id, refs = changing
    caller = Caller(SEARCH, make_context(db), seeker(user_id))
    first = caller("list_matches", {"limit": 2})
    with db.unit_of_work() as session:  # created after the first page (its as_of is FIXED_NOW); read ten minutes later
        order_id = session.scalar(select(Match.search_order_id).where(Match.ref == refs[0]))
        listing_id = session.scalar(select(Listing.id).where(Listing.status == "published").order_by(Listing.id.desc()).limit(1))
        session.add(Match(ref="T-999999", search_order_id=order_id, listing_id=listing_id, kind="new_listing", detail={}, state="new",
                          created_at=FIXED_NOW + dt.timedelta(minutes=5)))
    caller = Caller(SEARCH, make_context(db, FIXED_NOW + dt.timedelta(minutes=10)), seeker(user_id))
    second = caller("list_matches", {"limit": 2, "cursor": first["completeness"]["next_cursor"]})
    walked = [i["match_id"] for i in first["items"] + second["items"]]
    assert walked == refs and second["completeness"]["complete"] is True
    assert caller("list_matches", {"limit": 10})["items"][0]["match_id"] == "T-999999"


def test_a_listed_search_order_shows_its_stored_values_as_they_are_now(search: Caller, demo_db: Database, lena: int) -> None:
    """The items of the list are kept under all the values they are made of (issue 35): a change of any of them shows
    at once, even one that leaves updated_at as it was."""
    as_lena = search.as_(seeker(lena))
    first = as_lena("list_search_orders")["items"][0]
    columns = (SearchOrder.name, SearchOrder.criteria, SearchOrder.status, SearchOrder.updated_at)
    with demo_db.read_only() as session:
        before = session.execute(select(*columns).where(SearchOrder.ref == first["search_order_id"])).one()

    def store(name: str, criteria: dict[str, Any], status: str) -> None:
        with demo_db.unit_of_work() as session:  # updated_at given, so it stays as it was
            session.execute(
                update(SearchOrder).where(SearchOrder.ref == first["search_order_id"])
                .values(name=name, criteria=criteria, status=status, updated_at=before.updated_at)
            )

    store("Umbenannt", {"city": "Leipzig"}, "paused")
    try:
        changed = next(i for i in as_lena("list_search_orders")["items"] if i["search_order_id"] == first["search_order_id"])
        assert (changed["name"], changed["criteria"]["city"], changed["status"]) == ("Umbenannt", "Leipzig", "paused")
        assert "Leipzig" in changed["criteria_text"] and changed["updated_at"] == first["updated_at"]
    finally:
        store(before.name, before.criteria, before.status)
    assert as_lena("list_search_orders")["items"][0] == first
