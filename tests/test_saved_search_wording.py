"""One phrase for a saved search on both servers (`shared.saved_search`), and what a broker sees of it; one
listing view with one 'Preis auf Anfrage' (`shared.listing_view`)."""

from __future__ import annotations

from typing import Any

from contract.catalog import CatalogFilters
from contract.envelope import AbsenceReason
from contract.vocabulary import MarketingType, PropertyType
from shared.db.models import Listing
from shared.listing_view import price_of, price_per_sqm, price_text
from shared.saved_search import broker_view, criteria_of, criteria_text
from shared.wording import NOT_WIDENED, PRICE_ON_REQUEST, not_widened

FULL = {
    "marketing_type": "buy",
    "property_types": ["apartment", "house"],
    "city": "Leipzig",
    "postal_codes": ["04109", "04275"],
    "min_price": 200000,
    "max_price": 400000,
    "min_living_area": 60,
    "max_living_area": 120,
    "min_rooms": 3,
    "features": ["balcony"],
    "query": "Altbau",
}


def test_criteria_text_names_every_criterion() -> None:
    assert criteria_text(criteria_of(FULL)) == (
        "Kauf · Wohnung/Haus · Leipzig · PLZ 04109, 04275 · 200.000–400.000 € · 60–120 m² · ab 3 Zimmer · mit Balkon · "
        "Volltext „Altbau“"
    )
    assert criteria_text(criteria_of({"near": {"place": "Köln", "radius_km": 5}})) == "5 km um Köln"
    assert criteria_text(criteria_of(None)) == "alle Inserate (keine Einschränkung)"


def test_a_name_writes_numbers_as_germans_do() -> None:
    """'3–3,5 Zimmer' (as a line's '3 Zimmer' is read), never '3–3,50'; a price keeps its cents only where it has any."""
    assert criteria_text(criteria_of({"min_rooms": 3, "max_rooms": 3.5, "min_living_area": 62.5})) == "ab 62,5 m² · 3–3,5 Zimmer"
    assert criteria_text(criteria_of({"max_price": 899.5})) == "bis 899,50 €"


def test_a_broker_sees_kind_place_and_lower_bounds_only() -> None:
    criteria, text = broker_view(criteria_of(FULL))
    assert text == "Kauf · Wohnung/Haus · Leipzig · PLZ 04109, 04275 · 200.000–400.000 € · ab 60 m² · ab 3 Zimmer"
    assert criteria.model_dump(mode="json") == {
        "marketing_type": "buy",
        "property_types": ["apartment", "house"],
        "places": ["Leipzig", "PLZ 04109, 04275"],
        "min_price": 200000.0,
        "max_price": 400000.0,
        "min_living_area": 60.0,
        "min_rooms": 3.0,
    }
    assert "Altbau" not in text and "Balkon" not in text and "120" not in text


def test_broker_view_of_an_empty_search() -> None:
    criteria, text = broker_view(CatalogFilters())
    assert text == "alle Inserate (keine Einschränkung)" and criteria.places == [] and criteria.marketing_type is None


def listing(**changes: Any) -> Listing:
    values: dict[str, Any] = {"marketing_type": MarketingType.buy.value, "property_type": PropertyType.apartment.value}
    values.update(changes)
    return Listing(**values)


def test_price_on_request_is_withheld_and_a_missing_price_is_empty() -> None:
    on_request = price_of(listing(price=None, price_on_request=True))
    assert on_request.reason is AbsenceReason.withheld  # type: ignore[union-attr]
    assert on_request.note == f"{PRICE_ON_REQUEST}: der Anbieter nennt ihn erst auf Anfrage."  # type: ignore[union-attr]
    assert price_per_sqm(listing(price=None, price_on_request=True, living_area=50.0)) == on_request
    missing = price_of(listing(price=None, price_on_request=False))
    assert missing.reason is AbsenceReason.empty_in_source  # type: ignore[union-attr]
    assert price_text(listing(price=None, price_on_request=True)) == "Preis auf Anfrage"
    assert price_text(listing(price=None, price_on_request=False)) == "ohne Preisangabe"


def test_a_price_in_words_and_per_square_metre() -> None:
    assert price_text(listing(price=350000.0)) == "350.000 €"
    assert price_text(listing(price=950.5, marketing_type="rent")) == "950,50 € Kaltmiete"
    assert price_per_sqm(listing(price=300000.0, living_area=80.0)) == 3750.0
    assert price_per_sqm(listing(price=300000.0, living_area=None)).reason is AbsenceReason.empty_in_source  # type: ignore[union-attr]


def test_not_widened_is_one_sentence() -> None:
    assert NOT_WIDENED == "Der Server hat die Anfrage nicht erweitert; die Antwort nennt die Anfrage, wie sie ausgeführt wurde."
    assert not_widened("Gebiet und Wohnfläche") == "Der Server hat Gebiet und Wohnfläche nicht erweitert"
