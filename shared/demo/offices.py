"""Demo broker offices: one in the largest place of every Bundesland, the rest where most people live."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from shared.catalog.text import normalise
from shared.demo.names import SURNAMES
from shared.demo.places import DEMO_PLACES, PLACES_BY_SIZE, DemoPlace
from shared.demo.randomness import DEFAULT_SEED
from shared.demo.rows import Row

OFFICE_COUNT = 40
_NAME_PATTERNS = (
    "{surname} Immobilien",
    "Immobilien {surname} GmbH",
    "{surname} & Partner Immobilien",
    "Immobilienbüro {surname}",
    "{surname} Wohnen & Immobilien",
    "Maklerhaus {surname}",
    "Immobilienkontor {city} – {surname}",
)


@dataclass(frozen=True)
class DemoOffice:
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


def draw_offices(rng: random.Random) -> list[DemoOffice]:
    """One office in the largest place of every Bundesland, the rest where most people live."""
    largest: dict[str, DemoPlace] = {}
    for place in DEMO_PLACES:
        if place.state not in largest or place.residents > largest[place.state].residents:
            largest[place.state] = place
    homes = list(largest.values())
    homes += [PLACES_BY_SIZE.pick(rng) for _ in range(OFFICE_COUNT - len(homes))]
    surnames = rng.sample(SURNAMES, OFFICE_COUNT)
    offices = []
    for office_id, (place, surname) in enumerate(zip(homes, surnames, strict=True), start=1):
        name = rng.choice(_NAME_PATTERNS).format(surname=surname, city=place.name)
        slug = "-".join(re.findall(r"[a-z0-9]+", normalise(f"{surname} immobilien {place.name}")))
        phone = f"{place.area_code} {rng.randrange(200_000, 9_999_999)}"
        offices.append(DemoOffice(office_id, name, place, phone, slug))
    return offices


def default_office_names() -> dict[int, str]:
    """Office names of the default seed: the offices are the first draw of seed_demo's random stream."""
    return {office.id: office.name for office in draw_offices(random.Random(DEFAULT_SEED))}
