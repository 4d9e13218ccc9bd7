"""The listing factory: draws one demo listing after another from a shared random stream.

The order of the draws is part of the data: the same seed must give the same rows, so a new draw goes
after all existing ones, never between them.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from collections.abc import Sequence

from contract.vocabulary import EnergyStatus, Feature, ListingStatus, MarketingType, PropertyType
from shared.catalog.text import normalise
from shared.demo.clock import DEMO_NOW
from shared.demo.listings.energy import draw_energy
from shared.demo.listings.prices import draw_prices
from shared.demo.listings.shapes import Building, Layout, ListingShape, dwelling_units
from shared.demo.listings.tables import (
    APARTMENT_FLOORS,
    APARTMENT_ROOMS,
    BUILDING_ENERGY,
    BUILDING_ERAS,
    BUY_SHARE,
    CONDITIONS_EXISTING,
    CONDITIONS_LISTED,
    CONDITIONS_RECENT,
    HOUSE_SHAPES,
    PHOTO_CAPTIONS,
    PREWAR_TOP_FLOOR,
    PROPERTY_TYPES,
    STATUSES,
    SUBTYPES,
)
from shared.demo.listings.wording import description, title
from shared.demo.names import STREETS
from shared.demo.offices import DemoOffice
from shared.demo.places import DEMO_PLACES, PLACES_BY_SIZE, DemoPlace
from shared.demo.rows import Row

PUBLICATION_WINDOW = dt.timedelta(days=120)
MAX_JITTER_KM = 6.0  # how far a listing lies from its place's centre at most
KM_PER_DEGREE = 111.32


class ListingFactory:
    """Draws one listing after another from a shared random stream."""

    def __init__(self, rng: random.Random, offices: Sequence[DemoOffice]) -> None:
        self.rng = rng
        self.city_keys = {place.name: normalise(place.name) for place in DEMO_PLACES}
        self.offices_by_place: dict[str, list[int]] = {}
        self.offices_by_state: dict[str, list[int]] = {}
        for office in offices:
            self.offices_by_place.setdefault(office.place.name, []).append(office.id)
            self.offices_by_state.setdefault(office.place.state, []).append(office.id)

    def listing(self, listing_id: int) -> tuple[Row, list[Feature]]:
        rng = self.rng
        place = PLACES_BY_SIZE.pick(rng)
        property_type = PROPERTY_TYPES.pick(rng)
        subtype = SUBTYPES[property_type].pick(rng)
        marketing = MarketingType.buy if rng.random() < BUY_SHARE[property_type] else MarketingType.rent
        building = self._building(property_type)
        layout = self._layout(property_type, subtype, building)
        features = self._features(property_type, subtype, marketing, layout, building)
        district = rng.choice(place.districts)
        shape = ListingShape(property_type, subtype, marketing, building, layout, features, place, district)
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
                "title": title(rng, shape),
                "description": description(rng, shape),
                **self._address(place, district),
                **draw_prices(rng, shape),
                "living_area": layout.living_area,
                "plot_area": layout.plot_area,
                "rooms": layout.rooms,
                "bedrooms": layout.bedrooms,
                "bathrooms": layout.bathrooms,
                "floor": layout.floor,
                "year_built": building.year_built,
                "condition": building.condition,
                **draw_energy(rng, shape),
                "photos": self._photos(property_type, ref),
                **self._availability(),
            },
            features,
        )

    def _status_and_dates(self, marketing: MarketingType) -> Row:
        rng = self.rng
        status = STATUSES.pick(rng)
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

    def _building(self, property_type: PropertyType) -> Building:
        rng = self.rng
        if property_type in (PropertyType.land, PropertyType.parking):
            return Building(None, None, EnergyStatus.not_required, listed=False)
        energy_status = BUILDING_ENERGY.pick(rng)
        if energy_status == EnergyStatus.not_required:
            return Building(rng.randint(1890, 1918), CONDITIONS_LISTED.pick(rng), energy_status, listed=True)
        year = rng.randint(*BUILDING_ERAS.pick(rng))
        if year >= 2024:
            condition = "Erstbezug"
        elif year >= 2015:
            condition = CONDITIONS_RECENT.pick(rng)
        else:
            condition = CONDITIONS_EXISTING.pick(rng)
        return Building(year, condition, energy_status, listed=False)

    def _layout(self, property_type: PropertyType, subtype: str, building: Building) -> Layout:
        rng = self.rng
        match property_type:
            case PropertyType.apartment:
                rooms = APARTMENT_ROOMS.pick(rng)
                if subtype in ("Maisonette", "Penthouse"):
                    rooms = max(rooms, 3.0)
                area = (14 + 23 * rooms) * rng.uniform(0.85, 1.2) * (1.25 if subtype == "Penthouse" else 1.0)
                floor = rng.randint(*APARTMENT_FLOORS[subtype])
                if (building.year_built or 0) < 1949:
                    floor = min(floor, PREWAR_TOP_FLOOR)
                bathrooms = 2 if rooms >= 4 and rng.random() < 0.4 else 1
                return Layout(round(area, 1), None, rooms, int(rooms) - 1, bathrooms, floor)
            case PropertyType.house:
                (rooms_min, rooms_max), (area_min, area_max), (plot_min, plot_max) = HOUSE_SHAPES[subtype]
                rooms = rng.randint(rooms_min, rooms_max)
                area = round(rng.uniform(area_min, area_max), 1)
                plot = float(rng.randrange(plot_min, plot_max, 5))
                if subtype == "Mehrfamilienhaus":
                    return Layout(area, plot, float(rooms), None, dwelling_units(rooms))
                return Layout(area, plot, float(rooms), rooms - 2, 1 + (rooms >= 5) + (rooms >= 8))
            case PropertyType.land:
                return Layout(plot_area=float(rng.randrange(250, 1500, 5)))
            case PropertyType.commercial:
                if subtype == "Büro":
                    area = round(rng.uniform(60, 600), 1)
                    return Layout(area, rooms=float(max(1, int(area // 25))), floor=rng.randint(0, 5))
                return Layout(round(rng.uniform(40, 300), 1), rooms=float(rng.randint(1, 3)), floor=0)
            case PropertyType.parking:
                return Layout(floor=-1 if subtype == "Tiefgaragenstellplatz" else None)

    def _features(
        self,
        property_type: PropertyType,
        subtype: str,
        marketing: MarketingType,
        layout: Layout,
        building: Building,
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
            "street": rng.choice(STREETS),
            "house_number": house_number,
            "address_published": rng.random() < 0.4,
            "state": place.state,
            "latitude": round(latitude, 6),
            "longitude": round(longitude, 6),
        }

    def _photos(self, property_type: PropertyType, ref: str) -> list[dict[str, str]]:
        rng = self.rng
        captions = PHOTO_CAPTIONS[property_type]
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


def _first_of_month(day: dt.date, months_ahead: int) -> dt.date:
    month_index = day.month - 1 + months_ahead
    return dt.date(day.year + month_index // 12, month_index % 12 + 1, 1)
