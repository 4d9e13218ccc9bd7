"""Athaus für Makler: the office's stock (search_listings, get_listing) and the publishing check (check_listing)."""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Annotated

from pydantic import Field, field_validator

from contract.catalog import (
    CatalogFilters,
    IncludeFields,
    ListingDetail,
    ListingId,
    ListingSummary,
    SortOrder,
)
from contract.envelope import (
    Absent,
    ContractModel,
    Freshness,
    ListResult,
)
from contract.fields import MAX_CURSOR_CHARS, lenient, normalise_ref
from contract.labels import NOT_IN_TEXT, Label, Style, title_label
from contract.rights import BROKER_READ
from contract.tool import Effect, ToolSpec
from contract.vocabulary import InquiryStatus, ListingStatus, ProposalStatus

# --- input vocabulary -------------------------------------------------------------------------------------

# A listing status as input: the English value or the German word (`veröffentlicht`, `verkauft`, …).
StatusInput = lenient(ListingStatus)

SORT_KEYS_STOCK: dict[SortOrder, str] = {
    SortOrder.newest: "published_at desc (nie veröffentlichte Entwürfe zuletzt), listing_id asc",
    SortOrder.price_asc: "price asc (Preis auf Anfrage zuletzt), listing_id asc",
    SortOrder.price_desc: "price desc (Preis auf Anfrage zuletzt), listing_id asc",
    SortOrder.living_area_desc: "living_area desc (ohne Angabe zuletzt), listing_id asc",
}
SORT_TEXT_STOCK: dict[SortOrder, str] = {
    SortOrder.newest: "zuletzt veröffentlicht zuerst, nie veröffentlichte zuletzt",
    SortOrder.price_asc: "Preis aufsteigend, Preis auf Anfrage zuletzt",
    SortOrder.price_desc: "Preis absteigend, Preis auf Anfrage zuletzt",
    SortOrder.living_area_desc: "größte Wohnfläche zuerst, ohne Angabe zuletzt",
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
    rule: Annotated[CheckRule, Label("Regel", bare=True)]
    rule_label: str = Field(description="Name der Regel, deutsch.")
    verdict: Annotated[Verdict, Label("Urteil", bare=True)] = Field(description="ok (erfüllt), failed (nicht erfüllt) oder not_checkable (nicht prüfbar, mit Grund).")
    verdict_label: str
    blocking: Annotated[bool, Label("Pflichtregel")] = Field(description="true: die Regel entscheidet über publishable; false: nur ein Hinweis.")
    message: Annotated[str, Label("Befund", bare=True)] = Field(description="Deutsch: was geprüft wurde, was fehlt und was zu tun ist.")


class PriceComparison(ContractModel):
    """The comparison behind the price plausibility verdict."""

    price_per_sqm: Annotated[float, Label("Preis je m²", unit="€/m²", style=Style.whole)] = Field(description="Preis je m² Wohnfläche dieses Objekts.")
    median_price_per_sqm: Annotated[float, Label("Median der Vergleichsobjekte", unit="€/m²", style=Style.whole)] = Field(description="Median der Vergleichsobjekte.")
    ratio: Annotated[float, Label("Verhältnis")] = Field(description="price_per_sqm / median_price_per_sqm; plausibel von 0,5 bis 2.")
    comparables: Annotated[int, Label("Vergleichsobjekte")] = Field(description="Zahl der Vergleichsobjekte (veröffentlicht, gleiche Vermarktungs- und Objektart, gleicher Ort).")
    price_on_request_excluded: Annotated[int, Label("ohne Preis, nicht verwendet")] = Field(description="Sonst passende Inserate ohne Preis (Preis auf Anfrage), nicht verwendet.")
    living_area_unknown_excluded: Annotated[int, Label("ohne Wohnfläche, nicht verwendet")] = Field(description="Sonst passende Inserate ohne Wohnfläche, nicht verwendet.")


class CheckListingInput(ContractModel):
    listing_id: Annotated[ListingId, Label("Inserat")]

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class CheckListingOutput(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    title: Annotated[str, title_label(bare=False)]
    status: Annotated[ListingStatus, Label("Status")]
    status_label: str
    publishable: Annotated[bool, Label("veröffentlichbar")] = Field(description="true, wenn jede Regel mit blocking = true ok ist.")
    summary: Annotated[str, Label("Ergebnis")] = Field(description="Deutsch: das Ergebnis in einem Satz.")
    rules: Annotated[list[RuleResult], Label("Regeln")] = Field(description="Ein Urteil je Regel, immer alle Regeln in fester Reihenfolge.")
    price_comparison: Annotated[PriceComparison | Absent, Label("Preisvergleich")]
    checked_at: Annotated[dt.datetime, Label("geprüft")]
    freshness: Annotated[Freshness, NOT_IN_TEXT]


# --- search_listings (office stock) -------------------------------------------------------------------------


OBJEKTNR_EXTERN = Field(description="Schlüssel des Objekts im OpenImmo-Feed (import_listings); fehlt bei Objekten, die hier angelegt wurden.")


class StockFilters(CatalogFilters):
    statuses: Annotated[list[StatusInput] | None, Label("Status")] = None  # type: ignore[valid-type]
    publishable: Annotated[bool | None, Label("veröffentlichbar")] = Field(
        default=None, description="true: nur heute veröffentlichbare; false: nur die übrigen."
    )
    objektnr_extern: Annotated[list[Annotated[str, Field(min_length=1, max_length=100)]] | None, Label("Objektnr. extern")] = Field(
        default=None, max_length=50,
        description="OpenImmo-Schlüssel importierter Objekte.",
    )


class SearchStockInput(StockFilters):
    include: Annotated[IncludeFields, Label("mit")] = Field(default_factory=IncludeFields, description="Teile jedes Treffers.")
    sort: Annotated[SortOrder, Label("Reihenfolge")] = Field(
        default=SortOrder.newest,
        description=(
            "newest (neueste zuerst), price_asc (billigste), price_desc (teuerste), living_area_desc (größte); "
            "nie veröffentlichte zuletzt."
        ),
    )
    limit: Annotated[int, Label("pro Seite")] = Field(default=10, ge=1, le=50, description="Einträge pro Seite.")
    cursor: Annotated[str | None, Label("Seite")] = Field(default=None, max_length=MAX_CURSOR_CHARS, description="next_cursor der vorigen Seite.")


class StockListing(ListingSummary):
    resource_uri: Annotated[str | Absent, NOT_IN_TEXT] = Field(
        description="Öffentliches Exposé als MCP-Ressource; nur für veröffentlichte Inserate."
    )
    # the list line shows the date the default order sorts by (newest: published_at), not the creation date
    published_at: Annotated[dt.datetime | Absent, Label("veröffentlicht")] = Field(description="Letzte Veröffentlichung aus Entwurf oder Rückzug (die erste steht in status_history); Entwürfe haben keine.")
    status: Annotated[ListingStatus, Label("Status", bare=True)]
    status_label: str
    objektnr_extern: Annotated[str | Absent, Label("Objektnr. extern")] = OBJEKTNR_EXTERN
    created_at: Annotated[dt.datetime, Label("angelegt", brief=False)]
    updated_at: Annotated[dt.datetime, Label("aktualisiert", brief=False)]
    publishable: Annotated[bool, Label("veröffentlichbar")] = Field(
        description="Ob das Objekt jetzt veröffentlicht werden kann: jede Pflichtregel von check_listing ist heute erfüllt."
    )
    failed_rules: Annotated[list[CheckRule], NOT_IN_TEXT] = Field(
        description="Die Pflichtregeln, die es heute nicht erfüllt, in der Reihenfolge von check_listing; leer, wenn publishable true ist."
    )
    failed_rule_labels: Annotated[list[str], Label("nicht erfüllt")] = Field(description="Dieselben Regeln mit ihrem deutschen Namen.")


SearchStockOutput = ListResult[StockListing]


# --- get_listing ----------------------------------------------------------------------------------------------


class GetStockListingInput(ContractModel):
    listing_id: Annotated[ListingId, Label("Inserat")]

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class StatusChangeEntry(ContractModel):
    old_status: Annotated[ListingStatus | None, NOT_IN_TEXT] = Field(description="null: beim Anlegen.")
    new_status: Annotated[ListingStatus, NOT_IN_TEXT]
    label: Annotated[str, Label("Status", bare=True)] = Field(description="Deutsch, z. B. 'Entwurf → veröffentlicht'.")
    changed_at: Annotated[dt.datetime, Label("geändert")]
    changed_by: Annotated[str | Absent, Label("durch")] = Field(description="Name des Büromitglieds; fehlt bei Änderungen durch Import oder System.")


class InquiryRef(ContractModel):
    inquiry_id: Annotated[str, Label("Anfrage", bare=True)] = Field(description="Anfragenummer für get_inquiry, z. B. I-000012.")
    status: Annotated[InquiryStatus, Label("Status", bare=True)]
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
    confirmation_id: Annotated[str, Label("Bestätigung", bare=True)] = Field(description="Nummer der wartenden Bestätigung, z. B. C-000003.")
    kind: Annotated[str, Label("Art")] = Field(description="Art des vorbereiteten Schritts (eine Antwort senden, einen Vorschlag entscheiden); kind_label nennt sie deutsch.")
    kind_label: str
    subject_ref: Annotated[str, Label("betrifft")] = Field(description="Die Anfrage oder der Vorschlag, auf die sie wirkt.")
    summary: Annotated[str, Label("Inhalt", bare=True)]
    created_at: Annotated[dt.datetime, Label("vom")]
    expires_at: Annotated[dt.datetime, Label("gültig bis")]
    expired: Annotated[bool, Label("abgelaufen")] = Field(description="true: abgelaufen, ein Klick führt sie nicht mehr aus.")


class OpenDrafts(ContractModel):
    total: Annotated[int, Label("Gesamt")]
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    items: Annotated[list[OpenDraft], Label("Einträge")] = Field(description="Die ältesten zuerst.")


class ProposalRef(ContractModel):
    proposal_id: Annotated[str, Label("Vorschlag", bare=True)] = Field(description="Vorschlagsnummer, z. B. P-000007.")
    status: Annotated[ProposalStatus, Label("Status", bare=True)]
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
    published_at: Annotated[dt.datetime | Absent, Label("veröffentlicht", brief=False)] = Field(description="Letzte Veröffentlichung aus Entwurf oder Rückzug (die erste steht in status_history); Entwürfe haben keine.")  # type: ignore[assignment]
    status_label: str
    address_published: Annotated[bool, Label("Adresse im Exposé veröffentlicht")] = Field(
        description="true: die genaue Adresse steht im öffentlichen Exposé; false: Suchende sehen sie erst auf Anfrage. Hier steht sie immer."
    )
    objektnr_extern: Annotated[str | Absent, Label("Objektnr. extern")] = OBJEKTNR_EXTERN
    created_at: Annotated[dt.datetime, Label("angelegt")]
    version: Annotated[int, Label("Version", brief=False)] = Field(description="Mit save_listing und update_listing_status mitsenden.")
    status_history: Annotated[list[StatusChangeEntry] | Absent, Label("Statusverlauf")] = Field(description="Statusverlauf, älteste Änderung zuerst.")
    inquiries: Annotated[ListingInquiries, Label("Anfragen")]
    open_drafts: Annotated[OpenDrafts, Label("Offene Entwürfe")] = Field(description="Wartende Bestätigungen zu Anfragen und Vorschlägen dieses Objekts.")
    check: Annotated[CheckListingOutput, Label("Prüfung")] = Field(description="Ergebnis von check_listing für dieses Objekt.")
    proposals: Annotated[ListingProposals, Label("Vorschläge")]


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="search_listings",
        title="Bestand durchsuchen",
        description=(
            "Durchsucht den Bestand deines Büros in jedem Status, mit Volltext und Filtern wie die "
            "öffentliche Suche. Jeder Treffer "
            "sagt, ob er heute veröffentlicht werden kann und welche Pflichtregeln von check_listing er "
            "nicht erfüllt. Ein weggelassener Filter heißt: alles davon; die Reihenfolge ist total (sort_key)."
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
            "Ein Objekt deines Bestands (jeder Status) mit allem für die nächste "
            "Entscheidung, mit genauer Adresse und dem Ergebnis von check_listing. Fremde Objekte gibt es hier nicht "
            "(NOT_FOUND)."
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
            "Prüft, ob ein Objekt deines Bestands veröffentlicht werden kann, je Regel mit Satz. Pflicht: Energieausweis nach GEG §87 (Ausweisart, Kennwert, Energieträger, "
            "Baujahr, bei Wohngebäuden Effizienzklasse und Gültigkeit, nicht abgelaufen; "
            "entfällt nur für Stellplätze, Grundstücke und Baudenkmäler), Titel, Beschreibung ab 200 "
            "Zeichen, Preis oder 'Preis auf Anfrage', Wohnfläche und Zimmer bei Wohnung und Haus, "
            "mindestens ein Foto. Nur Hinweis: Preis je m² gegen den Median gleichartiger Inserate im Ort "
            "(außerhalb 0,5–2-fach failed)."
        ),
        input_model=CheckListingInput,
        output_model=CheckListingOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
]
