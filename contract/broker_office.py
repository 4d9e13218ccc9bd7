"""Athaus für Makler: Lagebericht, Bestand, Prüfung und Wertschätzung (tools of the office and its listings)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from contract.catalog import (
    CatalogFilters,
    IncludeFields,
    ListingDetail,
    ListingId,
    ListingSummary,
    Money,
    SortOrder,
)
from contract.envelope import (
    Absent,
    Completeness,
    ContractModel,
    EffectiveValue,
    Freshness,
    ListResult,
    ResultWarning,
    Suggestion,
)
from contract.fields import lenient, normalise_ref
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import BROKER_READ
from contract.tool import Effect, ToolSpec
from contract.vocabulary import InquiryStatus, ListingStatus, MarketingType, PropertyType, ProposalStatus

# --- input vocabulary -------------------------------------------------------------------------------------

# A listing status as input: the English value or the German word (`veröffentlicht`, `verkauft`, …).
StatusInput = lenient(ListingStatus)

SORT_KEYS_STOCK: dict[SortOrder, str] = {
    SortOrder.newest: "published_at desc (nie veröffentlichte Entwürfe zuletzt), listing_id asc",
    SortOrder.price_asc: "price asc (Preis auf Anfrage zuletzt), listing_id asc",
    SortOrder.price_desc: "price desc (Preis auf Anfrage zuletzt), listing_id asc",
    SortOrder.living_area_desc: "living_area desc (ohne Angabe zuletzt), listing_id asc",
}


# --- check_listing -----------------------------------------------------------------------------------------


class CheckRule(StrEnum):
    energy_certificate = "energy_certificate"
    title = "title"
    description = "description"
    price = "price"
    living_area = "living_area"
    rooms = "rooms"
    photos = "photos"
    price_plausibility = "price_plausibility"


class Verdict(StrEnum):
    ok = "ok"
    failed = "failed"
    not_checkable = "not_checkable"


MIN_DESCRIPTION_CHARS = 200
MIN_COMPARABLES = 5
PLAUSIBLE_RATIO = (0.5, 2.0)


class RuleResult(ContractModel):
    rule: Annotated[CheckRule, Label("Regel")]
    rule_label: str = Field(description="Name der Regel, deutsch.")
    verdict: Annotated[Verdict, Label("Urteil")] = Field(description="ok, failed (nicht erfüllt) oder not_checkable (nicht prüfbar, mit Grund).")
    verdict_label: str
    blocking: Annotated[bool, Label("Pflichtregel")] = Field(description="true: die Regel entscheidet über publishable; false: nur ein Hinweis.")
    message: Annotated[str, Label("Befund")] = Field(description="Deutsch: was geprüft wurde, was fehlt und was zu tun ist.")


class PriceComparison(ContractModel):
    """The comparison behind the price plausibility verdict."""

    price_per_sqm: Annotated[float, Label("€/m²")] = Field(description="Preis je m² Wohnfläche dieses Objekts.")
    median_price_per_sqm: Annotated[float, Label("Median €/m² der Vergleichsobjekte")] = Field(description="Median der Vergleichsobjekte.")
    ratio: Annotated[float, Label("Verhältnis")] = Field(description="price_per_sqm / median_price_per_sqm; plausibel von 0,5 bis 2.")
    comparables: Annotated[int, Label("Vergleichsobjekte")] = Field(description="Zahl der Vergleichsobjekte (veröffentlicht, gleiche Vermarktungs- und Objektart, gleicher Ort).")
    price_on_request_excluded: Annotated[int, Label("ohne Preis, nicht verwendet")] = Field(description="Sonst passende Inserate ohne Preis (Preis auf Anfrage), nicht verwendet.")
    living_area_unknown_excluded: Annotated[int, Label("ohne Wohnfläche, nicht verwendet")] = Field(description="Sonst passende Inserate ohne Wohnfläche, nicht verwendet.")


class CheckListingInput(ContractModel):
    listing_id: ListingId

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class CheckListingOutput(ContractModel):
    listing_id: Annotated[str, Label("Inserat")]
    title: Annotated[str, Label("Titel")]
    status: Annotated[ListingStatus, Label("Status")]
    status_label: str
    publishable: Annotated[bool, Label("veröffentlichbar")] = Field(description="true, wenn jede Regel mit blocking = true ok ist.")
    summary: Annotated[str, Label("Inhalt")] = Field(description="Deutsch: das Ergebnis in einem Satz.")
    rules: Annotated[list[RuleResult], Label("Regeln")] = Field(description="Ein Urteil je Regel, immer alle Regeln in fester Reihenfolge.")
    price_comparison: Annotated[PriceComparison | Absent, Label("Preisvergleich")]
    checked_at: Annotated[dt.datetime, Label("geprüft")]
    freshness: Annotated[Freshness, NOT_IN_TEXT]


# --- search_listings (office stock) -------------------------------------------------------------------------


class StockFilters(CatalogFilters):
    statuses: list[StatusInput] | None = Field(  # type: ignore[valid-type]
        default=None,
        description=(
            "Status: draft (Entwurf), published (veröffentlicht), reserved (reserviert), sold (verkauft), let "
            "(vermietet), withdrawn (zurückgezogen). Weggelassen: alle Status."
        ),
    )


class SearchStockInput(StockFilters):
    include: IncludeFields = Field(default_factory=IncludeFields, description="Welche Teile jeder Treffer enthält.")
    sort: SortOrder = Field(
        default=SortOrder.newest,
        description=(
            "Reihenfolge; newest nach Veröffentlichung (nie veröffentlichte Entwürfe zuletzt). Bei Gleichstand "
            "entscheidet immer die Inseratsnummer (aufsteigend), die Ordnung ist total."
        ),
    )
    limit: int = Field(default=10, ge=1, le=50, description="Treffer pro Seite (1–50).")
    cursor: str | None = Field(default=None, description="next_cursor der vorigen Seite, mit sonst gleichen Argumenten.")


class StockListing(ListingSummary):
    resource_uri: Annotated[str | Absent, NOT_IN_TEXT] = Field(  # type: ignore[assignment]
        description="Öffentliches Exposé als MCP-Ressource; nur für veröffentlichte Inserate."
    )
    published_at: Annotated[dt.datetime | Absent, Label("veröffentlicht")] = Field(description="Erste Veröffentlichung; Entwürfe haben keine.")  # type: ignore[assignment]
    status: Annotated[ListingStatus, Label("Status")]
    status_label: str
    created_at: Annotated[dt.datetime, Label("vom")]
    updated_at: Annotated[dt.datetime, Label("aktualisiert")]


SearchStockOutput = ListResult[StockListing]


# --- get_listing ----------------------------------------------------------------------------------------------


class GetStockListingInput(ContractModel):
    listing_id: ListingId

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class StatusChangeEntry(ContractModel):
    old_status: Annotated[ListingStatus | None, Label("von")] = Field(description="null: beim Anlegen.")
    new_status: Annotated[ListingStatus, Label("nach")]
    label: Annotated[str, Label("Status")] = Field(description="Deutsch, z. B. 'Entwurf → veröffentlicht'.")
    changed_at: Annotated[dt.datetime, Label("geändert")]
    changed_by: Annotated[str | Absent, Label("durch")] = Field(description="Name des Büromitglieds; fehlt bei Änderungen durch Import oder System.")


class InquiryRef(ContractModel):
    inquiry_id: Annotated[str, Label("Anfrage")] = Field(description="Anfragenummer für get_inquiry, z. B. I-000012.")
    status: Annotated[InquiryStatus, Label("Status")]
    status_label: str
    created_at: Annotated[dt.datetime, Label("vom")]
    last_message_at: Annotated[dt.datetime, Label("letzte Nachricht")]


class ListingInquiries(ContractModel):
    total: Annotated[int, Label("Gesamt")] = Field(description="Alle Anfragen zu diesem Objekt.")
    open: Annotated[int, Label("offen")] = Field(description="Davon offen (warten auf eine Antwort des Büros).")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")] = Field(description="false: latest zeigt nur die neuesten; search_inquiries mit listing_id zeigt alle.")
    latest: Annotated[list[InquiryRef], Label("neueste")] = Field(description="Die neuesten zuerst (Eingang absteigend, dann Nummer).")


class OpenDraft(ContractModel):
    confirmation_id: Annotated[str, Label("Bestätigung")] = Field(description="Nummer der wartenden Bestätigung, z. B. C-000003.")
    kind: Annotated[str, Label("Art")] = Field(description="send_reply, decide_proposal, …")
    kind_label: str
    subject_ref: Annotated[str, Label("betrifft")] = Field(description="Die Anfrage oder der Vorschlag, auf die sie wirkt.")
    summary: Annotated[str, Label("Inhalt")]
    created_at: Annotated[dt.datetime, Label("vom")]
    expires_at: Annotated[dt.datetime, Label("gültig bis")]
    expired: Annotated[bool, Label("abgelaufen")] = Field(description="true: abgelaufen, ein Klick führt sie nicht mehr aus.")


class OpenDrafts(ContractModel):
    total: Annotated[int, Label("Gesamt")]
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[OpenDraft], Label("Einträge")] = Field(description="Die ältesten zuerst.")


class ProposalRef(ContractModel):
    proposal_id: Annotated[str, Label("Vorschlag")] = Field(description="Vorschlagsnummer, z. B. P-000007.")
    status: Annotated[ProposalStatus, Label("Status")]
    status_label: str
    created_at: Annotated[dt.datetime, Label("vom")]
    decided_at: Annotated[dt.datetime | None, Label("entschieden")]


class ListingProposals(ContractModel):
    total: Annotated[int, Label("Gesamt")]
    open: Annotated[int, Label("offen")]
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[ProposalRef], Label("Einträge")] = Field(description="Die neuesten zuerst.")


class StockListingDetail(ListingDetail):
    resource_uri: Annotated[str | Absent, NOT_IN_TEXT] = Field(  # type: ignore[assignment]
        description="Öffentliches Exposé als MCP-Ressource; nur für veröffentlichte Inserate."
    )
    published_at: Annotated[dt.datetime | Absent, Label("veröffentlicht")] = Field(description="Erste Veröffentlichung; Entwürfe haben keine.")  # type: ignore[assignment]
    status_label: str
    address_published: Annotated[bool, Label("Adresse im Exposé veröffentlicht")] = Field(
        description="true: die genaue Adresse steht im öffentlichen Exposé; false: Suchende sehen sie erst auf Anfrage. Hier steht sie immer."
    )
    created_at: Annotated[dt.datetime, Label("vom")]
    status_history: Annotated[list[StatusChangeEntry] | Absent, Label("Statusverlauf")] = Field(description="Statusverlauf, älteste Änderung zuerst.")
    inquiries: Annotated[ListingInquiries, Label("Anfragen")]
    open_drafts: Annotated[OpenDrafts, Label("Offene Entwürfe")] = Field(description="Wartende Bestätigungen zu Anfragen und Vorschlägen dieses Objekts.")
    check: Annotated[CheckListingOutput, Label("Prüfung")] = Field(description="Ergebnis von check_listing für dieses Objekt.")
    proposals: Annotated[ListingProposals, Label("Vorschläge")]


# --- show_situation_report -----------------------------------------------------------------------------------


class ShowSituationReportInput(ContractModel):
    items_per_section: int = Field(
        default=5,
        ge=0,
        le=50,
        description="Wie viele Einträge jeder Abschnitt zeigt (die ältesten bzw. dringendsten zuerst); gezählt wird immer alles.",
    )
    energy_warning_days: int = Field(
        default=60, ge=1, le=365, description="Energieausweise, die innerhalb so vieler Tage ablaufen, werden gemeldet."
    )


class AgeBand(ContractModel):
    label: Annotated[str, Label("Wartezeit")]
    count: Annotated[int, Label("Anzahl")]


class WaitingInquiry(ContractModel):
    inquiry_id: Annotated[str, Label("Anfrage")]
    listing_id: Annotated[str, Label("Inserat")]
    title: Annotated[str, Label("Titel")] = Field(description="Titel des Objekts.")
    first_contact: Annotated[bool, Label("Erstanfrage")] = Field(description="true: das Büro hat noch nie geantwortet; false: Rückfrage nach einer Antwort.")
    waiting_since: Annotated[dt.datetime, Label("wartet seit")] = Field(description="Erste unbeantwortete Nachricht des Suchenden.")
    waiting_hours: Annotated[float, Label("wartet (Stunden)")]


class _Section(ContractModel):
    """The head of every section of the situation report. Each section names itself (`section`, a literal) and
    says what its `total` counts; then come its own counts, and last `shown`, `all_shown` and `items`: the first
    items_per_section of the `total` open points."""

    section: Annotated[str, Label("Abschnitt")]
    title: Annotated[str, Label("Titel")]
    summary: Annotated[str, Label("Inhalt")]
    total: Annotated[int, Label("Gesamt")]


class InquirySection(_Section):
    section: Annotated[Literal["inquiries"], Label("Abschnitt")] = "inquiries"
    total: Annotated[int, Label("Gesamt")] = Field(description="Alle offenen Anfragen, die auf eine Antwort des Büros warten.")
    new: Annotated[int, Label("neu (nie beantwortet)")] = Field(description="Davon noch nie beantwortet.")
    follow_ups: Annotated[int, Label("Rückfragen")] = Field(description="Davon Rückfragen nach einer Antwort.")
    by_age: Annotated[list[AgeBand], Label("nach Wartezeit")] = Field(description="Wartezeit: unter 24 Stunden, 1 bis 3 Tage, über 3 Tage; die Summe ist total.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingInquiry], Label("Einträge")] = Field(description="Die am längsten wartenden zuerst.")


class WaitingConfirmation(ContractModel):
    confirmation_id: Annotated[str, Label("Bestätigung")]
    kind: Annotated[str, Label("Art")]
    kind_label: str
    subject_ref: Annotated[str, Label("betrifft")]
    summary: Annotated[str, Label("Inhalt")]
    created_at: Annotated[dt.datetime, Label("vom")]
    expires_at: Annotated[dt.datetime, Label("gültig bis")]
    waiting_hours: Annotated[float, Label("wartet (Stunden)")]


class ConfirmationSection(_Section):
    section: Annotated[Literal["confirmations"], Label("Abschnitt")] = "confirmations"
    total: Annotated[int, Label("Gesamt")] = Field(description="Wartende Bestätigungen (Status pending, noch nicht abgelaufen).")
    expired: Annotated[int, Label("abgelaufen")] = Field(description="Getrennt gezählt: in den letzten 30 Tagen abgelaufen, ohne ausgeführt zu sein.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingConfirmation], Label("Einträge")] = Field(description="Die ältesten zuerst.")


class BlockedDraft(ContractModel):
    listing_id: Annotated[str, Label("Inserat")]
    title: Annotated[str, Label("Titel")]
    created_at: Annotated[dt.datetime, Label("vom")]
    failed_rules: Annotated[list[CheckRule], Label("nicht erfüllt")]
    reasons: Annotated[list[str], Label("Gründe")] = Field(description="Deutsch, je nicht erfüllter Regel ein Satz.")


class UnpublishableSection(_Section):
    section: Annotated[Literal["unpublishable"], Label("Abschnitt")] = "unpublishable"
    total: Annotated[int, Label("Gesamt")] = Field(description="Entwürfe, die check_listing nicht bestehen (eine Regel mit blocking = true nicht ok).")
    drafts_checked: Annotated[int, Label("geprüfte Entwürfe")] = Field(description="Alle Entwürfe des Büros; jeder wurde geprüft.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[BlockedDraft], Label("Einträge")] = Field(description="Die ältesten Entwürfe zuerst.")


class DueCertificate(ContractModel):
    listing_id: Annotated[str, Label("Inserat")]
    title: Annotated[str, Label("Titel")]
    valid_until: Annotated[dt.date, Label("gültig bis")]
    days_left: Annotated[int, Label("Tage bis Ablauf")] = Field(description="Tage bis zum Ablauf; negativ: seit so vielen Tagen abgelaufen.")
    expired: Annotated[bool, Label("abgelaufen")]


class EnergySection(_Section):
    section: Annotated[Literal["energy_certificates"], Label("Abschnitt")] = "energy_certificates"
    total: Annotated[int, Label("Gesamt")] = Field(description="Veröffentlichte Inserate, deren Energieausweis abgelaufen ist oder im Zeitraum abläuft.")
    expired: Annotated[int, Label("abgelaufen")]
    expiring: Annotated[int, Label("laufen bald ab")]
    window_days: Annotated[int, Label("Zeitraum (Tage)")]
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[DueCertificate], Label("Einträge")] = Field(description="Das früheste Ablaufdatum zuerst.")


class WaitingProposal(ContractModel):
    proposal_id: Annotated[str, Label("Vorschlag")]
    listing_id: Annotated[str, Label("Inserat")]
    title: Annotated[str, Label("Titel")]
    created_at: Annotated[dt.datetime, Label("vom")]
    waiting_hours: Annotated[float, Label("wartet (Stunden)")]


class ProposalSection(_Section):
    section: Annotated[Literal["proposals"], Label("Abschnitt")] = "proposals"
    total: Annotated[int, Label("Gesamt")] = Field(description="Offene Vorschläge (noch nicht entschieden).")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[WaitingProposal], Label("Einträge")] = Field(description="Die ältesten zuerst.")


ReportSection = Annotated[
    InquirySection | ConfirmationSection | UnpublishableSection | EnergySection | ProposalSection,
    Field(discriminator="section"),
]


class KeyFigures(ContractModel):
    days: Annotated[int, Label("Tage")]
    days_label: str
    since: Annotated[dt.datetime, Label("seit")]
    new_inquiries: Annotated[int, Label("neue Anfragen")] = Field(description="Im Zeitraum eingegangene Anfragen.")
    replies_sent: Annotated[int, Label("gesendete Antworten")] = Field(description="Im Zeitraum gesendete Nachrichten des Büros.")
    listings_published: Annotated[int, Label("veröffentlichte Inserate")] = Field(description="Inserate, deren erste Veröffentlichung im Zeitraum liegt (published_at).")
    average_first_response_hours: Annotated[float | Absent, Label("mittlere Zeit bis zur ersten Antwort (Stunden)")] = Field(
        description="Mittlere Zeit bis zur ersten Antwort, über die im Zeitraum eingegangenen und beantworteten Anfragen."
    )
    answered_inquiries: Annotated[int, Label("beantwortete Anfragen")] = Field(description="Anfragen, über die der Mittelwert gebildet ist.")
    unanswered_excluded: Annotated[int, Label("unbeantwortet, nicht im Mittelwert")] = Field(description="Im Zeitraum eingegangene Anfragen ohne Antwort; nicht im Mittelwert enthalten.")


class SituationReportOutput(ContractModel):
    status: Literal["complete", "partial"]
    completeness: Completeness
    total: Annotated[int, Label("Gesamt")] = Field(description="Offene Punkte aller Abschnitte zusammen.")
    match_type: Literal["matches", "none"]
    request: dict[str, EffectiveValue]
    warnings: list[ResultWarning]
    freshness: Freshness
    hint: str | None = None
    suggestions: list[Suggestion] | None = None
    office: Annotated[str, Label("Büro")]
    as_of: Annotated[dt.datetime, Label("Stand")] = Field(description="Der Zeitpunkt 'jetzt', auf den sich Alter und Fristen beziehen.")
    sections: Annotated[list[ReportSection], Label("Abschnitte")] = Field(
        description="In dieser Reihenfolge: inquiries, confirmations, unpublishable, energy_certificates, proposals."
    )
    key_figures: Annotated[list[KeyFigures], Label("Kennzahlen")] = Field(description="Kennzahlen über 7 und 30 Tage.")


# --- estimate_value -----------------------------------------------------------------------------------------------

OBJECT_FIELDS = ("postal_code", "city", "property_type", "marketing_type", "living_area", "rooms", "year_built")
VALUED_TYPES = (PropertyType.apartment, PropertyType.house, PropertyType.commercial)


class EstimateValueInput(ContractModel):
    listing_id: ListingId | None = Field(
        default=None, description="Objekt des eigenen Bestands (jeder Status); seine Daten werden verwendet."
    )
    postal_code: str | None = Field(default=None, pattern=r"^\d{5}$", description="PLZ des Objekts; bestimmt den Ort, wenn city fehlt.")
    city: str | None = Field(default=None, max_length=100, description="Ort des Objekts, genauer Name, z. B. 'Leipzig'.")
    property_type: lenient(PropertyType) | None = Field(  # type: ignore[valid-type]
        default=None, description="apartment (Wohnung), house (Haus) oder commercial (Gewerbe)."
    )
    marketing_type: lenient(MarketingType) | None = Field(  # type: ignore[valid-type]
        default=None, description="buy (Kauf: Kaufpreis) oder rent (Miete: Kaltmiete pro Monat)."
    )
    living_area: float | None = Field(default=None, gt=0, le=20_000, description="Wohn- bzw. Nutzfläche in m².")
    rooms: float | None = Field(default=None, gt=0, le=100, description="Zimmer; nur zum Abgleich mit den Vergleichsobjekten.")
    year_built: int | None = Field(default=None, ge=1500, le=2100, description="Baujahr; nur zum Abgleich mit den Vergleichsobjekten.")
    area_tolerance_percent: int = Field(
        default=30, ge=5, le=100, description="Vergleichsobjekte haben eine Wohnfläche von ±so viel Prozent um die des Objekts."
    )
    postal_codes: list[Annotated[str, Field(pattern=r"^\d{2,5}$")]] | None = Field(
        default=None,
        description="Vergleichsgebiet als PLZ oder PLZ-Anfang (z. B. ['04']) statt des Orts; weggelassen: derselbe Ort.",
    )

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)

    @model_validator(mode="after")
    def _listing_or_data(self) -> EstimateValueInput:
        if self.listing_id is not None:
            given = [name for name in OBJECT_FIELDS if getattr(self, name) is not None]
            if given:
                raise ValueError(
                    "entweder listing_id oder die Objektdaten angeben, nicht beides (gesendet: " + ", ".join(given) + ")"
                )
        return self


class EstimateSubject(ContractModel):
    listing_id: Annotated[str | None, Label("Inserat")] = Field(description="Gesetzt, wenn die Daten aus dem Bestand stammen.")
    source: Annotated[Literal["listing", "caller"], Label("Quelle")]
    source_label: str
    property_type: Annotated[PropertyType, Label("Objektart")]
    marketing_type: Annotated[MarketingType, Label("Vermarktung")]
    city: Annotated[str | None, Label("Ort")]
    postal_code: Annotated[str | None, Label("PLZ")]
    living_area: Annotated[float, Label("Wohnfläche m²")]
    rooms: Annotated[float | None, Label("Zimmer")]
    year_built: Annotated[int | None, Label("Baujahr")]


class ComparisonArea(ContractModel):
    city: Annotated[str | None, Label("Ort")] = Field(description="Ort der Vergleichsobjekte; null, wenn postal_codes gilt.")
    postal_codes: Annotated[list[str] | None, Label("PLZ-Bereiche")]
    living_area_min: Annotated[float, Label("Wohnfläche ab m²")]
    living_area_max: Annotated[float, Label("Wohnfläche bis m²")]
    tolerance_percent: Annotated[int, Label("Toleranz in %")]


class ValueRange(ContractModel):
    low: Annotated[Money, Label("von")] = Field(description="Unteres Quartil des Preises je m² × Wohnfläche (abgerundet).")
    median: Annotated[Money, Label("Median")] = Field(description="Median des Preises je m² × Wohnfläche.")
    high: Annotated[Money, Label("bis")] = Field(description="Oberes Quartil des Preises je m² × Wohnfläche (aufgerundet).")
    price_per_sqm_low: Annotated[float, Label("€/m² von")]
    price_per_sqm_median: Annotated[float, Label("€/m² Median")]
    price_per_sqm_high: Annotated[float, Label("€/m² bis")]
    basis: Annotated[str, Label("Grundlage")] = Field(description="Kaufpreis oder Kaltmiete pro Monat.")


class ComparablesUsed(ContractModel):
    total: Annotated[int, Label("Gesamt")] = Field(description="Alle verwendeten Vergleichsobjekte.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    listing_ids: Annotated[list[str], Label("Inseratsnummern")] = Field(description="Inseratsnummern, die in der Wohnfläche nächsten zuerst (dann Nummer).")


class Exclusions(ContractModel):
    price_on_request: Annotated[int, Label("Preis auf Anfrage")] = Field(description="Sonst passende Inserate mit 'Preis auf Anfrage', nicht verwendet.")
    living_area_unknown: Annotated[int, Label("ohne Wohnfläche")] = Field(description="Inserate gleicher Art im Gebiet ohne Wohnfläche, nicht verwendet.")
    subject_listing: Annotated[bool, Label("Objekt selbst ausgeschlossen")] = Field(description="true: das Objekt selbst ist veröffentlicht und wurde nicht als Vergleich verwendet.")


class ConfidenceFactor(StrEnum):
    few_comparables = "few_comparables"
    wide_spread = "wide_spread"
    price_on_request_excluded = "price_on_request_excluded"
    living_area_unknown_excluded = "living_area_unknown_excluded"
    rooms_differ = "rooms_differ"
    year_built_differs = "year_built_differs"


class ConfidenceNote(ContractModel):
    factor: Annotated[ConfidenceFactor, Label("Umstand")]
    message: Annotated[str, Label("Befund")]


class Confidence(ContractModel):
    level: Annotated[Literal["high", "medium", "low", "none"], Label("Stufe")] = Field(
        description="high: nichts mindert; medium: ein Umstand; low: zwei oder mehr, oder sehr weite Streuung; none: keine Spanne."
    )
    level_label: str
    lowered_by: Annotated[list[ConfidenceNote], Label("mindert das Vertrauen")] = Field(description="Was das Vertrauen mindert, je Umstand ein Satz.")


class EstimateValueOutput(ContractModel):
    estimable: Annotated[bool, Label("Spanne möglich")] = Field(description="false: zu wenige Vergleichsobjekte, keine Spanne; siehe hint und suggestions.")
    subject: Annotated[EstimateSubject, Label("für")]
    comparison_area: Annotated[ComparisonArea, Label("Vergleichsgebiet")]
    value_range: Annotated[ValueRange | None, Label("Wertspanne")] = Field(description="null, wenn estimable false ist.")
    comparables: Annotated[ComparablesUsed, Label("Vergleichsobjekte")]
    excluded: Annotated[Exclusions, Label("nicht verwendet")]
    method: Annotated[str, Label("Methode")]
    confidence: Annotated[Confidence, Label("Vertrauen")]
    hint: Annotated[str | None, Label("Hinweis")] = Field(default=None, description="Nur ohne Spanne: warum und der nächste Schritt.")
    suggestions: Annotated[list[Suggestion], Label("Vorschläge (nicht gesucht)")] = Field(
        description="Nur ohne Spanne: Änderungen deiner Eingabe, vom Server nicht gesucht und nicht gezählt."
    )
    warnings: Annotated[list[ResultWarning], Label("Warnungen")] = Field(
        description="DEFAULT_SCOPE_APPLIED nennt jeden Standard, den der Server angewandt hat (Toleranz, Vergleichsgebiet); "
        "PRICE_ON_REQUEST_EXCLUDED und VALUE_UNKNOWN_EXCLUDED zählen, was nicht in die Rechnung einging."
    )
    freshness: Annotated[Freshness, NOT_IN_TEXT]


# --- the tools -----------------------------------------------------------------------------------------------------

TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="show_situation_report",
        title="Lagebericht zeigen",
        description=(
            "Der Stand des eigenen Büros jetzt, in fünf Abschnitten (sections): offene Anfragen, die auf eine Antwort "
            "warten (neu oder Rückfrage, mit Wartezeit, am längsten wartende zuerst, gezählt nach Wartezeit), wartende "
            "Bestätigungen (Entwürfe, die auf einen Klick warten; abgelaufene getrennt gezählt), Entwürfe, die "
            "check_listing nicht bestehen (mit den Gründen), Energieausweise veröffentlichter Inserate, die abgelaufen "
            "sind oder bald ablaufen, und offene Vorschläge; dazu Kennzahlen über 7 und 30 Tage (neue Anfragen, "
            "gesendete Antworten, veröffentlichte Inserate, mittlere Zeit bis zur ersten Antwort). Jede Zahl zählt alles "
            "im Büro; jeder Abschnitt zeigt höchstens items_per_section Einträge und sagt mit shown, total und all_shown, "
            "ob die Liste vollständig ist. total ist die Summe der offenen Punkte. Null in einem Abschnitt heißt: im "
            "Büro gibt es dort jetzt nichts (die Zahlen sind vollständig, siehe completeness)."
        ),
        input_model=ShowSituationReportInput,
        output_model=SituationReportOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
    ToolSpec(
        name="search_listings",
        title="Bestand durchsuchen",
        description=(
            "Durchsucht den eigenen Bestand des Büros in jedem Status (Entwurf, veröffentlicht, reserviert, verkauft, "
            "vermietet, zurückgezogen) mit denselben Filtern und derselben Volltext-Syntax wie die öffentliche Suche: "
            "Vermarktungsart, Objektart, Ort, PLZ, Umkreis, Preis, Wohnfläche, Zimmer, Ausstattung, dazu statuses. Ein "
            "weggelassener Filter heißt: alles davon (statuses weggelassen: alle Status); die ausgeführte Anfrage steht "
            "unter request. Nur Objekte des eigenen Büros, nie die anderer Büros. Die Reihenfolge ist total "
            "(sort_key); solange completeness.complete false ist und next_cursor gesetzt, mit denselben Argumenten "
            "und cursor weiterblättern. Findet die Suche nichts, stehen dort die ausgeführte Anfrage, ein nächster "
            "Schritt (hint) und ungeprüfte Vorschläge aus deiner Eingabe; der Server erweitert nie selbst. Ob es ein "
            "Objekt im Bestand nicht gibt, folgt erst aus einer leeren Antwort mit complete true. Volltext-Syntax: "
            "Wörter mit Leerzeichen müssen alle vorkommen; \"…\" sucht eine Phrase; Balk* einen Wortanfang (mind. 3 "
            "Zeichen); -Wort schließt aus; ganze Wörter, Groß-/Kleinschreibung egal."
        ),
        input_model=SearchStockInput,
        output_model=SearchStockOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
    ToolSpec(
        name="get_listing",
        title="Objekt abrufen",
        description=(
            "Ein Objekt des eigenen Bestands (jeder Status) mit allem für die nächste Entscheidung: die Daten wie im "
            "Exposé, aber mit der genauen Adresse; den Statusverlauf; die Anfragen dazu (Anzahl, offene, die neuesten "
            "mit Nummer für get_inquiry); wartende Bestätigungen zu diesen Anfragen und Vorschlägen; das Ergebnis von "
            "check_listing (kann es veröffentlicht werden, und was fehlt); die Vorschläge. Fehlende Werte sagen, warum "
            "sie fehlen. listing_id ist die Inseratsnummer, z. B. A-0000042. Ein Objekt, das nicht zum Bestand des "
            "Büros gehört, gibt es für dieses Werkzeug nicht (NOT_FOUND)."
        ),
        input_model=GetStockListingInput,
        output_model=StockListingDetail,
        effect=Effect.read,
        right=BROKER_READ,
    ),
    ToolSpec(
        name="check_listing",
        title="Objekt prüfen",
        description=(
            "Prüft, ob ein Objekt des eigenen Bestands veröffentlicht werden kann, und gibt je Regel ein Urteil (ok, "
            "failed, not_checkable) mit einem deutschen Satz. Regeln, die über publishable entscheiden: Energieausweis "
            "nach GEG §87 (bei 'liegt vor' müssen Ausweisart, Kennwert, Energieträger, Baujahr, bei Wohngebäuden die "
            "Effizienzklasse und das Gültigkeitsdatum angegeben und der Ausweis nicht abgelaufen sein; 'liegt zur "
            "Besichtigung vor' und 'keine Angabe' reichen nicht; 'nicht erforderlich' gilt nur für Stellplätze, "
            "Grundstücke und Baudenkmäler, erkannt am Wort Denkmal in Titel oder Beschreibung), Titel, Beschreibung mit "
            "mindestens 200 Zeichen, Preis oder 'Preis auf Anfrage', Wohnfläche und Zimmer bei Wohnung und Haus, "
            "mindestens ein Foto. Nur ein Hinweis (blocking false): Preis je m² gegen den Median veröffentlichter "
            "Inserate gleicher Vermarktungs- und Objektart im selben Ort; außerhalb des 0,5- bis 2-fachen ist er "
            "failed, mit weniger als 5 Vergleichsobjekten not_checkable mit Grund. Ändert nichts."
        ),
        input_model=CheckListingInput,
        output_model=CheckListingOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
    ToolSpec(
        name="estimate_value",
        title="Wert schätzen",
        description=(
            "Schätzt eine Wertspanne (Kaufpreis oder Kaltmiete) aus vergleichbaren veröffentlichten Inseraten des "
            "Katalogs: gleiche Vermarktungs- und Objektart, gleicher Ort (oder die PLZ-Bereiche aus postal_codes), "
            "Wohnfläche ±area_tolerance_percent (Standard 30 %). Spanne = unteres Quartil, Median und oberes Quartil "
            "des Preises je m² × Wohnfläche. Eingabe: listing_id eines eigenen Objekts oder die Objektdaten (PLZ oder "
            "Ort, property_type, marketing_type, living_area; rooms und year_built nur zum Abgleich). Das Ergebnis nennt "
            "die verwendeten Vergleichsobjekte (Inseratsnummern), die Methode, wie viele Inserate ohne Preis oder "
            "Fläche nicht verwendet wurden, und was das Vertrauen mindert. Angebotspreise, keine Verkaufspreise. Mit "
            "weniger als 5 Vergleichsobjekten gibt es keine Spanne: dann stehen dort der Grund und ungeprüfte "
            "Vorschläge aus deiner Eingabe (z. B. größere Toleranz, PLZ-Region); der Server erweitert nie selbst. Für "
            "Grundstücke und Stellplätze gibt es keine Schätzung je m² Wohnfläche."
        ),
        input_model=EstimateValueInput,
        output_model=EstimateValueOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
]
