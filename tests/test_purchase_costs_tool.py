"""calculate_purchase_costs as a tool, and rule 9: question, empty result and error stay disjoint."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
import pytest
from sqlalchemy import select

from shared.db.models import Listing
from tests.conftest import FIXED_NOW, Caller
from tests.wire_helpers import absence, amount, echoed

ELICITING_CLIENT = {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}}}


def _price_on_request_buy(demo_db: Any) -> str:
    with demo_db.read_only() as session:
        return session.scalar(
            select(Listing.ref).where(Listing.price_on_request, Listing.marketing_type == "buy", Listing.status == "published").limit(1)
        )


def test_costs_from_a_listing_use_its_price_state_and_commission(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        ref, price, state, percent = session.execute(
            select(Listing.ref, Listing.price, Listing.state, Listing.commission_percent)
            .where(Listing.marketing_type == "buy", Listing.price.is_not(None), Listing.commission_percent > 0, Listing.status == "published")
            .limit(1)
        ).one()
    result = search("calculate_purchase_costs", {"listing_id": ref, "contract_date": "2026-11-30"})
    assert (result["price"], result["state"]) == (price, state)
    commission = next(i for i in result["items"] if i["key"] == "commission")
    assert commission["rate_percent"] == percent and result["commission_included"] is True
    assert result["costs_total"] == round(sum(amount(i["amount"]) for i in result["items"]), 2)


def test_bavarian_transfer_tax_names_rate_and_date(search: Caller) -> None:
    result = search("calculate_purchase_costs", {"price": 400000, "state": "Bayern", "contract_date": "2026-11-30"})
    tax = next(i for i in result["items"] if i["key"] == "transfer_tax")
    assert (amount(tax["amount"]), tax["rate_percent"], tax["effective_from"]) == (14000.0, 3.5, "1997-01-01")


def test_unknown_commission_is_excluded_and_said(search: Caller) -> None:
    result = search("calculate_purchase_costs", {"price": 300000, "state": "Berlin"})
    commission = next(i for i in result["items"] if i["key"] == "commission")
    assert absence(result, commission, "amount") == "empty_in_source" and result["commission_included"] is False


# Rule 9, three outcomes, told apart by their fields.
def test_missing_price_asks_one_question_as_an_error_for_plain_clients(search: Caller, demo_db: Any) -> None:
    code, text = search.error("calculate_purchase_costs", {"listing_id": _price_on_request_buy(demo_db)})
    assert code == "INPUT_REQUIRED"
    assert text.count("?") == 1 and text.endswith("Von welchem Kaufpreis in Euro soll ich ausgehen?")


def test_missing_price_is_an_input_required_result_for_eliciting_clients(search: Caller, demo_db: Any) -> None:
    ref = _price_on_request_buy(demo_db)
    asked = search.raw("calculate_purchase_costs", {"listing_id": ref}, ELICITING_CLIENT)
    assert isinstance(asked, types.InputRequiredResult)
    assert list(asked.input_requests) == ["ask:price"]
    assert not hasattr(asked, "structured_content") and not hasattr(asked, "is_error")

    answered = answered_with(search, {"listing_id": ref}, {"ask:price": types.ElicitResult(action="accept", content={"price": 500000})})
    assert isinstance(answered, types.CallToolResult) and not answered.is_error
    assert answered.structured_content["price"] == 500000.0


def answered_with(search: Caller, arguments: dict[str, Any], responses: dict[str, types.ElicitResult]) -> Any:
    params = types.CallToolRequestParams(name="calculate_purchase_costs", arguments=arguments, input_responses=responses)
    return anyio.run(search.runner.call, params, ELICITING_CLIENT)


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_a_declined_question_ends_in_one_input_required_error_not_the_same_question_again(
    search: Caller, demo_db: Any, action: str
) -> None:
    ref = _price_on_request_buy(demo_db)
    result = answered_with(search, {"listing_id": ref}, {"ask:price": types.ElicitResult(action=action)})
    assert isinstance(result, types.CallToolResult) and result.is_error
    assert result.meta["athaus/code"] == "INPUT_REQUIRED" and result.content[0].text.count("?") == 1
    accepted = answered_with(search, {"listing_id": ref}, {"ask:price": types.ElicitResult(action="accept", content={"price": 1})})
    assert isinstance(accepted, types.CallToolResult) and not accepted.is_error


def test_an_answer_to_a_question_that_was_not_asked_is_ignored(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        ref, state = session.execute(
            select(Listing.ref, Listing.state).where(
                Listing.marketing_type == "buy", Listing.status == "published", Listing.price.is_not(None), Listing.state != "Bayern"
            ).limit(1)
        ).one()
    unasked = {"ask:state": types.ElicitResult(action="accept", content={"state": "Bayern"})}
    result = answered_with(search, {"listing_id": ref, "contract_date": "2026-11-30"}, unasked)
    assert isinstance(result, types.CallToolResult) and not result.is_error
    assert result.structured_content["state"] == state
    plain = search("calculate_purchase_costs", {"listing_id": ref, "contract_date": "2026-11-30"})
    assert result.structured_content == plain


def test_empty_result_is_no_question(search: Caller) -> None:
    empty = search("search_listings", {"query": "Schlossgespenst"})
    assert empty["match_type"] == "none" and empty["items"] == [] and empty["hint"]
    raw = search.raw("search_listings", {"query": "Schlossgespenst"}, ELICITING_CLIENT)
    assert isinstance(raw, types.CallToolResult) and raw.is_error is False


def test_error_is_neither_question_nor_empty(search: Caller) -> None:
    code, text = search.error("calculate_purchase_costs", {"price": 100000, "state": "Atlantis"})
    assert code == "INVALID_ARGUMENT" and "?" not in text


def test_rent_listing_has_no_purchase_costs(search: Caller, demo_db: Any) -> None:
    with demo_db.read_only() as session:
        ref = session.scalar(select(Listing.ref).where(Listing.marketing_type == "rent", Listing.status == "published").limit(1))
    code, _ = search.error("calculate_purchase_costs", {"listing_id": ref})
    assert code == "INVALID_ARGUMENT"


# Every input echoed with where it came from: the caller, the listing, or the default.
def _buy_listing(demo_db: Any) -> tuple[str, float, str, float]:
    with demo_db.read_only() as session:
        return session.execute(
            select(Listing.ref, Listing.price, Listing.state, Listing.commission_percent)
            .where(Listing.marketing_type == "buy", Listing.price.is_not(None), Listing.commission_percent > 0, Listing.status == "published")
            .order_by(Listing.id)
            .limit(1)
        ).one()


def test_inputs_from_a_listing_are_echoed_with_source_listing_and_the_date_as_default(search: Caller, demo_db: Any) -> None:
    ref, price, state, percent = _buy_listing(demo_db)
    result = search("calculate_purchase_costs", {"listing_id": ref})
    assert {name: echoed(result, name) for name in result["request"]} == {
        "price": {"value": price, "source": "listing"},
        "state": {"value": state, "source": "listing"},
        "commission_percent": {"value": percent, "source": "listing"},
        "contract_date": {"value": FIXED_NOW.date().isoformat(), "source": "default"},
        "listing_id": {"value": ref, "source": "caller"},
    }


def test_what_the_caller_sends_overrides_the_listing_and_is_echoed_as_caller(search: Caller, demo_db: Any) -> None:
    ref, _, _, percent = _buy_listing(demo_db)
    result = search("calculate_purchase_costs", {"listing_id": ref, "price": 250000, "state": "NRW", "contract_date": "2026-11-30"})
    assert {name: echoed(result, name) for name in result["request"]} == {
        "price": {"value": 250000.0, "source": "caller"},
        "state": {"value": "Nordrhein-Westfalen", "source": "caller"},
        "commission_percent": {"value": percent, "source": "listing"},
        "contract_date": {"value": "2026-11-30", "source": "caller"},
        "listing_id": {"value": ref, "source": "caller"},
    }
    unknown = search("calculate_purchase_costs", {"listing_id": ref, "commission_percent": None})
    assert echoed(unknown, "commission_percent") == {"value": None, "source": "caller"}
    assert unknown["commission_included"] is False


def test_without_a_listing_the_commission_is_unknown_by_default_and_the_text_names_every_source(search: Caller) -> None:
    result = search("calculate_purchase_costs", {"price": 300000, "state": "Bayern"})
    assert {name: echoed(result, name) for name in result["request"]} == {
        "price": {"value": 300000.0, "source": "caller"},
        "state": {"value": "Bayern", "source": "caller"},
        "commission_percent": {"value": None, "source": "default"},
        "contract_date": {"value": FIXED_NOW.date().isoformat(), "source": "default"},
        "listing_id": {"value": None, "source": "default"},
    }
    assert result["request_text"] == (
        f"Kaufpreis 300.000 € (deine Angabe), Bundesland Bayern (deine Angabe), Käuferprovision unbekannt (Standard), "
        f"Vertragsdatum {FIXED_NOW.date().strftime('%d.%m.%Y')} (Standard)."
    )
    text = search.raw("calculate_purchase_costs", {"price": 300000, "state": "Bayern"}).content[0].text
    assert f"Berechnet mit: {result['request_text']}" in text


def test_a_price_below_one_euro_is_refused_and_one_euro_is_computed(search: Caller) -> None:
    """The fuzz found 5e-324 € ending as INTERNAL (a percentage of nothing); a price starts at 1 €."""
    code, text = search.error("calculate_purchase_costs", {"price": 5e-324, "state": "Bayern"})
    assert code == "INVALID_ARGUMENT" and "price" in text
    result = search("calculate_purchase_costs", {"price": 1, "state": "Bayern", "contract_date": "2026-11-30"})
    assert amount(result["price"]) == 1.0
