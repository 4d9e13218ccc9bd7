"""The catalog as the accounts see it: the listings just written, read back (samples, per office, and those
that fit a saved search, with the catalog search's semantics)."""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from sqlalchemy import ColumnElement, Connection, func, select

from contract.catalog import CatalogFilters
from shared.catalog.search import KM_PER_DEGREE_LAT, KM_PER_DEGREE_LON_EQUATOR
from shared.catalog.text import normalise
from shared.db.models import Listing, Place
from shared.demo.listings.factory import MAX_JITTER_KM
from shared.demo.places import DEMO_PLACES

# Columns the accounts read back from the listings just written.
_COLUMNS = (
    Listing.id, Listing.ref, Listing.office_id, Listing.status, Listing.marketing_type, Listing.property_type,
    Listing.title, Listing.city, Listing.postal_code, Listing.street, Listing.house_number, Listing.price,
    Listing.service_charges, Listing.heating_costs, Listing.living_area, Listing.rooms, Listing.energy_status,
    Listing.available_from, Listing.availability_note, Listing.published_at, Listing.created_at, Listing.updated_at,
)
STREAMED_ROWS = 2_000
_SEARCH_FIELDS = {"city", "near", "marketing_type", "property_types", "min_price", "max_price", "min_rooms", "max_rooms"}


@dataclass(frozen=True, slots=True)
class DemoListing:
    """A listing as read back: only what the accounts need."""

    id: int
    ref: str
    office_id: int
    status: str
    marketing_type: str
    property_type: str
    title: str
    city: str
    postal_code: str
    street: str | None
    house_number: str | None
    price: float | None
    service_charges: float | None
    heating_costs: float | None
    living_area: float | None
    rooms: float | None
    energy_status: str
    available_from: dt.date | None
    availability_note: str | None
    published_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime

    @classmethod
    def of(cls, row: Any) -> DemoListing:
        return cls(**row._asdict())


class Stock:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.known: dict[int, DemoListing] = {}  # every listing `fitting` found, by id
        self._picked: dict[int, DemoListing] = {}  # every listing read by id (ListingIds), by id

    def office_stock(self, office_id: int) -> ListingIds:
        """Every listing of an office, by id, held as ids: an office's stock grows with the catalog."""
        ids = self.connection.scalars(select(Listing.id).where(Listing.office_id == office_id).order_by(Listing.id))
        return ListingIds(self, list(ids))

    def by_id(self, listing_id: int) -> DemoListing:
        if listing_id not in self._picked:
            [self._picked[listing_id]] = self.listings(Listing.id == listing_id)
        return self._picked[listing_id]

    def published_count(self) -> int:
        return self.connection.scalar(
            select(func.count()).select_from(Listing).where(Listing.status == "published")
        ) or 0

    def listings(self, *conditions: ColumnElement[bool], limit: int | None = None) -> list[DemoListing]:
        """The listings that meet all conditions, by id."""
        query = select(*_COLUMNS).where(*conditions).order_by(Listing.id).limit(limit)
        return [DemoListing.of(row) for row in self.connection.execute(query)]

    def published_sample(self, rng: random.Random, wanted: int) -> list[DemoListing]:
        """Published listings in random order, fetched by primary key (flat in memory at any catalog size)."""
        highest = self.connection.scalar(select(func.max(Listing.id))) or 0
        ids = rng.sample(range(1, highest + 1), min(highest, wanted + wanted // 8))
        found: dict[int, DemoListing] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self.connection.execute(
                select(*_COLUMNS).where(Listing.id.in_(chunk), Listing.status == "published")
            )
            found.update((row.id, DemoListing.of(row)) for row in rows)
        return [found[i] for i in ids if i in found]

    def fitting(self, filters: CatalogFilters, office_id: int | None = None, limit: int = 80) -> list[DemoListing]:
        """Published listings that fit the filters, newest first, with the catalog search's semantics for the
        filters demo searches use (place or circle, marketing type, property types, price and rooms).

        Filtered here, not in SQL: the city index is the selective one, but without ANALYZE statistics SQLite
        prefers the price index and scans a large part of a 10^5 catalog for every saved search.
        """
        unsupported = set(filters.model_dump(exclude_none=True)) - _SEARCH_FIELDS
        if unsupported:
            raise ValueError(f"demo searches do not filter by {sorted(unsupported)}")
        near, centre = filters.near, None
        if near is not None:
            centre = self._centre(near.place or "")
            if centre is None:
                return []
            reach = near.radius_km + MAX_JITTER_KM + 1
            keys = sorted({normalise(p.name) for p in DEMO_PLACES if _distance(centre, p.latitude, p.longitude) <= reach})
        else:
            keys = [normalise((filters.city or "").strip())]
        types = {p.value for p in filters.property_types or []}
        marketing = filters.marketing_type.value if filters.marketing_type is not None else None
        rows = self.connection.execute(  # streamed: a big city is a tenth of the catalog
            select(Listing.id, Listing.office_id, Listing.status, Listing.marketing_type, Listing.property_type,
                   Listing.price, Listing.rooms, Listing.latitude, Listing.longitude, Listing.published_at)
            .where(Listing.city_key.in_(keys))
            .execution_options(yield_per=STREAMED_ROWS)
        )
        hits = []
        for row in rows:
            if (
                row.status == "published"
                and (office_id is None or row.office_id == office_id)
                and (marketing is None or row.marketing_type == marketing)
                and (not types or row.property_type in types)
                and _within(filters.min_price, filters.max_price, row.price)
                and _within(filters.min_rooms, filters.max_rooms, row.rooms)
                and (centre is None or near is None or _in_circle(centre, near.radius_km, row.latitude, row.longitude))
            ):
                hits.append((row.published_at, row.id))
        hits.sort(key=lambda hit: (-hit[0].timestamp(), hit[1]))
        ids = [listing_id for _, listing_id in hits[:limit]]
        found = {
            row.id: DemoListing.of(row)
            for row in self.connection.execute(select(*_COLUMNS).where(Listing.id.in_(ids)))
        } if ids else {}
        self.known.update(found)
        return [found[listing_id] for listing_id in ids]

    def _centre(self, place: str) -> tuple[float, float] | None:
        """The centre of a place as the catalog search takes it: the mean of its postal areas."""
        latitude, longitude = self.connection.execute(
            select(func.avg(Place.latitude), func.avg(Place.longitude)).where(Place.name_key == normalise(place.strip()))
        ).one()
        return None if latitude is None else (float(latitude), float(longitude))


class ListingIds(Sequence[DemoListing]):
    """Listings in id order, held as their ids and read when used: an item by id, the whole in chunks. What the
    accounts keep of an office's whole stock, so their memory does not grow with the catalog."""

    CHUNK = 2_000

    def __init__(self, stock: Stock, ids: list[int]) -> None:
        self.stock = stock
        self.ids = ids

    def __len__(self) -> int:
        return len(self.ids)

    @overload
    def __getitem__(self, index: int) -> DemoListing: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[DemoListing]: ...
    def __getitem__(self, index: int | slice) -> DemoListing | Sequence[DemoListing]:
        if isinstance(index, slice):
            return ListingIds(self.stock, self.ids[index])
        return self.stock.by_id(self.ids[index])

    def __iter__(self) -> Iterator[DemoListing]:
        for start in range(0, len(self.ids), self.CHUNK):
            chunk = self.ids[start:start + self.CHUNK]
            yield from self.stock.listings(Listing.id.in_(chunk))

    def where(self, keep: Callable[[DemoListing], bool]) -> ListingIds:
        return ListingIds(self.stock, [lst.id for lst in self if keep(lst)])


def _within(low: float | None, high: float | None, value: float | None) -> bool:
    """A range filter; a listing without the value never matches a range."""
    if low is None and high is None:
        return True
    return value is not None and (low is None or value >= low) and (high is None or value <= high)


def _distance(centre: tuple[float, float], latitude: float, longitude: float) -> float:
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre[0]))
    return math.hypot((latitude - centre[0]) * KM_PER_DEGREE_LAT, (longitude - centre[1]) * km_per_lon)


def _in_circle(centre: tuple[float, float], radius_km: float, latitude: float, longitude: float) -> bool:
    """The catalog search's circle test (shared.catalog.search.near_conditions), same arithmetic."""
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre[0]))
    dlat, dlon = radius_km / KM_PER_DEGREE_LAT, radius_km / km_per_lon
    if not (centre[0] - dlat <= latitude <= centre[0] + dlat and centre[1] - dlon <= longitude <= centre[1] + dlon):
        return False
    dy = (latitude - centre[0]) * KM_PER_DEGREE_LAT
    dx = (longitude - centre[1]) * km_per_lon
    return dx * dx + dy * dy <= radius_km * radius_km
