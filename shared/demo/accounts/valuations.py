"""Valuations of the offices: of their own listings, and for owners who asked what their property is worth."""

from __future__ import annotations

import datetime as dt
import heapq
import math
from typing import Any

from sqlalchemy import select

from shared.catalog.text import normalise
from shared.db.models import Listing
from shared.demo.accounts.ground import Ground
from shared.demo.accounts.people import draw_person
from shared.demo.accounts.stock import STREAMED_ROWS, DemoListing
from shared.demo.clock import DEMO_NOW
from shared.demo.german import de_number
from shared.demo.names import STREETS
from shared.demo.offices import DemoOffice
from shared.demo.places import DEMO_PLACES, PLACE_BY_NAME, DemoPlace
from shared.demo.rows import Row


class Valuations:
    def __init__(self, ground: Ground) -> None:
        self.ground = ground

    def draw(self) -> list[Row]:
        """2–6 per office: of one of its own flats or houses, or for an owner (a lead)."""
        rng = self.ground.rng
        rows: list[Row] = []
        for office in self.ground.offices.values():
            own = self.ground.stock.listings(
                Listing.office_id == office.id,
                Listing.property_type.in_(("apartment", "house")),
                Listing.living_area.is_not(None),
                limit=40,
            )
            for _ in range(rng.randint(2, 6)):
                if own and rng.random() < 0.5:
                    rows.append(self._listing_valuation(office, rng.choice(own)))
                else:
                    rows.append(self._lead_valuation(office))
        rows.sort(key=lambda r: (r["created_at"], r["office_id"]))
        for number, row in enumerate(rows, start=1):
            row.update(id=number, ref=f"V-{number:06d}")
        return rows

    def _comparables(self, city: str, marketing: str, property_type: str, area: float, exclude: int | None) -> list[Any]:
        """The published listings of the place closest in living area (3–6 of them)."""
        wanted = self.ground.rng.randint(3, 6)
        # Only the city key in SQL (the index SQLite picks reliably), the rest filtered here, streamed: a big city is
        # a tenth of the catalog.
        rows = self.ground.stock.connection.execute(
            select(Listing.id, Listing.ref, Listing.status, Listing.marketing_type, Listing.property_type,
                   Listing.price, Listing.living_area)
            .where(Listing.city_key == normalise(city))
            .execution_options(yield_per=STREAMED_ROWS)
        )
        comparable = (
            row for row in rows
            if row.status == "published" and row.marketing_type == marketing and row.property_type == property_type
            and row.price is not None and (row.living_area or 0) > 0 and row.id != exclude
        )
        return heapq.nsmallest(wanted, comparable, key=lambda row: (abs(row.living_area - area), row.id))

    def _value(self, place: DemoPlace, marketing: str, property_type: str, area: float, exclude: int | None) -> Row:
        rng = self.ground.rng
        comparables = self._comparables(place.name, marketing, property_type, area, exclude)
        buy = marketing == "buy"
        unit = "€/m²" if buy else "€/m² Kaltmiete"
        if len(comparables) >= 3:
            per_sqm = sorted(row.price / row.living_area for row in comparables)[len(comparables) // 2]
            spread = rng.choice((6, 8, 10))
            method = (
                f"Vergleichswertverfahren: Median von {len(comparables)} Vergleichsangeboten in {place.name} "
                f"({de_number(round(per_sqm, 1 if not buy else 0))} {unit}), ±{spread} % für Lage, Zustand und "
                f"Ausstattung"
            )
        else:
            per_sqm = (place.buy_per_sqm if buy else place.rent_per_sqm) * (0.95 if property_type == "house" else 1.0)
            spread = 12
            method = (
                f"Marktwertschätzung aus dem örtlichen Preisniveau ({de_number(per_sqm)} {unit}); zu wenige "
                f"Vergleichsangebote, daher ±{spread} %"
            )
        value = per_sqm * area
        step = 5_000 if buy else 10
        low = math.floor(value * (1 - spread / 100) / step) * step
        high = math.ceil(value * (1 + spread / 100) / step) * step
        return {
            "value_low": float(low),
            "value_high": float(max(high, low + step)),
            "method": method[:300],
            "comparables": [row.ref for row in comparables] if len(comparables) >= 3 else [],
        }

    def _valuation_meta(self, office: DemoOffice) -> Row:
        rng = self.ground.rng
        members = self.ground.people.members.get(office.id) or [None]
        author = rng.choice(members)
        return {
            "office_id": office.id,
            "created_by": author.id if author else None,
            "created_at": DEMO_NOW - dt.timedelta(days=rng.uniform(0.5, 90)),
        }

    def _listing_valuation(self, office: DemoOffice, lst: DemoListing) -> Row:
        rng = self.ground.rng
        place = PLACE_BY_NAME[lst.city]
        area = float(lst.living_area or 0)
        row = {
            **self._valuation_meta(office),
            "listing_id": lst.id,
            "owner_name": None,
            "address": f"{lst.street} {lst.house_number}" if lst.street else None,
            "postal_code": lst.postal_code,
            "city": lst.city,
            "property_type": lst.property_type,
            "marketing_type": lst.marketing_type,
            "living_area": area,
            **self._value(place, lst.marketing_type, lst.property_type, area, lst.id),
        }
        note = None
        if lst.price is not None:
            if lst.price > row["value_high"]:
                note = "Der Angebotspreis liegt über der Spanne; Preisanpassung mit den Eigentümern besprechen."
            elif lst.price < row["value_low"]:
                note = "Der Angebotspreis liegt unter der Spanne; mit hoher Nachfrage rechnen."
            else:
                note = "Der Angebotspreis liegt innerhalb der Spanne."
        row["note"] = note if rng.random() < 0.8 else None
        return row

    def _lead_valuation(self, office: DemoOffice) -> Row:
        rng = self.ground.rng
        nearby = [p for p in DEMO_PLACES if p.state == office.place.state]
        place = office.place if rng.random() < 0.6 else rng.choice(nearby)
        property_type = "apartment" if rng.random() < 0.55 else "house"
        marketing = "buy" if rng.random() < 0.85 else "rent"
        area = float(rng.randint(45, 130) if property_type == "apartment" else rng.randint(100, 220))
        first, last, female = draw_person(rng)
        owner = rng.choice((f"{'Frau' if female else 'Herr'} {first} {last}", f"Familie {last}",
                            f"Erbengemeinschaft {last}"))
        note = rng.choice((
            "Eigentümer denkt über einen Verkauf im Frühjahr nach; Rückruf vereinbart.",
            "Erbfall, Objekt steht leer. Unterlagen (Grundbuch, Teilungserklärung) angefordert.",
            "Empfehlung über einen früheren Käufer. Besichtigung vor Ort ist erfolgt.",
            "Eigentümerin möchte zunächst nur den Marktwert wissen.",
            None,
        ))
        if marketing == "rent":
            note = "Eigentümer überlegt, nach dem Auszug der Mieter neu zu vermieten."
        return {
            **self._valuation_meta(office),
            "listing_id": None,
            "owner_name": owner,
            "address": f"{rng.choice(STREETS)} {rng.randint(1, 90)}",
            "postal_code": rng.choice(place.postal_codes),
            "city": place.name,
            "property_type": property_type,
            "marketing_type": marketing,
            "living_area": area,
            **self._value(place, marketing, property_type, area, None),
            "note": note,
        }
