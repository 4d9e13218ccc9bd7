"""The publishing check of a listing, without a database: the GEG §87 energy-certificate rule, the required
fields, and the plausibility of the price per m² against comparables. A verdict per rule, in a fixed order.

The blocking rules read the listing row only; the price plausibility reads the comparables found for it
(`shared.comparables.comparables_in_city`) and never blocks. Each blocking rule is written twice: in Python
(`blocking_rules`, with its German sentence) and as an SQL condition (`failing_conditions`), so the office's stock
can be filtered and counted by publishability in the database, evaluated on the day of the query (a certificate
expires). A test keeps both sides equal on every listing of the demo catalog.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
import statistics
from typing import Any

from sqlalchemy import ColumnElement, FunctionElement, Integer, and_, func, literal_column, not_, or_
from sqlalchemy.ext.compiler import compiles

from contract.broker_estimate import VALUED_TYPES
from contract.broker_stock import (
    MIN_COMPARABLES,
    MIN_DESCRIPTION_CHARS,
    PLAUSIBLE_RATIO,
    CheckListingOutput,
    CheckRule,
    PriceComparison,
    RuleResult,
    Verdict,
)
from contract.envelope import AbsenceReason, Absent, Freshness
from contract.vocabulary import EnergyStatus, ListingStatus, MarketingType, PropertyType, label, labelled
from shared.db.models import Listing
from shared.german import date_text, number, plural
from shared.valuation import ComparableSet
from shared.wording import PRICE_ON_REQUEST

RESIDENTIAL = {PropertyType.apartment, PropertyType.house}
NO_CERTIFICATE_NEEDED = {PropertyType.land, PropertyType.parking}
LISTED_BUILDING_WORD = "denkmal"  # Denkmalschutz, denkmalgeschützt, Baudenkmal, Einzeldenkmal …
# What a blank title or description consists of; the same characters on both sides (SQL trims no more than it is told).
WHITESPACE = " \t\n\r\f\v\xa0"

VERDICT_LABELS = {Verdict.ok: "erfüllt", Verdict.failed: "nicht erfüllt", Verdict.not_checkable: "nicht prüfbar"}
RULE_LABELS = {
    CheckRule.energy_certificate: "Energieausweis (GEG §87)",
    CheckRule.title: "Titel",
    CheckRule.description: f"Beschreibung (mindestens {MIN_DESCRIPTION_CHARS} Zeichen)",
    CheckRule.price: f"Preis oder '{PRICE_ON_REQUEST}'",
    CheckRule.living_area: "Wohnfläche",
    CheckRule.rooms: "Zimmerzahl",
    CheckRule.photos: "Fotos",
    CheckRule.price_plausibility: "Preis je m² im Vergleich",
}


def rule_result(rule: CheckRule, verdict: Verdict, message: str, blocking: bool = True) -> RuleResult:
    return RuleResult(
        rule=rule, rule_label=RULE_LABELS[rule], verdict=verdict, verdict_label=VERDICT_LABELS[verdict], blocking=blocking, message=message
    )


def _ascii_lower(text: str) -> str:
    """Upper-case ASCII letters lowered, nothing else: the case folding SQL does alike on SQLite and PostgreSQL."""
    return text.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def listed_building(listing: Listing) -> bool:
    """Title or description name a listed building (Denkmalschutz), which needs no energy certificate."""
    return any(LISTED_BUILDING_WORD in _ascii_lower(text) for text in (listing.title or "", listing.description or ""))


def _length_without_blanks(text: str | None) -> int:
    return len((text or "").strip(WHITESPACE))


def missing_certificate_items(listing: Listing) -> list[str]:
    """The items GEG §87 requires in an advertisement that a present certificate does not state."""
    kind = PropertyType(listing.property_type)
    missing = []
    if not listing.energy_certificate_type:
        missing.append("Ausweisart (Bedarf oder Verbrauch)")
    if listing.energy_value is None:
        missing.append("Energiekennwert")
    if kind in RESIDENTIAL and not listing.energy_class:
        missing.append("Effizienzklasse")
    if not listing.energy_carrier:
        missing.append("wesentlicher Energieträger")
    if listing.energy_year_built is None:
        missing.append("Baujahr laut Ausweis")
    if listing.energy_valid_until is None:
        missing.append("Gültigkeitsdatum")
    return missing


def energy_rule(listing: Listing, today: dt.date) -> RuleResult:
    kind = PropertyType(listing.property_type)
    status = EnergyStatus(listing.energy_status)
    rule = CheckRule.energy_certificate
    if kind in NO_CERTIFICATE_NEEDED:
        return rule_result(rule, Verdict.ok, f"Für {label(kind)} ist kein Energieausweis erforderlich.")
    if status is EnergyStatus.at_viewing:
        return rule_result(
            rule,
            Verdict.failed,
            "Der Energieausweis liegt nur 'zur Besichtigung' vor; für die Anzeige verlangt GEG §87 die Pflichtangaben. "
            "Bitte Ausweisart, Kennwert, Energieträger, Baujahr und Effizienzklasse aus dem Ausweis eintragen.",
        )
    if status is EnergyStatus.missing:
        return rule_result(
            rule,
            Verdict.failed,
            "Zum Energieausweis gibt es keine Angabe: bitte die Pflichtangaben nach GEG §87 aus dem Ausweis eintragen.",
        )
    if status is EnergyStatus.not_required:
        if listed_building(listing):
            return rule_result(rule, Verdict.ok, "Kein Energieausweis erforderlich: Titel oder Beschreibung nennen Denkmalschutz.")
        return rule_result(
            rule,
            Verdict.failed,
            f"'Kein Energieausweis erforderlich' ist für {label(kind)} nur bei einem Baudenkmal plausibel, und Titel und "
            "Beschreibung nennen keinen Denkmalschutz: bitte die Angaben des Energieausweises eintragen oder den "
            "Denkmalschutz in der Beschreibung nennen.",
        )
    missing = missing_certificate_items(listing)
    if missing:
        return rule_result(
            rule,
            Verdict.failed,
            "Der Energieausweis liegt vor, aber es fehlen Pflichtangaben: " + ", ".join(missing) + ". Bitte aus dem Ausweis eintragen.",
        )
    assert listing.energy_valid_until is not None
    valid_until = date_text(listing.energy_valid_until)
    if listing.energy_valid_until < today:
        return rule_result(
            rule,
            Verdict.failed,
            f"Der Energieausweis ist seit dem {valid_until} abgelaufen: bitte einen neuen Ausweis ausstellen lassen und seine "
            "Angaben eintragen.",
        )
    return rule_result(rule, Verdict.ok, f"Alle Pflichtangaben nach GEG §87 sind da; der Ausweis gilt bis {valid_until}.")


def _description_rule(listing: Listing) -> RuleResult:
    length = _length_without_blanks(listing.description)
    if length >= MIN_DESCRIPTION_CHARS:
        return rule_result(CheckRule.description, Verdict.ok, f"Beschreibung mit {length} Zeichen.")
    return rule_result(
        CheckRule.description,
        Verdict.failed,
        f"Die Beschreibung hat {length} Zeichen, mindestens {MIN_DESCRIPTION_CHARS} sind nötig: bitte ergänzen.",
    )


def _price_rule(listing: Listing) -> RuleResult:
    if listing.price is not None and listing.price > 0:
        return rule_result(CheckRule.price, Verdict.ok, f"Preis {number(listing.price, 0)} € angegeben.")
    if listing.price_on_request:
        return rule_result(CheckRule.price, Verdict.ok, f"'{PRICE_ON_REQUEST}' ist angegeben.")
    return rule_result(
        CheckRule.price, Verdict.failed, f"Weder Preis noch '{PRICE_ON_REQUEST}' ist angegeben: bitte eines davon eintragen."
    )


def required_rules(listing: Listing) -> list[RuleResult]:
    """Title, description, price, living area and rooms (residential only) and photos."""
    kind = PropertyType(listing.property_type)
    results = []
    if _length_without_blanks(listing.title):
        results.append(rule_result(CheckRule.title, Verdict.ok, "Titel vorhanden."))
    else:
        results.append(rule_result(CheckRule.title, Verdict.failed, "Der Titel fehlt: bitte einen Titel eintragen."))
    results.append(_description_rule(listing))
    results.append(_price_rule(listing))
    for rule, value, what in (
        (CheckRule.living_area, listing.living_area, "Die Wohnfläche"),
        (CheckRule.rooms, listing.rooms, "Die Zimmerzahl"),
    ):
        if kind not in RESIDENTIAL:
            results.append(rule_result(rule, Verdict.ok, f"Für {label(kind)} nicht vorgeschrieben."))
        elif value is not None and value > 0:
            results.append(rule_result(rule, Verdict.ok, f"{what} ist angegeben ({number(value, 1 if value % 1 else 0)})."))
        else:
            results.append(rule_result(rule, Verdict.failed, f"{what} fehlt; bei {label(kind)} ist sie Pflicht: bitte eintragen."))
    photos = len(listing.photos) if isinstance(listing.photos, list) else 0  # as in SQL: only a JSON array holds photos
    if photos:
        results.append(rule_result(CheckRule.photos, Verdict.ok, plural(photos, "Foto", "Fotos") + " vorhanden."))
    else:
        results.append(rule_result(CheckRule.photos, Verdict.failed, "Es gibt kein Foto: bitte mindestens eines hochladen."))
    return results


def blocking_rules(listing: Listing, today: dt.date) -> list[RuleResult]:
    """The rules that decide `publishable`; they read the listing row only."""
    return [energy_rule(listing, today), *required_rules(listing)]


# --- the blocking rules as SQL ------------------------------------------------------------------------------------


class _photo_count(FunctionElement[int]):
    """How many photos a listing has: the length of its JSON array, 0 for anything else."""

    type = Integer()
    inherit_cache = True
    name = "photo_count"


@compiles(_photo_count)
def _photo_count_sqlite(element: _photo_count, compiler: Any, **kw: Any) -> str:
    # SQLite's json_array_length is 0 for a JSON value that is not an array
    return f"coalesce(json_array_length({compiler.process(element.clauses, **kw)}), 0)"


@compiles(_photo_count, "postgresql")
def _photo_count_postgresql(element: _photo_count, compiler: Any, **kw: Any) -> str:
    # PostgreSQL's json_array_length refuses anything but an array
    photos = compiler.process(element.clauses, **kw)
    return f"(CASE WHEN json_typeof({photos}) = 'array' THEN json_array_length({photos}) ELSE 0 END)"


def _blank(column: Any) -> ColumnElement[bool]:
    return or_(column.is_(None), column == "")


def _none_or_not_positive(column: Any) -> ColumnElement[bool]:
    return or_(column.is_(None), column <= 0)


def _names_listed_building() -> ColumnElement[bool]:
    def folded(column: Any) -> Any:  # ASCII case folding, letter by letter: the same on SQLite and PostgreSQL
        # the letters as SQL literals, not parameters: with 28 of them the statement passed psycopg's 50 parameters
        # and was parsed anew on every execution instead of once
        for letter in sorted(set(LISTED_BUILDING_WORD)):
            column = func.replace(column, literal_column(f"'{letter.upper()}'"), literal_column(f"'{letter}'"))
        return column

    return or_(
        folded(Listing.title).contains(LISTED_BUILDING_WORD),
        folded(func.coalesce(Listing.description, "")).contains(LISTED_BUILDING_WORD),
    )


def _energy_fails(today: dt.date) -> ColumnElement[bool]:
    status = Listing.energy_status
    residential = Listing.property_type.in_(sorted(k.value for k in RESIDENTIAL))
    incomplete_or_expired = or_(
        _blank(Listing.energy_certificate_type),
        Listing.energy_value.is_(None),
        and_(residential, _blank(Listing.energy_class)),
        _blank(Listing.energy_carrier),
        Listing.energy_year_built.is_(None),
        Listing.energy_valid_until.is_(None),
        Listing.energy_valid_until < today,
    )
    return and_(
        Listing.property_type.not_in(sorted(k.value for k in NO_CERTIFICATE_NEEDED)),
        or_(
            status.in_([EnergyStatus.at_viewing.value, EnergyStatus.missing.value]),
            and_(status == EnergyStatus.not_required.value, not_(_names_listed_building())),
            and_(status == EnergyStatus.present.value, incomplete_or_expired),
        ),
    )


def failing_conditions(today: dt.date) -> dict[CheckRule, ColumnElement[bool]]:
    """Per blocking rule, in the order of `blocking_rules`, the SQL condition under which a listing fails it on `today`."""
    residential = Listing.property_type.in_(sorted(k.value for k in RESIDENTIAL))
    length_without_blanks = func.length(func.trim(func.coalesce(Listing.description, ""), WHITESPACE))
    return {
        CheckRule.energy_certificate: _energy_fails(today),
        CheckRule.title: func.length(func.trim(Listing.title, WHITESPACE)) == 0,
        CheckRule.description: length_without_blanks < MIN_DESCRIPTION_CHARS,
        CheckRule.price: and_(_none_or_not_positive(Listing.price), Listing.price_on_request.is_not(True)),
        CheckRule.living_area: and_(residential, _none_or_not_positive(Listing.living_area)),
        CheckRule.rooms: and_(residential, _none_or_not_positive(Listing.rooms)),
        CheckRule.photos: _photo_count(Listing.photos) == 0,
    }


@lru_cache(maxsize=8)
def publishable_condition(publishable: bool, today: dt.date) -> ColumnElement[bool]:
    """Listings that pass every blocking rule on `today` (`publishable` true) or fail at least one (false).

    Kept per (publishable, day): the expression is immutable and building it was about a tenth of a situation report."""
    fails_one = or_(*failing_conditions(today).values())
    return not_(fails_one) if publishable else fails_one


def failed_blocking_rules(listing: Listing, today: dt.date) -> list[RuleResult]:
    """The blocking rules `listing` fails on `today`, in their fixed order; empty: it can be published."""
    return [r for r in blocking_rules(listing, today) if r.verdict is not Verdict.ok]


def why_not_comparable(listing: Listing) -> str | None:
    """Why the listing has no price per m² to compare (then no comparables are needed), or None."""
    kind = PropertyType(listing.property_type)
    if kind not in VALUED_TYPES:
        return f"für {label(kind)} gibt es keinen Preis je m² Wohnfläche."
    if listing.price is None:
        return f"ohne Preis ({PRICE_ON_REQUEST} oder keine Angabe) gibt es keinen Preis je m²."
    if not listing.living_area:
        return "ohne Wohnfläche gibt es keinen Preis je m²."
    return None


def price_plausibility(listing: Listing, found: ComparableSet | None) -> tuple[RuleResult, PriceComparison | Absent]:
    """The listing's price per m² against the median of `found` (None only when `why_not_comparable` says why):
    plausible within PLAUSIBLE_RATIO, not checkable with fewer than MIN_COMPARABLES; never blocking."""
    rule = CheckRule.price_plausibility

    def not_checkable(why: str) -> tuple[RuleResult, Absent]:
        return (
            rule_result(rule, Verdict.not_checkable, f"Nicht prüfbar: {why}", blocking=False),
            Absent(reason=AbsenceReason.not_collected, note=f"Kein Vergleich: {why}"),
        )

    reason = why_not_comparable(listing)
    if reason is not None:
        return not_checkable(reason)
    assert found is not None and listing.price is not None and listing.living_area
    where = (
        f"veröffentlichten Inseraten ({label(MarketingType(listing.marketing_type))}, {label(PropertyType(listing.property_type))}) "
        f"in {listing.city}"
    )
    if found.count < MIN_COMPARABLES:
        return not_checkable(f"nur {found.count} Vergleichsobjekte (von {where}); mindestens {MIN_COMPARABLES} sind nötig.")
    own = listing.price / listing.living_area
    median = statistics.median(found.price_per_sqm)
    ratio = round(own / median, 2)  # as the text shows it: the sentence and the structure say the same figure
    comparison = PriceComparison(
        price_per_sqm=round(own, 2),
        median_price_per_sqm=round(median, 2),
        ratio=ratio,
        comparables=found.count,
        price_on_request_excluded=found.price_on_request,
        living_area_unknown_excluded=found.living_area_unknown,
    )
    low, high = PLAUSIBLE_RATIO
    def per_sqm(value: float) -> str:  # as the text of the structure writes it (shared.runtime.render: whole from 100)
        return number(round(value, 2), 2) if value < 100 else number(round(value), 0)

    facts = (
        f"{per_sqm(own)} €/m² gegenüber dem Median von {per_sqm(median)} €/m² aus {found.count} {where} "
        f"(das {number(ratio, 2)}-Fache)"
    )
    if low <= ratio <= high:
        return rule_result(rule, Verdict.ok, f"Plausibel: {facts}.", blocking=False), comparison
    message = (
        f"Auffällig: {facts}, außerhalb des {number(low, 1)}- bis {number(high, 0)}-Fachen. Bitte Preis und Wohnfläche "
        "prüfen; die Veröffentlichung verhindert das nicht."
    )
    return rule_result(rule, Verdict.failed, message, blocking=False), comparison


def check(listing: Listing, found: ComparableSet | None, now: dt.datetime, freshness: Freshness) -> CheckListingOutput:
    """Every rule's verdict, whether the listing can be published, and that in one sentence."""
    rules = blocking_rules(listing, now.date())
    plausibility, comparison = price_plausibility(listing, found)
    rules.append(plausibility)
    failed = [r for r in rules if r.blocking and r.verdict is not Verdict.ok]
    if failed:
        summary = "Kann so nicht veröffentlicht werden: nicht erfüllt " + ", ".join(r.rule_label for r in failed) + "."
    else:
        summary = "Kann veröffentlicht werden: alle Pflichtregeln sind erfüllt."
    if plausibility.verdict is Verdict.failed:
        summary += " Hinweis: der Preis je m² ist im Vergleich auffällig."
    return CheckListingOutput(
        listing_id=listing.ref,
        title=listing.title,
        **labelled("status", ListingStatus(listing.status)),
        publishable=not failed,
        summary=summary,
        rules=rules,
        price_comparison=comparison,
        checked_at=now,
        freshness=freshness,
    )
