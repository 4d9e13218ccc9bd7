"""Value estimation (`shared.valuation`) on plain numbers: the quartile range and its rounding, each reason that
lowers confidence (both sides of its threshold), and the estimate without enough comparables."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import Any

from contract.broker_estimate import ConfidenceFactor, EstimateSubject, EstimateValueInput
from contract.envelope import AbsenceReason, Absent, Freshness, WarningCode
from contract.vocabulary import MarketingType, PropertyType
from shared.valuation import Comparable, ComparableSet, area_range, confidence, estimate, suggestions, value_range, warnings
from shared.wording import SUGGESTIONS_UNSEARCHED

FRESH = Freshness(data_as_of=dt.datetime(2026, 11, 2, tzinfo=dt.UTC), snapshot="test")


def subject(**changes: Any) -> EstimateSubject:
    values: dict[str, Any] = {
        "listing_id": None,
        "source": "caller",
        "source_label": "deine Angaben",
        "property_type": PropertyType.apartment,
        "marketing_type": MarketingType.buy,
        "city": "Leipzig",
        "postal_code": "04109",
        "living_area": 80.0,
        "rooms": 3.0,
        "year_built": 1990,
    }
    values.update(changes)
    return EstimateSubject(**values)


def found(
    per_sqm: list[float], *, rooms: list[float] | None = None, years: list[int] | None = None, on_request: int = 0, unknown_area: int = 0
) -> ComparableSet:
    rooms, years = rooms or [], years or []
    listings = [
        Comparable(
            listing_id=f"A-{i:07d}",
            price=value * (80.0 + i),
            living_area=80.0 + i,
            rooms=rooms[i] if i < len(rooms) else None,
            year_built=years[i] if i < len(years) else None,
            postal_code="04109",
            distance_km=1.04 * i,
        )
        for i, value in enumerate(per_sqm)
    ]
    return ComparableSet(listings, on_request, unknown_area, distance_from="Mitte der PLZ 04109")


def factors(result: Any) -> list[ConfidenceFactor]:
    return [note.factor for note in result.lowered_by]


NARROW = [3000.0 + i for i in range(12)]  # twelve comparables, spread near zero


def test_area_range() -> None:
    assert area_range(100.0, 30) == (70.0, 130.0)
    assert area_range(60.0, 5) == (57.0, 63.0)


def test_value_range_from_quartiles_rounded_outwards() -> None:
    purchase, spread = value_range([1000.0, 2000.0, 3000.0, 4000.0, 5000.0], 50.5, rent=False)
    assert purchase.model_dump() == {
        "low": {"amount": 101000.0, "currency": "EUR"},  # 2000 × 50.5 = 101000
        "median": {"amount": 152000.0, "currency": "EUR"},  # 151500 rounds to even thousands: 152000
        "high": {"amount": 202000.0, "currency": "EUR"},
        "price_per_sqm_low": 2000.0,
        "price_per_sqm_median": 3000.0,
        "price_per_sqm_high": 4000.0,
        "basis": "Kaufpreis",
    }
    assert spread == 2000.0 / 3000.0
    rent, _ = value_range([10.01, 10.02, 10.03, 10.04, 10.05], 55.0, rent=True)
    assert (rent.low.amount, rent.median.amount, rent.high.amount, rent.basis) == (550.0, 550.0, 560.0, "Kaltmiete pro Monat")


def test_nothing_lowers_confidence_then_it_is_high() -> None:
    result = confidence(subject(), found(NARROW, rooms=[3.0], years=[1990]), 0.1)
    assert (result.level, result.level_label, result.lowered_by) == ("high", "hoch", [])


def test_few_comparables_below_ten_lower_it_to_medium() -> None:
    nine = confidence(subject(), found(NARROW[:9]), 0.1)
    assert (nine.level, factors(nine)) == ("medium", [ConfidenceFactor.few_comparables])
    assert nine.lowered_by[0].message == "Nur 9 Vergleichsobjekte (unter 10)."
    assert nine.lowered_by[0].factor_label == "wenige Vergleichsobjekte", "the text names the factor in German"
    assert confidence(subject(), found(NARROW[:10]), 0.1).level == "high"


def test_a_wide_spread_lowers_it_and_a_very_wide_one_makes_it_low() -> None:
    assert confidence(subject(), found(NARROW), 0.4).level == "high"
    wide = confidence(subject(), found(NARROW), 0.41)
    assert (wide.level, factors(wide)) == ("medium", [ConfidenceFactor.wide_spread])
    assert wide.lowered_by[0].message == "Weite Streuung: der Interquartilsabstand beträgt 41 % des Medians."
    very_wide = confidence(subject(), found(NARROW), 0.81)
    assert (very_wide.level, factors(very_wide)) == ("low", [ConfidenceFactor.wide_spread])


def test_two_reasons_make_it_low() -> None:
    result = confidence(subject(), found(NARROW[:5]), 0.5)
    assert (result.level, result.level_label) == ("low", "niedrig")
    assert factors(result) == [ConfidenceFactor.few_comparables, ConfidenceFactor.wide_spread]


def test_price_on_request_lowers_it_from_a_tenth_of_the_matching_listings() -> None:
    # 12 used + 2 on request = 14 seen; 2 >= 1.4 lowers, 1 < 1.3 does not
    lowered = confidence(subject(), found(NARROW, on_request=2), 0.1)
    assert factors(lowered) == [ConfidenceFactor.price_on_request_excluded]
    assert lowered.lowered_by[0].message == "2 von 14 sonst passenden Inseraten haben 'Preis auf Anfrage' und fehlen in der Rechnung."
    assert factors(confidence(subject(), found(NARROW, on_request=1), 0.1)) == []


def test_unknown_living_areas_lower_it_from_a_tenth() -> None:
    assert factors(confidence(subject(), found(NARROW, unknown_area=2), 0.1)) == [ConfidenceFactor.living_area_unknown_excluded]
    assert factors(confidence(subject(), found(NARROW, unknown_area=1), 0.1)) == []


def test_rooms_differ_from_one_and_a_half_rooms_off_the_median() -> None:
    differ = confidence(subject(rooms=4.5), found(NARROW, rooms=[3.0, 3.0, 3.0]), 0.1)
    assert factors(differ) == [ConfidenceFactor.rooms_differ]
    assert differ.lowered_by[0].message == "Das Objekt hat 4,5 Zimmer, die Vergleichsobjekte im Median 3,0."
    assert factors(confidence(subject(rooms=4.0), found(NARROW, rooms=[3.0]), 0.1)) == []
    assert factors(confidence(subject(rooms=None), found(NARROW, rooms=[3.0]), 0.1)) == []


def test_year_built_differs_from_thirty_years_off_the_median() -> None:
    differ = confidence(subject(year_built=1960), found(NARROW, years=[1990, 1990]), 0.1)
    assert factors(differ) == [ConfidenceFactor.year_built_differs]
    assert differ.lowered_by[0].message == "Baujahr 1960, die Vergleichsobjekte im Median 1990."
    assert factors(confidence(subject(year_built=1961), found(NARROW, years=[1990]), 0.1)) == []


def test_every_default_is_named_and_an_explicit_value_is_not() -> None:
    defaults = warnings(EstimateValueInput(), subject(), found(NARROW, on_request=1, unknown_area=3))
    assert [w.code for w in defaults] == [
        WarningCode.DEFAULT_SCOPE_APPLIED,
        WarningCode.DEFAULT_SCOPE_APPLIED,
        WarningCode.PRICE_ON_REQUEST_EXCLUDED,
        WarningCode.VALUE_UNKNOWN_EXCLUDED,
    ]
    assert defaults[2].message == "1 sonst passendes Inserat mit 'Preis auf Anfrage' ging nicht in die Rechnung ein."
    assert defaults[3].message == "3 Inserate gleicher Art im Gebiet ohne Wohnfläche gingen nicht in die Rechnung ein."
    explicit = EstimateValueInput(area_tolerance_percent=30, postal_codes=["04"])
    assert warnings(explicit, subject(), found(NARROW)) == []


def test_suggestions_come_from_the_input() -> None:
    by_city = suggestions(EstimateValueInput(area_tolerance_percent=30), subject())
    assert [(s.arguments, s.reason) for s in by_city] == [
        ({"area_tolerance_percent": 60}, "Wohnfläche ±60 % statt ±30 % zulassen"),
        ({"postal_codes": ["04"]}, "Vergleichsgebiet PLZ-Region 04xxx statt nur Leipzig"),
    ]
    widest = suggestions(EstimateValueInput(area_tolerance_percent=100, postal_codes=["04"]), subject())
    assert widest == []


def test_with_five_comparables_there_is_a_range() -> None:
    args = EstimateValueInput(city="Leipzig", property_type="apartment", marketing_type="buy", living_area=80)
    result = estimate(args, subject(), found([3000.0] * 5), area=(56.0, 104.0), subject_published=False, freshness=FRESH)
    assert result.estimable is True and result.value_range is not None and result.value_range.median.amount == 240000.0
    assert result.hint is None and result.suggestions == []
    assert (result.comparables.total, result.comparables.shown, result.comparables.all_shown) == (5, 5, True)
    assert result.comparables.items[0].listing_id == "A-0000000"  # 80 m², the subject's own area, first


def test_each_comparable_is_listed_with_its_figures_and_its_public_expose() -> None:
    args = EstimateValueInput(city="Leipzig", property_type="apartment", marketing_type="buy", living_area=80)
    listings = found([3000.0, 2500.0, 3500.0, 4000.0, 2000.0], years=[1990, 2001]).listings
    listings[3] = replace(listings[3], distance_km=None)
    comparables = ComparableSet(listings, 0, 0, distance_from="Mitte der PLZ 04109")
    result = estimate(args, subject(), comparables, area=(56.0, 104.0), subject_published=False, freshness=FRESH)
    first, second, *_ = result.comparables.items
    assert first.model_dump() == {
        "listing_id": "A-0000000",
        "price": {"amount": 240000.0, "currency": "EUR"},
        "living_area": 80.0,
        "price_per_sqm": 3000.0,
        "year_built": 1990,
        "postal_code": "04109",
        "distance_km": 0.0,
        "resource_uri": "athaus://suche/inserate/A-0000000",
    }
    assert (second.listing_id, second.price_per_sqm, second.year_built, second.distance_km) == ("A-0000001", 2500.0, 2001, 1.0)
    assert result.comparables.distance_from == "Mitte der PLZ 04109"
    no_year = result.comparables.items[2]
    assert isinstance(no_year.year_built, Absent) and no_year.year_built.reason is AbsenceReason.empty_in_source
    no_distance = result.comparables.items[3]
    assert isinstance(no_distance.distance_km, Absent) and no_distance.distance_km.reason is AbsenceReason.empty_in_source


def test_without_a_known_location_there_are_no_distances() -> None:
    args = EstimateValueInput(city="Leipzig", property_type="apartment", marketing_type="buy", living_area=80)
    listings = [replace(c, distance_km=None) for c in found([3000.0] * 5).listings]
    result = estimate(args, subject(), ComparableSet(listings, 0, 0), area=(56.0, 104.0), subject_published=False, freshness=FRESH)
    assert isinstance(result.comparables.distance_from, Absent)
    assert all(isinstance(item.distance_km, Absent) for item in result.comparables.items)


def test_with_four_comparables_there_is_none_and_nothing_is_widened() -> None:
    args = EstimateValueInput(city="Leipzig", property_type="apartment", marketing_type="buy", living_area=80)
    result = estimate(args, subject(), found([3000.0] * 4), area=(56.0, 104.0), subject_published=True, freshness=FRESH)
    assert (result.estimable, result.value_range, result.confidence.level) == (False, None, "none")
    assert result.confidence.lowered_by[0].message == "Nur 4 Vergleichsobjekte; für eine Spanne sind mindestens 5 nötig."
    assert result.hint == (
        "Keine Spanne: nur 4 Vergleichsobjekte (veröffentlichte Inserate auf Athaus (Kauf, Wohnung) in Leipzig, Wohnfläche "
        "56,0 bis 104,0 m² (±30 %), ohne das Objekt selbst), mindestens 5 sind nötig. Der Server hat Gebiet und Wohnfläche "
        f"nicht erweitert. {SUGGESTIONS_UNSEARCHED}"
    )
    assert [s.arguments for s in result.suggestions] == [{"area_tolerance_percent": 60}, {"postal_codes": ["04"]}]
    assert result.excluded.subject_listing is True


def test_without_a_suggestion_the_hint_names_postal_codes() -> None:
    args = EstimateValueInput(property_type="apartment", marketing_type="buy", living_area=80, area_tolerance_percent=100, postal_codes=["04"])
    result = estimate(args, subject(), found([]), area=(0.0, 160.0), subject_published=False, freshness=FRESH)
    assert result.suggestions == [] and result.hint is not None
    assert result.hint.endswith("nicht erweitert. Ein größeres Vergleichsgebiet lässt sich mit postal_codes angeben.")
    assert result.comparison_area.city is None and result.comparison_area.postal_codes == ["04"]


def test_only_the_twenty_nearest_comparables_are_listed() -> None:
    args = EstimateValueInput(city="Leipzig", property_type="apartment", marketing_type="buy", living_area=80)
    result = estimate(args, subject(), found([3000.0] * 25), area=(56.0, 104.0), subject_published=False, freshness=FRESH)
    assert (result.comparables.total, result.comparables.shown, result.comparables.all_shown) == (25, 20, False)
    assert [item.listing_id for item in result.comparables.items] == [f"A-{i:07d}" for i in range(20)]
