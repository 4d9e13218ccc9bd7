"""Purchase costs of a German property ("Kaufnebenkosten"): pure domain logic, no I/O.

Line items: land transfer tax (Grunderwerbsteuer) at the rate of the Bundesland in force on the
contract date, notary and land registry fees per GNotKG Tabelle B, and the broker commission as the
listing states it. All amounts are Decimal euros rounded to cents.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_UP, Decimal
from enum import StrEnum

from shared.catalog.text import normalise

CENT = Decimal("0.01")
HUNDRED = Decimal(100)
MAX_PRICE = Decimal("1e9")
MAX_COMMISSION_PERCENT = Decimal(10)  # buyer's share; anything above is a data error, not a listing


@dataclass(frozen=True)
class RateEntry:
    """A Grunderwerbsteuer rate of one Bundesland, in force from `effective_from` until the next entry."""

    state: str  # canonical German name, e.g. "Baden-Württemberg"
    percent: Decimal
    effective_from: date


# Grunderwerbsteuer rates by Bundesland, oldest first. Until 2006-09-01 the federal rate of 3.5 %
# (§ 11 GrEStG, since 1997-01-01) applied everywhere; the first entry of each Land is the earliest
# date this table answers for.
# REVIEW this table whenever a Land changes its rate (announced in its Landesgesetzblatt), and move
# RATES_CHECKED_ON to the day of the review.
RATES_CHECKED_ON = date(2026, 11, 30)

_RATE_HISTORY: dict[str, tuple[tuple[str, date], ...]] = {
    "Baden-Württemberg": (("5.0", date(2011, 11, 5)),),
    "Bayern": (("3.5", date(1997, 1, 1)),),
    "Berlin": (("6.0", date(2014, 1, 1)),),
    "Brandenburg": (("6.5", date(2015, 7, 1)),),
    "Bremen": (("5.0", date(2014, 1, 1)), ("5.5", date(2025, 7, 1))),
    "Hamburg": (("4.5", date(2009, 1, 1)), ("5.5", date(2023, 1, 1))),
    "Hessen": (("6.0", date(2014, 8, 1)),),
    "Mecklenburg-Vorpommern": (("5.0", date(2012, 7, 1)), ("6.0", date(2019, 7, 1))),
    "Niedersachsen": (("5.0", date(2014, 1, 1)),),
    "Nordrhein-Westfalen": (("6.5", date(2015, 1, 1)),),
    "Rheinland-Pfalz": (("5.0", date(2012, 3, 1)),),
    "Saarland": (("6.5", date(2015, 1, 1)),),
    "Sachsen": (("3.5", date(1997, 1, 1)), ("5.5", date(2023, 1, 1))),
    "Sachsen-Anhalt": (("5.0", date(2012, 3, 1)),),
    "Schleswig-Holstein": (("6.5", date(2014, 1, 1)),),
    "Thüringen": (("6.5", date(2017, 1, 1)), ("5.0", date(2024, 1, 1))),
}

TRANSFER_TAX_RATES: Mapping[str, tuple[RateEntry, ...]] = {
    state: tuple(RateEntry(state, Decimal(percent), since) for percent, since in history)
    for state, history in _RATE_HISTORY.items()
}

# Abbreviations (ISO 3166-2:DE and common ones) and English names; spelling variants of the German
# names (ä/ae/a, case, hyphens, spaces) are handled by _state_key.
_STATE_ALIASES: dict[str, tuple[str, ...]] = {
    "Baden-Württemberg": ("BW", "BaWü"),
    "Bayern": ("BY", "Bavaria"),
    "Berlin": ("BE",),
    "Brandenburg": ("BB",),
    "Bremen": ("HB",),
    "Hamburg": ("HH",),
    "Hessen": ("HE", "Hesse"),
    "Mecklenburg-Vorpommern": ("MV", "Mecklenburg-Western Pomerania"),
    "Niedersachsen": ("NI", "NDS", "Lower Saxony"),
    "Nordrhein-Westfalen": ("NW", "NRW", "North Rhine-Westphalia"),
    "Rheinland-Pfalz": ("RP", "RLP", "Rhineland-Palatinate"),
    "Saarland": ("SL",),
    "Sachsen": ("SN", "Saxony"),
    "Sachsen-Anhalt": ("ST", "Saxony-Anhalt"),
    "Schleswig-Holstein": ("SH",),
    "Thüringen": ("TH", "Thuringia"),
}


def _state_key(text: str) -> str:
    """'Baden-Württemberg', 'baden wuerttemberg' → 'badenwuerttemberg'."""
    return re.sub(r"[^a-z0-9]", "", normalise(text))


def _without_umlauts(text: str) -> str:
    """'Thüringen' → 'Thuringen' (the umlaut dropped rather than spelled out)."""
    return "".join(ch for ch in unicodedata.normalize("NFKD", text) if not unicodedata.combining(ch))


_STATE_BY_KEY: dict[str, str] = {
    _state_key(name): state
    for state, aliases in _STATE_ALIASES.items()
    for name in (state, _without_umlauts(state), *aliases, *(f"DE-{a}" for a in aliases if len(a) == 2))
}


class UnknownStateError(ValueError):
    """The text names none of the 16 Bundesländer."""


class RateUnknownError(ValueError):
    """The date lies before the first rate the table holds for that Bundesland."""


def resolve_state(state: str) -> str:
    """The canonical German name of a Bundesland given by name, variant spelling or abbreviation."""
    canonical = _STATE_BY_KEY.get(_state_key(state))
    if canonical is None:
        raise UnknownStateError(
            f"Unbekanntes Bundesland: „{state}“. Bitte eines der 16 Bundesländer angeben, "
            f"z. B. „Bayern“ oder „BY“: {', '.join(TRANSFER_TAX_RATES)}."
        )
    return canonical


def transfer_tax_rate(state: str, on: date | None = None) -> RateEntry:
    """The Grunderwerbsteuer rate in force in `state` on the contract date `on` (default: today)."""
    canonical = resolve_state(state)
    day = date.today() if on is None else on
    in_force = [entry for entry in TRANSFER_TAX_RATES[canonical] if entry.effective_from <= day]
    if not in_force:
        first = TRANSFER_TAX_RATES[canonical][0].effective_from
        raise RateUnknownError(
            f"Für {canonical} ist kein Grunderwerbsteuersatz vor dem {_de_date(first)} hinterlegt. "
            f"Bitte ein Vertragsdatum ab dem {_de_date(first)} angeben."
        )
    return in_force[-1]


# GNotKG Tabelle B (§ 34 Abs. 2 GNotKG): the full (1.0) fee is 15 € up to a Geschäftswert of 500 €
# and rises per started step within each band: (upper end of band, step, increase), all EUR.
# These values hold since the GNotKG took effect on 2013-08-01; the KostBRÄG 2025 (BGBl. 2025 I
# Nr. 109, Art. 7) restated § 34 Abs. 2 with effect from 2025-06-01 and raised only Tabelle A.
# Checked against published fees: 1.0 at 160,000 € = 381 €, at 500,000 € = 935 €.
GNOTKG_IN_FORCE_SINCE = date(2013, 8, 1)
_TABLE_B_BASE = (Decimal(500), Decimal(15))
_TABLE_B_BANDS: tuple[tuple[Decimal, Decimal, Decimal], ...] = tuple(
    (Decimal(upper), Decimal(step), Decimal(increase))
    for upper, step, increase in (
        (2_000, 500, 4),
        (10_000, 1_000, 6),
        (25_000, 3_000, 8),
        (50_000, 5_000, 10),
        (200_000, 15_000, 27),
        (500_000, 30_000, 50),
        (5_000_000, 50_000, 80),
        (10_000_000, 200_000, 130),
        (20_000_000, 250_000, 150),
        (30_000_000, 500_000, 280),
        ("Infinity", 1_000_000, 120),
    )
)
MIN_FEE = Decimal(15)  # § 34 Abs. 5 GNotKG
MIN_CONTRACT_FEE = Decimal(120)  # KV 21100 GNotKG: 2.0, at least 120 €
# Notary expenses (KV 32000 ff.: copies, post and telecommunication, land register retrievals)
# depend on the case; a flat estimate stands in for them.
NOTARY_EXPENSES_ESTIMATE = Decimal("100.00")
# VAT on the notary's fees and expenses (KV 32014), taken at the contract date; the reduced rate
# applied in the second half of 2020.
VAT_PERCENT = Decimal(19)
_REDUCED_VAT = (date(2020, 7, 1), date(2020, 12, 31), Decimal(16))

# Rule of thumb for contracts before the GNotKG (Kostenordnung): shares of the price, VAT included.
ESTIMATE_NOTARY_PERCENT = Decimal("1.5")
ESTIMATE_REGISTRY_PERCENT = Decimal("0.5")


def gnotkg_table_b_fee(value: Decimal) -> Decimal:
    """The full (1.0) fee of GNotKG Tabelle B for a Geschäftswert in euros."""
    lower, fee = _TABLE_B_BASE
    for upper, step, increase in _TABLE_B_BANDS:
        if value <= lower:
            break
        span = min(value, upper) - lower
        fee += (span / step).to_integral_value(rounding=ROUND_CEILING) * increase
        lower = upper
    return fee


class NotaryMethod(StrEnum):
    """How the notary and land registry costs were obtained; the value is shown to users."""

    GNOTKG_TABLE = "Berechnung nach GNotKG Tabelle B (Geschäftswert = Kaufpreis)"
    ESTIMATE = "Schätzung: 1,5 % Notar + 0,5 % Grundbuch vom Kaufpreis"


@dataclass(frozen=True)
class LineItem:
    key: str  # "transfer_tax", "notary", "land_registry" or "commission"
    label: str  # German
    amount: Decimal | None  # EUR, cents; None = unknown
    basis: str  # German: how the amount comes about (rate, fees, legal source)
    rate_percent: Decimal | None = None  # where the item is a percentage of the price
    effective_from: date | None = None  # since when the applied rate or fee table is in force


@dataclass(frozen=True)
class PurchaseCosts:
    price: Decimal
    state: str  # canonical German name
    contract_date: date
    items: tuple[LineItem, ...]  # in the order of LineItem.key above
    costs_total: Decimal  # Nebenkosten: sum of the known items
    total_with_price: Decimal
    costs_percent_of_price: Decimal  # costs_total as a percentage of the price, two decimals
    commission_included: bool  # False when the commission is unknown
    method: NotaryMethod  # how the notary and land registry items were obtained
    notes: tuple[str, ...]  # German


def calculate(
    price: Decimal, state: str, commission_percent: Decimal | None, contract_date: date
) -> PurchaseCosts:
    """Kaufnebenkosten for a purchase `price` in `state`, contract signed on `contract_date`.

    `commission_percent` is the buyer's commission incl. VAT as the listing states it: a percentage
    of the price, 0 for "provisionsfrei", or None when the listing does not say.
    """
    _check_price(price)
    rate = transfer_tax_rate(state, contract_date)
    tax = (price * rate.percent / HUNDRED).quantize(Decimal(1), rounding=ROUND_FLOOR).quantize(CENT)
    items = [
        LineItem(
            key="transfer_tax",
            label="Grunderwerbsteuer",
            amount=tax,
            basis=f"{_de_percent(rate.percent)} von {_de_eur(price)} (Steuersatz {rate.state}), "
            "auf volle Euro abgerundet (§ 11 Abs. 2 GrEStG)",
            rate_percent=rate.percent,
            effective_from=rate.effective_from,
        )
    ]
    notes = [
        f"Grunderwerbsteuer {rate.state}: {_de_percent(rate.percent)}, der am Vertragstag "
        f"{_de_date(contract_date)} geltende Satz (in Kraft seit {_de_date(rate.effective_from)}; "
        f"Stand der Steuersätze: {_de_date(RATES_CHECKED_ON)})."
    ]
    if contract_date > RATES_CHECKED_ON:
        notes.append(
            f"Der Vertragstag liegt nach dem Stand der Steuersätze ({_de_date(RATES_CHECKED_ON)}); "
            "spätere Änderungen des Steuersatzes sind nicht berücksichtigt."
        )

    if contract_date >= GNOTKG_IN_FORCE_SINCE:
        method = NotaryMethod.GNOTKG_TABLE
        items += _notary_and_registry_by_table(price, contract_date)
        notes.append(
            "Notar- und Grundbuchkosten nach GNotKG Tabelle B berechnet für einen üblichen Kaufvertrag "
            "(Beurkundung, Vollzug, Betreuung, Eigentumsumschreibung, Auflassungsvormerkung). Die Auslagen "
            "des Notars sind pauschal geschätzt; Kosten einer Grundschuld für die Finanzierung sind nicht enthalten."
        )
    else:
        method = NotaryMethod.ESTIMATE
        items += _notary_and_registry_estimate(price)
        notes.append(
            f"Notar- und Grundbuchkosten geschätzt: Für Verträge vor dem {_de_date(GNOTKG_IN_FORCE_SINCE)} "
            "galt noch die Kostenordnung; angesetzt sind 1,5 % (Notar) und 0,5 % (Grundbuch) des Kaufpreises."
        )

    commission, commission_note = _commission(price, commission_percent)
    items.append(commission)
    notes.append(commission_note)

    costs_total = sum((item.amount for item in items if item.amount is not None), Decimal("0.00"))
    return PurchaseCosts(
        price=price,
        state=rate.state,
        contract_date=contract_date,
        items=tuple(items),
        costs_total=costs_total,
        total_with_price=_cents(price + costs_total),
        costs_percent_of_price=_cents(costs_total / price * HUNDRED),
        commission_included=commission.amount is not None,
        method=method,
        notes=tuple(notes),
    )


def _check_price(price: Decimal) -> None:
    if not price.is_finite() or price <= 0:
        raise ValueError(
            "Der Kaufpreis muss eine Zahl größer als 0 € sein. Bitte den Kaufpreis aus dem Exposé in Euro angeben."
        )
    if price > MAX_PRICE:
        raise ValueError(
            f"Ein Kaufpreis von {_de_eur(price)} ist unplausibel (mehr als 1 Mrd. €). "
            "Bitte den Kaufpreis prüfen und in Euro angeben, nicht in Cent."
        )


def _notary_and_registry_by_table(price: Decimal, contract_date: date) -> list[LineItem]:
    """Notary (fees, expenses, VAT) and land registry fees of a typical purchase, per GNotKG."""
    full_fee = gnotkg_table_b_fee(price)

    def fee(factor: str, minimum: Decimal = MIN_FEE) -> Decimal:
        return _cents(max(Decimal(factor) * full_fee, minimum))

    def part(name: str, factor: str, kv: str, amount: Decimal) -> str:
        return f"{name} {factor.replace('.', ',')} (KV {kv}) {_de_eur(amount)}"

    contract, execution, supervision = fee("2.0", MIN_CONTRACT_FEE), fee("0.5"), fee("0.5")
    notary_net = contract + execution + supervision + NOTARY_EXPENSES_ESTIMATE
    vat_percent = _vat_percent(contract_date)
    vat = _cents(notary_net * vat_percent / HUNDRED)
    transfer, priority_notice = fee("1.0"), fee("0.5")
    table = f"GNotKG Tabelle B aus {_de_eur(price)} (1,0-Gebühr {_de_eur(full_fee)})"
    return [
        LineItem(
            key="notary",
            label="Notar",
            amount=notary_net + vat,
            basis=f"{table}: "
            + " + ".join(
                (
                    part("Beurkundung", "2.0", "21100", contract),
                    part("Vollzug", "0.5", "22110", execution),
                    part("Betreuung", "0.5", "22200", supervision),
                    f"Auslagen pauschal geschätzt {_de_eur(NOTARY_EXPENSES_ESTIMATE)}",
                    f"{_de_percent(vat_percent)} USt. {_de_eur(vat)}",
                )
            ),
            effective_from=GNOTKG_IN_FORCE_SINCE,
        ),
        LineItem(
            key="land_registry",
            label="Grundbuch",
            amount=transfer + priority_notice,
            basis=f"{table}: "
            + " + ".join(
                (
                    part("Eigentumsumschreibung", "1.0", "14110", transfer),
                    part("Auflassungsvormerkung", "0.5", "14150", priority_notice),
                )
            ),
            effective_from=GNOTKG_IN_FORCE_SINCE,
        ),
    ]


def _notary_and_registry_estimate(price: Decimal) -> list[LineItem]:
    def estimate_item(key: str, label: str, percent: Decimal) -> LineItem:
        return LineItem(
            key=key,
            label=label,
            amount=_cents(price * percent / HUNDRED),
            basis=f"geschätzt: {_de_percent(percent)} von {_de_eur(price)} (Faustformel)",
            rate_percent=percent,
        )

    return [
        estimate_item("notary", "Notar (inkl. USt.)", ESTIMATE_NOTARY_PERCENT),
        estimate_item("land_registry", "Grundbuch", ESTIMATE_REGISTRY_PERCENT),
    ]


COMMISSION_UNKNOWN = "Provision unbekannt: in der Summe nicht enthalten."


def _commission(price: Decimal, percent: Decimal | None) -> tuple[LineItem, str]:
    label = "Maklerprovision (Käuferanteil)"
    if percent is None:
        item = LineItem(key="commission", label=label, amount=None, basis="unbekannt")
        return item, f"{COMMISSION_UNKNOWN} Bitte die Käuferprovision beim Anbieter erfragen."
    if not percent.is_finite() or not 0 <= percent <= MAX_COMMISSION_PERCENT:
        raise ValueError(
            f"Eine Käuferprovision von {_de_percent(percent)} ist unplausibel. Bitte den Prozentsatz aus dem Exposé "
            "angeben (z. B. 3.57 für 3,57 % inkl. USt., 0 für provisionsfrei) oder leer lassen, wenn er unbekannt ist."
        )
    if percent == 0:
        item = LineItem(
            key="commission",
            label=label,
            amount=Decimal("0.00"),
            basis="provisionsfrei laut Angebot",
            rate_percent=percent,
        )
        return item, "Provisionsfrei laut Angebot: keine Maklerprovision für den Käufer."
    item = LineItem(
        key="commission",
        label=label,
        amount=_cents(price * percent / HUNDRED),
        basis=f"{_de_percent(percent)} von {_de_eur(price)} inkl. USt. laut Angebot",
        rate_percent=percent,
    )
    return item, f"Käuferprovision laut Angebot: {_de_percent(percent)} des Kaufpreises inkl. USt."


def _vat_percent(on: date) -> Decimal:
    reduced_from, reduced_until, reduced = _REDUCED_VAT
    return reduced if reduced_from <= on <= reduced_until else VAT_PERCENT


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, rounding=ROUND_HALF_UP)


def _de_eur(amount: Decimal) -> str:
    """Decimal('400000') → '400.000,00 €'."""
    return f"{_cents(amount):,.2f}".translate(str.maketrans(",.", ".,")) + " €"


def _de_percent(percent: Decimal) -> str:
    """Decimal('3.5') → '3,5 %', Decimal('19') → '19 %'."""
    return f"{percent.normalize():f}".replace(".", ",") + " %"


def _de_date(day: date) -> str:
    return day.strftime("%d.%m.%Y")
