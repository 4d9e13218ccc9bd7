"""Athaus für Makler: the write side of the office's stock (save_listing, update_listing_status).

Every tool here requires `makler:schreiben`, acts only on listings of the caller's office, is idempotent under
retry (`request_id`) and leaves an audit row. `ListingFields` is the one description of what a listing holds that
a writer may set; the domain (`shared.stock_writes`) validates every write, also the import's, against it.
"""

from __future__ import annotations

import datetime as dt
from typing import Annotated

from pydantic.json_schema import SkipJsonSchema
from pydantic import Field, field_validator, model_validator

from contract.broker_inquiries import ValuationSummary
from contract.catalog import ListingId
from contract.envelope import ContractModel
from contract.fields import HIGHEST_FLOOR, LATEST_YEAR, LOWEST_FLOOR, MAX_ENERGY_VALUE, MAX_LIVING_AREA_M2, MAX_MONTHLY_EUR, MAX_PLOT_AREA_M2, MAX_PRICE_EUR, MAX_ROOMS, MAX_VERSION, lenient, normalise_ref, request_id_field
from contract.labels import NOT_IN_TEXT, Label
from contract.rights import BROKER_WRITE
from contract.tool import Effect, ToolSpec
from contract.vocabulary import (
    CertificateType,
    EnergyStatus,
    Feature,
    ListingStatus,
    MarketingType,
    PropertyType,
    WriteResult,
)

REQUEST_ID = request_id_field()
Text = Annotated[str, Field(min_length=1)]


class PhotoInput(ContractModel):
    url: Annotated[str, Label("Adresse")] = Field(max_length=500, pattern=r"^https?://")
    caption: Annotated[str | None, Label("Bildunterschrift")] = Field(default=None, max_length=200)
    group: Annotated[str | None, Label("Art")] = Field(
        default=None, pattern=r"^(title|photo|floor_plan)$", description="title: Titelbild, photo: Foto, floor_plan: Grundriss."
    )


class ListingFields(ContractModel):
    """What a listing holds. Omitted: unchanged (on create: empty); null: cleared."""

    marketing_type: Annotated[lenient(MarketingType) | None, Label("Vermarktung")] = None  # type: ignore[valid-type]
    property_type: Annotated[lenient(PropertyType) | None, Label("Objektart")] = None  # type: ignore[valid-type]
    property_subtype: Annotated[str | None, Label("Unterart")] = Field(default=None, max_length=40)
    title: Annotated[Text | None, Label("Titel")] = Field(default=None, max_length=300)
    description: Annotated[str | None, Label("Beschreibung")] = Field(default=None, max_length=20000)
    location_text: Annotated[str | None, Label("Lage")] = Field(default=None, max_length=5000, description="Die Lage in Worten.")
    equipment_text: Annotated[str | None, Label("Ausstattung (Text)")] = Field(
        default=None, max_length=5000, description="Die Ausstattung in Worten."
    )
    other_text: Annotated[str | None, Label("Sonstiges")] = Field(default=None, max_length=5000, description="Sonstige Angaben.")
    postal_code: Annotated[str | None, Label("PLZ")] = Field(default=None, pattern=r"^\d{5}$")
    city: Annotated[Text | None, Label("Ort")] = Field(default=None, max_length=100)
    district: Annotated[str | None, Label("Stadtteil")] = Field(default=None, max_length=100)
    street: Annotated[str | None, Label("Straße")] = Field(default=None, max_length=200)
    house_number: Annotated[str | None, Label("Hausnummer")] = Field(default=None, max_length=20)
    address_published: Annotated[bool | None, Label("Adresse veröffentlicht")] = None
    coordinates_note: Annotated[str | None, Label("Koordinaten ungefähr")] = Field(
        default=None, max_length=300,
        description="Warum die Koordinaten nur ungefähr sind (ohne Koordinaten: Mitte der PLZ).",
    )
    # Why the listing has no photos: set by the import (shared/stock_import/pictures.py), not declared to models (the
    # tools' schema stays within its budget), shown by get_listing instead of the generic note.
    photos_note: Annotated[SkipJsonSchema[str | None], Label("Warum ohne Fotos")] = Field(default=None, max_length=300)
    state: Annotated[str | None, Label("Bundesland")] = Field(default=None, max_length=40)
    latitude: Annotated[float | None, Label("Breitengrad")] = Field(default=None, ge=47.0, le=55.2)
    longitude: Annotated[float | None, Label("Längengrad")] = Field(default=None, ge=5.8, le=15.1)
    price: Annotated[float | None, Label("Preis")] = Field(default=None, gt=0, le=MAX_PRICE_EUR, description="Kaufpreis bzw. Kaltmiete, EUR.")
    price_on_request: Annotated[bool | None, Label("Preis auf Anfrage")] = None
    service_charges: Annotated[float | None, Label("Nebenkosten")] = Field(default=None, ge=0, le=MAX_MONTHLY_EUR, description="Kauf: Hausgeld.")
    heating_costs: Annotated[float | None, Label("Heizkosten")] = Field(default=None, ge=0, le=MAX_MONTHLY_EUR)
    deposit: Annotated[str | None, Label("Kaution")] = Field(default=None, max_length=100)
    commission: Annotated[str | None, Label("Provision")] = Field(default=None, max_length=200)
    commission_percent: Annotated[float | None, Label("Provision %")] = Field(default=None, ge=0, le=20)
    living_area: Annotated[float | None, Label("Wohnfläche")] = Field(default=None, gt=0, le=MAX_LIVING_AREA_M2)
    plot_area: Annotated[float | None, Label("Grundstücksfläche")] = Field(default=None, gt=0, le=MAX_PLOT_AREA_M2)
    rooms: Annotated[float | None, Label("Zimmer")] = Field(default=None, gt=0, le=MAX_ROOMS)
    bedrooms: Annotated[int | None, Label("Schlafzimmer")] = Field(default=None, ge=0, le=MAX_ROOMS)
    bathrooms: Annotated[int | None, Label("Badezimmer")] = Field(default=None, ge=0, le=MAX_ROOMS)
    floor: Annotated[int | None, Label("Etage")] = Field(default=None, ge=LOWEST_FLOOR, le=HIGHEST_FLOOR)
    year_built: Annotated[int | None, Label("Baujahr")] = Field(default=None, ge=1000, le=LATEST_YEAR)
    condition: Annotated[str | None, Label("Zustand")] = Field(default=None, max_length=40)
    energy_status: Annotated[lenient(EnergyStatus) | None, Label("Energieausweis")] = None  # type: ignore[valid-type]
    energy_certificate_type: Annotated[lenient(CertificateType) | None, Label("Ausweisart")] = None  # type: ignore[valid-type]
    energy_value: Annotated[float | None, Label("Energiekennwert")] = Field(default=None, ge=0, le=MAX_ENERGY_VALUE, description="kWh/(m²·a).")
    energy_class: Annotated[str | None, Label("Effizienzklasse")] = Field(default=None, pattern=r"^(A\+|[A-H])$")
    energy_carrier: Annotated[str | None, Label("Energieträger")] = Field(default=None, max_length=40)
    energy_year_built: Annotated[int | None, Label("Baujahr laut Ausweis")] = Field(default=None, ge=1000, le=LATEST_YEAR)
    energy_valid_until: Annotated[dt.date | None, Label("Ausweis gültig bis")] = None
    photos: Annotated[list[PhotoInput] | None, Label("Fotos")] = None
    available_from: Annotated[dt.date | None, Label("frei ab")] = None
    availability_note: Annotated[str | None, Label("Verfügbarkeit")] = Field(default=None, max_length=100)
    features: Annotated[list[lenient(Feature)] | None, Label("Ausstattung")] = None  # type: ignore[valid-type]


# Required when a listing is created (the rest may follow before publishing; check_listing says what is missing).
REQUIRED_ON_CREATE = ("marketing_type", "property_type", "title", "postal_code", "city")


class SaveListingInput(ContractModel):
    listing_id: Annotated[ListingId | None, Label("Inserat")] = Field(default=None, description="Weggelassen: neues Objekt (Entwurf).")
    version: Annotated[int | None, Label("Version")] = Field(
        default=None, ge=1, le=MAX_VERSION, description="Aus get_listing."
    )
    fields: Annotated[ListingFields, Label("Angaben")] = Field(description="Weggelassen: unverändert; null: leeren.")
    request_id: Annotated[str, Label("Anfrageschlüssel")] = request_id_field(required=True)

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class SaveListingOutput(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    result: Annotated[WriteResult, Label("Ergebnis")]
    result_label: str
    version: Annotated[int, Label("Version")] = Field(description="Für die nächste Änderung mitsenden.")
    changed_fields: Annotated[list[str], NOT_IN_TEXT] = Field(description="Geänderte Felder (beim Anlegen: die gesetzten); leer bei unchanged.")
    changed_field_labels: Annotated[list[str], Label("geändert")] = Field(description="Dieselben deutsch.")
    status: Annotated[ListingStatus, Label("Status")]
    status_label: str
    publishable: Annotated[bool, Label("veröffentlichbar")]
    failed_rule_labels: Annotated[list[str], Label("nicht erfüllt")] = Field(description="Pflichtregeln von check_listing, die noch fehlen.")
    replayed: Annotated[bool, Label("Wiederholung")] = Field(description="true: request_id war schon ausgeführt, nichts erneut geändert.")
    matches_made: Annotated[int, Label("neue Treffer")] = Field(description="Treffer für Suchaufträge (etwa nach einer Preissenkung).")
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


class UpdateListingStatusInput(ContractModel):
    listing_id: Annotated[ListingId, Label("Inserat")]
    status: Annotated[lenient(ListingStatus), Label("neuer Status")] = Field(  # type: ignore[valid-type]
        description="published (veröffentlicht), reserved (reserviert), sold (verkauft, nur Kauf), let (vermietet, nur Miete), withdrawn "
        "(zurückgezogen); draft (Entwurf) nur aus withdrawn."
    )
    reason: Annotated[str | None, Label("Grund")] = Field(default=None, max_length=300)
    version: Annotated[int | None, Label("Version")] = Field(default=None, ge=1, le=MAX_VERSION, description="version aus get_listing.")
    request_id: Annotated[str | None, Label("Anfrageschlüssel")] = REQUEST_ID

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)


class UpdateListingStatusOutput(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)]
    result: Annotated[WriteResult, Label("Ergebnis")]
    result_label: str
    old_status: Annotated[ListingStatus, NOT_IN_TEXT]
    new_status: Annotated[ListingStatus, NOT_IN_TEXT]
    status_label: Annotated[str, Label("Status")] = Field(description="Deutsch, z. B. 'Entwurf → veröffentlicht'.")
    version: Annotated[int, Label("Version")]
    in_catalog: Annotated[bool, Label("im Katalog")] = Field(description="true: Suchende finden es (veröffentlicht).")
    replayed: Annotated[bool, Label("Wiederholung")]
    matches_made: Annotated[int, Label("neue Treffer")] = Field(description="Treffer, die dieser Schritt für Suchaufträge erzeugt hat.")
    proposals_made: Annotated[int, Label("neue Vorschläge")] = Field(description="Vorschläge an ansprechbare Suchende (list_proposals).")
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


# --- save_valuation --------------------------------------------------------------------------------------------

LEAD_FIELDS = ("owner_name", "address", "postal_code", "city", "property_type", "marketing_type", "living_area")


class SaveValuationInput(ContractModel):
    listing_id: Annotated[ListingId | None, Label("Inserat")] = Field(default=None, description="Objekt deines Bestands; seine Daten gelten.")
    owner_name: Annotated[str | None, Label("Eigentümer/in")] = Field(default=None, max_length=200, description="Ohne listing_id: Eigentümer-Kontakt.")
    address: Annotated[str | None, Label("Adresse")] = Field(default=None, max_length=300)
    postal_code: Annotated[str | None, Label("PLZ")] = Field(default=None, pattern=r"^\d{5}$")
    city: Annotated[str | None, Label("Ort")] = Field(default=None, max_length=100)
    property_type: Annotated[lenient(PropertyType) | None, Label("Objektart")] = None  # type: ignore[valid-type]
    marketing_type: Annotated[lenient(MarketingType) | None, Label("Vermarktung")] = None  # type: ignore[valid-type]
    living_area: Annotated[float | None, Label("Wohnfläche")] = Field(default=None, gt=0, le=MAX_LIVING_AREA_M2)
    value_low: Annotated[float, Label("Wert von")] = Field(gt=0, le=MAX_PRICE_EUR, description="EUR, etwa aus estimate_value.")
    value_high: Annotated[float, Label("Wert bis")] = Field(gt=0, le=MAX_PRICE_EUR)
    method: Annotated[str | None, Label("Methode")] = Field(default=None, max_length=300)
    comparables: Annotated[list[ListingId] | None, Label("Vergleichsobjekte")] = Field(default=None, description="Inseratsnummern.")
    note: Annotated[str | None, Label("Notiz")] = Field(default=None, max_length=2000)
    request_id: Annotated[str, Label("Anfrageschlüssel")] = request_id_field(required=True)

    _normalise = field_validator("listing_id", mode="before")(normalise_ref)

    @model_validator(mode="after")
    def _subject(self) -> SaveValuationInput:
        if self.value_low > self.value_high:
            raise ValueError(f"value_low ({self.value_low:g}) ist größer als value_high ({self.value_high:g})")
        given = [name for name in LEAD_FIELDS if getattr(self, name) is not None]
        if self.listing_id is not None and given:
            raise ValueError("mit listing_id gelten die Daten des Objekts; bitte ohne " + ", ".join(given) + " senden")
        missing = [name for name in ("postal_code", "city", "property_type", "marketing_type") if getattr(self, name) is None]
        if self.listing_id is None and missing:
            raise ValueError("ohne listing_id (Eigentümer-Kontakt) fehlt: " + ", ".join(missing))
        return self


class SaveValuationOutput(ValuationSummary):
    replayed: Annotated[bool, Label("Wiederholung")] = Field(description="true: request_id war schon gespeichert, nichts doppelt.")
    summary: Annotated[str, Label("Zusammenfassung", bare=True)]


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="save_listing",
        title="Objekt speichern",
        description=(
            "Legt ein Objekt als Entwurf an (ohne listing_id; Pflicht: marketing_type, property_type, title, "
            "postal_code, city) oder ändert es (listing_id, version aus get_listing; inzwischen geändert: CONFLICT "
            "mit den Feldern). Sagt, was zum Veröffentlichen fehlt."
        ),
        input_model=SaveListingInput,
        output_model=SaveListingOutput,
        effect=Effect.save,
        right=BROKER_WRITE,
        destructive=True,
        hints_because="mit listing_id überschreibt es Angaben, null leert ein Feld; request_id ist Pflicht, derselbe Aufruf zweimal ändert einmal.",
    ),
    ToolSpec(
        name="update_listing_status",
        title="Status ändern",
        description=(
            "Veröffentlicht, reserviert, verkauft/vermietet oder zieht ein Objekt zurück (mit Verlauf). "
            "Veröffentlichen verweigert ein Objekt, das check_listing nicht besteht (CONFLICT mit den Regeln). "
            "Zurückgezogen verlässt es den Katalog und bleibt im Bestand. Statuswechsel erzeugen Treffer und "
            "Vorschläge für passende Suchaufträge, je einmal."
        ),
        input_model=UpdateListingStatusInput,
        output_model=UpdateListingStatusOutput,
        effect=Effect.update,
        right=BROKER_WRITE,
        destructive=True,
        hints_because="zieht zurück oder nimmt ein Objekt als verkauft/vermietet aus dem Katalog; derselbe Status zweimal ändert nichts mehr.",
    ),
    ToolSpec(
        name="save_valuation",
        title="Bewertung speichern",
        description=(
            "Speichert eine Wertspanne für ein Objekt deines Bestands (listing_id) oder einen Eigentümer-Kontakt "
            "(PLZ, Ort, Objekt- und Vermarktungsart), etwa das Ergebnis von estimate_value; list_valuations zeigt sie."
        ),
        input_model=SaveValuationInput,
        output_model=SaveValuationOutput,
        effect=Effect.save,
        right=BROKER_WRITE,
    ),
]
