"""calculate_purchase_costs: its input, its output and its declaration."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any

from pydantic import Field, field_validator

from contract.catalog import ListingId
from contract.envelope import Absent, ContractModel, ValueSource
from contract.fields import normalise_ref
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import SEARCH_PUBLIC
from contract.tool import Effect, ToolSpec


class CalculatePurchaseCostsInput(ContractModel):
    listing_id: Annotated[ListingId | None, Label("Inserat")] = Field(
        default=None, description="Inserat, dessen Kaufpreis, Bundesland und Provision gelten."
    )
    price: Annotated[float | None, Label("Kaufpreis", unit="€")] = Field(default=None, ge=1, le=1e9, description="EUR (ab 1); überschreibt den des Inserats.")
    state: Annotated[str | None, Label("Bundesland")] = Field(default=None, max_length=40, description="Name oder Kürzel, z. B. 'Bayern', 'NRW'; oder PLZ bzw. Ort, dessen Bundesland gilt.")
    commission_percent: Annotated[float | None, Label("Käuferprovision", unit="%")] = Field(
        default=None, ge=0, le=10, description="Käuferprovision in % inkl. MwSt.; 0 = provisionsfrei; weggelassen: die des Inserats."
    )
    contract_date: Annotated[dt.date | None, Label("Vertragsdatum")] = Field(
        default=None, description="Bestimmt den Steuersatz; weggelassen: heute."
    )

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class CostItem(ContractModel):
    key: Annotated[str, NOT_IN_TEXT] = Field(description="transfer_tax, notary, land_registry oder commission.")
    label: Annotated[str, Label("Posten", bare=True)]
    amount: Annotated[float | Absent, Label("Betrag", unit="€", bare=True)] = Field(description="EUR, auf Cent gerundet; Absent, wenn der Wert unbekannt ist.")
    basis: Annotated[str, Label("Grundlage")] = Field(description="Wie der Betrag entsteht (Satz, Tabelle, Quelle).")
    rate_percent: Annotated[float | None, Label("Satz", unit="%")] = None
    effective_from: Annotated[dt.date | None, Label("gilt seit")] = Field(default=None, description="Seit wann der Satz gilt.")


class PurchaseCostsOutput(ContractModel):
    listing_id: Annotated[str | None, Label("Inserat", bare=True)]
    price: Annotated[float, Label("Kaufpreis", unit="€")]
    state: Annotated[str, Label("Bundesland")] = Field(description="Bundesland")
    contract_date: Annotated[dt.date, Label("Vertragsdatum")]
    items: Annotated[list[CostItem], Label("Einträge")]
    costs_total: Annotated[float, Label("Nebenkosten gesamt", unit="€")] = Field(description="Summe der bekannten Nebenkosten in EUR.")
    total_with_price: Annotated[float, Label("Gesamt mit Kaufpreis", unit="€")]
    costs_percent_of_price: Annotated[float, Label("Nebenkosten im Verhältnis zum Kaufpreis", unit="%")]
    commission_included: Annotated[bool, Label("Provision enthalten")] = Field(description="false, wenn die Provision unbekannt und deshalb nicht in der Summe ist.")
    method: Annotated[str, Label("Methode")] = Field(description="Wie Notar- und Grundbuchkosten ermittelt sind.")
    notes: Annotated[list[str], Label("Hinweise")]
    request: Annotated[dict[str, Any], NOT_IN_TEXT] = Field(
        description="Jede Eingabe der Rechnung (price, state, commission_percent, contract_date, listing_id) mit dem verwendeten Wert; null: unbekannt."
    )
    request_sources: Annotated[dict[str, ValueSource], NOT_IN_TEXT] = Field(
        description="Woher jeder Wert stammt: caller (von dir), listing (aus dem Inserat), default (Vertragsdatum heute, ohne Inserat keine Provision)."
    )
    request_text: Annotated[str, Label("Berechnet mit")] = Field(description="Dieselben Eingaben mit ihrer Herkunft in einem deutschen Satz.")


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="calculate_purchase_costs",
        title="Kaufnebenkosten berechnen",
        description=(
            "Kaufnebenkosten eines Kaufs: Grunderwerbsteuer nach dem am Vertragsdatum geltenden Satz des "
            "Bundeslands (mit Satz und Gültigkeitsbeginn), Notar und Grundbuch nach GNotKG, "
            "Maklerprovision wie im Inserat, Summe. Mit listing_id kommen Kaufpreis, Bundesland und "
            "Provision aus dem Inserat; price, state und commission_percent überschreiben sie. Eine "
            "unbekannte Provision fehlt in der Summe, und das Ergebnis sagt es. Fehlt der Kaufpreis, "
            "kommt genau eine Rückfrage."
        ),
        input_model=CalculatePurchaseCostsInput,
        output_model=PurchaseCostsOutput,
        effect=Effect.read,
        right=SEARCH_PUBLIC,
    ),
]
