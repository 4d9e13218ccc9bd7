"""Every German postal code, municipality and the districts the data names, read from the file that
`scripts/refresh_places` writes (`data/places.tsv.gz`, source and licence in `data/SOURCE.md`).

Loaded once per process on first use (about 13,000 rows), never from the network. Names are compared by `place_key`
(shared.catalog.places); this module only holds the data and its indexes.
"""

from __future__ import annotations

import bisect
import gzip
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

STATES = {
    "BW": "Baden-Württemberg", "BY": "Bayern", "BE": "Berlin", "BB": "Brandenburg", "HB": "Bremen", "HH": "Hamburg",
    "HE": "Hessen", "MV": "Mecklenburg-Vorpommern", "NI": "Niedersachsen", "NW": "Nordrhein-Westfalen",
    "RP": "Rheinland-Pfalz", "SL": "Saarland", "SN": "Sachsen", "ST": "Sachsen-Anhalt", "SH": "Schleswig-Holstein",
    "TH": "Thüringen",
}


@dataclass(frozen=True, eq=False, slots=True)
class Municipality:
    name: str
    state: str  # Bundesland, German name
    latitude: float
    longitude: float
    residents: int  # 0: unknown (GeoNames lists places from 500 residents)
    approximate: bool  # coordinates estimated from its neighbours
    postal_codes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """The name with its Bundesland, as a question lists namesakes: 'Neunkirchen (Saarland)'."""
        return f"{self.name} ({self.state})"


@dataclass(frozen=True, eq=False, slots=True)
class District:
    name: str
    municipality: Municipality
    latitude: float
    longitude: float


@dataclass
class Gazetteer:
    municipalities: list[Municipality]
    districts: list[District]
    by_code: dict[str, list[Municipality]]
    codes: list[str]  # sorted, for code beginnings
    by_key: dict[str, list[Municipality]]
    districts_by_key: dict[str, list[District]]
    keys: list[str] = field(default_factory=list)  # the keys of by_key, sorted, for name beginnings
    _order: dict[str, int] = field(default_factory=dict, repr=False)  # a key's place in by_key

    def __post_init__(self) -> None:
        self.keys = sorted(self.by_key)
        self._order = {key: at for at, key in enumerate(self.by_key)}

    def has_code_beginning(self, prefix: str) -> bool:
        at = bisect.bisect_left(self.codes, prefix)
        return at < len(self.codes) and self.codes[at].startswith(prefix)

    def keys_beginning(self, prefix: str) -> list[str]:
        """The keys of by_key that start with `prefix`, in by_key's order: what a scan of every key would find, from
        a range of the sorted keys (a scan of 11,000 names was a twentieth of a search call's time)."""
        at = bisect.bisect_left(self.keys, prefix)
        found = []
        while at < len(self.keys) and self.keys[at].startswith(prefix):
            found.append(self.keys[at])
            at += 1
        return sorted(found, key=self._order.__getitem__)


def _read() -> Iterator[list[str]]:
    with resources.files("shared.catalog").joinpath("data/places.tsv.gz").open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as text:
        for line in text:
            if line.strip():
                yield line.rstrip("\n").split("\t")


def build(rows: Iterable[list[str]], key: Callable[[str], str]) -> Gazetteer:
    places: dict[tuple[str, str], Municipality] = {}
    by_code: dict[str, list[Municipality]] = defaultdict(list)
    districts: list[District] = []
    for row in rows:
        if row[0] == "P":
            _, code, name, state, lat, lon, approx, residents = row
            place = places.get((name, state))
            if place is None:
                place = places[(name, state)] = Municipality(name, STATES[state], float(lat), float(lon), int(residents), approx == "1")
            place.postal_codes.append(code)
            by_code[code].append(place)
        elif row[0] == "D":
            _, name, owner, state, lat, lon = row
            districts.append(District(name, places[(owner, state)], float(lat), float(lon)))
    by_key: dict[str, list[Municipality]] = defaultdict(list)
    for place in places.values():
        by_key[key(place.name)].append(place)
    districts_by_key: dict[str, list[District]] = defaultdict(list)
    for district in districts:
        districts_by_key[key(district.name)].append(district)
        districts_by_key[key(f"{district.municipality.name} {district.name}")].append(district)
    return Gazetteer(list(places.values()), districts, dict(by_code), sorted(by_code), dict(by_key), dict(districts_by_key))


@cache
def load(key: Callable[[str], str]) -> Gazetteer:
    """The gazetteer with names indexed by `key`; read once per process."""
    return build(_read(), key)


def split_state(text: str) -> tuple[str, str | None]:
    """'Neunkirchen (Saarland)' → ('Neunkirchen', 'Saarland'): a name with its Bundesland in brackets, as a question
    offers namesakes; any other text → (text, None) ('Halle (Saale)' keeps its bracket)."""
    stripped = text.strip()
    if stripped.endswith(")") and " (" in stripped:
        name, _, state = stripped[:-1].rpartition(" (")
        if state in STATES.values() and name.strip():
            return name.strip(), state
    return stripped, None
