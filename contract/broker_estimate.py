"""Athaus für Makler: estimate_value, a value range from comparable listings."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, field_validator, model_validator

from contract.catalog import (
    ListingId,
    Money,
)
from contract.envelope import (
    Absent,
    ContractModel,
    Freshness,
    ResultWarning,
    Suggestion,
)
from contract.fields import lenient, normalise_ref
from contract.labels import NOT_IN_TEXT, Label, Style
from contract.rights import BROKER_READ
from contract.tool import Effect, ToolSpec
from contract.vocabulary import MarketingType, PropertyType

# --- estimate_value -----------------------------------------------------------------------------------------------

OBJECT_FIELDS = ("postal_code", "city", "property_type", "marketing_type", "living_area", "rooms", "year_built")
VALUED_TYPES = (PropertyType.apartment, PropertyType.house, PropertyType.commercial)


def _offered_types(schema: dict[str, Any]) -> None:
    """The schema offers only the types a value is estimated for (land and parking have no comparable m² price)."""
    field = schema["properties"]["property_type"]
    for member in [field, *field.get("anyOf", [])]:
        if "enum" in member or "PropertyType" in str(member.get("$ref", "")):
            member.pop("$ref", None)
            member.update({"type": "string", "enum": [t.value for t in VALUED_TYPES]})


class EstimateValueInput(ContractModel):
    model_config = ConfigDict(json_schema_extra=_offered_types)

    listing_id: Annotated[ListingId | None, Label("Inserat")] = Field(
        default=None, description="Objekt deines Bestands; seine Daten gelten."
    )
    postal_code: Annotated[str | None, Label("PLZ")] = Field(default=None, pattern=r"^\d{5}$", description="PLZ des Objekts; bestimmt den Ort, wenn city fehlt.")
    city: Annotated[str | None, Label("Ort")] = Field(default=None, max_length=100, description="Ort des Objekts (wie bei der Suche aufgelöst).")
    property_type: Annotated[lenient(PropertyType) | None, Label("Objektart")] = Field(  # type: ignore[valid-type]
        default=None, description="apartment, house oder commercial."
    )
    marketing_type: Annotated[lenient(MarketingType) | None, Label("Vermarktung")] = Field(  # type: ignore[valid-type]
        default=None, description="buy: Kaufpreis; rent: Kaltmiete pro Monat."
    )
    living_area: Annotated[float | None, Label("Wohnfläche", unit="m²")] = Field(default=None, gt=0, le=20_000, description="Wohn- bzw. Nutzfläche in m².")
    rooms: Annotated[float | None, Label("Zimmer")] = Field(default=None, gt=0, le=100, description="Nur zum Abgleich.")
    year_built: Annotated[int | None, Label("Baujahr", style=Style.year)] = Field(default=None, ge=1500, le=2100, description="Nur zum Abgleich.")
    area_tolerance_percent: Annotated[int, Label("Toleranz der Wohnfläche", unit="%")] = Field(
        default=30, ge=5, le=100, description="Wohnfläche der Vergleichsobjekte ± so viel Prozent."
    )
    postal_codes: Annotated[list[Annotated[str, Field(pattern=r"^\d{2,5}$")]] | None, Label("PLZ-Bereiche")] = Field(
        default=None,
        description="Vergleichsgebiet als PLZ oder PLZ-Anfang statt des Orts.",
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
    listing_id: Annotated[str | None, Label("Inserat", bare=True)] = Field(description="Gesetzt, wenn die Daten aus dem Bestand stammen.")
    source: Annotated[Literal["listing", "caller"], Label("Angaben")]
    source_label: str
    property_type: Annotated[PropertyType, Label("Objektart")]
    marketing_type: Annotated[MarketingType, Label("Vermarktung")]
    city: Annotated[str | None, Label("Ort")]
    postal_code: Annotated[str | None, Label("PLZ")]
    living_area: Annotated[float, Label("Wohnfläche", unit="m²")]
    rooms: Annotated[float | None, Label("Zimmer")]
    year_built: Annotated[int | None, Label("Baujahr", style=Style.year)]


class ComparisonArea(ContractModel):
    city: Annotated[str | None, Label("Ort")] = Field(description="Ort der Vergleichsobjekte; null, wenn postal_codes gilt.")
    postal_codes: Annotated[list[str] | None, Label("PLZ-Bereiche")]
    living_area_min: Annotated[float, Label("Wohnfläche ab", unit="m²")]
    living_area_max: Annotated[float, Label("Wohnfläche bis", unit="m²")]
    tolerance_percent: Annotated[int, Label("Toleranz", unit="%")]


class ValueRange(ContractModel):
    low: Annotated[Money, Label("von")] = Field(description="Unteres Quartil des Preises je m² × Wohnfläche (abgerundet).")
    median: Annotated[Money, Label("Median")] = Field(description="Median des Preises je m² × Wohnfläche.")
    high: Annotated[Money, Label("bis")] = Field(description="Oberes Quartil des Preises je m² × Wohnfläche (aufgerundet).")
    price_per_sqm_low: Annotated[float, Label("je m² von", unit="€/m²", style=Style.whole)]
    price_per_sqm_median: Annotated[float, Label("je m² Median", unit="€/m²", style=Style.whole)]
    price_per_sqm_high: Annotated[float, Label("je m² bis", unit="€/m²", style=Style.whole)]
    basis: Annotated[str, Label("Grundlage")] = Field(description="Kaufpreis oder Kaltmiete pro Monat.")


OPEN_A_COMPARABLE = (
    "Das Exposé eines Vergleichsobjekts (meist eines anderen Büros) öffnet resource_uri in der Athaus "
    "Immobiliensuche (/suche/mcp); get_listing hier öffnet nur den eigenen Bestand."
)


class ComparableListing(ContractModel):
    listing_id: Annotated[str, Label("Inserat", bare=True)] = Field(description="Inseratsnummer des Vergleichsobjekts.")
    price: Annotated[Money, Label("Preis", bare=True)] = Field(description="Angebotspreis: Kaufpreis bzw. Kaltmiete pro Monat.")
    living_area: Annotated[float, Label("Wohnfläche", unit="m²", bare=True)]
    price_per_sqm: Annotated[float, Label("Preis je m²", unit="€/m²", style=Style.whole)] = Field(description="price ÷ living_area, wie in die Spanne eingegangen.")
    year_built: Annotated[int | Absent, Label("Baujahr", style=Style.year)]
    postal_code: Annotated[str, Label("PLZ", bare=True)]
    distance_km: Annotated[float | Absent, Label("Entfernung", unit="km")] = Field(description="Luftlinie von distance_from, auf 0,1 km gerundet.")
    resource_uri: Annotated[str, NOT_IN_TEXT] = Field(description="Das öffentliche Exposé, z. B. athaus://suche/inserate/A-0000042. " + OPEN_A_COMPARABLE)


class ComparablesUsed(ContractModel):
    total: Annotated[int, Label("Gesamt")] = Field(description="Alle verwendeten Vergleichsobjekte.")
    shown: Annotated[int, Label("gezeigt")]
    all_shown: Annotated[bool, Label("alle gezeigt")]
    distance_from: Annotated[str | Absent, Label("Entfernung gemessen von")] = Field(
        description="Die Lage des Objekts aus dem Bestand, sonst die Mitte seiner PLZ oder seines Orts."
    )
    items: Annotated[list[ComparableListing], Label("Einträge")] = Field(
        description="Die in der Wohnfläche nächsten zuerst (dann Inseratsnummer), höchstens 20."
    )


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


FACTOR_LABELS = {
    ConfidenceFactor.few_comparables: "wenige Vergleichsobjekte",
    ConfidenceFactor.wide_spread: "weite Streuung",
    ConfidenceFactor.price_on_request_excluded: "Inserate mit Preis auf Anfrage fehlen",
    ConfidenceFactor.living_area_unknown_excluded: "Inserate ohne Wohnfläche fehlen",
    ConfidenceFactor.rooms_differ: "Zimmerzahl weicht ab",
    ConfidenceFactor.year_built_differs: "Baujahr weicht ab",
}


class ConfidenceNote(ContractModel):
    factor: Annotated[ConfidenceFactor, Label("Umstand", bare=True)]
    factor_label: str
    message: Annotated[str, Label("Befund", bare=True)]


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


TOOLS: list[ToolSpec] = [
    ToolSpec(
        name="estimate_value",
        title="Wert schätzen",
        description=(
            "Schätzt eine Wertspanne (Kaufpreis oder Kaltmiete) aus vergleichbaren veröffentlichten "
            "Inseraten: gleiche Vermarktung und Objektart, gleicher Ort oder postal_codes, Wohnfläche "
            "±area_tolerance_percent. Spanne = Quartile des Preises je m² × Wohnfläche; Angebotspreise, "
            "keine Verkaufspreise. Eingabe: listing_id oder die Objektdaten. Nennt Vergleichsobjekte (bis 20), "
            "Methode und was das Vertrauen mindert; unter 5 Vergleichsobjekten keine Spanne, nur der Grund."
        ),
        input_model=EstimateValueInput,
        output_model=EstimateValueOutput,
        effect=Effect.read,
        right=BROKER_READ,
    ),
]
