"""The publishing check (`shared.publishing`) on listing rows that never touch a database: both halves of every
rule, with the verdicts and sentences compared exactly."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from contract.broker_stock import CheckRule, Verdict
from contract.envelope import AbsenceReason, Absent, Freshness
from shared.db.models import Listing
from shared.publishing import blocking_rules, check, energy_rule, price_plausibility, required_rules, why_not_comparable
from shared.valuation import Comparable, ComparableSet

TODAY = dt.date(2026, 11, 2)
NOW = dt.datetime(2026, 11, 2, 9, 0, tzinfo=dt.UTC)
FRESH = Freshness(data_as_of=NOW, snapshot="test")


def listing(**changes: Any) -> Listing:
    """A complete apartment for sale that passes every rule; `changes` break one."""
    values: dict[str, Any] = {
        "id": 7,
        "ref": "A-0000007",
        "status": "draft",
        "marketing_type": "buy",
        "property_type": "apartment",
        "title": "Helle Wohnung mit Balkon",
        "description": "x" * 200,
        "city": "Leipzig",
        "price": 300_000.0,
        "price_on_request": False,
        "living_area": 100.0,
        "rooms": 3.0,
        "photos": [{"url": "https://example.org/1.jpg"}],
        "energy_status": "present",
        "energy_certificate_type": "demand",
        "energy_value": 95.0,
        "energy_class": "C",
        "energy_carrier": "Gas",
        "energy_year_built": 1995,
        "energy_valid_until": dt.date(2030, 1, 31),
    }
    values.update(changes)
    return Listing(**values)


def comparables(price_per_sqm: list[float], on_request: int = 0, unknown_area: int = 0) -> ComparableSet:
    listings = [Comparable(f"A-{i:07d}", value * 80.0, 80.0, None, None, "04109", None) for i, value in enumerate(price_per_sqm)]
    return ComparableSet(listings, on_request, unknown_area)


def verdicts(rules: list[Any]) -> dict[CheckRule, Verdict]:
    return {r.rule: r.verdict for r in rules}


# --- GEG §87 ----------------------------------------------------------------------------------------------------


def test_a_complete_valid_certificate_passes() -> None:
    result = energy_rule(listing(), TODAY)
    assert (result.verdict, result.blocking, result.rule_label) == (Verdict.ok, True, "Energieausweis (GEG §87)")
    assert result.message == "Alle Pflichtangaben nach GEG §87 sind da; der Ausweis gilt bis 31.01.2030."


def test_an_expired_certificate_fails_and_one_valid_today_passes() -> None:
    expired = energy_rule(listing(energy_valid_until=TODAY - dt.timedelta(days=1)), TODAY)
    assert expired.verdict is Verdict.failed
    assert expired.message == (
        "Der Energieausweis ist seit dem 01.11.2026 abgelaufen: bitte einen neuen Ausweis ausstellen lassen und seine "
        "Angaben eintragen."
    )
    assert energy_rule(listing(energy_valid_until=TODAY), TODAY).verdict is Verdict.ok


def test_missing_items_are_named_in_order() -> None:
    result = energy_rule(listing(energy_certificate_type=None, energy_value=None, energy_class=None, energy_valid_until=None), TODAY)
    assert result.verdict is Verdict.failed
    assert result.message == (
        "Der Energieausweis liegt vor, aber es fehlen Pflichtangaben: Ausweisart (Bedarf oder Verbrauch), Energiekennwert, "
        "Effizienzklasse, Gültigkeitsdatum. Bitte aus dem Ausweis eintragen."
    )


def test_the_efficiency_class_is_required_for_homes_only() -> None:
    assert energy_rule(listing(energy_class=None), TODAY).verdict is Verdict.failed
    assert energy_rule(listing(property_type="commercial", energy_class=None), TODAY).verdict is Verdict.ok


@pytest.mark.parametrize(("kind", "label"), [("land", "Grundstück"), ("parking", "Stellplatz/Garage")])
def test_land_and_parking_need_no_certificate(kind: str, label: str) -> None:
    result = energy_rule(listing(property_type=kind, energy_status="missing"), TODAY)
    assert (result.verdict, result.message) == (Verdict.ok, f"Für {label} ist kein Energieausweis erforderlich.")


def test_a_listed_building_needs_no_certificate_and_another_building_does() -> None:
    listed = energy_rule(listing(energy_status="not_required", description="Baudenkmal " + "x" * 200), TODAY)
    assert (listed.verdict, listed.message) == (
        Verdict.ok,
        "Kein Energieausweis erforderlich: Titel oder Beschreibung nennen Denkmalschutz.",
    )
    in_title = energy_rule(listing(energy_status="not_required", title="Denkmalgeschützte Villa"), TODAY)
    assert in_title.verdict is Verdict.ok
    unlisted = energy_rule(listing(energy_status="not_required"), TODAY)
    assert unlisted.verdict is Verdict.failed and unlisted.message.startswith("'Kein Energieausweis erforderlich' ist für Wohnung nur")


@pytest.mark.parametrize("status", ["at_viewing", "missing"])
def test_a_certificate_only_at_viewing_or_missing_fails(status: str) -> None:
    assert energy_rule(listing(energy_status=status), TODAY).verdict is Verdict.failed


# --- required fields --------------------------------------------------------------------------------------------


def test_every_required_field_present_passes_with_its_sentence() -> None:
    rules = required_rules(listing(rooms=2.5, photos=[{"url": "a"}, {"url": "b"}]))
    assert [(r.rule, r.verdict, r.message) for r in rules] == [
        (CheckRule.title, Verdict.ok, "Titel vorhanden."),
        (CheckRule.description, Verdict.ok, "Beschreibung mit 200 Zeichen."),
        (CheckRule.price, Verdict.ok, "Preis 300.000 € angegeben."),
        (CheckRule.living_area, Verdict.ok, "Die Wohnfläche ist angegeben (100)."),
        (CheckRule.rooms, Verdict.ok, "Die Zimmerzahl ist angegeben (2,5)."),
        (CheckRule.photos, Verdict.ok, "2 Fotos vorhanden."),
    ]


def test_every_required_field_missing_fails() -> None:
    rules = required_rules(listing(title=" ", description="x" * 199, price=None, living_area=None, rooms=0, photos=[]))
    assert all(r.verdict is Verdict.failed and r.blocking for r in rules)
    messages = {r.rule: r.message for r in rules}
    assert messages[CheckRule.description] == "Die Beschreibung hat 199 Zeichen, mindestens 200 sind nötig: bitte ergänzen."
    assert messages[CheckRule.price] == "Weder Preis noch 'Preis auf Anfrage' ist angegeben: bitte eines davon eintragen."
    assert messages[CheckRule.living_area] == "Die Wohnfläche fehlt; bei Wohnung ist sie Pflicht: bitte eintragen."
    assert messages[CheckRule.photos] == "Es gibt kein Foto: bitte mindestens eines hochladen."


def test_price_on_request_counts_as_a_price() -> None:
    rule = next(r for r in required_rules(listing(price=None, price_on_request=True)) if r.rule is CheckRule.price)
    assert (rule.verdict, rule.message, rule.rule_label) == (Verdict.ok, "'Preis auf Anfrage' ist angegeben.", "Preis oder 'Preis auf Anfrage'")


def test_area_and_rooms_are_required_for_homes_only() -> None:
    commercial = verdicts(required_rules(listing(property_type="commercial", living_area=None, rooms=None)))
    assert commercial[CheckRule.living_area] is commercial[CheckRule.rooms] is Verdict.ok
    house = verdicts(required_rules(listing(property_type="house", living_area=None, rooms=None)))
    assert house[CheckRule.living_area] is house[CheckRule.rooms] is Verdict.failed


def test_one_photo_is_singular() -> None:
    assert required_rules(listing())[-1].message == "1 Foto vorhanden."


def test_blocking_rules_come_in_a_fixed_order() -> None:
    assert [r.rule for r in blocking_rules(listing(), TODAY)] == [
        CheckRule.energy_certificate,
        CheckRule.title,
        CheckRule.description,
        CheckRule.price,
        CheckRule.living_area,
        CheckRule.rooms,
        CheckRule.photos,
    ]


# --- price plausibility -----------------------------------------------------------------------------------------


def test_why_not_comparable() -> None:
    assert why_not_comparable(listing()) is None
    assert why_not_comparable(listing(property_type="land")) == "für Grundstück gibt es keinen Preis je m² Wohnfläche."
    assert why_not_comparable(listing(price=None)) == "ohne Preis (Preis auf Anfrage oder keine Angabe) gibt es keinen Preis je m²."
    assert why_not_comparable(listing(living_area=None)) == "ohne Wohnfläche gibt es keinen Preis je m²."


def test_no_price_per_sqm_is_not_checkable_and_never_blocks() -> None:
    rule, comparison = price_plausibility(listing(price=None, price_on_request=True), None)
    assert (rule.verdict, rule.blocking) == (Verdict.not_checkable, False)
    assert comparison == Absent(
        reason=AbsenceReason.not_collected, note="Kein Vergleich: ohne Preis (Preis auf Anfrage oder keine Angabe) gibt es keinen Preis je m²."
    )


def test_four_comparables_are_too_few_and_five_are_enough() -> None:
    rule, comparison = price_plausibility(listing(), comparables([3000.0] * 4))
    assert rule.verdict is Verdict.not_checkable and isinstance(comparison, Absent)
    assert rule.message == (
        "Nicht prüfbar: nur 4 Vergleichsobjekte (von veröffentlichten Inseraten (Kauf, Wohnung) in Leipzig); mindestens 5 sind nötig."
    )
    rule, comparison = price_plausibility(listing(), comparables([3000.0] * 5, on_request=2, unknown_area=1))
    assert rule.verdict is Verdict.ok
    assert comparison.model_dump() == {
        "price_per_sqm": 3000.0,
        "median_price_per_sqm": 3000.0,
        "ratio": 1.0,
        "comparables": 5,
        "price_on_request_excluded": 2,
        "living_area_unknown_excluded": 1,
    }


def test_a_price_within_half_and_double_the_median_is_plausible_beyond_it_is_flagged() -> None:
    median_1500 = comparables([1000.0, 1500.0, 1500.0, 2000.0, 2500.0])
    at_double = price_plausibility(listing(), median_1500)[0]  # 3000 €/m² = 2.0 × 1500
    assert at_double.verdict is Verdict.ok
    beyond, comparison = price_plausibility(listing(price=301_000.0), median_1500)
    assert (beyond.verdict, beyond.blocking) == (Verdict.failed, False)
    assert beyond.message == (
        "Auffällig: 3.010 €/m² gegenüber dem Median von 1.500 €/m² aus 5 veröffentlichten Inseraten (Kauf, Wohnung) in Leipzig "
        "(das 2,01-Fache), außerhalb des 0,5- bis 2-Fachen. Bitte Preis und Wohnfläche prüfen; die Veröffentlichung verhindert "
        "das nicht."
    )
    assert comparison.ratio == 2.01  # as the sentence says it (issue 20: one number, one wording)
    below = price_plausibility(listing(price=74_000.0), median_1500)[0]  # 740 €/m² < 0.5 × 1500
    assert below.verdict is Verdict.failed


# --- the whole check --------------------------------------------------------------------------------------------


def test_a_complete_listing_is_publishable() -> None:
    result = check(listing(), comparables([3000.0] * 5), NOW, FRESH)
    assert result.publishable is True
    assert result.summary == "Kann veröffentlicht werden: alle Pflichtregeln sind erfüllt."
    assert (result.listing_id, result.status_label, result.checked_at) == ("A-0000007", "Entwurf", NOW)
    assert len(result.rules) == 8 and result.rules[-1].rule is CheckRule.price_plausibility


def test_a_failed_rule_blocks_and_is_named_and_an_odd_price_only_adds_a_note() -> None:
    result = check(listing(title="", photos=[], price=600_000.0), comparables([1000.0] * 5), NOW, FRESH)
    assert result.publishable is False
    assert result.summary == (
        "Kann so nicht veröffentlicht werden: nicht erfüllt Titel, Fotos. Hinweis: der Preis je m² ist im Vergleich auffällig."
    )
    odd_only = check(listing(price=600_000.0), comparables([1000.0] * 5), NOW, FRESH)
    assert odd_only.publishable is True and odd_only.summary.endswith("Hinweis: der Preis je m² ist im Vergleich auffällig.")
