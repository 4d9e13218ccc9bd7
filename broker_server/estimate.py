"""Handler of estimate_value: settles the object to value (from the stock, or from the caller's data, asking for
what is missing), finds the comparables; the estimate itself is `shared.valuation`."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy.orm import Session

from broker_server.lookups import own_listing
from contract.broker_estimate import VALUED_TYPES, EstimateSubject, EstimateValueInput, EstimateValueOutput
from contract.envelope import ResultWarning
from contract.errors import ErrorCode, InputNeeded, Question, ToolFailure
from contract.vocabulary import MarketingType, PropertyType, label
from shared import valuation
from shared.catalog import places
from shared.catalog import search as engine
from shared.comparables import Origin, find_comparables
from shared.db.scoped import OfficeData
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler


@dataclass
class Subject:
    """The object to value, read out within the session (rows expire when a read-only session ends)."""

    data: EstimateSubject  # as the result names it
    row_id: int | None  # the office's listing it comes from, left out of its own comparables
    published: bool  # that listing is in the public catalog
    origin: Origin | None  # where distances to the comparables are measured from
    place_warnings: list[ResultWarning] = field(default_factory=list)  # a short form of the place, applied


def _ask(argument: str, message: str, schema: dict[str, object]) -> InputNeeded:
    return InputNeeded(Question(argument=argument, message=message, schema=schema))


def _not_valued(kind: PropertyType, next_step: str) -> ToolFailure:
    return ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Für {label(kind)} schätzt estimate_value keinen Wert je m² Wohnfläche: {next_step}")


def _from_stock(session: Session, office: OfficeData, listing_id: str) -> Subject:
    listing = own_listing(session, office, listing_id)
    kind = PropertyType(listing.property_type)
    if kind not in VALUED_TYPES:
        raise _not_valued(kind, "bitte ein Objekt mit Wohn- oder Nutzfläche wählen.")
    if not listing.living_area:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            "Das Objekt hat keine Wohnfläche: bitte die Objektdaten mit living_area statt listing_id senden.",
        )
    data = EstimateSubject(
        listing_id=listing.ref,
        source="listing",
        source_label="aus dem Bestand",
        property_type=kind,
        marketing_type=MarketingType(listing.marketing_type),
        city=listing.city,
        postal_code=listing.postal_code,
        living_area=listing.living_area,
        rooms=listing.rooms,
        year_built=listing.year_built,
    )
    origin = Origin(listing.latitude, listing.longitude, f"Lage des Objekts {listing.ref}")
    return Subject(data, listing.id, listing.status in engine.PUBLIC_STATUSES, origin)


def _from_caller(session: Session, args: EstimateValueInput) -> Subject:
    if not (args.city or args.postal_code or args.postal_codes):
        raise _ask("city", "In welchem Ort liegt das Objekt?", {"type": "string", "title": "Ort"})
    if args.property_type is None:
        raise _ask(
            "property_type",
            "Welche Objektart ist es: Wohnung, Haus oder Gewerbe?",
            {"type": "string", "enum": [t.value for t in VALUED_TYPES], "title": "Objektart"},
        )
    if args.marketing_type is None:
        raise _ask(
            "marketing_type",
            "Soll der Kaufpreis (buy) oder die Kaltmiete (rent) geschätzt werden?",
            {"type": "string", "enum": [m.value for m in MarketingType], "title": "Vermarktungsart"},
        )
    if args.living_area is None:
        raise _ask("living_area", "Wie groß ist die Wohnfläche in m²?", {"type": "number", "exclusiveMinimum": 0, "title": "Wohnfläche m²"})
    if args.property_type not in VALUED_TYPES:
        raise _not_valued(args.property_type, "bitte apartment, house oder commercial angeben.")
    city, place_warnings, origin = _place(session, args)
    data = EstimateSubject(
        listing_id=None,
        source="caller",
        source_label="deine Angaben",
        property_type=args.property_type,
        marketing_type=args.marketing_type,
        city=city,
        postal_code=args.postal_code,
        living_area=args.living_area,
        rooms=args.rooms,
        year_built=args.year_built,
    )
    return Subject(data, None, False, origin, place_warnings)


def _place(session: Session, args: EstimateValueInput) -> tuple[str | None, list[ResultWarning], Origin | None]:
    """The object's place resolved against the catalog's places (shared.catalog.places), as the catalog search does,
    and where distances to the comparables are measured from: the centre of its postal code, else of its place."""
    if args.postal_codes:
        places.check_postal_codes(args.postal_codes, "postal_codes")
    by_code = places.resolve_postal_code(args.postal_code, "postal_code") if args.postal_code else None
    code_centre = Origin(by_code.latitude, by_code.longitude, f"Mitte der PLZ {args.postal_code}") if by_code else None
    if args.city is None:
        return (by_code.name if by_code and not args.postal_codes else None), [], code_centre
    match = places.resolve_place(args.city, "city")
    warnings = [w for w in [places.normalised_warning("city", args.city, match)] if w]
    return match.name, warnings, code_centre or Origin(match.latitude, match.longitude, f"Mitte von {match.name}")


def estimate_value(args: EstimateValueInput, ctx: ToolContext) -> EstimateValueOutput:
    office = ctx.office()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session, ctx.catalog)
        subject = _from_stock(session, office, args.listing_id) if args.listing_id is not None else _from_caller(session, args)
        area = valuation.area_range(subject.data.living_area, args.area_tolerance_percent)
        found = find_comparables(
            session,
            marketing_type=subject.data.marketing_type,
            property_type=subject.data.property_type,
            city=subject.data.city,
            postal_codes=args.postal_codes,
            area=area,
            exclude_id=subject.row_id,
            origin=subject.origin,
        )
    result = valuation.estimate(args, subject.data, found, area=area, subject_published=subject.published, freshness=snap.freshness)
    result.warnings[:0] = subject.place_warnings
    return result


HANDLERS: dict[str, Handler] = {"estimate_value": estimate_value}
