"""Deterministic demo catalog: real places, plausible broker offices and listings, at any scale.

The same seed and listing count always give identical rows: one `random.Random(seed)` drives every
choice and all dates hang off DEMO_NOW, never the clock. Listings are generated and written in chunks
within one transaction, so memory stays flat up to millions of listings and a failed run leaves nothing.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy import Connection, Engine, insert, select, text
from sqlalchemy.orm import Session

from contract.vocabulary import EnergyStatus, Feature, ListingStatus, MarketingType, PropertyType
from shared.catalog.indexing import bump_revision, search_fields, term_rows
from shared.catalog.text import normalise
from shared.db.models import Listing, ListingFeature, ListingTerm, Office, Place
from shared.demo.places import DEMO_PLACES, DemoPlace, in_district

DEMO_NOW = dt.datetime(2026, 11, 1, 9, 0, tzinfo=dt.UTC)
DEFAULT_SEED = 7
CHUNK_SIZE = 2_000
OFFICE_COUNT = 40
PUBLICATION_WINDOW = dt.timedelta(days=120)
MAX_JITTER_KM = 6.0
KM_PER_DEGREE = 111.32

T = TypeVar("T")
Row = dict[str, Any]


class CatalogNotEmptyError(RuntimeError):
    """seed_demo only fills an empty catalog; demo data is never mixed into existing data."""


@dataclass(frozen=True)
class SeedSummary:
    offices: int
    places: int
    listings: int
    published: int
    users: int
    inquiries: int
    search_orders: int


def seed_demo(engine: Engine, listings: int = 2400, seed: int = DEFAULT_SEED) -> SeedSummary:
    """Fill an empty, migrated database with places, offices and `listings` demo listings, then the demo
    accounts around them (shared.demo.accounts: brokers, seekers, saved searches, inquiries, …).

    Raises CatalogNotEmptyError when listings, offices or places already exist.
    """
    if listings < 0:
        raise ValueError("listings must not be negative")
    rng = random.Random(seed)
    with engine.begin() as connection:
        _require_empty(connection)
        places = _place_rows()
        connection.execute(insert(Place), places)
        offices = _offices(rng)
        connection.execute(insert(Office), [office.row() for office in offices])
        factory = _ListingFactory(rng, offices)
        published = 0
        for first in range(1, listings + 1, CHUNK_SIZE):
            listing_rows: list[Row] = []
            feature_rows: list[Row] = []
            index_rows: list[Row] = []
            for listing_id in range(first, min(first + CHUNK_SIZE, listings + 1)):
                row, features = factory.listing(listing_id)
                listing_rows.append(row)
                feature_rows.extend({"listing_id": listing_id, "feature": f.value} for f in features)
                fields = search_fields(
                    title=row["title"],
                    description=row["description"],
                    city=row["city"],
                    district=row["district"],
                    subtype=row["property_subtype"],
                    features=features,
                )
                index_rows.extend(term_rows(listing_id, fields))
                published += row["status"] == ListingStatus.published
            connection.execute(insert(Listing), listing_rows)
            if feature_rows:
                connection.execute(insert(ListingFeature), feature_rows)
            connection.execute(insert(ListingTerm), index_rows)
        # Imported here: the accounts module builds on this one. It draws from a Random of its own.
        from shared.demo.accounts import ACCOUNT_MODELS_WITH_IDS, seed_accounts

        accounts = seed_accounts(connection, offices, seed)
        _advance_id_sequences(connection, (Place, Office, Listing, *ACCOUNT_MODELS_WITH_IDS))
        with Session(bind=connection) as session:
            bump_revision(session, now=DEMO_NOW)
            session.flush()
    with engine.begin() as connection:
        # Fresh statistics, or the planner picks weak indexes on a freshly loaded catalog (bench/README.md).
        connection.execute(text("ANALYZE"))
    return SeedSummary(
        offices=len(offices),
        places=len(places),
        listings=listings,
        published=published,
        users=accounts.users,
        inquiries=accounts.inquiries,
        search_orders=accounts.search_orders,
    )


def _require_empty(connection: Connection) -> None:
    for model in (Listing, Office, Place):
        if connection.scalar(select(model.id).limit(1)) is not None:
            raise CatalogNotEmptyError(
                f"Demo data needs an empty database, but table {model.__tablename__!r} already has rows."
            )


def _advance_id_sequences(connection: Connection, models: Sequence[Any]) -> None:
    """Ids were given explicitly; PostgreSQL's sequences must continue after them for later inserts."""
    if connection.dialect.name != "postgresql":
        return
    for model in models:
        table = model.__tablename__
        connection.execute(
            text(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                f"coalesce(max(id), 1), max(id) IS NOT NULL) FROM {table}"
            )
        )


def _place_rows() -> list[Row]:
    pairs = [(code, place) for place in DEMO_PLACES for code in place.postal_codes]
    return [
        {
            "id": place_id,
            "postal_code": code,
            "name": place.name,
            "name_key": normalise(place.name),
            "state": place.state,
            "latitude": place.latitude,
            "longitude": place.longitude,
        }
        for place_id, (code, place) in enumerate(pairs, start=1)
    ]


class _Weighted(Generic[T]):
    """A fixed discrete distribution."""

    def __init__(self, weights: Mapping[T, float]) -> None:
        self._values = tuple(weights)
        self._cumulative = tuple(itertools.accumulate(weights.values()))

    def pick(self, rng: random.Random) -> T:
        return rng.choices(self._values, cum_weights=self._cumulative)[0]


# --- offices -------------------------------------------------------------------------------------------

_SURNAMES = (
    "Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann",
    "Koch", "Richter", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Braun", "Zimmermann", "Krüger",
    "Hartmann", "Lange", "Werner", "Krause", "Lehmann", "Köhler", "Maier", "Kaiser", "Fuchs", "Peters",
    "Scholz", "Vogel", "Brandt", "Haas", "Sommer", "Graf", "Berger", "Kühn", "Pohl", "Engel", "Lorenz", "Jung",
)
_OFFICE_NAMES = (
    "{surname} Immobilien",
    "Immobilien {surname} GmbH",
    "{surname} & Partner Immobilien",
    "Immobilienbüro {surname}",
    "{surname} Wohnen & Immobilien",
    "Maklerhaus {surname}",
    "Immobilienkontor {city} – {surname}",
)


@dataclass(frozen=True)
class _DemoOffice:
    id: int
    name: str
    place: DemoPlace
    phone: str
    slug: str

    def row(self) -> Row:
        return {
            "id": self.id,
            "name": self.name,
            "city": self.place.name,
            "phone": self.phone,
            "email": f"info@{self.slug}.example.org",
            "website": f"https://www.{self.slug}.example.org",
        }


def _offices(rng: random.Random) -> list[_DemoOffice]:
    """One office in the largest place of every Bundesland, the rest where most people live."""
    largest: dict[str, DemoPlace] = {}
    for place in DEMO_PLACES:
        if place.state not in largest or place.residents > largest[place.state].residents:
            largest[place.state] = place
    homes = list(largest.values())
    homes += [_PLACES_BY_SIZE.pick(rng) for _ in range(OFFICE_COUNT - len(homes))]
    surnames = rng.sample(_SURNAMES, OFFICE_COUNT)
    offices = []
    for office_id, (place, surname) in enumerate(zip(homes, surnames, strict=True), start=1):
        name = rng.choice(_OFFICE_NAMES).format(surname=surname, city=place.name)
        slug = "-".join(re.findall(r"[a-z0-9]+", normalise(f"{surname} immobilien {place.name}")))
        phone = f"{place.area_code} {rng.randrange(200_000, 9_999_999)}"
        offices.append(_DemoOffice(office_id, name, place, phone, slug))
    return offices


# --- listing distributions -------------------------------------------------------------------------------

# Big cities get more listings than small towns, but not in proportion: every place should have some.
_PLACES_BY_SIZE = _Weighted({place: math.sqrt(place.residents) for place in DEMO_PLACES})

_PROPERTY_TYPES = _Weighted(
    {
        PropertyType.apartment: 60,
        PropertyType.house: 25,
        PropertyType.land: 7,
        PropertyType.commercial: 5,
        PropertyType.parking: 3,
    }
)
# Share of offers for sale per type; all together about 55 % buy, 45 % rent.
_BUY_SHARE = {
    PropertyType.apartment: 0.45,
    PropertyType.house: 0.70,
    PropertyType.land: 1.0,
    PropertyType.commercial: 0.35,
    PropertyType.parking: 0.65,
}
_SUBTYPES = {
    PropertyType.apartment: _Weighted(
        {"Etagenwohnung": 50, "Dachgeschosswohnung": 16, "Erdgeschosswohnung": 18, "Maisonette": 10, "Penthouse": 6}
    ),
    PropertyType.house: _Weighted(
        {"Einfamilienhaus": 38, "Doppelhaushälfte": 20, "Reihenhaus": 20, "Villa": 7, "Mehrfamilienhaus": 8,
         "Bungalow": 7}
    ),
    PropertyType.land: _Weighted({"Baugrundstück": 1}),
    PropertyType.commercial: _Weighted({"Büro": 60, "Ladenlokal": 40}),
    PropertyType.parking: _Weighted({"Tiefgaragenstellplatz": 60, "Garage": 40}),
}
# "closed" becomes sold (buy) or let (rent).
_STATUSES = _Weighted({"published": 92.0, "reserved": 2.5, "closed": 1.5, "withdrawn": 1.5, "draft": 2.5})
_BUILDING_ENERGY = _Weighted(
    {EnergyStatus.present: 75, EnergyStatus.at_viewing: 10, EnergyStatus.not_required: 5, EnergyStatus.missing: 10}
)
_BUILDING_ERAS = _Weighted(
    {(1890, 1918): 14, (1919, 1948): 10, (1949, 1978): 30, (1979, 1994): 16, (1995, 2009): 14,
     (2010, 2019): 9, (2020, 2025): 7}
)
_CONDITIONS_EXISTING = _Weighted(
    {"gepflegt": 40, "modernisiert": 20, "saniert": 12, "teilsaniert": 10, "renoviert": 8,
     "renovierungsbedürftig": 10}
)
_CONDITIONS_RECENT = _Weighted({"neuwertig": 70, "gepflegt": 30})
_CONDITIONS_LISTED = _Weighted({"saniert": 50, "gepflegt": 30, "renovierungsbedürftig": 20})
_APARTMENT_FLOORS = {
    "Etagenwohnung": (1, 5), "Erdgeschosswohnung": (0, 0), "Dachgeschosswohnung": (2, 6), "Maisonette": (0, 4),
    "Penthouse": (4, 10),
}
_PREWAR_TOP_FLOOR = 5
_APARTMENT_ROOMS = _Weighted(
    {1.0: 8, 1.5: 4, 2.0: 22, 2.5: 8, 3.0: 25, 3.5: 6, 4.0: 16, 4.5: 3, 5.0: 6, 6.0: 2}
)
# (rooms, living area m², plot area m²) ranges per house subtype
_HOUSE_SHAPES = {
    "Einfamilienhaus": ((4, 7), (110, 200), (350, 900)),
    "Doppelhaushälfte": ((4, 6), (100, 160), (200, 450)),
    "Reihenhaus": ((4, 6), (95, 150), (120, 300)),
    "Villa": ((6, 10), (200, 420), (800, 2500)),
    "Mehrfamilienhaus": ((8, 24), (250, 900), (400, 1500)),
    "Bungalow": ((3, 5), (90, 150), (500, 1000)),
}
# Price per m² relative to the place's apartment level, per subtype.
_PRICE_FACTORS = {
    "Penthouse": 1.3, "Villa": 1.2, "Einfamilienhaus": 0.95, "Doppelhaushälfte": 0.9, "Reihenhaus": 0.85,
    "Bungalow": 0.9, "Mehrfamilienhaus": 0.7, "Büro": 0.75, "Ladenlokal": 0.85,
}
_TOP_BUY_PER_SQM = max(place.buy_per_sqm for place in DEMO_PLACES)
# Parking prices in multiples of the place's apartment price per m² (buy) and rent per m² (rent).
_PARKING_PRICE_FACTORS = {"Tiefgaragenstellplatz": (3.5, 6.0), "Garage": (2.5, 4.5)}
_ENERGY_CARRIERS_NEW = _Weighted({"Wärmepumpe": 50, "Fernwärme": 25, "Gas": 15, "Pellets": 10})
_ENERGY_CARRIERS_MID = _Weighted({"Gas": 50, "Fernwärme": 20, "Öl": 15, "Wärmepumpe": 10, "Pellets": 5})
_ENERGY_CARRIERS_OLD = _Weighted({"Gas": 50, "Öl": 25, "Fernwärme": 20, "Strom": 5})
# GEG Anlage 10: upper bounds of the residential energy efficiency classes in kWh/(m²·a).
_ENERGY_CLASS_BOUNDS = ((30, "A+"), (50, "A"), (75, "B"), (100, "C"), (130, "D"), (160, "E"), (200, "F"), (250, "G"))
# Typical final energy use by building year, before renovation.
_ENERGY_BY_ERA = ((1919, 220), (1949, 200), (1979, 170), (1995, 135), (2009, 100), (2016, 65))
_ENERGY_NEW_BUILD = 38

_BUY_COMMISSION = _Weighted(
    {("3,57 % inkl. MwSt.", 3.57): 55, ("2,98 % inkl. MwSt.", 2.98): 8, ("2,38 % inkl. MwSt.", 2.38): 7,
     ("provisionsfrei", 0.0): 20, (None, None): 10}
)
_COMMERCIAL_BUY_COMMISSION = _Weighted(
    {("5,95 % inkl. MwSt.", 5.95): 50, ("3,57 % inkl. MwSt.", 3.57): 20, ("provisionsfrei", 0.0): 20,
     (None, None): 10}
)
_RENT_COMMISSION = _Weighted({("provisionsfrei für Mieter", 0.0): 92, (None, None): 8})
_COMMERCIAL_RENT_COMMISSION = _Weighted(
    {("3 Nettokaltmieten zzgl. MwSt.", None): 50, ("provisionsfrei für Mieter", 0.0): 40, (None, None): 10}
)
_DEPOSITS = _Weighted({"3 Nettokaltmieten": 75, "2 Nettokaltmieten": 15, "3 Monatsmieten (kalt)": 10})

_STREETS = (
    "Hauptstraße", "Bahnhofstraße", "Goethestraße", "Schillerstraße", "Lindenstraße", "Gartenstraße",
    "Bergstraße", "Kirchstraße", "Mozartstraße", "Friedrichstraße", "Wilhelmstraße", "Rosenweg", "Birkenweg",
    "Am Stadtpark", "Parkstraße", "Ringstraße", "Uhlandstraße", "Lessingstraße", "Beethovenstraße",
    "Kastanienallee", "Lindenallee", "Feldstraße", "Wiesenweg", "Eichendorffstraße", "Blumenstraße",
    "Kantstraße", "Luisenstraße", "Schulstraße", "Mühlenweg", "Ahornweg", "Herderstraße",
    "Heinrich-Heine-Straße", "Fontanestraße", "Humboldtstraße", "Karlstraße", "Sonnenstraße", "Am Rosengarten",
)
_PHOTO_CAPTIONS = {
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


# --- German text ---------------------------------------------------------------------------------------

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


_GERMAN_SEPARATORS = str.maketrans(",.", ".,")


def _de_number(value: float) -> str:
    """German number format: 1234.5 → '1.234,5', 92.0 → '92'."""
    return f"{value:,.1f}".removesuffix(".0").translate(_GERMAN_SEPARATORS)


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


def _energy_class(value: float) -> str:
    return next((label for bound, label in _ENERGY_CLASS_BOUNDS if value < bound), "H")


def _first_of_month(day: dt.date, months_ahead: int) -> dt.date:
    month_index = day.month - 1 + months_ahead
    return dt.date(day.year + month_index // 12, month_index % 12 + 1, 1)


def _land_price_per_sqm(place: DemoPlace) -> float:
    """Land prices spread wider than flat prices: about a quarter of the flat price in München, 4 % in Görlitz."""
    return 0.25 * place.buy_per_sqm * place.buy_per_sqm / _TOP_BUY_PER_SQM


def _dwelling_units(rooms: int) -> int:
    """Flats in a Mehrfamilienhaus of that many rooms (one bathroom each)."""
    return max(2, rooms // 3)


@dataclass(frozen=True)
class _Layout:
    living_area: float | None = None
    plot_area: float | None = None
    rooms: float | None = None
    bedrooms: int | None = None
    bathrooms: int | None = None
    floor: int | None = None


@dataclass(frozen=True)
class _Building:
    year_built: int | None
    condition: str | None
    energy_status: EnergyStatus
    listed: bool  # Denkmalschutz


class _ListingFactory:
    """Draws one listing after another from a shared random stream."""

    def __init__(self, rng: random.Random, offices: Sequence[_DemoOffice]) -> None:
        self.rng = rng
        self.city_keys = {place.name: normalise(place.name) for place in DEMO_PLACES}
        self.offices_by_place: dict[str, list[int]] = {}
        self.offices_by_state: dict[str, list[int]] = {}
        for office in offices:
            self.offices_by_place.setdefault(office.place.name, []).append(office.id)
            self.offices_by_state.setdefault(office.place.state, []).append(office.id)

    def listing(self, listing_id: int) -> tuple[Row, list[Feature]]:
        rng = self.rng
        place = _PLACES_BY_SIZE.pick(rng)
        property_type = _PROPERTY_TYPES.pick(rng)
        subtype = _SUBTYPES[property_type].pick(rng)
        marketing = MarketingType.buy if rng.random() < _BUY_SHARE[property_type] else MarketingType.rent
        building = self._building(property_type)
        layout = self._layout(property_type, subtype, building)
        features = self._features(property_type, subtype, marketing, layout, building)
        district = rng.choice(place.districts)
        ref = f"A-{listing_id:07d}"
        office_id = rng.choice(self.offices_by_place.get(place.name) or self.offices_by_state[place.state])
        return (
            {
                "id": listing_id,
                "ref": ref,
                "office_id": office_id,
                **self._status_and_dates(marketing),
                "marketing_type": marketing.value,
                "property_type": property_type.value,
                "property_subtype": subtype,
                "title": self._title(property_type, subtype, layout, building, features, place, district),
                "description": self._description(
                    property_type, subtype, marketing, layout, building, features, place, district
                ),
                **self._address(place, district),
                **self._prices(property_type, subtype, marketing, layout, building, place),
                "living_area": layout.living_area,
                "plot_area": layout.plot_area,
                "rooms": layout.rooms,
                "bedrooms": layout.bedrooms,
                "bathrooms": layout.bathrooms,
                "floor": layout.floor,
                "year_built": building.year_built,
                "condition": building.condition,
                **self._energy(property_type, building),
                "photos": self._photos(property_type, ref),
                **self._availability(),
            },
            features,
        )

    def _status_and_dates(self, marketing: MarketingType) -> Row:
        rng = self.rng
        status = _STATUSES.pick(rng)
        if status == "closed":
            status = ListingStatus.sold if marketing == MarketingType.buy else ListingStatus.let
        if status == ListingStatus.draft:
            created_at = DEMO_NOW - dt.timedelta(seconds=rng.randrange(30 * 86_400))
            published_at = None
            last_event = created_at
        else:
            published_at = DEMO_NOW - dt.timedelta(seconds=rng.randrange(int(PUBLICATION_WINDOW.total_seconds())))
            created_at = published_at - dt.timedelta(seconds=rng.randrange(14 * 86_400))
            last_event = published_at
        updated_at = last_event + dt.timedelta(seconds=rng.randrange(int((DEMO_NOW - last_event).total_seconds()) + 1))
        return {
            "status": str(status),
            "published_at": published_at,
            "created_at": created_at,
            "updated_at": updated_at,
        }

    def _building(self, property_type: PropertyType) -> _Building:
        rng = self.rng
        if property_type in (PropertyType.land, PropertyType.parking):
            return _Building(None, None, EnergyStatus.not_required, listed=False)
        energy_status = _BUILDING_ENERGY.pick(rng)
        if energy_status == EnergyStatus.not_required:
            return _Building(rng.randint(1890, 1918), _CONDITIONS_LISTED.pick(rng), energy_status, listed=True)
        year = rng.randint(*_BUILDING_ERAS.pick(rng))
        if year >= 2024:
            condition = "Erstbezug"
        elif year >= 2015:
            condition = _CONDITIONS_RECENT.pick(rng)
        else:
            condition = _CONDITIONS_EXISTING.pick(rng)
        return _Building(year, condition, energy_status, listed=False)

    def _layout(self, property_type: PropertyType, subtype: str, building: _Building) -> _Layout:
        rng = self.rng
        match property_type:
            case PropertyType.apartment:
                rooms = _APARTMENT_ROOMS.pick(rng)
                if subtype in ("Maisonette", "Penthouse"):
                    rooms = max(rooms, 3.0)
                area = (14 + 23 * rooms) * rng.uniform(0.85, 1.2) * (1.25 if subtype == "Penthouse" else 1.0)
                floor = rng.randint(*_APARTMENT_FLOORS[subtype])
                if (building.year_built or 0) < 1949:
                    floor = min(floor, _PREWAR_TOP_FLOOR)
                bathrooms = 2 if rooms >= 4 and rng.random() < 0.4 else 1
                return _Layout(round(area, 1), None, rooms, int(rooms) - 1, bathrooms, floor)
            case PropertyType.house:
                (rooms_min, rooms_max), (area_min, area_max), (plot_min, plot_max) = _HOUSE_SHAPES[subtype]
                rooms = rng.randint(rooms_min, rooms_max)
                area = round(rng.uniform(area_min, area_max), 1)
                plot = float(rng.randrange(plot_min, plot_max, 5))
                if subtype == "Mehrfamilienhaus":
                    return _Layout(area, plot, float(rooms), None, _dwelling_units(rooms))
                return _Layout(area, plot, float(rooms), rooms - 2, 1 + (rooms >= 5) + (rooms >= 8))
            case PropertyType.land:
                return _Layout(plot_area=float(rng.randrange(250, 1500, 5)))
            case PropertyType.commercial:
                if subtype == "Büro":
                    area = round(rng.uniform(60, 600), 1)
                    return _Layout(area, rooms=float(max(1, int(area // 25))), floor=rng.randint(0, 5))
                return _Layout(round(rng.uniform(40, 300), 1), rooms=float(rng.randint(1, 3)), floor=0)
            case PropertyType.parking:
                return _Layout(floor=-1 if subtype == "Tiefgaragenstellplatz" else None)

    def _features(
        self,
        property_type: PropertyType,
        subtype: str,
        marketing: MarketingType,
        layout: _Layout,
        building: _Building,
    ) -> list[Feature]:
        rng = self.rng
        new = (building.year_built or 0) >= 2010
        match property_type:
            case PropertyType.apartment:
                ground = layout.floor == 0
                high = (layout.floor or 0) >= 4 or new
                chances = {
                    Feature.balcony: 0.3 if ground else 0.65,
                    Feature.terrace: 0.9 if subtype == "Penthouse" else 0.35 if ground else 0.05,
                    Feature.garden: 0.3 if ground else 0.0,
                    Feature.elevator: 0.75 if high else 0.15,
                    Feature.cellar: 0.6,
                    Feature.parking_space: 0.3,
                    Feature.fitted_kitchen: 0.5,
                    Feature.barrier_free: 0.2 if ground or high else 0.0,
                    Feature.guest_wc: 0.4 if (layout.rooms or 0) >= 3 else 0.0,
                    Feature.fireplace: 0.04,
                    Feature.underfloor_heating: 0.6 if new else 0.05,
                    Feature.pets_allowed: 0.2 if marketing == MarketingType.rent else 0.0,
                }
            case PropertyType.house:
                chances = {
                    Feature.garden: 0.85,
                    Feature.terrace: 0.7,
                    Feature.balcony: 0.0 if subtype == "Bungalow" else 0.3,
                    Feature.cellar: 0.5 if subtype == "Bungalow" else 0.7,
                    Feature.parking_space: 0.75,
                    Feature.fitted_kitchen: 0.5,
                    Feature.guest_wc: 0.6,
                    Feature.fireplace: 0.4 if subtype == "Villa" else 0.15,
                    Feature.underfloor_heating: 0.7 if new else 0.08,
                    Feature.barrier_free: 0.3 if subtype == "Bungalow" else 0.03,
                    Feature.pets_allowed: 0.35 if marketing == MarketingType.rent else 0.0,
                }
            case PropertyType.commercial:
                chances = {
                    Feature.elevator: 0.4 if subtype == "Büro" else 0.0,
                    Feature.parking_space: 0.4,
                    Feature.barrier_free: 0.3,
                    Feature.fitted_kitchen: 0.2 if subtype == "Büro" else 0.0,
                    Feature.cellar: 0.2,
                }
            case PropertyType.land | PropertyType.parking:
                chances = {}
        chosen = [feature for feature in Feature if rng.random() < chances.get(feature, 0.0)]
        if len(chosen) > 6:
            kept = set(rng.sample(chosen, 6))
            chosen = [feature for feature in chosen if feature in kept]
        return chosen

    def _title(
        self,
        property_type: PropertyType,
        subtype: str,
        layout: _Layout,
        building: _Building,
        features: list[Feature],
        place: DemoPlace,
        district: str,
    ) -> str:
        rng = self.rng
        where = in_district(district) if rng.random() < 0.6 else f"in {place.name}"
        highlight = next((f for f in features if f in _TITLE_FEATURES and rng.random() < 0.6), None)
        extra = f" mit {rng.choice(_title_words(highlight, subtype))}" if highlight else ""
        modern = (building.year_built or 0) >= _MODERN_SINCE
        adjective = rng.choice(_ADJECTIVES if modern else _ADJECTIVES_EXISTING)
        match property_type:
            case PropertyType.apartment:
                noun = "Wohnung" if subtype == "Etagenwohnung" else subtype
                if noun == "Wohnung" and (building.year_built or 9999) < 1919:
                    noun = "Altbauwohnung"
                rooms = _de_number(layout.rooms or 1)
                return f"{adjective[_NOUN_GENDER[noun]]} {rooms}-Zimmer-{noun}{extra} {where}"
            case PropertyType.house:
                if subtype == "Mehrfamilienhaus":
                    return f"Mehrfamilienhaus mit {_dwelling_units(int(layout.rooms or 0))} Wohneinheiten {where}"
                return f"{adjective[_NOUN_GENDER[subtype]]} {subtype}{extra} {where}"
            case PropertyType.land:
                return rng.choice(
                    (
                        f"Erschlossenes Baugrundstück mit {_de_number(layout.plot_area or 0)} m² {where}",
                        f"Sonniges Baugrundstück in ruhiger Lage {where}",
                        f"Baugrundstück für Ihr Einfamilienhaus {where}",
                    )
                )
            case PropertyType.commercial:
                area = _de_number(layout.living_area or 0)
                if subtype == "Büro":
                    return rng.choice((f"Moderne Bürofläche mit {area} m² {where}", f"Helle Büroetage {where}"))
                return rng.choice(
                    (f"Ladenlokal in frequentierter Lage {where}", f"Ladenfläche mit Schaufensterfront {where}")
                )
            case PropertyType.parking:
                return f"Tiefgaragenstellplatz {where}" if subtype == "Tiefgaragenstellplatz" else f"Einzelgarage {where}"

    def _description(
        self,
        property_type: PropertyType,
        subtype: str,
        marketing: MarketingType,
        layout: _Layout,
        building: _Building,
        features: list[Feature],
        place: DemoPlace,
        district: str,
    ) -> str:
        rng = self.rng
        sentences = [self._introduction(property_type, subtype, layout, building, place, district)]
        phrases = [rng.choice(_description_words(f, subtype)) for f in features if f in _DESCRIPTION_FEATURES]
        if property_type in (PropertyType.apartment, PropertyType.house) and rng.random() < 0.6:
            old = (building.year_built or 9999) < 1919
            phrases.append(rng.choice(_FLOORINGS_OLD if old else _FLOORINGS))
        if phrases:
            singular, plural = rng.choice(_FEATURE_LEADS)
            sentences.append(f"{singular if len(phrases) == 1 else plural} {_join(phrases)}.")
        if building.listed:
            sentences.append("Das Gebäude steht unter Denkmalschutz.")
        if Feature.pets_allowed in features:
            sentences.append("Haustiere sind nach Absprache willkommen.")
        if len(sentences) < 4:
            location = rng.choice(_LOCATION_SENTENCES)
            sentences.append(location.format(district=district, in_district=in_district(district), city=place.name))
        if len(sentences) < 4 and rng.random() < 0.5:
            sentences.append(rng.choice(_CLOSING_BUY if marketing == MarketingType.buy else _CLOSING_RENT))
        return " ".join(sentences)

    def _introduction(
        self,
        property_type: PropertyType,
        subtype: str,
        layout: _Layout,
        building: _Building,
        place: DemoPlace,
        district: str,
    ) -> str:
        rng = self.rng
        area = _de_number(layout.living_area or 0)
        plot = _de_number(layout.plot_area or 0)
        where = in_district(district)
        match property_type:
            case PropertyType.apartment:
                year = building.year_built or DEMO_NOW.year
                phrase = next((p for limit, p in _BUILDING_PHRASES if year < limit), _NEW_BUILDING_PHRASE)
                building_phrase = phrase.format(year=year, decade=year // 10 * 10)
                floor = _floor_label(layout.floor or 0, subtype)
                noun = subtype if subtype in ("Maisonette", "Penthouse") else "Wohnung"
                adjective = rng.choice(_ADJECTIVES_EXISTING)["weak"]
                rooms = _de_number(layout.rooms or 1)
                return (
                    f"{_DEMONSTRATIVES[_NOUN_GENDER[noun]]} {adjective} {rooms}-Zimmer-{noun} im {floor} "
                    f"{building_phrase} {where} bietet rund {area} m² Wohnfläche."
                )
            case PropertyType.house:
                year = f", Baujahr {building.year_built}," if building.year_built else ""
                return (
                    f"{_DEMONSTRATIVES[_NOUN_GENDER[subtype]]} {subtype} {where}{year} bietet auf rund {area} m² "
                    f"Wohnfläche {layout.rooms:.0f} Zimmer und steht auf einem {plot} m² großen Grundstück."
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
                if subtype == "Büro":
                    return (
                        f"Die Bürofläche mit rund {area} m² im {_floor_label(layout.floor or 0, subtype)} gliedert "
                        f"sich in {layout.rooms:.0f} Räume, eine Teeküche und getrennte Sanitärbereiche."
                    )
                return (
                    f"Das Ladenlokal mit rund {area} m² Verkaufsfläche besticht durch eine große Schaufensterfront "
                    f"in frequentierter Lage {where}."
                )
            case PropertyType.parking:
                if subtype == "Tiefgaragenstellplatz":
                    return (
                        f"Angeboten wird ein Tiefgaragenstellplatz in einer gepflegten Wohnanlage {where}; "
                        "die Zufahrt erfolgt bequem über ein elektrisches Rolltor."
                    )
                return f"Die Einzelgarage {where} bietet Platz für einen Pkw und zusätzlichen Stauraum."

    def _address(self, place: DemoPlace, district: str) -> Row:
        rng = self.rng
        angle = rng.uniform(0, 2 * math.pi)
        distance = MAX_JITTER_KM * rng.random()
        latitude = place.latitude + distance * math.cos(angle) / KM_PER_DEGREE
        longitude = place.longitude + distance * math.sin(angle) / (
            KM_PER_DEGREE * math.cos(math.radians(place.latitude))
        )
        house_number = str(rng.randint(1, 120)) + ("a" if rng.random() < 0.08 else "")
        return {
            "postal_code": rng.choice(place.postal_codes),
            "city": place.name,
            "city_key": self.city_keys[place.name],
            "district": district,
            "street": rng.choice(_STREETS),
            "house_number": house_number,
            "address_published": rng.random() < 0.4,
            "state": place.state,
            "latitude": round(latitude, 6),
            "longitude": round(longitude, 6),
        }

    def _prices(
        self,
        property_type: PropertyType,
        subtype: str,
        marketing: MarketingType,
        layout: _Layout,
        building: _Building,
        place: DemoPlace,
    ) -> Row:
        rng = self.rng
        noise = rng.uniform(0.8, 1.25)
        factor = _PRICE_FACTORS.get(subtype, 1.0) * (1.1 if (building.year_built or 0) >= 2020 else 1.0)
        area = layout.living_area or 0.0
        buy = marketing == MarketingType.buy
        if property_type == PropertyType.land:
            amount = (layout.plot_area or 0.0) * _land_price_per_sqm(place) * noise
        elif property_type == PropertyType.parking:
            buy_factor, rent_factor = _PARKING_PRICE_FACTORS[subtype]
            amount = (place.buy_per_sqm * buy_factor if buy else place.rent_per_sqm * rent_factor) * noise
        else:
            amount = area * (place.buy_per_sqm if buy else place.rent_per_sqm) * factor * noise
        on_request = rng.random() < 0.03
        price = None if on_request else float(round(amount, -3 if buy else -1))

        service_charges = heating_costs = None
        deposit = None
        commercial = property_type == PropertyType.commercial
        if buy:
            if property_type == PropertyType.apartment:
                service_charges = float(round(area * rng.uniform(2.8, 4.5)))
            elif subtype == "Tiefgaragenstellplatz":
                service_charges = float(rng.randint(15, 35))
            commission, percent = (_COMMERCIAL_BUY_COMMISSION if commercial else _BUY_COMMISSION).pick(rng)
        else:
            if property_type in (PropertyType.apartment, PropertyType.house):
                service_charges = float(round(area * rng.uniform(1.8, 3.0) / 5) * 5)
                if rng.random() < 0.8:
                    heating_costs = float(round(area * rng.uniform(0.9, 1.6) / 5) * 5)
                deposit = _DEPOSITS.pick(rng)
            elif commercial:
                service_charges = float(round(area * rng.uniform(2.5, 4.5) / 5) * 5)
                deposit = "3 Bruttomonatsmieten"
            else:
                deposit = "1 Monatsmiete" if rng.random() < 0.5 else None
            commission, percent = (_COMMERCIAL_RENT_COMMISSION if commercial else _RENT_COMMISSION).pick(rng)
        return {
            "price": price,
            "price_on_request": on_request,
            "service_charges": service_charges,
            "heating_costs": heating_costs,
            "deposit": deposit,
            "commission": commission,
            "commission_percent": percent,
        }

    def _energy(self, property_type: PropertyType, building: _Building) -> Row:
        rng = self.rng
        row: Row = {
            "energy_status": building.energy_status.value,
            "energy_certificate_type": None,
            "energy_value": None,
            "energy_class": None,
            "energy_carrier": None,
            "energy_year_built": None,
            "energy_valid_until": None,
        }
        if building.energy_status != EnergyStatus.present or building.year_built is None:
            return row
        year = building.year_built
        typical = next((value for limit, value in _ENERGY_BY_ERA if year < limit), _ENERGY_NEW_BUILD)
        renovated = 0.75 if building.condition in ("saniert", "modernisiert") else 1.0
        value = round(min(260.0, max(25.0, typical * renovated * rng.uniform(0.8, 1.2))), 1)
        if year >= 2015:
            carrier = _ENERGY_CARRIERS_NEW.pick(rng)
        elif year >= 1979:
            carrier = _ENERGY_CARRIERS_MID.pick(rng)
        else:
            carrier = _ENERGY_CARRIERS_OLD.pick(rng)
        # Certificates run ten years; some are expired or about to expire on purpose.
        today = DEMO_NOW.date()
        roll = rng.random()
        if roll < 0.05:
            valid_until = today - dt.timedelta(days=rng.randint(1, 400))
        elif roll < 0.10:
            valid_until = today + dt.timedelta(days=rng.randint(1, 90))
        else:
            valid_until = today + dt.timedelta(days=rng.randint(91, 3650))
        # …but a certificate is never older than its building.
        earliest = dt.date(year + 10, 1, 1) + dt.timedelta(days=rng.randrange(365))
        row.update(
            energy_certificate_type="demand" if year >= 2009 or rng.random() < 0.5 else "consumption",
            energy_value=value,
            # GEG efficiency classes exist for residential buildings only.
            energy_class=None if property_type == PropertyType.commercial else _energy_class(value),
            energy_carrier=carrier,
            energy_year_built=year,
            energy_valid_until=max(valid_until, earliest),
        )
        return row

    def _photos(self, property_type: PropertyType, ref: str) -> list[dict[str, str]]:
        rng = self.rng
        captions = _PHOTO_CAPTIONS[property_type]
        count = 0 if rng.random() < 0.1 else rng.randint(1, min(8, len(captions)))
        return [
            {"url": f"https://img.example.org/demo/{ref}/{n}.jpg", "caption": caption}
            for n, caption in enumerate(rng.sample(captions, count), start=1)
        ]

    def _availability(self) -> Row:
        rng = self.rng
        if rng.random() < 0.35:
            return {"available_from": _first_of_month(DEMO_NOW.date(), rng.randint(1, 6)), "availability_note": None}
        return {"available_from": None, "availability_note": rng.choice(("sofort", "nach Vereinbarung"))}

