"""German titles and descriptions of the demo listings."""

from __future__ import annotations

import random
from collections.abc import Sequence

from contract.vocabulary import Feature, MarketingType, PropertyType
from shared.demo.clock import DEMO_NOW
from shared.demo.german import de_number
from shared.demo.listings.shapes import ListingShape, dwelling_units
from shared.demo.places import in_district

# Grammatical gender of the nouns in titles: f(eminine), n(euter), m(asculine).
_NOUN_GENDER = {
    "Wohnung": "f", "Altbauwohnung": "f", "Dachgeschosswohnung": "f", "Erdgeschosswohnung": "f",
    "Maisonette": "f", "Penthouse": "n", "Einfamilienhaus": "n", "Doppelhaushälfte": "f", "Reihenhaus": "n",
    "Villa": "f", "Mehrfamilienhaus": "n", "Bungalow": "m",
}
# Adjectives in nominative after no article (titles) and after "diese/dieses/dieser" (descriptions).
_ADJECTIVES = (
    {"f": "Helle", "n": "Helles", "m": "Heller", "weak": "helle"},
    {"f": "Großzügige", "n": "Großzügiges", "m": "Großzügiger", "weak": "großzügige"},
    {"f": "Charmante", "n": "Charmantes", "m": "Charmanter", "weak": "charmante"},
    {"f": "Moderne", "n": "Modernes", "m": "Moderner", "weak": "moderne"},
    {"f": "Gepflegte", "n": "Gepflegtes", "m": "Gepflegter", "weak": "gepflegte"},
    {"f": "Sonnige", "n": "Sonniges", "m": "Sonniger", "weak": "sonnige"},
    {"f": "Ruhig gelegene", "n": "Ruhig gelegenes", "m": "Ruhig gelegener", "weak": "ruhig gelegene"},
)
# "Modern" only fits recent buildings (and the description names a new building "Neubau" anyway).
_ADJECTIVES_EXISTING = tuple(adjective for adjective in _ADJECTIVES if adjective["weak"] != "moderne")
_MODERN_SINCE = 2000
_DEMONSTRATIVES = {"f": "Diese", "n": "Dieses", "m": "Dieser"}
# Lead-ins of the feature sentence, for one feature and for several.
_FEATURE_LEADS = (
    ("Zur Ausstattung gehört", "Zur Ausstattung gehören"),
    ("Besonders hervorzuheben ist", "Besonders hervorzuheben sind"),
    ("Dazu kommt", "Dazu kommen"),
)

# How a listing names a feature: headline phrases for titles ("mit …") and nominative phrases for descriptions.
_TITLE_FEATURES = {
    Feature.balcony: ("Südbalkon", "Westbalkon", "Balkon"),
    Feature.terrace: ("Terrasse", "Südterrasse"),
    Feature.garden: ("Garten", "Gartenanteil"),
    Feature.fitted_kitchen: ("Einbauküche",),
    Feature.parking_space: ("Tiefgaragenstellplatz", "Stellplatz"),
    Feature.elevator: ("Aufzug",),
    Feature.fireplace: ("Kamin",),
}
_DESCRIPTION_FEATURES = {
    Feature.balcony: ("ein Südbalkon", "ein sonniger Westbalkon", "ein großzügiger Balkon"),
    Feature.terrace: ("eine Südterrasse", "eine überdachte Terrasse", "eine große Terrasse"),
    Feature.garden: ("ein eingewachsener Garten", "ein gepflegter Gartenanteil", "ein sonniger Garten"),
    Feature.elevator: ("ein Aufzug", "ein Personenaufzug"),
    Feature.cellar: ("ein Kellerabteil", "ein trockener Kellerraum"),
    Feature.parking_space: ("ein Tiefgaragenstellplatz", "ein Stellplatz", "ein Carport"),
    Feature.fitted_kitchen: ("eine moderne Einbauküche", "eine Einbauküche mit Markengeräten"),
    Feature.barrier_free: ("ein barrierefreier Zugang", "ein schwellenloser Zugang"),
    Feature.guest_wc: ("ein separates Gäste-WC",),
    Feature.fireplace: ("ein Kaminofen", "ein offener Kamin"),
    Feature.underfloor_heating: ("eine Fußbodenheizung", "eine Fußbodenheizung in allen Räumen"),
}
# A penthouse's terrace is on the roof.
_ROOF_TERRACE_TITLE = ("Dachterrasse",)
_ROOF_TERRACE_DESCRIPTION = ("eine Dachterrasse mit Weitblick", "eine umlaufende Dachterrasse")
_FLOORINGS_OLD = ("originale Dielenböden und hohe Stuckdecken", "restauriertes Fischgrätparkett")
_FLOORINGS = ("Parkett in den Wohnräumen", "hochwertiges Eichenparkett", "pflegeleichte Fliesen", "Echtholzparkett")
_LOCATION_SENTENCES = (
    "Die ruhige Lage {in_district} bietet kurze Wege zu Einkaufsmöglichkeiten, Schulen und Bus und Bahn.",
    "Der Stadtteil {district} zählt zu den gefragtesten Wohnlagen in {city}; Cafés und Geschäfte erreichen Sie "
    "zu Fuß.",
    "Ruhige Lage in einer Seitenstraße {in_district}, die Innenstadt von {city} ist in wenigen Minuten erreichbar.",
    "Ein Park und der Wochenmarkt liegen gleich um die Ecke, Kitas und Grundschulen sind nah.",
)
_CLOSING_BUY = (
    "Ideal für Eigennutzer ebenso wie als Kapitalanlage.",
    "Vereinbaren Sie gern einen Besichtigungstermin.",
)
_CLOSING_RENT = (
    "Vereinbaren Sie gern einen Besichtigungstermin.",
    "Gern senden wir Ihnen vorab ein ausführliches Exposé.",
)
_BUILDING_PHRASES = (
    (1919, "eines stilvollen Altbaus von {year}"),
    (1949, "eines gepflegten Hauses aus den {decade}er-Jahren"),
    (1979, "eines solide gebauten Mehrfamilienhauses von {year}"),
    (2016, "einer gepflegten Wohnanlage von {year}"),
)
_NEW_BUILDING_PHRASE = "eines modernen Neubaus von {year}"


def title(rng: random.Random, shape: ListingShape) -> str:
    where = in_district(shape.district) if rng.random() < 0.6 else f"in {shape.place.name}"
    highlight = next((f for f in shape.features if f in _TITLE_FEATURES and rng.random() < 0.6), None)
    extra = f" mit {rng.choice(_title_words(highlight, shape.subtype))}" if highlight else ""
    modern = (shape.building.year_built or 0) >= _MODERN_SINCE
    adjective = rng.choice(_ADJECTIVES if modern else _ADJECTIVES_EXISTING)
    match shape.property_type:
        case PropertyType.apartment:
            noun = "Wohnung" if shape.subtype == "Etagenwohnung" else shape.subtype
            if noun == "Wohnung" and (shape.building.year_built or 9999) < 1919:
                noun = "Altbauwohnung"
            rooms = de_number(shape.layout.rooms or 1)
            return f"{adjective[_NOUN_GENDER[noun]]} {rooms}-Zimmer-{noun}{extra} {where}"
        case PropertyType.house:
            if shape.subtype == "Mehrfamilienhaus":
                return f"Mehrfamilienhaus mit {dwelling_units(int(shape.layout.rooms or 0))} Wohneinheiten {where}"
            return f"{adjective[_NOUN_GENDER[shape.subtype]]} {shape.subtype}{extra} {where}"
        case PropertyType.land:
            return rng.choice(
                (
                    f"Erschlossenes Baugrundstück mit {de_number(shape.layout.plot_area or 0)} m² {where}",
                    f"Sonniges Baugrundstück in ruhiger Lage {where}",
                    f"Baugrundstück für Ihr Einfamilienhaus {where}",
                )
            )
        case PropertyType.commercial:
            area = de_number(shape.layout.living_area or 0)
            if shape.subtype == "Büro":
                return rng.choice((f"Moderne Bürofläche mit {area} m² {where}", f"Helle Büroetage {where}"))
            return rng.choice(
                (f"Ladenlokal in frequentierter Lage {where}", f"Ladenfläche mit Schaufensterfront {where}")
            )
        case PropertyType.parking:
            garage = "Tiefgaragenstellplatz" if shape.subtype == "Tiefgaragenstellplatz" else "Einzelgarage"
            return f"{garage} {where}"


def description(rng: random.Random, shape: ListingShape) -> str:
    sentences = [_introduction(rng, shape)]
    phrases = [rng.choice(_description_words(f, shape.subtype)) for f in shape.features if f in _DESCRIPTION_FEATURES]
    if shape.property_type in (PropertyType.apartment, PropertyType.house) and rng.random() < 0.6:
        old = (shape.building.year_built or 9999) < 1919
        phrases.append(rng.choice(_FLOORINGS_OLD if old else _FLOORINGS))
    if phrases:
        singular, plural = rng.choice(_FEATURE_LEADS)
        sentences.append(f"{singular if len(phrases) == 1 else plural} {_join(phrases)}.")
    if shape.building.listed:
        sentences.append("Das Gebäude steht unter Denkmalschutz.")
    if Feature.pets_allowed in shape.features:
        sentences.append("Haustiere sind nach Absprache willkommen.")
    if len(sentences) < 4:
        location = rng.choice(_LOCATION_SENTENCES)
        district = shape.district
        sentences.append(location.format(district=district, in_district=in_district(district), city=shape.place.name))
    if len(sentences) < 4 and rng.random() < 0.5:
        sentences.append(rng.choice(_CLOSING_BUY if shape.marketing == MarketingType.buy else _CLOSING_RENT))
    return " ".join(sentences)


def _introduction(rng: random.Random, shape: ListingShape) -> str:
    area = de_number(shape.layout.living_area or 0)
    plot = de_number(shape.layout.plot_area or 0)
    where = in_district(shape.district)
    match shape.property_type:
        case PropertyType.apartment:
            year = shape.building.year_built or DEMO_NOW.year
            phrase = next((p for limit, p in _BUILDING_PHRASES if year < limit), _NEW_BUILDING_PHRASE)
            building_phrase = phrase.format(year=year, decade=year // 10 * 10)
            floor = _floor_label(shape.layout.floor or 0, shape.subtype)
            noun = shape.subtype if shape.subtype in ("Maisonette", "Penthouse") else "Wohnung"
            adjective = rng.choice(_ADJECTIVES_EXISTING)["weak"]
            rooms = de_number(shape.layout.rooms or 1)
            return (
                f"{_DEMONSTRATIVES[_NOUN_GENDER[noun]]} {adjective} {rooms}-Zimmer-{noun} im {floor} "
                f"{building_phrase} {where} bietet rund {area} m² Wohnfläche."
            )
        case PropertyType.house:
            year = f", Baujahr {shape.building.year_built}," if shape.building.year_built else ""
            return (
                f"{_DEMONSTRATIVES[_NOUN_GENDER[shape.subtype]]} {shape.subtype} {where}{year} bietet auf rund "
                f"{area} m² Wohnfläche {shape.layout.rooms:.0f} Zimmer und steht auf einem {plot} m² großen Grundstück."
            )
        case PropertyType.land:
            return rng.choice(
                (
                    f"Das voll erschlossene Baugrundstück mit {plot} m² liegt {where} und eignet sich "
                    "für ein Einfamilienhaus oder eine Doppelhaushälfte.",
                    f"Auf dem {plot} m² großen Grundstück {where} ist eine Bebauung nach § 34 BauGB möglich.",
                )
            )
        case PropertyType.commercial:
            if shape.subtype == "Büro":
                return (
                    f"Die Bürofläche mit rund {area} m² im {_floor_label(shape.layout.floor or 0, shape.subtype)} "
                    f"gliedert sich in {shape.layout.rooms:.0f} Räume, eine Teeküche und getrennte Sanitärbereiche."
                )
            return (
                f"Das Ladenlokal mit rund {area} m² Verkaufsfläche besticht durch eine große Schaufensterfront "
                f"in frequentierter Lage {where}."
            )
        case PropertyType.parking:
            if shape.subtype == "Tiefgaragenstellplatz":
                return (
                    f"Angeboten wird ein Tiefgaragenstellplatz in einer gepflegten Wohnanlage {where}; "
                    "die Zufahrt erfolgt bequem über ein elektrisches Rolltor."
                )
            return f"Die Einzelgarage {where} bietet Platz für einen Pkw und zusätzlichen Stauraum."


def _join(phrases: Sequence[str]) -> str:
    return phrases[0] if len(phrases) == 1 else f"{', '.join(phrases[:-1])} und {phrases[-1]}"


def _title_words(feature: Feature, subtype: str) -> tuple[str, ...]:
    if feature == Feature.terrace and subtype == "Penthouse":
        return _ROOF_TERRACE_TITLE
    return _TITLE_FEATURES[feature]


def _description_words(feature: Feature, subtype: str) -> tuple[str, ...]:
    if feature == Feature.terrace and subtype == "Penthouse":
        return _ROOF_TERRACE_DESCRIPTION
    return _DESCRIPTION_FEATURES[feature]


def _floor_label(floor: int, subtype: str) -> str:
    if subtype == "Dachgeschosswohnung":
        return "Dachgeschoss"
    return "Erdgeschoss" if floor == 0 else f"{floor}. Obergeschoss"
