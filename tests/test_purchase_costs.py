"""Kaufnebenkosten: transfer tax by Bundesland and date, GNotKG fees, commission, totals."""

from __future__ import annotations

import dataclasses
from datetime import date
from decimal import Decimal

import pytest

from shared.purchase_costs import (
    RATES_CHECKED_ON,
    TRANSFER_TAX_RATES,
    NotaryMethod,
    PurchaseCosts,
    RateUnknownError,
    UnknownStateError,
    calculate,
    gnotkg_table_b_fee,
    resolve_state,
    transfer_tax_rate,
)

D = Decimal
CHECKED = date(2026, 11, 30)


def amounts(costs: PurchaseCosts) -> dict[str, Decimal | None]:
    return {item.key: item.amount for item in costs.items}


# --- Grunderwerbsteuer table ----------------------------------------------------------------------


# Current rates and their effective dates as of late 2026 (the figures of the brief).
CURRENT = {
    "Baden-Württemberg": ("5.0", date(2011, 11, 5)),
    "Bayern": ("3.5", date(1997, 1, 1)),
    "Berlin": ("6.0", date(2014, 1, 1)),
    "Brandenburg": ("6.5", date(2015, 7, 1)),
    "Bremen": ("5.5", date(2025, 7, 1)),
    "Hamburg": ("5.5", date(2023, 1, 1)),
    "Hessen": ("6.0", date(2014, 8, 1)),
    "Mecklenburg-Vorpommern": ("6.0", date(2019, 7, 1)),
    "Niedersachsen": ("5.0", date(2014, 1, 1)),
    "Nordrhein-Westfalen": ("6.5", date(2015, 1, 1)),
    "Rheinland-Pfalz": ("5.0", date(2012, 3, 1)),
    "Saarland": ("6.5", date(2015, 1, 1)),
    "Sachsen": ("5.5", date(2023, 1, 1)),
    "Sachsen-Anhalt": ("5.0", date(2012, 3, 1)),
    "Schleswig-Holstein": ("6.5", date(2014, 1, 1)),
    "Thüringen": ("5.0", date(2024, 1, 1)),
}


def test_table_covers_exactly_the_16_states_and_was_checked_on_the_stated_day() -> None:
    assert set(TRANSFER_TAX_RATES) == set(CURRENT)
    assert RATES_CHECKED_ON == CHECKED


@pytest.mark.parametrize(("state", "expected"), CURRENT.items())
def test_current_rate_and_effective_date(state: str, expected: tuple[str, date]) -> None:
    entry = transfer_tax_rate(state, CHECKED)
    assert (entry.state, entry.percent, entry.effective_from) == (state, D(expected[0]), expected[1])


@pytest.mark.parametrize(
    ("state", "day_before", "old", "switch", "new"),
    [
        ("Sachsen", date(2022, 12, 31), "3.5", date(2023, 1, 1), "5.5"),
        ("Hamburg", date(2022, 12, 31), "4.5", date(2023, 1, 1), "5.5"),
        ("Thüringen", date(2023, 12, 31), "6.5", date(2024, 1, 1), "5.0"),
        ("Bremen", date(2025, 6, 30), "5.0", date(2025, 7, 1), "5.5"),
        ("Mecklenburg-Vorpommern", date(2019, 6, 30), "5.0", date(2019, 7, 1), "6.0"),
    ],
)
def test_rate_switches_on_its_effective_date(state: str, day_before: date, old: str, switch: date, new: str) -> None:
    assert transfer_tax_rate(state, day_before).percent == D(old)
    assert transfer_tax_rate(state, switch).percent == D(new)


def test_history_is_ordered_oldest_first() -> None:
    for entries in TRANSFER_TAX_RATES.values():
        dates = [entry.effective_from for entry in entries]
        assert dates == sorted(dates) and len(set(dates)) == len(dates)


def test_rate_defaults_to_today() -> None:
    assert transfer_tax_rate("Bayern") == transfer_tax_rate("Bayern", date.today())


@pytest.mark.parametrize(
    ("text", "state"),
    [
        ("nrw", "Nordrhein-Westfalen"),
        ("NW", "Nordrhein-Westfalen"),
        ("nordrhein westfalen", "Nordrhein-Westfalen"),
        ("Baden-Wuerttemberg", "Baden-Württemberg"),
        ("BADEN-WÜRTTEMBERG", "Baden-Württemberg"),
        ("Baden-Wurttemberg", "Baden-Württemberg"),
        ("BaWü", "Baden-Württemberg"),
        ("BY", "Bayern"),
        ("DE-BY", "Bayern"),
        ("bavaria", "Bayern"),
        ("BE", "Berlin"),
        ("Thueringen", "Thüringen"),
        (" thüringen ", "Thüringen"),
        ("ST", "Sachsen-Anhalt"),
        ("sachsen anhalt", "Sachsen-Anhalt"),
        ("SN", "Sachsen"),
        ("rlp", "Rheinland-Pfalz"),
        ("Mecklenburg Vorpommern", "Mecklenburg-Vorpommern"),
    ],
)
def test_state_name_variants(text: str, state: str) -> None:
    assert resolve_state(text) == state
    assert transfer_tax_rate(text, CHECKED).state == state


@pytest.mark.parametrize("text", ["Bayernland", "Österreich", "", "XX"])
def test_unknown_state_raises(text: str) -> None:
    with pytest.raises(UnknownStateError, match="Unbekanntes Bundesland"):
        transfer_tax_rate(text, CHECKED)


def test_date_before_history_raises_naming_the_first_date() -> None:
    with pytest.raises(RateUnknownError, match=r"05\.11\.2011"):
        transfer_tax_rate("Baden-Württemberg", date(2011, 11, 4))
    with pytest.raises(RateUnknownError):
        calculate(D(400_000), "Bayern", None, date(1996, 12, 31))
    assert transfer_tax_rate("Baden-Württemberg", date(2011, 11, 5)).percent == D("5.0")


# --- Transfer tax amounts -------------------------------------------------------------------------


def test_bayern_400k_transfer_tax_exact() -> None:
    costs = calculate(D(400_000), "Bayern", None, CHECKED)
    tax = costs.items[0]
    assert (tax.key, tax.amount, tax.rate_percent, tax.effective_from) == (
        "transfer_tax",
        D("14000.00"),
        D("3.5"),
        date(1997, 1, 1),
    )


@pytest.mark.parametrize(
    ("state", "day", "tax"),
    [
        ("Sachsen", date(2022, 12, 31), "14000.00"),
        ("Sachsen", date(2023, 1, 1), "22000.00"),
        ("Thüringen", date(2023, 12, 31), "26000.00"),
        ("Thüringen", date(2024, 1, 1), "20000.00"),
        ("Bremen", date(2025, 6, 30), "20000.00"),
        ("Bremen", date(2025, 7, 1), "22000.00"),
    ],
)
def test_transfer_tax_follows_contract_date(state: str, day: date, tax: str) -> None:
    assert amounts(calculate(D(400_000), state, None, day))["transfer_tax"] == D(tax)


def test_transfer_tax_is_rounded_down_to_full_euros() -> None:
    # § 11 Abs. 2 GrEStG: 333,333 € × 3.5 % = 11,666.655 € → 11,666 €, not 11,666.66 €.
    assert amounts(calculate(D(333_333), "Bayern", None, CHECKED))["transfer_tax"] == D("11666.00")


def test_note_names_rate_in_force_on_contract_date_with_effective_date() -> None:
    notes = calculate(D(400_000), "Sachsen", None, date(2022, 12, 31)).notes
    assert any("3,5 %" in n and "31.12.2022" in n and "01.01.1997" in n for n in notes)


def test_contract_after_check_date_is_flagged() -> None:
    later = calculate(D(400_000), "Bayern", None, date(2027, 1, 1)).notes
    assert any("nach dem Stand der Steuersätze" in n for n in later)
    assert not any("nach dem Stand der Steuersätze" in n for n in calculate(D(400_000), "BY", None, CHECKED).notes)


# --- GNotKG Tabelle B -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "fee"),
    [
        # By hand from § 34 Abs. 2 GNotKG, Tabelle B: 15 € up to 500 €, then per started step:
        # 500 € +4 € to 2,000; 1,000 € +6 € to 10,000; 3,000 € +8 € to 25,000; 5,000 € +10 € to 50,000;
        # 15,000 € +27 € to 200,000; 30,000 € +50 € to 500,000; 50,000 € +80 € to 5,000,000.
        ("500", "15"),
        ("501", "19"),
        ("2000", "27"),  # 15 + 3 × 4
        ("2001", "33"),  # 27 + 1 × 6
        ("10000", "75"),  # 27 + 8 × 6
        ("50000", "165"),  # 75 + 5 × 8 + 5 × 10
        ("160000", "381"),  # 165 + 8 × 27; notar.de example: 2.0 fee at 160,000 € = 762.00 €
        ("200000", "435"),  # 165 + 10 × 27
        ("400000", "785"),  # 435 + 7 × 50 (200,000 / 30,000 = 6.67, started steps: 7)
        ("500000", "935"),  # 435 + 10 × 50
        ("3000000", "4935"),  # 935 + 50 × 80, the last line of Anlage 2
        ("5000000", "8135"),  # 935 + 90 × 80
        ("5200000", "8265"),  # 8135 + 1 × 130
    ],
)
def test_table_b_fee(value: str, fee: str) -> None:
    assert gnotkg_table_b_fee(D(value)) == D(fee)


def test_bayern_400k_full_breakdown() -> None:
    costs = calculate(D(400_000), "Bayern", D("3.57"), CHECKED)
    assert costs.method is NotaryMethod.GNOTKG_TABLE
    assert amounts(costs) == {
        "transfer_tax": D("14000.00"),
        # 1.0 fee at 400,000 € = 785 €: 2.0 (1,570.00) + 0.5 (392.50) + 0.5 (392.50) + expenses 100.00
        # = 2,455.00 net, + 19 % VAT 466.45
        "notary": D("2921.45"),
        "land_registry": D("1177.50"),  # 1.0 (785.00) + 0.5 (392.50)
        "commission": D("14280.00"),  # 3.57 % of 400,000
    }
    assert [item.key for item in costs.items] == ["transfer_tax", "notary", "land_registry", "commission"]
    notary, registry = costs.items[1].basis, costs.items[2].basis
    for part in ("KV 21100) 1.570,00 €", "KV 22110) 392,50 €", "KV 22200) 392,50 €", "19 % USt. 466,45 €"):
        assert part in notary
    assert "KV 14110) 785,00 €" in registry and "KV 14150) 392,50 €" in registry
    assert costs.items[1].effective_from == costs.items[2].effective_from == date(2013, 8, 1)
    assert costs.costs_total == D("32378.95")
    assert costs.total_with_price == D("432378.95")
    assert costs.costs_percent_of_price == D("8.09")  # 32,378.95 / 400,000 = 8.0947 %
    assert costs.commission_included is True
    assert costs.state == "Bayern" and costs.contract_date == CHECKED
    assert any("GNotKG Tabelle B" in n for n in costs.notes)


def test_minimum_fees_apply_for_small_values() -> None:
    # 5,000 €: 1.0 fee 45 € → 2.0 = 90 € is raised to the 120 € minimum of KV 21100;
    # notary 120 + 22.50 + 22.50 + 100 = 265.00 net + 19 % 50.35; land registry 45 + 22.50.
    small = calculate(D(5_000), "Bayern", None, CHECKED)
    assert amounts(small)["notary"] == D("315.35")
    assert amounts(small)["land_registry"] == D("67.50")
    assert "Beurkundung 2,0 (KV 21100) 120,00 €" in small.items[1].basis
    # 1,000 €: 1.0 fee 19 € → 0.5 = 9.50 € is raised to the 15 € minimum of § 34 Abs. 5 GNotKG;
    # notary 120 + 15 + 15 + 100 = 250.00 net + 19 % 47.50; land registry 19 + 15.
    tiny = amounts(calculate(D(1_000), "Bayern", None, CHECKED))
    assert tiny["notary"] == D("297.50")
    assert tiny["land_registry"] == D("34.00")


def test_reduced_vat_in_second_half_of_2020() -> None:
    # 2,455.00 € net notary costs at 400,000 €: 16 % = 392.80 €, 19 % = 466.45 €.
    assert amounts(calculate(D(400_000), "Bayern", None, date(2020, 9, 1)))["notary"] == D("2847.80")
    assert amounts(calculate(D(400_000), "Bayern", None, date(2021, 1, 1)))["notary"] == D("2921.45")


def test_contract_before_gnotkg_uses_the_estimate_and_says_so() -> None:
    costs = calculate(D(400_000), "Bayern", None, date(2013, 7, 31))
    assert costs.method is NotaryMethod.ESTIMATE
    assert "Schätzung" in costs.method
    assert amounts(costs) == {
        "transfer_tax": D("14000.00"),
        "notary": D("6000.00"),
        "land_registry": D("2000.00"),
        "commission": None,
    }
    assert any("Kostenordnung" in n for n in costs.notes)
    assert calculate(D(400_000), "Bayern", None, date(2013, 8, 1)).method is NotaryMethod.GNOTKG_TABLE


# --- Commission -----------------------------------------------------------------------------------


def test_unknown_commission_is_excluded_and_flagged() -> None:
    costs = calculate(D(400_000), "Bayern", None, CHECKED)
    commission = amounts(costs)["commission"]
    assert commission is None
    assert costs.commission_included is False
    assert costs.costs_total == D("18098.95")  # 14,000 + 2,921.45 notary + 1,177.50 land registry
    assert any("Provision unbekannt: in der Summe nicht enthalten" in n for n in costs.notes)


def test_zero_commission_is_included_as_zero() -> None:
    costs = calculate(D(400_000), "Bayern", D(0), CHECKED)
    assert amounts(costs)["commission"] == D("0.00")
    assert costs.commission_included is True
    assert costs.costs_total == D("18098.95")
    assert not any("unbekannt" in n for n in costs.notes)
    assert any("Provisionsfrei" in n for n in costs.notes)


def test_commission_is_rounded_half_up_to_cents() -> None:
    # 250,050 € × 3.57 % = 8,926.785 €: half up gives .79 (banker's rounding would give .78).
    assert amounts(calculate(D(250_050), "Bayern", D("3.57"), CHECKED))["commission"] == D("8926.79")


def test_all_amounts_are_cents() -> None:
    costs = calculate(D("123456.78"), "Hamburg", D("2.38"), CHECKED)
    for value in [*amounts(costs).values(), costs.costs_total, costs.total_with_price]:
        assert value is not None and value == value.quantize(D("0.01")) and value.as_tuple().exponent == -2


@pytest.mark.parametrize("percent", ["-1", "12", "NaN"])
def test_implausible_commission_raises(percent: str) -> None:
    with pytest.raises(ValueError, match="Bitte den Prozentsatz"):
        calculate(D(400_000), "Bayern", D(percent), CHECKED)


# --- Price validation and result shape ------------------------------------------------------------


@pytest.mark.parametrize("price", ["0", "-1", "1000000000.01", "NaN", "Infinity"])
def test_invalid_price_raises_with_next_step(price: str) -> None:
    with pytest.raises(ValueError, match="Bitte den Kaufpreis"):
        calculate(D(price), "Bayern", None, CHECKED)


def test_price_of_one_billion_is_accepted() -> None:
    assert calculate(D(1_000_000_000), "Bayern", None, CHECKED).items[0].amount == D("35000000.00")


def test_result_is_frozen() -> None:
    costs = calculate(D(400_000), "Bayern", None, CHECKED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        costs.costs_total = D(0)  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        costs.items[0].amount = D(0)  # type: ignore[misc]
