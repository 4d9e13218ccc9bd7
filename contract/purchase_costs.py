"""Output of calculate_purchase_costs."""

from __future__ import annotations

import datetime as dt

from pydantic import Field

from contract.envelope import Absent, ContractModel


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
