"""A seeker's saved search: criteria drawn around a listing so that at least that listing fits."""

from __future__ import annotations

import datetime as dt
import math
import random
from dataclasses import dataclass, field
from typing import Any

from contract.catalog import CatalogFilters, Near
from shared.demo.accounts.people import DemoUser
from shared.demo.accounts.stock import DemoListing
from shared.demo.german import de_number
from shared.demo.places import DEMO_PLACES, PLACE_BY_NAME
from shared.demo.rows import Row

_SEARCH_NOUNS = {
    "apartment": "Wohnung", "house": "Haus", "land": "Grundstück", "commercial": "Gewerbefläche",
    "parking": "Stellplatz",
}


@dataclass
class SavedSearch:
    id: int
    ref: str
    user: DemoUser
    filters: CatalogFilters
    status: str
    frequency: str
    approachable: bool
    created_at: dt.datetime
    seed: DemoListing | None  # the listing the criteria were drawn around
    row: Row = field(default_factory=dict)


def draw_criteria(rng: random.Random, seed: DemoListing | None, broad: bool = False) -> tuple[CatalogFilters, str]:
    """Criteria drawn around a listing, so that at least that listing fits; `broad` for the documented
    accounts, whose searches should find something even in a small catalog. Returns the filters and the
    search's name."""
    if seed is None:  # an empty catalog: a plausible search all the same
        place = rng.choice(DEMO_PLACES)
        city, marketing, property_type, rooms = place.name, rng.choice(("buy", "rent")), "apartment", 3.0
        price: float | None = 75 * (place.buy_per_sqm if marketing == "buy" else place.rent_per_sqm)
    else:
        city, marketing, property_type = seed.city, seed.marketing_type, seed.property_type
        rooms, price = seed.rooms, seed.price
    buy = marketing == "buy"
    if broad and price is not None:  # at least what 110 m² cost there
        place = PLACE_BY_NAME[city]
        price = max(price, 110 * (place.buy_per_sqm if buy else place.rent_per_sqm) / 1.5)
    property_types = [property_type]
    if broad and property_type in ("apartment", "house"):
        property_types = ["apartment", "house"]
    arguments: dict[str, Any] = {"marketing_type": marketing, "property_types": property_types}
    if broad or rng.random() < 0.75:
        arguments["city"] = city
        where = f"in {city}"
    else:
        radius = rng.choice((10, 15, 20, 25, 30))
        arguments["near"] = Near(place=city, radius_km=radius)
        where = f"im Umkreis von {radius} km um {city}"
    details = []
    if rooms is not None and property_type in ("apartment", "house") and rng.random() < (0.4 if broad else 0.7):
        low = max(1.0, math.floor(rooms) - (1 if broad else rng.choice((0, 0, 1))))
        high = float(math.ceil(rooms) + rng.choice((0, 1))) if not broad and rng.random() < 0.2 else None
        if low > 1:  # "ab 1 Zimmer" says nothing
            arguments["min_rooms"] = low
        if high is not None:
            arguments["max_rooms"] = high
        if low > 1 and high is not None:
            details.append(f"{de_number(low)}–{de_number(high)} Zimmer")
        elif low > 1:
            details.append(f"ab {de_number(low)} Zimmer")
        elif high is not None:
            details.append(f"bis {de_number(high)} Zimmer")
    if price is not None:
        step = 10_000 if buy else 50
        factor = rng.uniform(1.4, 1.6) if broad else rng.uniform(1.05, 1.5)
        arguments["max_price"] = float(math.ceil(price * factor / step) * step)
        if not broad and rng.random() < 0.25:
            arguments["min_price"] = float(math.floor(price * rng.uniform(0.55, 0.9) / step) * step)
            details.append(f"{de_number(arguments['min_price'])}–{de_number(arguments['max_price'])} €")
        else:
            details.append(f"bis {de_number(arguments['max_price'])} €")
    filters = CatalogFilters(**arguments)
    noun = " oder ".join(_SEARCH_NOUNS[p] for p in property_types)
    name = f"{noun} {'kaufen' if buy else 'mieten'} {where}"
    return filters, ", ".join([name, *details])
