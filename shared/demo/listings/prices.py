"""Prices of a demo listing: purchase price or rent, service charges, deposit and commission."""

from __future__ import annotations

import random

from contract.vocabulary import MarketingType, PropertyType
from shared.demo.listings.shapes import ListingShape
from shared.demo.places import DEMO_PLACES, DemoPlace
from shared.demo.randomness import Weighted
from shared.demo.rows import Row

# Price per m² relative to the place's apartment level, per subtype.
_PRICE_FACTORS = {
    "Penthouse": 1.3, "Villa": 1.2, "Einfamilienhaus": 0.95, "Doppelhaushälfte": 0.9, "Reihenhaus": 0.85,
    "Bungalow": 0.9, "Mehrfamilienhaus": 0.7, "Büro": 0.75, "Ladenlokal": 0.85,
}
_TOP_BUY_PER_SQM = max(place.buy_per_sqm for place in DEMO_PLACES)
# Parking prices in multiples of the place's apartment price per m² (buy) and rent per m² (rent).
_PARKING_PRICE_FACTORS = {"Tiefgaragenstellplatz": (3.5, 6.0), "Garage": (2.5, 4.5)}
_BUY_COMMISSION = Weighted(
    {("3,57 % inkl. MwSt.", 3.57): 55, ("2,98 % inkl. MwSt.", 2.98): 8, ("2,38 % inkl. MwSt.", 2.38): 7,
     ("provisionsfrei", 0.0): 20, (None, None): 10}
)
_COMMERCIAL_BUY_COMMISSION = Weighted(
    {("5,95 % inkl. MwSt.", 5.95): 50, ("3,57 % inkl. MwSt.", 3.57): 20, ("provisionsfrei", 0.0): 20,
     (None, None): 10}
)
_RENT_COMMISSION = Weighted({("provisionsfrei für Mieter", 0.0): 92, (None, None): 8})
_COMMERCIAL_RENT_COMMISSION = Weighted(
    {("3 Nettokaltmieten zzgl. MwSt.", None): 50, ("provisionsfrei für Mieter", 0.0): 40, (None, None): 10}
)
_DEPOSITS = Weighted({"3 Nettokaltmieten": 75, "2 Nettokaltmieten": 15, "3 Monatsmieten (kalt)": 10})


def draw_prices(rng: random.Random, shape: ListingShape) -> Row:
    noise = rng.uniform(0.8, 1.25)
    factor = _PRICE_FACTORS.get(shape.subtype, 1.0) * (1.1 if (shape.building.year_built or 0) >= 2020 else 1.0)
    area = shape.layout.living_area or 0.0
    buy = shape.marketing == MarketingType.buy
    if shape.property_type == PropertyType.land:
        amount = (shape.layout.plot_area or 0.0) * _land_price_per_sqm(shape.place) * noise
    elif shape.property_type == PropertyType.parking:
        buy_factor, rent_factor = _PARKING_PRICE_FACTORS[shape.subtype]
        amount = (shape.place.buy_per_sqm * buy_factor if buy else shape.place.rent_per_sqm * rent_factor) * noise
    else:
        amount = area * (shape.place.buy_per_sqm if buy else shape.place.rent_per_sqm) * factor * noise
    on_request = rng.random() < 0.03
    price = None if on_request else float(round(amount, -3 if buy else -1))

    service_charges = heating_costs = None
    deposit = None
    commercial = shape.property_type == PropertyType.commercial
    if buy:
        if shape.property_type == PropertyType.apartment:
            service_charges = float(round(area * rng.uniform(2.8, 4.5)))
        elif shape.subtype == "Tiefgaragenstellplatz":
            service_charges = float(rng.randint(15, 35))
        commission, percent = (_COMMERCIAL_BUY_COMMISSION if commercial else _BUY_COMMISSION).pick(rng)
    else:
        if shape.property_type in (PropertyType.apartment, PropertyType.house):
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


def _land_price_per_sqm(place: DemoPlace) -> float:
    """Land prices spread wider than flat prices: about a quarter of the flat price in München, 4 % in Görlitz."""
    return 0.25 * place.buy_per_sqm * place.buy_per_sqm / _TOP_BUY_PER_SQM
