"""Distributions of the demo listings: types, subtypes, status, building age and condition, layout."""

from __future__ import annotations

from contract.vocabulary import EnergyStatus, PropertyType
from shared.demo.randomness import Weighted

PROPERTY_TYPES = Weighted(
    {
        PropertyType.apartment: 60,
        PropertyType.house: 25,
        PropertyType.land: 7,
        PropertyType.commercial: 5,
        PropertyType.parking: 3,
    }
)
# Share of offers for sale per type; all together about 55 % buy, 45 % rent.
BUY_SHARE = {
    PropertyType.apartment: 0.45,
    PropertyType.house: 0.70,
    PropertyType.land: 1.0,
    PropertyType.commercial: 0.35,
    PropertyType.parking: 0.65,
}
SUBTYPES = {
    PropertyType.apartment: Weighted(
        {"Etagenwohnung": 50, "Dachgeschosswohnung": 16, "Erdgeschosswohnung": 18, "Maisonette": 10, "Penthouse": 6}
    ),
    PropertyType.house: Weighted(
        {"Einfamilienhaus": 38, "Doppelhaushälfte": 20, "Reihenhaus": 20, "Villa": 7, "Mehrfamilienhaus": 8,
         "Bungalow": 7}
    ),
    PropertyType.land: Weighted({"Baugrundstück": 1}),
    PropertyType.commercial: Weighted({"Büro": 60, "Ladenlokal": 40}),
    PropertyType.parking: Weighted({"Tiefgaragenstellplatz": 60, "Garage": 40}),
}
# "closed" becomes sold (buy) or let (rent).
STATUSES = Weighted({"published": 92.0, "reserved": 2.5, "closed": 1.5, "withdrawn": 1.5, "draft": 2.5})
BUILDING_ENERGY = Weighted(
    {EnergyStatus.present: 75, EnergyStatus.at_viewing: 10, EnergyStatus.not_required: 5, EnergyStatus.missing: 10}
)
BUILDING_ERAS = Weighted(
    {(1890, 1918): 14, (1919, 1948): 10, (1949, 1978): 30, (1979, 1994): 16, (1995, 2009): 14,
     (2010, 2019): 9, (2020, 2025): 7}
)
CONDITIONS_EXISTING = Weighted(
    {"gepflegt": 40, "modernisiert": 20, "saniert": 12, "teilsaniert": 10, "renoviert": 8,
     "renovierungsbedürftig": 10}
)
CONDITIONS_RECENT = Weighted({"neuwertig": 70, "gepflegt": 30})
CONDITIONS_LISTED = Weighted({"saniert": 50, "gepflegt": 30, "renovierungsbedürftig": 20})
APARTMENT_FLOORS = {
    "Etagenwohnung": (1, 5), "Erdgeschosswohnung": (0, 0), "Dachgeschosswohnung": (2, 6), "Maisonette": (0, 4),
    "Penthouse": (4, 10),
}
PREWAR_TOP_FLOOR = 5
APARTMENT_ROOMS = Weighted(
    {1.0: 8, 1.5: 4, 2.0: 22, 2.5: 8, 3.0: 25, 3.5: 6, 4.0: 16, 4.5: 3, 5.0: 6, 6.0: 2}
)
# (rooms, living area m², plot area m²) ranges per house subtype
HOUSE_SHAPES = {
    "Einfamilienhaus": ((4, 7), (110, 200), (350, 900)),
    "Doppelhaushälfte": ((4, 6), (100, 160), (200, 450)),
    "Reihenhaus": ((4, 6), (95, 150), (120, 300)),
    "Villa": ((6, 10), (200, 420), (800, 2500)),
    "Mehrfamilienhaus": ((8, 24), (250, 900), (400, 1500)),
    "Bungalow": ((3, 5), (90, 150), (500, 1000)),
}
PHOTO_CAPTIONS = {
    PropertyType.apartment: (
        "Außenansicht", "Wohnzimmer", "Küche", "Schlafzimmer", "Badezimmer", "Flur", "Kinderzimmer", "Grundriss",
        "Ausblick",
    ),
    PropertyType.house: (
        "Außenansicht", "Garten", "Wohnzimmer", "Küche", "Badezimmer", "Schlafzimmer", "Eingangsbereich",
        "Grundriss", "Luftbild",
    ),
    PropertyType.land: ("Grundstück", "Lageplan", "Umgebung", "Zufahrt"),
    PropertyType.commercial: ("Außenansicht", "Innenansicht", "Besprechungsraum", "Teeküche", "Eingang", "Grundriss"),
    PropertyType.parking: ("Stellplatz", "Zufahrt", "Einfahrt"),
}
