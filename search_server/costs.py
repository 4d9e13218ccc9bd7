"""Handler of calculate_purchase_costs: gathers price, Bundesland and commission, then the domain computes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from contract.envelope import AbsenceReason, Absent, ValueSource
from contract.errors import ErrorCode, InputNeeded, Question, ToolFailure
from contract.purchase_costs import CalculatePurchaseCostsInput, CostItem, PurchaseCostsOutput
from contract.vocabulary import MarketingType
from search_server.catalog import load_public_listing
from shared import purchase_costs
from shared.catalog import places
from shared.german import date_text, euro, number
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.wording import PRICE_ON_REQUEST

FUTURE_CONTRACT_DAYS = 2 * 365  # a contract date later than this cannot be planned with today's rates
INPUTS = ("price", "state", "commission_percent", "contract_date", "listing_id")
UNKNOWN_COMMISSION = Absent(reason=AbsenceReason.empty_in_source, note=purchase_costs.COMMISSION_UNKNOWN)


def _ask_price(why: str) -> InputNeeded:
    return InputNeeded(
        Question(
            argument="price",
            message=f"{why} Von welchem Kaufpreis in Euro soll ich ausgehen?",
            schema={"type": "number", "title": "Kaufpreis in EUR", "exclusiveMinimum": 0},
        )
    )


SOURCE_WORDS = {ValueSource.caller: "deine Angabe", ValueSource.listing: "aus dem Inserat", ValueSource.default: "Standard"}


def _sent(args: CalculatePurchaseCostsInput, name: str) -> bool:
    return name in args.model_fields_set and getattr(args, name) is not None


def _request_text(values: dict[str, Any], sources: dict[str, ValueSource]) -> str:
    """The inputs the costs were calculated with, each with where it came from, in one German phrase."""

    def part(what: str, name: str, text: str) -> str:
        return f"{what} {text} ({SOURCE_WORDS[sources[name]]})"

    price, commission, listing = values["price"], values["commission_percent"], values["listing_id"]
    parts = [
        part("Kaufpreis", "price", euro(price)),
        part("Bundesland", "state", values["state"]),
        part("Käuferprovision", "commission_percent", "unbekannt" if commission is None else f"{number(commission)} %"),
        part("Vertragsdatum", "contract_date", date_text(dt.date.fromisoformat(values["contract_date"]))),
    ]
    if listing is not None:
        parts.append(part("Inserat", "listing_id", listing))
    return ", ".join(parts) + "."


def _state_of(text: str) -> str:
    """The Bundesland named (name or abbreviation), or that of a postal code or place ('97084', 'Würzburg')."""
    try:
        return purchase_costs.resolve_state(text)
    except purchase_costs.UnknownStateError as unknown:
        typed = text.strip()
        if typed.isdigit() and len(typed) == 5:
            return places.resolve_postal_code(typed, "state").state
        try:
            return places.resolve_place(typed, "state").state
        except ToolFailure:
            raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"{unknown} Eine PLZ oder ein Ort geht auch.") from None


def calculate_purchase_costs(args: CalculatePurchaseCostsInput, ctx: ToolContext) -> PurchaseCostsOutput:
    price, state, commission = args.price, args.state, args.commission_percent
    # where each input comes from: the caller, else the listing, else the default
    sources = {name: ValueSource.caller if _sent(args, name) else ValueSource.default for name in INPUTS}
    if "commission_percent" in args.model_fields_set:
        sources["commission_percent"] = ValueSource.caller  # an explicit null: the caller says the commission is unknown
    if args.listing_id:
        with ctx.db.read_only() as session:
            listing = load_public_listing(session, args.listing_id)
            if listing.marketing_type != MarketingType.buy:
                raise ToolFailure(
                    ErrorCode.INVALID_ARGUMENT,
                    f"{listing.ref} ist ein Mietangebot; Kaufnebenkosten gibt es nur beim Kauf. Bitte ein Kaufinserat wählen.",
                )
            if not state:
                state, sources["state"] = listing.state, ValueSource.listing
            if commission is None and "commission_percent" not in args.model_fields_set:
                commission, sources["commission_percent"] = listing.commission_percent, ValueSource.listing
            if price is None:
                if listing.price is None:
                    raise _ask_price(f"{listing.ref} nennt keinen Preis ({PRICE_ON_REQUEST}).")
                price, sources["price"] = listing.price, ValueSource.listing
    if price is None:
        raise _ask_price("Es fehlt ein Kaufpreis (oder eine listing_id).")
    if not state:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "Es fehlt das Bundesland (state), z. B. 'Bayern' oder 'NRW'; alternativ eine listing_id angeben.",
        )
    if sources["state"] is ValueSource.caller:
        state = _state_of(state)
    today = ctx.now().date()
    contract_date = args.contract_date or today
    if contract_date > today + dt.timedelta(days=FUTURE_CONTRACT_DAYS):
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"Ein Vertragsdatum am {date_text(contract_date)} (contract_date) liegt mehr als zwei Jahre in der Zukunft; "
            "welche Steuersätze dann gelten, weiß niemand. Bitte ein Datum bis "
            f"{date_text(today + dt.timedelta(days=FUTURE_CONTRACT_DAYS))} senden oder contract_date weglassen (heute).",
        )
    try:
        result = purchase_costs.calculate(
            Decimal(str(price)), state, None if commission is None else Decimal(str(commission)), contract_date
        )
    except ValueError as invalid:
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, str(invalid)) from None
    values = {
        "price": float(result.price),
        "state": result.state,
        "commission_percent": None if commission is None else float(commission),
        "contract_date": result.contract_date.isoformat(),
        "listing_id": args.listing_id,
    }
    return PurchaseCostsOutput(
        listing_id=args.listing_id,
        price=float(result.price),
        state=result.state,
        contract_date=result.contract_date,
        items=[
            CostItem(
                key=item.key,
                label=item.label,
                amount=float(item.amount) if item.amount is not None else UNKNOWN_COMMISSION,
                basis=item.basis,
                rate_percent=float(item.rate_percent) if item.rate_percent is not None else None,
                effective_from=item.effective_from,
            )
            for item in result.items
        ],
        costs_total=float(result.costs_total),
        total_with_price=float(result.total_with_price),
        costs_percent_of_price=float(result.costs_percent_of_price),
        commission_included=result.commission_included,
        method=result.method.value,
        notes=list(result.notes),
        request=values,
        request_sources={name: source for name, source in sources.items() if source is not ValueSource.default},
        request_text=_request_text(values, sources),
    )


HANDLERS: dict[str, Handler] = {"calculate_purchase_costs": calculate_purchase_costs}
