"""A saved search's criteria (Suchauftrag): read from the stored row, said in one German phrase, and cut to what
a broker sees of it. The seeker's list and the broker's proposals both describe a saved search with this."""

from __future__ import annotations

from typing import Any

from contract.broker_inquiries import SearchCriteria
from contract.catalog import CatalogFilters
from contract.vocabulary import label
from shared.german import coordinates, decimal, span

# What a broker sees of a seeker's saved search in a proposal: kind, place and the lower bounds that make a fit;
# the rest (upper bounds of area and rooms, features, full text) stays with the seeker.
SHOWN_TO_BROKER = frozenset(
    {"marketing_type", "property_types", "city", "postal_codes", "near", "min_price", "max_price", "min_living_area", "min_rooms"}
)


def criteria_of(stored: dict[str, Any] | None) -> CatalogFilters:
    """The stored criteria in the form of the catalog filters (an empty row: no restriction)."""
    return CatalogFilters.model_validate(stored or {})


def place_texts(filters: CatalogFilters) -> list[str]:
    """Where the search looks: the place, the postal codes, the circle, each as the search names it."""
    places: list[str] = []
    if filters.city:
        places.append(filters.city)
    if filters.postal_codes:
        places.append("PLZ " + ", ".join(filters.postal_codes))
    if filters.near is not None:
        centre = filters.near.place or coordinates(filters.near.latitude or 0, filters.near.longitude or 0)
        places.append(f"{decimal(filters.near.radius_km)} km um {centre}")
    return places


def criteria_text(filters: CatalogFilters) -> str:
    """The criteria in one German phrase."""
    parts: list[str] = []
    if filters.marketing_type:
        parts.append(label(filters.marketing_type))
    if filters.property_types:
        parts.append("/".join(label(p) for p in filters.property_types))
    parts.extend(place_texts(filters))
    for low, high, unit, as_sent in (
        (filters.min_price, filters.max_price, " €", False),
        (filters.min_warm_rent, filters.max_warm_rent, " € warm", False),
        (filters.min_living_area, filters.max_living_area, " m²", True),
        (filters.min_rooms, filters.max_rooms, " Zimmer", True),
    ):
        if (text := span(low, high, unit, as_sent=as_sent)) is not None:
            parts.append(text)
    if filters.features:
        parts.append("mit " + ", ".join(label(f) for f in filters.features))
    if filters.query:
        parts.append(f"Volltext „{filters.query}“")
    return " · ".join(parts) if parts else "alle Inserate (keine Einschränkung)"


def broker_view(filters: CatalogFilters) -> tuple[SearchCriteria, str]:
    """The saved search as a broker's proposal shows it, as data and in one phrase: only SHOWN_TO_BROKER."""
    shown = filters.model_copy(update={name: None for name in type(filters).model_fields if name not in SHOWN_TO_BROKER})
    criteria = SearchCriteria(
        marketing_type=shown.marketing_type,
        property_types=list(shown.property_types or []),
        places=place_texts(shown),
        min_price=shown.min_price,
        max_price=shown.max_price,
        min_living_area=shown.min_living_area,
        min_rooms=shown.min_rooms,
    )
    return criteria, criteria_text(shown)
