"""The closed value sets of the catalog, with German labels and the German words accepted as input.

Input values are English (`buy`, `apartment`); German words (`Kauf`, `Wohnung`) are normalised to them.
"""

from __future__ import annotations

from enum import StrEnum


class MarketingType(StrEnum):
    buy = "buy"
    rent = "rent"


class PropertyType(StrEnum):
    apartment = "apartment"
    house = "house"
    land = "land"
    commercial = "commercial"
    parking = "parking"


class Feature(StrEnum):
    balcony = "balcony"
    terrace = "terrace"
    garden = "garden"
    elevator = "elevator"
    cellar = "cellar"
    parking_space = "parking_space"
    fitted_kitchen = "fitted_kitchen"
    barrier_free = "barrier_free"
    guest_wc = "guest_wc"
    fireplace = "fireplace"
    underfloor_heating = "underfloor_heating"
    pets_allowed = "pets_allowed"


class ListingStatus(StrEnum):
    draft = "draft"
    published = "published"
    reserved = "reserved"
    sold = "sold"
    let = "let"
    withdrawn = "withdrawn"


class EnergyStatus(StrEnum):
    present = "present"
    at_viewing = "at_viewing"
    not_required = "not_required"
    missing = "missing"


LABELS: dict[StrEnum, str] = {
    MarketingType.buy: "Kauf",
    MarketingType.rent: "Miete",
    PropertyType.apartment: "Wohnung",
    PropertyType.house: "Haus",
    PropertyType.land: "Grundstück",
    PropertyType.commercial: "Gewerbe",
    PropertyType.parking: "Stellplatz/Garage",
    Feature.balcony: "Balkon",
    Feature.terrace: "Terrasse",
    Feature.garden: "Garten",
    Feature.elevator: "Aufzug",
    Feature.cellar: "Keller",
    Feature.parking_space: "Stellplatz",
    Feature.fitted_kitchen: "Einbauküche",
    Feature.barrier_free: "Barrierefrei",
    Feature.guest_wc: "Gäste-WC",
    Feature.fireplace: "Kamin",
    Feature.underfloor_heating: "Fußbodenheizung",
    Feature.pets_allowed: "Haustiere erlaubt",
    ListingStatus.draft: "Entwurf",
    ListingStatus.published: "veröffentlicht",
    ListingStatus.reserved: "reserviert",
    ListingStatus.sold: "verkauft",
    ListingStatus.let: "vermietet",
    ListingStatus.withdrawn: "zurückgezogen",
    EnergyStatus.present: "Energieausweis liegt vor",
    EnergyStatus.at_viewing: "Energieausweis liegt zur Besichtigung vor",
    EnergyStatus.not_required: "kein Energieausweis erforderlich (z. B. Denkmalschutz)",
    EnergyStatus.missing: "keine Angabe zum Energieausweis",
}

# German (and a few colloquial) words accepted as input, normalised to the English value.
GERMAN_ALIASES: dict[type[StrEnum], dict[str, str]] = {
    MarketingType: {"kauf": "buy", "kaufen": "buy", "miete": "rent", "mieten": "rent"},
    PropertyType: {
        "wohnung": "apartment",
        "haus": "house",
        "grundstueck": "land",
        "grundstück": "land",
        "gewerbe": "commercial",
        "stellplatz": "parking",
        "garage": "parking",
    },
    Feature: {
        "balkon": "balcony",
        "terrasse": "terrace",
        "garten": "garden",
        "aufzug": "elevator",
        "fahrstuhl": "elevator",
        "lift": "elevator",
        "keller": "cellar",
        "stellplatz": "parking_space",
        "einbaukueche": "fitted_kitchen",
        "einbauküche": "fitted_kitchen",
        "barrierefrei": "barrier_free",
        "gaeste-wc": "guest_wc",
        "gäste-wc": "guest_wc",
        "kamin": "fireplace",
        "fussbodenheizung": "underfloor_heating",
        "fußbodenheizung": "underfloor_heating",
        "haustiere": "pets_allowed",
    },
}


def label(value: StrEnum) -> str:
    return LABELS[value]
