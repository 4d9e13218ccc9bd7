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
    rule: CheckRule
    rule_label: str = Field(description="Name der Regel, deutsch.")
    verdict: Verdict = Field(description="ok, failed (nicht erfüllt) oder not_checkable (nicht prüfbar, mit Grund).")
    verdict_label: str
    blocking: bool = Field(description="true: die Regel entscheidet über publishable; false: nur ein Hinweis.")
    message: str = Field(description="Deutsch: was geprüft wurde, was fehlt und was zu tun ist.")


class PriceComparison(ContractModel):
    """The comparison behind the price plausibility verdict."""

    price_per_sqm: float = Field(description="Preis je m² Wohnfläche dieses Objekts.")
    median_price_per_sqm: float = Field(description="Median der Vergleichsobjekte.")
    ratio: float = Field(description="price_per_sqm / median_price_per_sqm; plausibel von 0,5 bis 2.")
    comparables: int = Field(description="Zahl der Vergleichsobjekte (veröffentlicht, gleiche Vermarktungs- und Objektart, gleicher Ort).")
    price_on_request_excluded: int = Field(description="Sonst passende Inserate ohne Preis (Preis auf Anfrage), nicht verwendet.")
    living_area_unknown_excluded: int = Field(description="Sonst passende Inserate ohne Wohnfläche, nicht verwendet.")


class CheckListingInput(ContractModel):
    listing_id: ListingId

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class CheckListingOutput(ContractModel):
    listing_id: str
    title: str
    status: ListingStatus
    status_label: str
    publishable: bool = Field(description="true, wenn jede Regel mit blocking = true ok ist.")
    summary: str = Field(description="Deutsch: das Ergebnis in einem Satz.")
    rules: list[RuleResult] = Field(description="Ein Urteil je Regel, immer alle Regeln in fester Reihenfolge.")
    price_comparison: PriceComparison | Absent
    checked_at: dt.datetime
    freshness: Freshness


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
    resource_uri: str | Absent = Field(  # type: ignore[assignment]
        description="Öffentliches Exposé als MCP-Ressource; nur für veröffentlichte Inserate."
    )
    published_at: dt.datetime | Absent = Field(description="Erste Veröffentlichung; Entwürfe haben keine.")  # type: ignore[assignment]
    status: ListingStatus
    status_label: str
    created_at: dt.datetime
    updated_at: dt.datetime


SearchStockOutput = ListResult[StockListing]


# --- get_listing ----------------------------------------------------------------------------------------------


class GetStockListingInput(ContractModel):
    listing_id: ListingId

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class StatusChangeEntry(ContractModel):
    old_status: ListingStatus | None = Field(description="null: beim Anlegen.")
    new_status: ListingStatus
    label: str = Field(description="Deutsch, z. B. 'Entwurf → veröffentlicht'.")
    changed_at: dt.datetime
    changed_by: str | Absent = Field(description="Name des Büromitglieds; fehlt bei Änderungen durch Import oder System.")


class InquiryRef(ContractModel):
    inquiry_id: str = Field(description="Anfragenummer für get_inquiry, z. B. I-000012.")
    status: InquiryStatus
    status_label: str
    created_at: dt.datetime
    last_message_at: dt.datetime


class ListingInquiries(ContractModel):
    total: int = Field(description="Alle Anfragen zu diesem Objekt.")
    open: int = Field(description="Davon offen (warten auf eine Antwort des Büros).")
    shown: int
    all_shown: bool = Field(description="false: latest zeigt nur die neuesten; search_inquiries mit listing_id zeigt alle.")
    latest: list[InquiryRef] = Field(description="Die neuesten zuerst (Eingang absteigend, dann Nummer).")


class OpenDraft(ContractModel):
    confirmation_id: str = Field(description="Nummer der wartenden Bestätigung, z. B. C-000003.")
    kind: str = Field(description="send_reply, decide_proposal, …")
    kind_label: str
    subject_ref: str = Field(description="Die Anfrage oder der Vorschlag, auf die sie wirkt.")
    summary: str
    created_at: dt.datetime
    expires_at: dt.datetime
    expired: bool = Field(description="true: abgelaufen, ein Klick führt sie nicht mehr aus.")


class OpenDrafts(ContractModel):
    total: int
    shown: int
    all_shown: bool
    items: list[OpenDraft] = Field(description="Die ältesten zuerst.")


class ProposalRef(ContractModel):
    proposal_id: str = Field(description="Vorschlagsnummer, z. B. P-000007.")
    status: ProposalStatus
    status_label: str
    created_at: dt.datetime
    decided_at: dt.datetime | None


class ListingProposals(ContractModel):
    total: int
    open: int
    shown: int
    all_shown: bool
    items: list[ProposalRef] = Field(description="Die neuesten zuerst.")


class StockListingDetail(ListingDetail):
    resource_uri: str | Absent = Field(  # type: ignore[assignment]
        description="Öffentliches Exposé als MCP-Ressource; nur für veröffentlichte Inserate."
    )
    published_at: dt.datetime | Absent = Field(description="Erste Veröffentlichung; Entwürfe haben keine.")  # type: ignore[assignment]
    status_label: str
    address_published: bool = Field(
        description="true: die genaue Adresse steht im öffentlichen Exposé; false: Suchende sehen sie erst auf Anfrage. Hier steht sie immer."
    )
    created_at: dt.datetime
    status_history: list[StatusChangeEntry] | Absent = Field(description="Statusverlauf, älteste Änderung zuerst.")
    inquiries: ListingInquiries
    open_drafts: OpenDrafts = Field(description="Wartende Bestätigungen zu Anfragen und Vorschlägen dieses Objekts.")
    check: CheckListingOutput = Field(description="Ergebnis von check_listing für dieses Objekt.")
    proposals: ListingProposals


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
    label: str
    count: int


class WaitingInquiry(ContractModel):
    inquiry_id: str
    listing_id: str
    title: str = Field(description="Titel des Objekts.")
    first_contact: bool = Field(description="true: das Büro hat noch nie geantwortet; false: Rückfrage nach einer Antwort.")
    waiting_since: dt.datetime = Field(description="Erste unbeantwortete Nachricht des Suchenden.")
    waiting_hours: float


class _Section(ContractModel):
    """The head of every section of the situation report. Each section names itself (`section`, a literal) and
    says what its `total` counts; then come its own counts, and last `shown`, `all_shown` and `items`: the first
    items_per_section of the `total` open points."""

    section: str
    title: str
    summary: str
    total: int


class InquirySection(_Section):
    section: Literal["inquiries"] = "inquiries"
    total: int = Field(description="Alle offenen Anfragen, die auf eine Antwort des Büros warten.")
    new: int = Field(description="Davon noch nie beantwortet.")
    follow_ups: int = Field(description="Davon Rückfragen nach einer Antwort.")
    by_age: list[AgeBand] = Field(description="Wartezeit: unter 24 Stunden, 1 bis 3 Tage, über 3 Tage; die Summe ist total.")
    shown: int
    all_shown: bool
    items: list[WaitingInquiry] = Field(description="Die am längsten wartenden zuerst.")


class WaitingConfirmation(ContractModel):
    confirmation_id: str
    kind: str
    kind_label: str
    subject_ref: str
    summary: str
    created_at: dt.datetime
    expires_at: dt.datetime
    waiting_hours: float


class ConfirmationSection(_Section):
    section: Literal["confirmations"] = "confirmations"
    total: int = Field(description="Wartende Bestätigungen (Status pending, noch nicht abgelaufen).")
    expired: int = Field(description="Getrennt gezählt: in den letzten 30 Tagen abgelaufen, ohne ausgeführt zu sein.")
    shown: int
    all_shown: bool
    items: list[WaitingConfirmation] = Field(description="Die ältesten zuerst.")


class BlockedDraft(ContractModel):
    listing_id: str
    title: str
    created_at: dt.datetime
    failed_rules: list[CheckRule]
    reasons: list[str] = Field(description="Deutsch, je nicht erfüllter Regel ein Satz.")


class UnpublishableSection(_Section):
    section: Literal["unpublishable"] = "unpublishable"
    total: int = Field(description="Entwürfe, die check_listing nicht bestehen (eine Regel mit blocking = true nicht ok).")
    drafts_checked: int = Field(description="Alle Entwürfe des Büros; jeder wurde geprüft.")
    shown: int
    all_shown: bool
    items: list[BlockedDraft] = Field(description="Die ältesten Entwürfe zuerst.")


class DueCertificate(ContractModel):
    listing_id: str
    title: str
    valid_until: dt.date
    days_left: int = Field(description="Tage bis zum Ablauf; negativ: seit so vielen Tagen abgelaufen.")
    expired: bool


class EnergySection(_Section):
    section: Literal["energy_certificates"] = "energy_certificates"
    total: int = Field(description="Veröffentlichte Inserate, deren Energieausweis abgelaufen ist oder im Zeitraum abläuft.")
    expired: int
    expiring: int
    window_days: int
    shown: int
    all_shown: bool
    items: list[DueCertificate] = Field(description="Das früheste Ablaufdatum zuerst.")


class WaitingProposal(ContractModel):
    proposal_id: str
    listing_id: str
    title: str
    created_at: dt.datetime
    waiting_hours: float


class ProposalSection(_Section):
    section: Literal["proposals"] = "proposals"
    total: int = Field(description="Offene Vorschläge (noch nicht entschieden).")
    shown: int
    all_shown: bool
    items: list[WaitingProposal] = Field(description="Die ältesten zuerst.")


ReportSection = Annotated[
    InquirySection | ConfirmationSection | UnpublishableSection | EnergySection | ProposalSection,
    Field(discriminator="section"),
]


class KeyFigures(ContractModel):
    days: int
    days_label: str
    since: dt.datetime
    new_inquiries: int = Field(description="Im Zeitraum eingegangene Anfragen.")
    replies_sent: int = Field(description="Im Zeitraum gesendete Nachrichten des Büros.")
    listings_published: int = Field(description="Inserate, deren erste Veröffentlichung im Zeitraum liegt (published_at).")
    average_first_response_hours: float | Absent = Field(
        description="Mittlere Zeit bis zur ersten Antwort, über die im Zeitraum eingegangenen und beantworteten Anfragen."
    )
    answered_inquiries: int = Field(description="Anfragen, über die der Mittelwert gebildet ist.")
    unanswered_excluded: int = Field(description="Im Zeitraum eingegangene Anfragen ohne Antwort; nicht im Mittelwert enthalten.")


class SituationReportOutput(ContractModel):
    status: Literal["complete", "partial"]
    completeness: Completeness
    total: int = Field(description="Offene Punkte aller Abschnitte zusammen.")
    match_type: Literal["matches", "none"]
    request: dict[str, EffectiveValue]
    warnings: list[ResultWarning]
    freshness: Freshness
    hint: str | None = None
    suggestions: list[Suggestion] | None = None
    office: str
    as_of: dt.datetime = Field(description="Der Zeitpunkt 'jetzt', auf den sich Alter und Fristen beziehen.")
    sections: list[ReportSection] = Field(
        description="In dieser Reihenfolge: inquiries, confirmations, unpublishable, energy_certificates, proposals."
    )
    key_figures: list[KeyFigures] = Field(description="Kennzahlen über 7 und 30 Tage.")


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
    listing_id: str | None = Field(description="Gesetzt, wenn die Daten aus dem Bestand stammen.")
    source: Literal["listing", "caller"]
    source_label: str
    property_type: PropertyType
    marketing_type: MarketingType
    city: str | None
    postal_code: str | None
    living_area: float
    rooms: float | None
    year_built: int | None


class ComparisonArea(ContractModel):
    city: str | None = Field(description="Ort der Vergleichsobjekte; null, wenn postal_codes gilt.")
    postal_codes: list[str] | None
    living_area_min: float
    living_area_max: float
    tolerance_percent: int


class ValueRange(ContractModel):
    low: Money = Field(description="Unteres Quartil des Preises je m² × Wohnfläche (abgerundet).")
    median: Money = Field(description="Median des Preises je m² × Wohnfläche.")
    high: Money = Field(description="Oberes Quartil des Preises je m² × Wohnfläche (aufgerundet).")
    price_per_sqm_low: float
    price_per_sqm_median: float
    price_per_sqm_high: float
    basis: str = Field(description="Kaufpreis oder Kaltmiete pro Monat.")


class ComparablesUsed(ContractModel):
    total: int = Field(description="Alle verwendeten Vergleichsobjekte.")
    shown: int
    all_shown: bool
    listing_ids: list[str] = Field(description="Inseratsnummern, die in der Wohnfläche nächsten zuerst (dann Nummer).")


class Exclusions(ContractModel):
    price_on_request: int = Field(description="Sonst passende Inserate mit 'Preis auf Anfrage', nicht verwendet.")
    living_area_unknown: int = Field(description="Inserate gleicher Art im Gebiet ohne Wohnfläche, nicht verwendet.")
    subject_listing: bool = Field(description="true: das Objekt selbst ist veröffentlicht und wurde nicht als Vergleich verwendet.")


class ConfidenceFactor(StrEnum):
    few_comparables = "few_comparables"
    wide_spread = "wide_spread"
    price_on_request_excluded = "price_on_request_excluded"
    living_area_unknown_excluded = "living_area_unknown_excluded"
    rooms_differ = "rooms_differ"
    year_built_differs = "year_built_differs"


class ConfidenceNote(ContractModel):
    factor: ConfidenceFactor
    message: str


class Confidence(ContractModel):
    level: Literal["high", "medium", "low", "none"] = Field(
        description="high: nichts mindert; medium: ein Umstand; low: zwei oder mehr, oder sehr weite Streuung; none: keine Spanne."
    )
    level_label: str
    lowered_by: list[ConfidenceNote] = Field(description="Was das Vertrauen mindert, je Umstand ein Satz.")


class EstimateValueOutput(ContractModel):
    estimable: bool = Field(description="false: zu wenige Vergleichsobjekte, keine Spanne; siehe hint und suggestions.")
    subject: EstimateSubject
    comparison_area: ComparisonArea
    value_range: ValueRange | None = Field(description="null, wenn estimable false ist.")
    comparables: ComparablesUsed
    excluded: Exclusions
    method: str
    confidence: Confidence
    hint: str | None = Field(default=None, description="Nur ohne Spanne: warum und der nächste Schritt.")
    suggestions: list[Suggestion] = Field(
        description="Nur ohne Spanne: Änderungen deiner Eingabe, vom Server nicht gesucht und nicht gezählt."
    )
    warnings: list[ResultWarning] = Field(
        description="DEFAULT_SCOPE_APPLIED nennt jeden Standard, den der Server angewandt hat (Toleranz, Vergleichsgebiet); "
        "PRICE_ON_REQUEST_EXCLUDED und VALUE_UNKNOWN_EXCLUDED zählen, was nicht in die Rechnung einging."
    )
    freshness: Freshness


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
