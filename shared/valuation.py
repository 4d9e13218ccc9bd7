"""Value estimation from comparable listings, without a database: the value range from the quartiles of the
price per m², the confidence with its reasons, the method in words, the warnings and the next steps.

The comparables themselves come from `shared.comparables` (published catalog listings only); everything here
works on the `ComparableSet` it returns, so each rule can be tested with plain numbers. Each comparable is listed
with its figures and the resource URI of its public exposé, which the broker opens in the Athaus Immobiliensuche.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass

from contract.broker_estimate import (
    FACTOR_LABELS,
    ComparableListing,
    ComparablesUsed,
    ComparisonArea,
    Confidence,
    ConfidenceFactor,
    ConfidenceNote,
    EstimateSubject,
    EstimateValueInput,
    EstimateValueOutput,
    Exclusions,
    ValueRange,
)
from contract.broker_stock import MIN_COMPARABLES
from contract.catalog import Money
from contract.envelope import AbsenceReason, Absent, Freshness, ResultWarning, Suggestion, WarningCode
from contract.search import LISTING_RESOURCE
from contract.vocabulary import MarketingType, label
from shared.german import number, plural
from shared.partial_lists import shown
from shared.wording import PRICE_ON_REQUEST, SUGGESTIONS_UNSEARCHED, not_widened

COMPARABLES_SHOWN = 20
FEW_COMPARABLES = 10
WIDE_SPREAD = 0.4  # inter-quartile range relative to the median
VERY_WIDE_SPREAD = 0.8
MANY_EXCLUDED = 0.1  # share of excluded listings that lowers confidence
ROOMS_DIFFER = 1.5
YEARS_DIFFER = 30


@dataclass(frozen=True)
class Comparable:
    """One published catalog listing compared with the object, as the estimate lists it."""

    listing_id: str
    price: float
    living_area: float
    rooms: float | None
    year_built: int | None
    postal_code: str
    distance_km: float | None  # from the object's location; None where that is not known

    @property
    def price_per_sqm(self) -> float:
        return self.price / self.living_area


@dataclass
class ComparableSet:
    """Published catalog listings comparable to one object, and what was left out (rule 14)."""

    listings: list[Comparable]
    price_on_request: int
    living_area_unknown: int
    distance_from: str | None = None  # what distances are measured from, in German; None: no distances

    @property
    def count(self) -> int:
        return len(self.listings)

    @property
    def price_per_sqm(self) -> list[float]:
        return [c.price_per_sqm for c in self.listings]

    @property
    def rooms(self) -> list[float]:
        return [c.rooms for c in self.listings if c.rooms is not None]

    @property
    def years(self) -> list[int]:
        return [c.year_built for c in self.listings if c.year_built is not None]


def area_range(living_area: float, tolerance_percent: int) -> tuple[float, float]:
    """The living areas of comparables: ±`tolerance_percent` around the object's."""
    tolerance = tolerance_percent / 100
    return round(living_area * (1 - tolerance), 2), round(living_area * (1 + tolerance), 2)


# How value_range rounds: the method says it, so its ends follow from the method as written.
ROUNDING_TEXT = {True: "volle 10 €", False: "volle 1.000 €"}


def _round_to(value: float, step: float, how: Callable[[float], float]) -> float:
    return float(how(value / step) * step)


def value_range(price_per_sqm: list[float], living_area: float, rent: bool) -> tuple[ValueRange, float]:
    """The range from the lower to the upper quartile (median in the middle) times the living area, rounded
    outwards to 10 € (rent) or 1,000 € (purchase), and its spread (inter-quartile range over the median)."""
    q1, median, q3 = statistics.quantiles(price_per_sqm, n=4, method="inclusive")
    step = 10.0 if rent else 1000.0
    found = ValueRange(
        low=Money(amount=_round_to(q1 * living_area, step, math.floor)),
        median=Money(amount=_round_to(median * living_area, step, round)),
        high=Money(amount=_round_to(q3 * living_area, step, math.ceil)),
        price_per_sqm_low=round(q1, 2),
        price_per_sqm_median=round(median, 2),
        price_per_sqm_high=round(q3, 2),
        basis="Kaltmiete pro Monat" if rent else "Kaufpreis",
    )
    return found, (q3 - q1) / median


def _median_if_far(value: float | None, values: list[float] | list[int], threshold: float) -> float | None:
    """The comparables' median of `values` when the object's `value` lies `threshold` or more away from it."""
    if value is None or not values:
        return None
    typical = statistics.median(values)
    return typical if abs(value - typical) >= threshold else None


def _note(factor: ConfidenceFactor, message: str) -> ConfidenceNote:
    return ConfidenceNote(factor=factor, factor_label=FACTOR_LABELS[factor], message=message)


def confidence(subject: EstimateSubject, found: ComparableSet, spread: float) -> Confidence:
    """high: nothing lowers it; medium: one reason; low: two or more, or a very wide spread."""
    notes: list[ConfidenceNote] = []
    if found.count < FEW_COMPARABLES:
        notes.append(_note(ConfidenceFactor.few_comparables, f"Nur {found.count} Vergleichsobjekte (unter {FEW_COMPARABLES})."))
    if spread > WIDE_SPREAD:
        notes.append(
            _note(
                ConfidenceFactor.wide_spread,
                f"Weite Streuung: der Interquartilsabstand beträgt {number(spread * 100, 0)} % des Medians.",
            )
        )
    seen = found.count + found.price_on_request
    if found.price_on_request and found.price_on_request >= MANY_EXCLUDED * seen:
        notes.append(
            _note(
                ConfidenceFactor.price_on_request_excluded,
                f"{found.price_on_request} von {seen} sonst passenden Inseraten haben '{PRICE_ON_REQUEST}' und fehlen in der Rechnung.",
            )
        )
    if found.living_area_unknown and found.living_area_unknown >= MANY_EXCLUDED * (found.count + found.living_area_unknown):
        notes.append(
            _note(
                ConfidenceFactor.living_area_unknown_excluded,
                f"{found.living_area_unknown} Inserate gleicher Art im Gebiet haben keine Wohnfläche und fehlen in der Rechnung.",
            )
        )
    if (typical := _median_if_far(subject.rooms, found.rooms, ROOMS_DIFFER)) is not None:
        notes.append(
            _note(
                ConfidenceFactor.rooms_differ,
                f"Das Objekt hat {number(subject.rooms or 0, 1)} Zimmer, die Vergleichsobjekte im Median {number(typical, 1)}.",
            )
        )
    if (typical := _median_if_far(subject.year_built, found.years, YEARS_DIFFER)) is not None:
        notes.append(
            _note(
                ConfidenceFactor.year_built_differs,
                f"Baujahr {subject.year_built}, die Vergleichsobjekte im Median {typical:.0f}.",
            )
        )
    if spread > VERY_WIDE_SPREAD or len(notes) >= 2:
        return Confidence(level="low", level_label="niedrig", lowered_by=notes)
    if notes:
        return Confidence(level="medium", level_label="mittel", lowered_by=notes)
    return Confidence(level="high", level_label="hoch", lowered_by=notes)


def no_estimate(count: int) -> Confidence:
    """The confidence when there are too few comparables for a range."""
    return Confidence(
        level="none",
        level_label="keine Schätzung",
        lowered_by=[
            _note(
                ConfidenceFactor.few_comparables,
                f"Nur {count} Vergleichsobjekte; für eine Spanne sind mindestens {MIN_COMPARABLES} nötig.",
            )
        ],
    )


def warnings(args: EstimateValueInput, subject: EstimateSubject, found: ComparableSet) -> list[ResultWarning]:
    """Each default the estimate applied, and what did not go into it."""
    found_warnings: list[ResultWarning] = []
    if "area_tolerance_percent" not in args.model_fields_set:
        found_warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Toleranz nicht angegeben: der Standard von ±{args.area_tolerance_percent} % Wohnfläche wurde verwendet.",
            )
        )
    if not args.postal_codes:
        found_warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Kein Vergleichsgebiet angegeben (postal_codes): verwendet wurde der Ort des Objekts, {subject.city}.",
            )
        )
    if found.price_on_request:
        found_warnings.append(
            ResultWarning(
                code=WarningCode.PRICE_ON_REQUEST_EXCLUDED,
                message=f"{plural(found.price_on_request, 'sonst passendes Inserat', 'sonst passende Inserate')} mit "
                f"'{PRICE_ON_REQUEST}' {'ging' if found.price_on_request == 1 else 'gingen'} nicht in die Rechnung ein.",
            )
        )
    if found.living_area_unknown:
        found_warnings.append(
            ResultWarning(
                code=WarningCode.VALUE_UNKNOWN_EXCLUDED,
                message=f"{plural(found.living_area_unknown, 'Inserat', 'Inserate')} gleicher Art im Gebiet ohne Wohnfläche "
                f"{'ging' if found.living_area_unknown == 1 else 'gingen'} nicht in die Rechnung ein.",
            )
        )
    return found_warnings


def suggestions(args: EstimateValueInput, subject: EstimateSubject) -> list[Suggestion]:
    """Next steps from the caller's own input; none of them is searched or counted (rule 10)."""
    found: list[Suggestion] = []
    if args.area_tolerance_percent < 100:
        wider = min(100, args.area_tolerance_percent * 2)
        found.append(
            Suggestion(
                arguments={"area_tolerance_percent": wider},
                reason=f"Wohnfläche ±{wider} % statt ±{args.area_tolerance_percent} % zulassen",
            )
        )
    if args.postal_codes:
        shorter = sorted({code[:2] for code in args.postal_codes})
        if shorter != sorted(args.postal_codes):
            found.append(Suggestion(arguments={"postal_codes": shorter}, reason="ganze PLZ-Region statt engerer PLZ-Bereiche"))
    elif subject.postal_code:
        region = subject.postal_code[:2]
        found.append(
            Suggestion(
                arguments={"postal_codes": [region]},
                reason=f"Vergleichsgebiet PLZ-Region {region}xxx statt nur {subject.city or subject.postal_code}",
            )
        )
    return found


def _scope_text(args: EstimateValueInput, subject: EstimateSubject, area: tuple[float, float], subject_published: bool) -> str:
    where = f"mit PLZ {', '.join(c + '…' for c in args.postal_codes)}" if args.postal_codes else f"in {subject.city}"
    return (
        f"veröffentlichte Inserate auf Athaus ({label(subject.marketing_type)}, {label(subject.property_type)}) {where}, "
        f"Wohnfläche {number(area[0], 1)} bis {number(area[1], 1)} m² (±{args.area_tolerance_percent} %)"
        + (", ohne das Objekt selbst" if subject_published else "")
    )


def _method(scope_text: str, subject: EstimateSubject, found: ComparableSet) -> str:
    return (
        f"Vergleichswerte aus Angebotspreisen: {scope_text}. Je Inserat Preis ÷ Wohnfläche; die Spanne reicht vom unteren "
        f"bis zum oberen Quartil, die Mitte ist der Median, jeweils × {number(subject.living_area, 1)} m², die Enden nach "
        f"außen gerundet, die Mitte kaufmännisch, auf {ROUNDING_TEXT[subject.marketing_type is MarketingType.rent]}. Nicht verwendet: "
        f"{plural(found.price_on_request, 'Inserat', 'Inserate')} mit '{PRICE_ON_REQUEST}', {found.living_area_unknown} ohne "
        "Wohnfläche. Angebotspreise sind keine Verkaufspreise."
    )


def _no_range_hint(scope_text: str, found: ComparableSet, suggested: bool) -> str:
    hint = (
        f"Keine Spanne: nur {found.count} Vergleichsobjekte ({scope_text}), mindestens {MIN_COMPARABLES} sind nötig. "
        f"{not_widened('Gebiet und Wohnfläche')}."
    )
    return f"{hint} {SUGGESTIONS_UNSEARCHED}" if suggested else f"{hint} Ein größeres Vergleichsgebiet lässt sich mit postal_codes angeben."


NO_YEAR_BUILT = Absent(reason=AbsenceReason.empty_in_source, note="Der Anbieter hat kein Baujahr angegeben.")


def _comparable_listing(comparable: Comparable, no_distance: Absent) -> ComparableListing:
    return ComparableListing(
        listing_id=comparable.listing_id,
        price=Money(amount=comparable.price),
        living_area=comparable.living_area,
        price_per_sqm=round(comparable.price_per_sqm, 2),
        year_built=comparable.year_built if comparable.year_built is not None else NO_YEAR_BUILT,
        postal_code=comparable.postal_code,
        distance_km=round(comparable.distance_km, 1) if comparable.distance_km is not None else no_distance,
        resource_uri=LISTING_RESOURCE.uri_template.format(listing_id=comparable.listing_id),
    )


def _comparables_used(subject: EstimateSubject, found: ComparableSet) -> ComparablesUsed:
    """The comparables nearest in living area first (then by number), the first COMPARABLES_SHOWN of them."""
    ordered = sorted(found.listings, key=lambda c: (abs(c.living_area - subject.living_area), c.listing_id))[:COMPARABLES_SHOWN]
    no_distance = Absent(reason=AbsenceReason.empty_in_source, note="Die Lage des Objekts ist nicht bekannt, also keine Entfernung.")
    return ComparablesUsed(
        total=found.count,
        **shown(ordered, found.count),
        distance_from=found.distance_from or no_distance,
        items=[_comparable_listing(c, no_distance) for c in ordered],
    )


def estimate(
    args: EstimateValueInput,
    subject: EstimateSubject,
    found: ComparableSet,
    *,
    area: tuple[float, float],
    subject_published: bool,
    freshness: Freshness,
) -> EstimateValueOutput:
    """The estimate for `subject` from the comparables `found` in `area` (`area_range`); with fewer than
    MIN_COMPARABLES there is no range, but a hint and next steps from the caller's input."""
    scope_text = _scope_text(args, subject, area, subject_published)
    range_found = None
    hint = None
    next_steps: list[Suggestion] = []
    if found.count >= MIN_COMPARABLES:
        range_found, spread = value_range(found.price_per_sqm, subject.living_area, subject.marketing_type is MarketingType.rent)
        trust = confidence(subject, found, spread)
    else:
        trust = no_estimate(found.count)
        next_steps = suggestions(args, subject)
        hint = _no_range_hint(scope_text, found, bool(next_steps))
    return EstimateValueOutput(
        estimable=range_found is not None,
        subject=subject,
        comparison_area=ComparisonArea(
            city=None if args.postal_codes else subject.city,
            postal_codes=args.postal_codes,
            living_area_min=area[0],
            living_area_max=area[1],
            tolerance_percent=args.area_tolerance_percent,
        ),
        value_range=range_found,
        comparables=_comparables_used(subject, found),
        excluded=Exclusions(
            price_on_request=found.price_on_request,
            living_area_unknown=found.living_area_unknown,
            subject_listing=subject_published,
        ),
        method=_method(scope_text, subject, found),
        confidence=trust,
        hint=hint,
        suggestions=next_steps,
        warnings=warnings(args, subject, found),
        freshness=freshness,
    )
