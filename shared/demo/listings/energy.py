"""The energy certificate of a demo listing (GEG): value, class, carrier and validity."""

from __future__ import annotations

import datetime as dt
import random

from contract.vocabulary import EnergyStatus, PropertyType
from shared.demo.clock import DEMO_NOW
from shared.demo.listings.shapes import ListingShape
from shared.demo.randomness import Weighted
from shared.demo.rows import Row

_ENERGY_CARRIERS_NEW = Weighted({"Wärmepumpe": 50, "Fernwärme": 25, "Gas": 15, "Pellets": 10})
_ENERGY_CARRIERS_MID = Weighted({"Gas": 50, "Fernwärme": 20, "Öl": 15, "Wärmepumpe": 10, "Pellets": 5})
_ENERGY_CARRIERS_OLD = Weighted({"Gas": 50, "Öl": 25, "Fernwärme": 20, "Strom": 5})
# GEG Anlage 10: upper bounds of the residential energy efficiency classes in kWh/(m²·a).
_ENERGY_CLASS_BOUNDS = ((30, "A+"), (50, "A"), (75, "B"), (100, "C"), (130, "D"), (160, "E"), (200, "F"), (250, "G"))
# Typical final energy use by building year, before renovation.
_ENERGY_BY_ERA = ((1919, 220), (1949, 200), (1979, 170), (1995, 135), (2009, 100), (2016, 65))
_ENERGY_NEW_BUILD = 38


def draw_energy(rng: random.Random, shape: ListingShape) -> Row:
    row: Row = {
        "energy_status": shape.building.energy_status.value,
        "energy_certificate_type": None,
        "energy_value": None,
        "energy_class": None,
        "energy_carrier": None,
        "energy_year_built": None,
        "energy_valid_until": None,
    }
    if shape.building.energy_status != EnergyStatus.present or shape.building.year_built is None:
        return row
    year = shape.building.year_built
    typical = next((value for limit, value in _ENERGY_BY_ERA if year < limit), _ENERGY_NEW_BUILD)
    renovated = 0.75 if shape.building.condition in ("saniert", "modernisiert") else 1.0
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
        energy_class=None if shape.property_type == PropertyType.commercial else _energy_class(value),
        energy_carrier=carrier,
        energy_year_built=year,
        energy_valid_until=max(valid_until, earliest),
    )
    return row


def _energy_class(value: float) -> str:
    return next((label for bound, label in _ENERGY_CLASS_BOUNDS if value < bound), "H")
