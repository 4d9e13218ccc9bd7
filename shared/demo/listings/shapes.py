"""What a demo listing's texts, prices and energy certificate are drawn from: its shape."""

from __future__ import annotations

from dataclasses import dataclass

from contract.vocabulary import EnergyStatus, Feature, MarketingType, PropertyType
from shared.demo.places import DemoPlace


@dataclass(frozen=True)
class Layout:
    living_area: float | None = None
    plot_area: float | None = None
    rooms: float | None = None
    bedrooms: int | None = None
    bathrooms: int | None = None
    floor: int | None = None


@dataclass(frozen=True)
class Building:
    year_built: int | None
    condition: str | None
    energy_status: EnergyStatus
    listed: bool  # Denkmalschutz


@dataclass(frozen=True)
class ListingShape:
    """What is drawn of a listing before its texts, prices and energy certificate."""

    property_type: PropertyType
    subtype: str
    marketing: MarketingType
    building: Building
    layout: Layout
    features: list[Feature]
    place: DemoPlace
    district: str


def dwelling_units(rooms: int) -> int:
    """Flats in a Mehrfamilienhaus of that many rooms (one bathroom each)."""
    return max(2, rooms // 3)
