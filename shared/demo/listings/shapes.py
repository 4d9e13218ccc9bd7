"""What a demo listing's texts and prices are drawn from: its layout and its building."""

from __future__ import annotations

from dataclasses import dataclass

from contract.vocabulary import EnergyStatus


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


def dwelling_units(rooms: int) -> int:
    """Flats in a Mehrfamilienhaus of that many rooms (one bathroom each)."""
    return max(2, rooms // 3)
