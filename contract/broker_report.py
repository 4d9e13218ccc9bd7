"""Athaus für Makler: show_situation_report, the office now."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Literal

from pydantic import Field

from contract.broker_stock import CheckRule
from contract.envelope import (
    Absent,
    ContractModel,
    Envelope,
)
from contract.labels import NOT_IN_TEXT, Label, Style, title_label
from contract.rights import BROKER_READ
from contract.tool import Effect, ToolSpec
from contract.vocabulary import ListingStatus

# --- show_situation_report -----------------------------------------------------------------------------------


class ShowSituationReportInput(ContractModel):
    items_per_section: Annotated[int, Label("Einträge je Abschnitt")] = Field(
        default=5,
        ge=0,
        le=50,
        description="Einträge je Abschnitt, dringendste zuerst; gezählt wird immer alles.",
    )
    energy_warning_days: Annotated[int, Label("Vorlauf Energieausweise", unit="Tage")] = Field(
        default=60, ge=1, le=365, description="Vorlauf für ablaufende Energieausweise in Tagen."
    )


class AgeBand(ContractModel):
    label: Annotated[str, Label("Wartezeit", bare=True)]
    count: Annotated[int, Label("Anzahl")]


class WaitingInquiry(ContractModel):
    inquiry_id: Annotated[str, Label("Anfrage", bare=True)]
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    title: Annotated[str, title_label()] = Field(description="Titel des Objekts.")
    first_contact: Annotated[bool, Label("Erstanfrage")] = Field(description="true: das Büro hat noch nie geantwortet; false: Rückfrage nach einer Antwort.")
    waiting_since: Annotated[dt.datetime, Label("wartet seit")] = Field(description="Erste unbeantwortete Nachricht des Suchenden.")
    waiting_hours: Annotated[float, Label("wartet", style=Style.hours)]


class _Section(ContractModel):
    """The head of every section of the situation report. Each section names itself (`section`, a literal) and
    says what its `total` counts; then come its own counts, and last `shown`, `all_shown` and `items`: the first
    items_per_section of the `total` open points."""

    section: Annotated[str, Label("Abschnitt")]
    title: Annotated[str, Label("Titel")]
    summary: Annotated[str, Label("Inhalt")]
    total: Annotated[int, Label("Gesamt")]


class InquirySection(_Section):
    section: Annotated[Literal["inquiries"], NOT_IN_TEXT] = "inquiries"
    total: Annotated[int, Label("Gesamt")] = Field(description="Alle offenen Anfragen, die auf eine Antwort des Büros warten.")
    new: Annotated[int, Label("neu (nie beantwortet)")] = Field(description="Davon noch nie beantwortet.")
    follow_ups: Annotated[int, Label("Rückfragen")] = Field(description="Davon Rückfragen nach einer Antwort.")
    by_age: Annotated[list[AgeBand], Label("nach Wartezeit")] = Field(description="Wartezeit: unter 24 Stunden, 1 bis 3 Tage, über 3 Tage; die Summe ist total.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingInquiry], Label("Einträge")] = Field(description="Die am längsten wartenden zuerst.")


class WaitingConfirmation(ContractModel):
    confirmation_id: Annotated[str, Label("Bestätigung", bare=True)]
    kind: Annotated[str, Label("Art")]
    kind_label: str
    subject_ref: Annotated[str, Label("betrifft")]
    summary: Annotated[str, Label("Inhalt", bare=True)]
    created_at: Annotated[dt.datetime, Label("vom")]
    expires_at: Annotated[dt.datetime, Label("gültig bis")]
    waiting_hours: Annotated[float, Label("wartet", style=Style.hours)]


class ConfirmationSection(_Section):
    section: Annotated[Literal["confirmations"], NOT_IN_TEXT] = "confirmations"
    total: Annotated[int, Label("Gesamt")] = Field(description="Wartende Bestätigungen (Status pending, noch nicht abgelaufen).")
    expired: Annotated[int, Label("abgelaufen")] = Field(description="Getrennt gezählt: in den letzten 30 Tagen abgelaufen, ohne ausgeführt zu sein.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingConfirmation], Label("Einträge")] = Field(description="Die ältesten zuerst.")


class BlockedListing(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    title: Annotated[str, title_label()]
    status: Annotated[ListingStatus, Label("Status", bare=True)]
    status_label: str
    created_at: Annotated[dt.datetime, Label("angelegt")]
    failed_rules: Annotated[list[CheckRule], NOT_IN_TEXT] = Field(description="Die nicht erfüllten Pflichtregeln, in der Reihenfolge von check_listing.")
    failed_rule_labels: Annotated[list[str], Label("nicht erfüllt")] = Field(description="Dieselben Regeln mit ihrem deutschen Namen.")
    reasons: Annotated[list[str], Label("Gründe")] = Field(description="Deutsch, je nicht erfüllter Regel ein Satz.")


class UnpublishableSection(_Section):
    section: Annotated[Literal["unpublishable"], NOT_IN_TEXT] = "unpublishable"
    total: Annotated[int, Label("Gesamt")] = Field(
        description=(
            "Entwürfe, veröffentlichte und reservierte Objekte, die check_listing heute nicht bestehen (eine Regel mit "
            "blocking = true nicht ok); dieselben wie search_listings mit publishable = false und diesen drei Status. Ein "
            "veröffentlichtes Objekt mit abgelaufenem Energieausweis steht auch unter energy_certificates."
        )
    )
    checked: Annotated[int, Label("geprüfte Objekte")] = Field(description="Alle Entwürfe, veröffentlichten und reservierten Objekte des Büros; jedes wurde geprüft.")
    published_or_reserved: Annotated[int, Label("davon veröffentlicht oder reserviert")] = Field(
        description="Objekte unter total, die schon veröffentlicht oder reserviert sind und eine Pflichtregel inzwischen nicht erfüllen."
    )
    drafts: Annotated[int, Label("davon Entwürfe")] = Field(description="Entwürfe unter total.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[BlockedListing], Label("Einträge")] = Field(
        description="Erst die veröffentlichten und reservierten (sie sind schon zu sehen), dann die Entwürfe; je die ältesten zuerst."
    )


class DueCertificate(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    title: Annotated[str, title_label()]
    valid_until: Annotated[dt.date, Label("gültig bis")]
    days_left: Annotated[int, Label("Tage bis Ablauf")] = Field(description="Tage bis zum Ablauf; negativ: seit so vielen Tagen abgelaufen.")
    expired: Annotated[bool, Label("abgelaufen")]


class EnergySection(_Section):
    section: Annotated[Literal["energy_certificates"], NOT_IN_TEXT] = "energy_certificates"
    total: Annotated[int, Label("Gesamt")] = Field(description="Veröffentlichte Inserate, deren Energieausweis abgelaufen ist oder im Zeitraum abläuft.")
    expired: Annotated[int, Label("abgelaufen")]
    expiring: Annotated[int, Label("laufen bald ab")]
    window_days: Annotated[int, Label("Zeitraum", unit="Tage")]
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[DueCertificate], Label("Einträge")] = Field(description="Das früheste Ablaufdatum zuerst.")


class WaitingProposal(ContractModel):
    proposal_id: Annotated[str, Label("Vorschlag", bare=True)]
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    title: Annotated[str, title_label()]
    created_at: Annotated[dt.datetime, Label("vom")]
    waiting_hours: Annotated[float, Label("wartet", style=Style.hours)]


class ProposalSection(_Section):
    section: Annotated[Literal["proposals"], NOT_IN_TEXT] = "proposals"
    total: Annotated[int, Label("Gesamt")] = Field(description="Offene Vorschläge (noch nicht entschieden).")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingProposal], Label("Einträge")] = Field(description="Die ältesten zuerst.")


ReportSection = Annotated[
    InquirySection | ConfirmationSection | UnpublishableSection | EnergySection | ProposalSection,
    Field(discriminator="section"),
]


class KeyFigures(ContractModel):
    days: Annotated[int, Label("Zeitraum", bare=True)]
    days_label: str
    since: Annotated[dt.datetime, Label("seit")]
    new_inquiries: Annotated[int, Label("neue Anfragen")] = Field(description="Im Zeitraum eingegangene Anfragen.")
    replies_sent: Annotated[int, Label("gesendete Antworten")] = Field(description="Im Zeitraum gesendete Nachrichten des Büros.")
    listings_published: Annotated[int, Label("veröffentlichte Inserate")] = Field(description="Inserate, die im Zeitraum (wieder) veröffentlicht wurden (published_at).")
    average_first_response_hours: Annotated[float | Absent, Label("mittlere Zeit bis zur ersten Antwort", style=Style.hours)] = Field(
        description="Mittlere Zeit bis zur ersten Antwort, über die im Zeitraum eingegangenen und beantworteten Anfragen."
    )
    answered_inquiries: Annotated[int, Label("beantwortete Anfragen")] = Field(description="Anfragen, über die der Mittelwert gebildet ist.")
    unanswered_excluded: Annotated[int, Label("unbeantwortet, nicht im Mittelwert")] = Field(description="Im Zeitraum eingegangene Anfragen ohne Antwort; nicht im Mittelwert enthalten.")


class SituationReportOutput(Envelope):
    total: Annotated[int, Label("Abschnitte mit offenen Punkten")] = Field(
        description=(
            "Wie viele der fünf Abschnitte offene Punkte haben (0: nichts offen). Die Zahlen der Abschnitte zählen "
            "Verschiedenes (Anfragen, Bestätigungen, Objekte, Vorschläge) und werden nicht addiert."
        )
    )
    office: Annotated[str, Label("Büro")]
    as_of: Annotated[dt.datetime, Label("Stand")] = Field(description="Der Zeitpunkt 'jetzt', auf den sich Alter und Fristen beziehen.")
    sections: Annotated[list[ReportSection], Label("Abschnitte")] = Field(
        description="In dieser Reihenfolge: inquiries, confirmations, unpublishable, energy_certificates, proposals."
    )
    key_figures: Annotated[list[KeyFigures], Label("Kennzahlen")] = Field(description="Kennzahlen über 7 und 30 Tage.")


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="show_situation_report",
        title="Lagebericht zeigen",
        description=(
            "Der Stand deines Büros jetzt, in fünf Abschnitten: offene Anfragen, die auf eine Antwort "
            "warten, Bestätigungen, die auf einen Klick warten, Objekte, die "
            "check_listing heute nicht bestehen (auch veröffentlichte, mit Gründen), "
            "ablaufende Energieausweise und offene Vorschläge; dazu Kennzahlen über 7 und 30 Tage. "
            "Jeder Abschnitt zählt alles, zeigt höchstens items_per_section Einträge und sagt mit shown "
            "und total, ob die Liste vollständig ist."
        ),
        input_model=ShowSituationReportInput,
        output_model=SituationReportOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
]
