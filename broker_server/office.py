"""Handlers of the office tools: Lagebericht, Bestand, Objekt, Prüfung und Wertschätzung.

Every office row is reached through `ctx.office()` (OfficeData), so the office filter is applied in one
place. Comparables for price checks and value estimates come from the public catalog only (published
listings of any office, through the catalog engine's own public scope).
"""

from __future__ import annotations

import datetime as dt
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from sqlalchemy import Select, and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased, selectinload

from broker_server.inquiries import awaiting_reply_since, last_office_message
from contract.broker_office import (
    MIN_COMPARABLES,
    MIN_DESCRIPTION_CHARS,
    PLAUSIBLE_RATIO,
    SORT_KEYS_STOCK,
    VALUED_TYPES,
    AgeBand,
    BlockedDraft,
    CheckListingInput,
    CheckListingOutput,
    CheckRule,
    ComparablesUsed,
    ComparisonArea,
    Confidence,
    ConfidenceFactor,
    ConfidenceNote,
    ConfirmationSection,
    DueCertificate,
    EnergySection,
    EstimateSubject,
    EstimateValueInput,
    EstimateValueOutput,
    Exclusions,
    GetStockListingInput,
    InquiryRef,
    InquirySection,
    KeyFigures,
    ListingInquiries,
    ListingProposals,
    OpenDraft,
    OpenDrafts,
    PriceComparison,
    ProposalRef,
    ProposalSection,
    RuleResult,
    SearchStockInput,
    ShowSituationReportInput,
    StatusChangeEntry,
    StockListing,
    StockListingDetail,
    UnpublishableSection,
    ValueRange,
    Verdict,
    WaitingConfirmation,
    WaitingInquiry,
    WaitingProposal,
)
from contract.catalog import CatalogFilters, Money
from contract.envelope import Absent, AbsenceReason, Freshness, Page, ResultWarning, Suggestion, Tally, WarningCode
from contract.errors import ErrorCode, InputNeeded, Question, ToolFailure
from contract.vocabulary import (
    EnergyStatus,
    InquiryStatus,
    ListingStatus,
    MarketingType,
    MessageAuthor,
    PendingActionKind,
    PropertyType,
    ProposalStatus,
    label,
    labelled,
    stored_label,
)
from search_server import listings
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery
from shared.catalog.scope import ALL_FILTERS, StockScope, empty_hint
from shared.catalog.suggest import suggestions_for
from shared.catalog.text import normalise
from shared.db.models import (
    Inquiry,
    InquiryMessage,
    Listing,
    ListingStatusChange,
    Office,
    PendingAction,
    Place,
    Proposal,
    User,
)
from shared.db.scoped import OfficeData, count_rows
from shared.runtime import render
from shared.runtime.definition import Handler
from shared.runtime.context import ToolContext
from shared.runtime.envelope import effective_request
from shared.paging.cursor import binding_hash

ALL_STATUSES = [s.value for s in ListingStatus]
RESIDENTIAL = {PropertyType.apartment, PropertyType.house}
NO_CERTIFICATE_NEEDED = {PropertyType.land, PropertyType.parking}
LISTED_BUILDING_WORD = "denkmal"  # Denkmalschutz, denkmalgeschützt, Baudenkmal, Einzeldenkmal …

VERDICT_LABELS = {Verdict.ok: "erfüllt", Verdict.failed: "nicht erfüllt", Verdict.not_checkable: "nicht prüfbar"}
RULE_LABELS = {
    CheckRule.energy_certificate: "Energieausweis (GEG §87)",
    CheckRule.title: "Titel",
    CheckRule.description: f"Beschreibung (mindestens {MIN_DESCRIPTION_CHARS} Zeichen)",
    CheckRule.price: "Preis oder 'Preis auf Anfrage'",
    CheckRule.living_area: "Wohnfläche",
    CheckRule.rooms: "Zimmerzahl",
    CheckRule.photos: "Fotos",
    CheckRule.price_plausibility: "Preis je m² im Vergleich",
}

LATEST_SHOWN = 5  # inquiries and proposals of one listing shown by get_listing
DRAFTS_SHOWN = 10
COMPARABLES_SHOWN = 20
EXPIRED_LOOKBACK = dt.timedelta(days=30)
KEY_FIGURE_WINDOWS = (7, 30)
FEW_COMPARABLES = 10
WIDE_SPREAD = 0.4  # inter-quartile range relative to the median
VERY_WIDE_SPREAD = 0.8
MANY_EXCLUDED = 0.1  # share of excluded listings that lowers confidence
ROOMS_DIFFER = 1.5
YEARS_DIFFER = 30


# --- shared pieces ------------------------------------------------------------------------------------------


def _not_found() -> ToolFailure:
    # Never names the id: an id of another office must not be confirmed or echoed.
    return ToolFailure(
        ErrorCode.NOT_FOUND,
        "Dieses Objekt gibt es im Bestand deines Büros nicht: bitte die Inseratsnummer prüfen oder das Objekt mit "
        "search_listings im Bestand suchen.",
    )


def _own_listing(session: Session, office: OfficeData, listing_id: str) -> Listing:
    listing = session.scalar(
        office.listings().where(Listing.ref == listing_id).options(selectinload(Listing.office), selectinload(Listing.features))
    )
    if listing is None:
        raise _not_found()
    return listing


def _office_name(session: Session, office: OfficeData) -> str:
    return session.scalar(select(Office.name).where(Office.id == office.office_id)) or "dein Büro"


def _hours(now: dt.datetime, then: dt.datetime) -> float:
    return round((now - then).total_seconds() / 3600, 1)


def _age_text(hours: float) -> str:
    if hours < 48:
        return f"{hours:.0f} Stunden"
    return f"{hours / 24:.0f} Tagen"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _shown(items: Sequence[Any], total: int) -> dict[str, Any]:
    """`shown` and `all_shown` of a list that holds the first `items` of `total`."""
    return {"shown": len(items), "all_shown": len(items) >= total}


def _shown_note(shown: int, total: int, what: str) -> str:
    return "" if shown >= total else f" Gezeigt: {what} {shown} von {total}."


# --- check_listing --------------------------------------------------------------------------------------------


def _rule(rule: CheckRule, verdict: Verdict, message: str, blocking: bool = True) -> RuleResult:
    return RuleResult(
        rule=rule, rule_label=RULE_LABELS[rule], verdict=verdict, verdict_label=VERDICT_LABELS[verdict], blocking=blocking, message=message
    )


def _listed_building(listing: Listing) -> bool:
    return LISTED_BUILDING_WORD in normalise(f"{listing.title} {listing.description or ''}")


def _energy_rule(listing: Listing, today: dt.date) -> RuleResult:
    kind = PropertyType(listing.property_type)
    status = EnergyStatus(listing.energy_status)
    rule = CheckRule.energy_certificate
    if kind in NO_CERTIFICATE_NEEDED:
        return _rule(rule, Verdict.ok, f"Für {label(kind)} ist kein Energieausweis erforderlich.")
    if status is EnergyStatus.at_viewing:
        return _rule(
            rule,
            Verdict.failed,
            "Der Energieausweis liegt nur 'zur Besichtigung' vor; für die Anzeige verlangt GEG §87 die Pflichtangaben. "
            "Bitte Ausweisart, Kennwert, Energieträger, Baujahr und Effizienzklasse aus dem Ausweis eintragen.",
        )
    if status is EnergyStatus.missing:
        return _rule(
            rule,
            Verdict.failed,
            "Zum Energieausweis gibt es keine Angabe: bitte die Pflichtangaben nach GEG §87 aus dem Ausweis eintragen.",
        )
    if status is EnergyStatus.not_required:
        if _listed_building(listing):
            return _rule(rule, Verdict.ok, "Kein Energieausweis erforderlich: Titel oder Beschreibung nennen Denkmalschutz.")
        return _rule(
            rule,
            Verdict.failed,
            f"'Kein Energieausweis erforderlich' ist für {label(kind)} nur bei einem Baudenkmal plausibel, und Titel und "
            "Beschreibung nennen keinen Denkmalschutz: bitte die Angaben des Energieausweises eintragen oder den "
            "Denkmalschutz in der Beschreibung nennen.",
        )
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
    if missing:
        return _rule(
            rule,
            Verdict.failed,
            "Der Energieausweis liegt vor, aber es fehlen Pflichtangaben: " + ", ".join(missing) + ". Bitte aus dem Ausweis eintragen.",
        )
    assert listing.energy_valid_until is not None
    if listing.energy_valid_until < today:
        return _rule(
            rule,
            Verdict.failed,
            f"Der Energieausweis ist seit dem {render.value_text(listing.energy_valid_until)} abgelaufen: bitte einen neuen Ausweis "
            "ausstellen lassen und seine Angaben eintragen.",
        )
    valid_until = render.value_text(listing.energy_valid_until)
    return _rule(rule, Verdict.ok, f"Alle Pflichtangaben nach GEG §87 sind da; der Ausweis gilt bis {valid_until}.")


def _required_rules(listing: Listing) -> list[RuleResult]:
    kind = PropertyType(listing.property_type)
    results = []
    if listing.title and listing.title.strip():
        results.append(_rule(CheckRule.title, Verdict.ok, "Titel vorhanden."))
    else:
        results.append(_rule(CheckRule.title, Verdict.failed, "Der Titel fehlt: bitte einen Titel eintragen."))
    length = len((listing.description or "").strip())
    if length >= MIN_DESCRIPTION_CHARS:
        results.append(_rule(CheckRule.description, Verdict.ok, f"Beschreibung mit {length} Zeichen."))
    else:
        results.append(
            _rule(
                CheckRule.description,
                Verdict.failed,
                f"Die Beschreibung hat {length} Zeichen, mindestens {MIN_DESCRIPTION_CHARS} sind nötig: bitte ergänzen.",
            )
        )
    if listing.price is not None and listing.price > 0:
        results.append(_rule(CheckRule.price, Verdict.ok, f"Preis {render.number(listing.price, 0)} € angegeben."))
    elif listing.price_on_request:
        results.append(_rule(CheckRule.price, Verdict.ok, "'Preis auf Anfrage' ist angegeben."))
    else:
        results.append(
            _rule(CheckRule.price, Verdict.failed, "Weder Preis noch 'Preis auf Anfrage' ist angegeben: bitte eines davon eintragen.")
        )
    for rule, value, what in (
        (CheckRule.living_area, listing.living_area, "Die Wohnfläche"),
        (CheckRule.rooms, listing.rooms, "Die Zimmerzahl"),
    ):
        if kind not in RESIDENTIAL:
            results.append(_rule(rule, Verdict.ok, f"Für {label(kind)} nicht vorgeschrieben."))
        elif value is not None and value > 0:
            results.append(_rule(rule, Verdict.ok, f"{what} ist angegeben ({render.number(value, 1 if value % 1 else 0)})."))
        else:
            results.append(_rule(rule, Verdict.failed, f"{what} fehlt; bei {label(kind)} ist sie Pflicht: bitte eintragen."))
    photos = len(listing.photos or [])
    if photos:
        results.append(_rule(CheckRule.photos, Verdict.ok, _plural(photos, "Foto", "Fotos") + " vorhanden."))
    else:
        results.append(_rule(CheckRule.photos, Verdict.failed, "Es gibt kein Foto: bitte mindestens eines hochladen."))
    return results


def blocking_rules(listing: Listing, today: dt.date) -> list[RuleResult]:
    """The rules that decide `publishable`; they read the listing row only."""
    return [_energy_rule(listing, today), *_required_rules(listing)]


@dataclass
class ComparableSet:
    """Published catalog listings comparable to one object, and what was left out (rule 14)."""

    refs: list[str]
    price_per_sqm: list[float]
    living_areas: list[float]
    rooms: list[float]
    years: list[int]
    price_on_request: int
    living_area_unknown: int

    @property
    def count(self) -> int:
        return len(self.refs)


def find_comparables(
    session: Session,
    *,
    marketing_type: MarketingType,
    property_type: PropertyType,
    city: str | None,
    postal_codes: list[str] | None,
    area: tuple[float, float] | None,
    exclude_id: int | None,
) -> ComparableSet:
    """Comparables through the catalog engine's own public scope (published only), never the office's stock."""
    filters = CatalogFilters(
        marketing_type=marketing_type,
        property_types=[property_type],
        city=None if postal_codes else city,
        postal_codes=postal_codes,
        min_living_area=area[0] if area else None,
        max_living_area=area[1] if area else None,
    )
    base = engine.base_conditions(filters, ParsedQuery(), None)
    if exclude_id is not None:
        base.append(Listing.id != exclude_id)
    ranges = engine.range_conditions(filters).get("living_area", [Listing.living_area > 0])
    unknown_area = engine.count(session, [*base, or_(Listing.living_area.is_(None), Listing.living_area <= 0)])
    on_request = engine.count(session, [*base, *ranges, Listing.price.is_(None)])
    rows = session.execute(
        select(Listing.ref, Listing.price, Listing.living_area, Listing.rooms, Listing.year_built)
        .where(*base, *ranges, Listing.price.is_not(None), Listing.price > 0, Listing.living_area > 0)
        .order_by(Listing.id)
    ).all()
    return ComparableSet(
        refs=[r.ref for r in rows],
        price_per_sqm=[r.price / r.living_area for r in rows],
        living_areas=[r.living_area for r in rows],
        rooms=[r.rooms for r in rows if r.rooms is not None],
        years=[r.year_built for r in rows if r.year_built is not None],
        price_on_request=on_request,
        living_area_unknown=unknown_area,
    )


def _plausibility(session: Session, listing: Listing) -> tuple[RuleResult, PriceComparison | Absent]:
    rule = CheckRule.price_plausibility
    kind = PropertyType(listing.property_type)

    def not_checkable(why: str) -> tuple[RuleResult, Absent]:
        return (
            _rule(rule, Verdict.not_checkable, f"Nicht prüfbar: {why}", blocking=False),
            Absent(reason=AbsenceReason.not_collected, note=f"Kein Vergleich: {why}"),
        )

    if kind not in VALUED_TYPES:
        return not_checkable(f"für {label(kind)} gibt es keinen Preis je m² Wohnfläche.")
    if listing.price is None:
        return not_checkable("ohne Preis (Preis auf Anfrage oder keine Angabe) gibt es keinen Preis je m².")
    if not listing.living_area:
        return not_checkable("ohne Wohnfläche gibt es keinen Preis je m².")
    marketing = MarketingType(listing.marketing_type)
    found = find_comparables(
        session,
        marketing_type=marketing,
        property_type=kind,
        city=listing.city,
        postal_codes=None,
        area=None,
        exclude_id=listing.id,
    )
    where = f"veröffentlichten Inseraten ({label(marketing)}, {label(kind)}) in {listing.city}"
    if found.count < MIN_COMPARABLES:
        return not_checkable(
            f"nur {found.count} Vergleichsobjekte (von {where}); mindestens {MIN_COMPARABLES} sind nötig."
        )
    own = listing.price / listing.living_area
    median = statistics.median(found.price_per_sqm)
    ratio = own / median
    comparison = PriceComparison(
        price_per_sqm=round(own, 2),
        median_price_per_sqm=round(median, 2),
        ratio=round(ratio, 3),
        comparables=found.count,
        price_on_request_excluded=found.price_on_request,
        living_area_unknown_excluded=found.living_area_unknown,
    )
    low, high = PLAUSIBLE_RATIO
    digits = 2 if median < 100 else 0
    facts = (
        f"{render.number(own, digits)} €/m² gegenüber dem Median von {render.number(median, digits)} €/m² aus {found.count} {where} "
        f"(das {render.number(ratio, 2)}-Fache)"
    )
    if low <= ratio <= high:
        return _rule(rule, Verdict.ok, f"Plausibel: {facts}.", blocking=False), comparison
    return (
        _rule(
            rule,
            Verdict.failed,
            f"Auffällig: {facts}, außerhalb des {render.number(low, 1)}- bis {render.number(high, 0)}-Fachen. Bitte Preis und "
            "Wohnfläche prüfen; die Veröffentlichung verhindert das nicht.",
            blocking=False,
        ),
        comparison,
    )


def check_result(session: Session, listing: Listing, now: dt.datetime, freshness: Freshness) -> CheckListingOutput:
    rules = blocking_rules(listing, now.date())
    plausibility, comparison = _plausibility(session, listing)
    rules.append(plausibility)
    failed = [r for r in rules if r.blocking and r.verdict is not Verdict.ok]
    publishable = not failed
    if publishable:
        summary = "Kann veröffentlicht werden: alle Pflichtregeln sind erfüllt."
    else:
        summary = "Kann so nicht veröffentlicht werden: nicht erfüllt " + ", ".join(r.rule_label for r in failed) + "."
    if plausibility.verdict is Verdict.failed:
        summary += " Hinweis: der Preis je m² ist im Vergleich auffällig."
    return CheckListingOutput(
        listing_id=listing.ref,
        title=listing.title,
        **labelled("status", ListingStatus(listing.status)),
        publishable=publishable,
        summary=summary,
        rules=rules,
        price_comparison=comparison,
        checked_at=now,
        freshness=freshness,
    )


def check_listing(args: CheckListingInput, ctx: ToolContext) -> CheckListingOutput:
    office = ctx.office()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        listing = _own_listing(session, office, args.listing_id)
        return check_result(session, listing, ctx.now(), snap.freshness)


# --- search_listings (the office's stock) ------------------------------------------------------------------------

NOT_PUBLIC = "Kein öffentliches Exposé: das Inserat ist nicht veröffentlicht (Status {status})."
NEVER_PUBLISHED = Absent(reason=AbsenceReason.empty_in_source, note="Noch nie veröffentlicht.")


def _public_uri(listing: Listing, uri: str) -> str | Absent:
    if listing.status in engine.PUBLIC_STATUSES:
        return uri
    status = label(ListingStatus(listing.status))
    return Absent(reason=AbsenceReason.empty_in_source, note=NOT_PUBLIC.format(status=status))


def _published_at(listing: Listing) -> dt.datetime | Absent:
    return listing.published_at if listing.published_at is not None else NEVER_PUBLISHED


def _stock_item(listing: Listing, args: SearchStockInput, distance: float | None) -> StockListing:
    summary = listings.summary(listing, args.include, distance)
    return StockListing.model_validate(
        {
            **dict(summary),
            "resource_uri": _public_uri(listing, summary.resource_uri),
            "published_at": _published_at(listing),
            **labelled("status", ListingStatus(listing.status)),
            "created_at": listing.created_at,
            "updated_at": listing.updated_at,
        }
    )


def _stock_binding(args: SearchStockInput, statuses: Sequence[str], office: OfficeData) -> str:
    """A cursor is bound to the filters, the statuses, the order and the office."""
    catalog = engine.binding(args, args.sort)
    return binding_hash({"catalog": catalog, "statuses": list(statuses), "office": office.office_id})


def search_listings(args: SearchStockInput, ctx: ToolContext) -> Page[StockListing]:
    office = ctx.office()
    now = ctx.now()
    statuses = [s for s in ALL_STATUSES if s in {v.value for v in args.statuses}] if args.statuses else ALL_STATUSES
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        office_name = _office_name(session, office)
        scope = StockScope(session, args, statuses, office)
        page = scope.page(session, ctx.cursors, args, binding=_stock_binding(args, statuses, office), revision=snap.revision, now=now)
        items = [_stock_item(row, args, scope.distance_km(row)) for row in page.rows]
    suggestions: list[Suggestion] = []
    hint = None
    if page.total == 0:
        suggestions = suggestions_for(args)
        if args.statuses:
            suggestions.append(Suggestion(arguments={"statuses": None}, reason="alle Status"))
        hint = f"Durchsucht wurde nur der Bestand von {office_name}. " + empty_hint(args, scope.centre)
    return Page(
        items=items,
        total=page.total,
        request=effective_request(args, {**ALL_FILTERS, "statuses": ALL_STATUSES, "office": office_name}, exclude={"cursor"}),
        sort_key=SORT_KEYS_STOCK[args.sort],
        freshness=snap.freshness,
        next_cursor=page.next_cursor,
        warnings=scope.warnings,
        suggestions=suggestions,
        empty_hint=hint,
    )


# --- get_listing ------------------------------------------------------------------------------------------------


def _status_history(session: Session, listing: Listing) -> list[StatusChangeEntry] | Absent:
    rows = session.execute(
        select(ListingStatusChange, User.name)
        .outerjoin(User, ListingStatusChange.changed_by == User.id)
        .where(ListingStatusChange.listing_id == listing.id)
        .order_by(ListingStatusChange.changed_at, ListingStatusChange.id)
    ).all()
    if not rows:
        return Absent(
            reason=AbsenceReason.empty_in_source,
            note="Für dieses Objekt ist kein Statusverlauf gespeichert (etwa weil es vor Einführung des Verlaufs angelegt wurde).",
        )
    entries = []
    for change, name in rows:
        old = ListingStatus(change.old_status) if change.old_status else None
        new = ListingStatus(change.new_status)
        entries.append(
            StatusChangeEntry(
                old_status=old,
                new_status=new,
                label=f"{label(old)} → {label(new)}" if old else f"angelegt als {label(new)}",
                changed_at=change.changed_at,
                changed_by=name
                if name
                else Absent(reason=AbsenceReason.empty_in_source, note="Ohne Person geändert (Import oder System)."),
            )
        )
    return entries


def _latest(session: Session, of_listing: Select[Any], model: Any, open_status: StrEnum) -> tuple[dict[str, Any], Sequence[Any]]:
    """The inquiries or proposals of one listing (`of_listing`): the counts (`total`, `open`, `shown`,
    `all_shown`) and the newest LATEST_SHOWN rows."""
    counted = of_listing.subquery()
    is_open = case((counted.c.status == open_status.value, 1), else_=0)
    total, open_ = session.execute(select(func.count(), func.coalesce(func.sum(is_open), 0)).select_from(counted)).one()
    rows = session.scalars(of_listing.order_by(model.created_at.desc(), model.id.desc()).limit(LATEST_SHOWN)).all()
    return {"total": total, "open": open_, **_shown(rows, total)}, rows


def _listing_inquiries(session: Session, office: OfficeData, listing: Listing) -> ListingInquiries:
    of_listing = office.inquiries().where(Inquiry.listing_id == listing.id)
    counts, rows = _latest(session, of_listing, Inquiry, InquiryStatus.open)
    return ListingInquiries(
        **counts,
        latest=[
            InquiryRef(
                inquiry_id=i.ref,
                **labelled("status", InquiryStatus(i.status)),
                created_at=i.created_at,
                last_message_at=i.last_message_at,
            )
            for i in rows
        ],
    )


def _listing_proposals(session: Session, office: OfficeData, listing: Listing) -> ListingProposals:
    of_listing = office.proposals().where(Proposal.listing_id == listing.id)
    counts, rows = _latest(session, of_listing, Proposal, ProposalStatus.open)
    return ListingProposals(
        **counts,
        items=[
            ProposalRef(
                proposal_id=p.ref,
                **labelled("status", ProposalStatus(p.status)),
                created_at=p.created_at,
                decided_at=p.decided_at if p.decided_at else None,
            )
            for p in rows
        ],
    )


def _open_drafts(session: Session, office: OfficeData, listing: Listing, now: dt.datetime) -> OpenDrafts:
    inquiry_refs = office.inquiries().where(Inquiry.listing_id == listing.id).with_only_columns(Inquiry.ref)
    proposal_refs = office.proposals().where(Proposal.listing_id == listing.id).with_only_columns(Proposal.ref)
    query = office.pending_actions().where(
        PendingAction.status == "pending",
        or_(PendingAction.subject_ref.in_(inquiry_refs), PendingAction.subject_ref.in_(proposal_refs)),
    )
    total = count_rows(session, query)
    rows = session.scalars(query.order_by(PendingAction.created_at, PendingAction.id).limit(DRAFTS_SHOWN)).all()
    return OpenDrafts(
        total=total,
        **_shown(rows, total),
        items=[
            OpenDraft(
                confirmation_id=a.ref,
                kind=a.kind,
                kind_label=stored_label(PendingActionKind, a.kind),
                subject_ref=a.subject_ref,
                summary=a.summary,
                created_at=a.created_at,
                expires_at=a.expires_at,
                expired=a.expires_at <= now,
            )
            for a in rows
        ],
    )


def get_listing(args: GetStockListingInput, ctx: ToolContext) -> StockListingDetail:
    office = ctx.office()
    now = ctx.now()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        listing = _own_listing(session, office, args.listing_id)
        expose = listings.detail(listing, snap.freshness, now.date())
        return StockListingDetail.model_validate(
            {
                **dict(expose),
                "resource_uri": _public_uri(listing, expose.resource_uri),
                "published_at": _published_at(listing),
                "address": listings.address(listing, exact=True),  # the office sees its own address, published or not
                **labelled("status", expose.status),
                "address_published": listing.address_published,
                "created_at": listing.created_at,
                "status_history": _status_history(session, listing),
                "inquiries": _listing_inquiries(session, office, listing),
                "open_drafts": _open_drafts(session, office, listing, now),
                "check": check_result(session, listing, now, snap.freshness),
                "proposals": _listing_proposals(session, office, listing),
            }
        )


# --- show_situation_report --------------------------------------------------------------------------------------


def _waiting_inquiries(office: OfficeData) -> Any:
    """Open inquiries of the office with when they started waiting and whether the office ever replied."""
    return (
        office.inquiries()
        .where(Inquiry.status == InquiryStatus.open.value)
        .with_only_columns(
            Inquiry.id,
            Inquiry.ref,
            Inquiry.listing_id,
            func.coalesce(awaiting_reply_since(), Inquiry.created_at).label("waiting_since"),
            case((last_office_message().is_(None), 1), else_=0).label("first_contact"),
        )
        .subquery()
    )


def _inquiry_section(session: Session, office: OfficeData, now: dt.datetime, limit: int) -> InquirySection:
    waiting = _waiting_inquiries(office)
    day, three_days = now - dt.timedelta(hours=24), now - dt.timedelta(hours=72)
    total, new, recent, middle, old, oldest = session.execute(
        select(
            func.count(),
            func.coalesce(func.sum(waiting.c.first_contact), 0),
            func.coalesce(func.sum(case((waiting.c.waiting_since > day, 1), else_=0)), 0),
            func.coalesce(func.sum(case((and_(waiting.c.waiting_since <= day, waiting.c.waiting_since > three_days), 1), else_=0)), 0),
            func.coalesce(func.sum(case((waiting.c.waiting_since <= three_days, 1), else_=0)), 0),
            func.min(waiting.c.waiting_since),
        ).select_from(waiting)
    ).one()
    rows = session.execute(
        select(waiting.c.ref, waiting.c.waiting_since, waiting.c.first_contact, Listing.ref.label("listing_ref"), Listing.title)
        .join(Listing, Listing.id == waiting.c.listing_id)
        .order_by(waiting.c.waiting_since, waiting.c.id)
        .limit(limit)
    ).all()
    items = [
        WaitingInquiry(
            inquiry_id=r.ref,
            listing_id=r.listing_ref,
            title=r.title,
            first_contact=bool(r.first_contact),
            waiting_since=r.waiting_since,
            waiting_hours=_hours(now, r.waiting_since),
        )
        for r in rows
    ]
    if total:
        summary = (
            f"{_plural(total, 'offene Anfrage wartet', 'offene Anfragen warten')} auf eine Antwort, davon {new} neu und "
            f"{total - new} Rückfragen; die älteste wartet seit {_age_text(_hours(now, oldest))}."
        )
    else:
        summary = "Keine offene Anfrage wartet auf eine Antwort."
    return InquirySection(
        title="Neue und unbeantwortete Anfragen",
        summary=summary + _shown_note(len(items), total, "die am längsten wartenden"),
        total=total,
        new=new,
        follow_ups=total - new,
        by_age=[
            AgeBand(label="unter 24 Stunden", count=recent),
            AgeBand(label="1 bis 3 Tage", count=middle),
            AgeBand(label="über 3 Tage", count=old),
        ],
        **_shown(items, total),
        items=items,
    )


def _confirmation_section(session: Session, office: OfficeData, now: dt.datetime, limit: int) -> ConfirmationSection:
    waiting = office.pending_actions().where(PendingAction.status == "pending", PendingAction.expires_at > now)
    total = count_rows(session, waiting)
    expired_query = office.pending_actions().where(
        PendingAction.status.in_(["pending", "expired"]),
        PendingAction.expires_at <= now,
        PendingAction.expires_at > now - EXPIRED_LOOKBACK,
    )
    expired = count_rows(session, expired_query)
    rows = session.scalars(waiting.order_by(PendingAction.created_at, PendingAction.id).limit(limit)).all()
    items = [
        WaitingConfirmation(
            confirmation_id=a.ref,
            kind=a.kind,
            kind_label=stored_label(PendingActionKind, a.kind),
            subject_ref=a.subject_ref,
            summary=a.summary,
            created_at=a.created_at,
            expires_at=a.expires_at,
            waiting_hours=_hours(now, a.created_at),
        )
        for a in rows
    ]
    summary = (
        f"{_plural(total, 'Bestätigung wartet', 'Bestätigungen warten')} auf einen Klick"
        if total
        else "Keine Bestätigung wartet auf einen Klick"
    )
    summary += f"; {expired} in den letzten 30 Tagen abgelaufen, ohne ausgeführt zu sein."
    return ConfirmationSection(
        title="Wartende Bestätigungen",
        summary=summary + _shown_note(len(items), total, "die ältesten"),
        total=total,
        expired=expired,
        **_shown(items, total),
        items=items,
    )


def _unpublishable_section(session: Session, office: OfficeData, now: dt.datetime, limit: int) -> UnpublishableSection:
    drafts = session.scalars(
        office.listings().where(Listing.status == ListingStatus.draft.value).order_by(Listing.created_at, Listing.id)
    ).all()
    blocked: list[BlockedDraft] = []
    for draft in drafts:
        failed = [r for r in blocking_rules(draft, now.date()) if r.verdict is not Verdict.ok]
        if failed:
            blocked.append(
                BlockedDraft(
                    listing_id=draft.ref,
                    title=draft.title,
                    created_at=draft.created_at,
                    failed_rules=[r.rule for r in failed],
                    reasons=[r.message for r in failed],
                )
            )
    items = blocked[:limit]
    total = len(blocked)
    summary = (
        f"{total} von {_plural(len(drafts), 'Entwurf', 'Entwürfen')} bestehen check_listing nicht."
        if drafts
        else "Das Büro hat keine Entwürfe."
    )
    return UnpublishableSection(
        title="Entwürfe, die nicht veröffentlicht werden können",
        summary=summary + _shown_note(len(items), total, "die ältesten"),
        total=total,
        drafts_checked=len(drafts),
        **_shown(items, total),
        items=items,
    )


def _energy_section(session: Session, office: OfficeData, now: dt.datetime, limit: int, window_days: int) -> EnergySection:
    today = now.date()
    due = office.listings().where(
        Listing.status.in_(engine.PUBLIC_STATUSES),
        Listing.energy_status == EnergyStatus.present.value,
        Listing.energy_valid_until.is_not(None),
        Listing.energy_valid_until <= today + dt.timedelta(days=window_days),
    )
    counted = due.subquery()
    total, expired = session.execute(
        select(func.count(), func.coalesce(func.sum(case((counted.c.energy_valid_until < today, 1), else_=0)), 0)).select_from(counted)
    ).one()
    rows = session.scalars(due.order_by(Listing.energy_valid_until, Listing.id).limit(limit)).all()
    items = [
        DueCertificate(
            listing_id=r.ref,
            title=r.title,
            valid_until=r.energy_valid_until,
            days_left=(r.energy_valid_until - today).days,
            expired=r.energy_valid_until < today,
        )
        for r in rows
    ]
    summary = (
        f"{_plural(total, 'Energieausweis', 'Energieausweise')} veröffentlichter Inserate: {expired} abgelaufen, "
        f"{total - expired} laufen in den nächsten {window_days} Tagen ab."
        if total
        else f"Kein Energieausweis eines veröffentlichten Inserats ist abgelaufen oder läuft in den nächsten {window_days} Tagen ab."
    )
    return EnergySection(
        title="Energieausweise abgelaufen oder bald fällig",
        summary=summary + _shown_note(len(items), total, "die frühesten"),
        total=total,
        expired=expired,
        expiring=total - expired,
        window_days=window_days,
        **_shown(items, total),
        items=items,
    )


def _proposal_section(session: Session, office: OfficeData, now: dt.datetime, limit: int) -> ProposalSection:
    open_ = office.proposals().where(Proposal.status == ProposalStatus.open.value)
    total = count_rows(session, open_)
    rows = session.execute(
        open_.add_columns(Listing.ref.label("listing_ref"), Listing.title)
        .join(Listing, Listing.id == Proposal.listing_id)
        .order_by(Proposal.created_at, Proposal.id)
        .limit(limit)
    ).all()
    items = [
        WaitingProposal(
            proposal_id=p.ref,
            listing_id=listing_ref,
            title=title,
            created_at=p.created_at,
            waiting_hours=_hours(now, p.created_at),
        )
        for p, listing_ref, title in rows
    ]
    summary = (
        f"{_plural(total, 'offener Vorschlag wartet', 'offene Vorschläge warten')} auf eine Entscheidung."
        if total
        else "Kein offener Vorschlag."
    )
    return ProposalSection(
        title="Offene Vorschläge",
        summary=summary + _shown_note(len(items), total, "die ältesten"),
        total=total,
        **_shown(items, total),
        items=items,
    )


def _key_figures(session: Session, office: OfficeData, now: dt.datetime) -> list[KeyFigures]:
    earliest = now - dt.timedelta(days=max(KEY_FIGURE_WINDOWS))
    office_message = aliased(InquiryMessage)
    first_reply = (
        select(func.min(office_message.created_at))
        .where(office_message.inquiry_id == Inquiry.id, office_message.author == MessageAuthor.office.value)
        .correlate(Inquiry)
        .scalar_subquery()
    )
    recent = session.execute(
        office.inquiries()
        .where(Inquiry.created_at > earliest, Inquiry.created_at <= now)
        .with_only_columns(Inquiry.created_at, first_reply.label("first_reply"))
    ).all()
    office_inquiry_ids = office.inquiries().with_only_columns(Inquiry.id)
    figures = []
    for days in KEY_FIGURE_WINDOWS:
        since = now - dt.timedelta(days=days)
        in_window = [(c, f if f else None) for c, f in recent if c > since]
        replied = [(f - c).total_seconds() / 3600 for c, f in in_window if f is not None and f <= now]
        replies = session.scalar(
            select(func.count())
            .select_from(InquiryMessage)
            .where(
                InquiryMessage.inquiry_id.in_(office_inquiry_ids),
                InquiryMessage.author == MessageAuthor.office.value,
                InquiryMessage.created_at > since,
                InquiryMessage.created_at <= now,
            )
        )
        published = count_rows(session, office.listings().where(Listing.published_at > since, Listing.published_at <= now))
        figures.append(
            KeyFigures(
                days=days,
                days_label=f"letzte {days} Tage",
                since=since,
                new_inquiries=len(in_window),
                replies_sent=int(replies or 0),
                listings_published=published,
                average_first_response_hours=round(sum(replied) / len(replied), 1)
                if replied
                else Absent(reason=AbsenceReason.empty_in_source, note="Keine im Zeitraum eingegangene Anfrage ist beantwortet."),
                answered_inquiries=len(replied),
                unanswered_excluded=len(in_window) - len(replied),
            )
        )
    return figures


def show_situation_report(args: ShowSituationReportInput, ctx: ToolContext) -> Tally:
    office = ctx.office()
    now = ctx.now()
    limit = args.items_per_section
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        name = _office_name(session, office)
        sections = [
            _inquiry_section(session, office, now, limit),
            _confirmation_section(session, office, now, limit),
            _unpublishable_section(session, office, now, limit),
            _energy_section(session, office, now, limit, args.energy_warning_days),
            _proposal_section(session, office, now, limit),
        ]
        figures = _key_figures(session, office, now)
    total = sum(section.total for section in sections)
    return Tally(
        total=total,
        request=effective_request(args, {"office": name}),
        freshness=Freshness(data_as_of=now, snapshot=snap.freshness.snapshot),
        body={"office": name, "as_of": now, "sections": sections, "key_figures": figures},
        empty_hint=(
            "Im Büro liegt jetzt nichts an: keine offene Anfrage, keine wartende Bestätigung, kein Entwurf mit Mängeln, "
            "kein fälliger Energieausweis, kein offener Vorschlag."
        )
        if total == 0
        else None,
    )


# --- estimate_value ---------------------------------------------------------------------------------------------------


@dataclass
class _Subject:
    """The object to value, read out within the session (rows expire when a read-only session ends)."""

    data: EstimateSubject  # as the result names it
    row_id: int | None  # the office's listing it comes from, left out of its own comparables
    published: bool  # that listing is in the public catalog


def _ask(argument: str, message: str, schema: dict[str, object]) -> InputNeeded:
    return InputNeeded(Question(argument=argument, message=message, schema=schema))


def _subject(session: Session, office: OfficeData, args: EstimateValueInput) -> _Subject:
    if args.listing_id is not None:
        listing = _own_listing(session, office, args.listing_id)
        kind = PropertyType(listing.property_type)
        if kind not in VALUED_TYPES:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"Für {label(kind)} schätzt estimate_value keinen Wert je m² Wohnfläche: bitte ein Objekt mit Wohn- oder "
                "Nutzfläche wählen.",
            )
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
        return _Subject(data, listing.id, listing.status in engine.PUBLIC_STATUSES)
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
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"Für {label(args.property_type)} schätzt estimate_value keinen Wert je m² Wohnfläche: bitte apartment, house "
            "oder commercial angeben.",
        )
    city = args.city
    if city is None and args.postal_code and not args.postal_codes:
        city = session.scalar(select(Place.name).where(Place.postal_code == args.postal_code).order_by(Place.name).limit(1))
        if city is None:
            raise ToolFailure(
                ErrorCode.NOT_FOUND,
                f"Die PLZ {args.postal_code} kennt der Katalog nicht: bitte den Ort mit city angeben.",
            )
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
    return _Subject(data, None, False)


def _value_warnings(args: EstimateValueInput, subject: EstimateSubject, found: ComparableSet) -> list[ResultWarning]:
    warnings: list[ResultWarning] = []
    if "area_tolerance_percent" not in args.model_fields_set:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Toleranz nicht angegeben: der Standard von ±{args.area_tolerance_percent} % Wohnfläche wurde verwendet.",
            )
        )
    if not args.postal_codes:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Vergleichsgebiet nicht angegeben (postal_codes): verwendet wurde der Ort des Objekts, {subject.city}.",
            )
        )
    if found.price_on_request:
        warnings.append(
            ResultWarning(
                code=WarningCode.PRICE_ON_REQUEST_EXCLUDED,
                message=f"{_plural(found.price_on_request, 'sonst passendes Inserat', 'sonst passende Inserate')} mit 'Preis auf "
                "Anfrage' gingen nicht in die Rechnung ein.",
            )
        )
    if found.living_area_unknown:
        warnings.append(
            ResultWarning(
                code=WarningCode.VALUE_UNKNOWN_EXCLUDED,
                message=f"{_plural(found.living_area_unknown, 'Inserat', 'Inserate')} gleicher Art im Gebiet ohne Wohnfläche "
                "gingen nicht in die Rechnung ein.",
            )
        )
    return warnings


def _round_to(value: float, step: float, how: Any) -> float:
    return float(how(value / step) * step)


def _value_suggestions(args: EstimateValueInput, subject: EstimateSubject) -> list[Suggestion]:
    """Next steps from the caller's own input; none of them is searched or counted (rule 10)."""
    suggestions: list[Suggestion] = []
    if args.area_tolerance_percent < 100:
        wider = min(100, args.area_tolerance_percent * 2)
        suggestions.append(
            Suggestion(
                arguments={"area_tolerance_percent": wider},
                reason=f"Wohnfläche ±{wider} % statt ±{args.area_tolerance_percent} % zulassen",
            )
        )
    if args.postal_codes:
        shorter = sorted({code[:2] for code in args.postal_codes})
        if shorter != sorted(args.postal_codes):
            suggestions.append(Suggestion(arguments={"postal_codes": shorter}, reason="ganze PLZ-Region statt engerer PLZ-Bereiche"))
    elif subject.postal_code:
        region = subject.postal_code[:2]
        suggestions.append(
            Suggestion(
                arguments={"postal_codes": [region]},
                reason=f"Vergleichsgebiet PLZ-Region {region}xxx statt nur {subject.city or subject.postal_code}",
            )
        )
    return suggestions


def _confidence(subject: EstimateSubject, found: ComparableSet, spread: float) -> Confidence:
    notes: list[ConfidenceNote] = []
    if found.count < FEW_COMPARABLES:
        notes.append(
            ConfidenceNote(factor=ConfidenceFactor.few_comparables, message=f"Nur {found.count} Vergleichsobjekte (unter {FEW_COMPARABLES}).")
        )
    if spread > WIDE_SPREAD:
        notes.append(
            ConfidenceNote(
                factor=ConfidenceFactor.wide_spread,
                message=f"Weite Streuung: der Interquartilsabstand beträgt {render.number(spread * 100, 0)} % des Medians.",
            )
        )
    seen = found.count + found.price_on_request
    if found.price_on_request and found.price_on_request >= MANY_EXCLUDED * seen:
        notes.append(
            ConfidenceNote(
                factor=ConfidenceFactor.price_on_request_excluded,
                message=f"{found.price_on_request} von {seen} sonst passenden Inseraten haben 'Preis auf Anfrage' und fehlen in der Rechnung.",
            )
        )
    if found.living_area_unknown and found.living_area_unknown >= MANY_EXCLUDED * (found.count + found.living_area_unknown):
        notes.append(
            ConfidenceNote(
                factor=ConfidenceFactor.living_area_unknown_excluded,
                message=f"{found.living_area_unknown} Inserate gleicher Art im Gebiet haben keine Wohnfläche und fehlen in der Rechnung.",
            )
        )
    if subject.rooms is not None and found.rooms:
        typical = statistics.median(found.rooms)
        if abs(subject.rooms - typical) >= ROOMS_DIFFER:
            notes.append(
                ConfidenceNote(
                    factor=ConfidenceFactor.rooms_differ,
                    message=(
                        f"Das Objekt hat {render.number(subject.rooms, 1)} Zimmer, "
                        f"die Vergleichsobjekte im Median {render.number(typical, 1)}."
                    ),
                )
            )
    if subject.year_built is not None and found.years:
        typical_year = statistics.median(found.years)
        if abs(subject.year_built - typical_year) >= YEARS_DIFFER:
            notes.append(
                ConfidenceNote(
                    factor=ConfidenceFactor.year_built_differs,
                    message=f"Baujahr {subject.year_built}, die Vergleichsobjekte im Median {typical_year:.0f}.",
                )
            )
    if spread > VERY_WIDE_SPREAD or len(notes) >= 2:
        return Confidence(level="low", level_label="niedrig", lowered_by=notes)
    if notes:
        return Confidence(level="medium", level_label="mittel", lowered_by=notes)
    return Confidence(level="high", level_label="hoch", lowered_by=notes)


def estimate_value(args: EstimateValueInput, ctx: ToolContext) -> EstimateValueOutput:
    office = ctx.office()
    with ctx.db.read_only() as session:
        snap = engine.snapshot(session)
        found_subject = _subject(session, office, args)
        subject = found_subject.data
        tolerance = args.area_tolerance_percent / 100
        area = (round(subject.living_area * (1 - tolerance), 2), round(subject.living_area * (1 + tolerance), 2))
        found = find_comparables(
            session,
            marketing_type=subject.marketing_type,
            property_type=subject.property_type,
            city=subject.city,
            postal_codes=args.postal_codes,
            area=area,
            exclude_id=found_subject.row_id,
        )
    subject_published = found_subject.published
    rent = subject.marketing_type is MarketingType.rent
    where = f"mit PLZ {', '.join(c + '…' for c in args.postal_codes)}" if args.postal_codes else f"in {subject.city}"
    scope_text = (
        f"veröffentlichte Inserate auf Athaus ({label(subject.marketing_type)}, {label(subject.property_type)}) {where}, "
        f"Wohnfläche {render.number(area[0], 1)} bis {render.number(area[1], 1)} m² (±{args.area_tolerance_percent} %)"
        + (", ohne das Objekt selbst" if subject_published else "")
    )
    method = (
        f"Vergleichswerte aus Angebotspreisen: {scope_text}. Je Inserat Preis ÷ Wohnfläche; die Spanne reicht vom unteren "
        f"bis zum oberen Quartil, die Mitte ist der Median, jeweils × {render.number(subject.living_area, 1)} m². Nicht verwendet: "
        f"{_plural(found.price_on_request, 'Inserat', 'Inserate')} mit 'Preis auf Anfrage', {found.living_area_unknown} ohne Wohnfläche. "
        "Angebotspreise sind keine Verkaufspreise."
    )
    ordered = sorted(
        zip(found.refs, found.living_areas, strict=True), key=lambda pair: (abs(pair[1] - subject.living_area), pair[0])
    )
    shown = [ref for ref, _ in ordered[:COMPARABLES_SHOWN]]
    comparables = ComparablesUsed(total=found.count, **_shown(shown, found.count), listing_ids=shown)
    value_range = None
    hint = None
    suggestions: list[Suggestion] = []
    if found.count >= MIN_COMPARABLES:
        q1, median, q3 = statistics.quantiles(found.price_per_sqm, n=4, method="inclusive")
        step = 10.0 if rent else 1000.0
        value_range = ValueRange(
            low=Money(amount=_round_to(q1 * subject.living_area, step, math.floor)),
            median=Money(amount=_round_to(median * subject.living_area, step, round)),
            high=Money(amount=_round_to(q3 * subject.living_area, step, math.ceil)),
            price_per_sqm_low=round(q1, 2),
            price_per_sqm_median=round(median, 2),
            price_per_sqm_high=round(q3, 2),
            basis="Kaltmiete pro Monat" if rent else "Kaufpreis",
        )
        confidence = _confidence(subject, found, (q3 - q1) / median)
    else:
        confidence = Confidence(
            level="none",
            level_label="keine Schätzung",
            lowered_by=[
                ConfidenceNote(
                    factor=ConfidenceFactor.few_comparables,
                    message=f"Nur {found.count} Vergleichsobjekte; für eine Spanne sind mindestens {MIN_COMPARABLES} nötig.",
                )
            ],
        )
        suggestions = _value_suggestions(args, subject)
        hint = (
            f"Keine Spanne: nur {found.count} Vergleichsobjekte ({scope_text}), mindestens {MIN_COMPARABLES} sind nötig. "
            "Der Server hat Gebiet und Wohnfläche nicht erweitert."
        )
        if suggestions:
            hint += (
                " Die Vorschläge unter suggestions sind aus deiner Eingabe abgeleitet und vom Server weder gesucht noch "
                "gezählt: rufe das Werkzeug damit erneut auf, wenn einer passt."
            )
        else:
            hint += " Ein größeres Vergleichsgebiet lässt sich mit postal_codes angeben."
    return EstimateValueOutput(
        estimable=value_range is not None,
        subject=subject,
        comparison_area=ComparisonArea(
            city=None if args.postal_codes else subject.city,
            postal_codes=args.postal_codes,
            living_area_min=area[0],
            living_area_max=area[1],
            tolerance_percent=args.area_tolerance_percent,
        ),
        value_range=value_range,
        comparables=comparables,
        excluded=Exclusions(
            price_on_request=found.price_on_request,
            living_area_unknown=found.living_area_unknown,
            subject_listing=subject_published,
        ),
        method=method,
        confidence=confidence,
        hint=hint,
        suggestions=suggestions,
        warnings=_value_warnings(args, subject, found),
        freshness=snap.freshness,
    )


HANDLERS: dict[str, Handler] = {
    "show_situation_report": show_situation_report,
    "search_listings": search_listings,
    "get_listing": get_listing,
    "check_listing": check_listing,
    "estimate_value": estimate_value,
}
