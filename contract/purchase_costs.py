"""calculate_purchase_costs: its input, its output and its declaration."""

from __future__ import annotations

import datetime as dt

from pydantic import Field, field_validator

from contract.catalog import ListingId
from contract.envelope import Absent, ContractModel
from contract.fields import normalise_ref
from contract.rights import SEARCH_PUBLIC
from contract.tool import Effect, ToolSpec


class CalculatePurchaseCostsInput(ContractModel):
    listing_id: ListingId | None = Field(
        default=None, description="Inserat, dessen Kaufpreis, Bundesland und Provision verwendet werden."
    )
    price: float | None = Field(default=None, gt=0, le=1e9, description="Kaufpreis in EUR; überschreibt den des Inserats.")
    state: str | None = Field(default=None, max_length=40, description="Bundesland (Name oder Kürzel, z. B. 'Bayern', 'NRW').")
    commission_percent: float | None = Field(
        default=None, ge=0, le=10, description="Käuferprovision in % inkl. MwSt.; 0 = provisionsfrei. Weggelassen: die des Inserats."
    )
    contract_date: dt.date | None = Field(
        default=None, description="Datum des Kaufvertrags; bestimmt den Steuersatz. Weggelassen: heute."
    )

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class CostItem(ContractModel):
    key: str = Field(description="transfer_tax, notary, land_registry oder commission.")
    label: str
    amount: float | Absent = Field(description="EUR, auf Cent gerundet; Absent, wenn der Wert unbekannt ist.")
    basis: str = Field(description="Wie der Betrag entsteht (Satz, Tabelle, Quelle).")
    rate_percent: float | None = None
    effective_from: dt.date | None = Field(default=None, description="Seit wann der Satz gilt.")


class PurchaseCostsOutput(ContractModel):
    listing_id: str | None
    price: float
    state: str = Field(description="Bundesland")
    contract_date: dt.date
    items: list[CostItem]
    costs_total: float = Field(description="Summe der bekannten Nebenkosten in EUR.")
    total_with_price: float
    costs_percent_of_price: float
    commission_included: bool = Field(description="false, wenn die Provision unbekannt und deshalb nicht in der Summe ist.")
    method: str = Field(description="Wie Notar- und Grundbuchkosten ermittelt sind.")
    notes: list[str]


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="calculate_purchase_costs",
        title="Kaufnebenkosten berechnen",
        description=(
            "Berechnet die Kaufnebenkosten eines Kaufs: Grunderwerbsteuer nach dem Satz des Bundeslands, der am "
            "Vertragsdatum gilt (mit Satz und Gültigkeitsbeginn), Notar und Grundbuch, Maklerprovision so, wie das "
            "Inserat sie angibt, und die Summe. Mit listing_id werden Kaufpreis, Bundesland und Provision aus dem "
            "Inserat genommen; price, state und commission_percent überschreiben sie. Ist die Provision unbekannt, "
            "ist sie in der Summe nicht enthalten, und das Ergebnis sagt es. Fehlt der Kaufpreis (etwa 'Preis auf "
            "Anfrage'), stellt das Werkzeug genau eine Rückfrage."
        ),
        input_model=CalculatePurchaseCostsInput,
        output_model=PurchaseCostsOutput,
        effect=Effect.read,
        right=SEARCH_PUBLIC,
    ),
]
