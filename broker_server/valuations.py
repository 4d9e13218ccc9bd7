"""Handler of list_valuations: the office's stored valuations, newest first, in one walk."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import ColumnElement, and_
from sqlalchemy.orm import Session

from broker_server.lists import freshness, office_key, office_scope, removal, request_of
from broker_server.lookups import member_names, own_listing_id
from contract.broker_writes import SaveValuationInput, SaveValuationOutput
from contract.broker_inquiries import ListValuationsInput, ValuationSummary
from contract.catalog import Money
from contract.envelope import AbsenceReason, Absent, Page
from contract.vocabulary import MarketingType, PropertyType, ValuationSubject
from shared import german
from shared.db.models import Listing, Valuation
from shared.paging.walk import ordered, walk
from shared.runtime.context import ToolContext
from shared.runtime.definition import Handler
from shared.stock_writes import save_valuation
from shared.write_log import in_one_transaction


def valuation_summary(valuation: Valuation, listing_ref: str | None, listing_title: str | None, creator: str | None) -> ValuationSummary:
    def given(value: Any, note: str) -> Any:
        return value if value not in (None, "") else Absent(reason=AbsenceReason.empty_in_source, note=note)

    area = valuation.living_area
    per_sqm = (
        (round(valuation.value_low / area, 2), round(valuation.value_high / area, 2))
        if area
        else (Absent(reason=AbsenceReason.empty_in_source, note="Ohne Wohnfläche kein Preis pro m²."),) * 2
    )
    if valuation.listing_id is None:
        listing_id: str | Absent = Absent(reason=AbsenceReason.empty_in_source, note="Bewertung für einen Eigentümer-Kontakt, nicht für ein Objekt.")
        title: str | Absent = listing_id
    elif listing_ref is None:
        listing_id = title = Absent(reason=AbsenceReason.withheld, note="Das bewertete Objekt gehört nicht zum Bestand deines Büros.")
    else:
        listing_id, title = listing_ref, listing_title or ""
    return ValuationSummary(
        valuation_id=valuation.ref,
        created_at=valuation.created_at,
        subject=ValuationSubject.owner_lead if valuation.listing_id is None else ValuationSubject.listing,
        listing_id=listing_id,
        listing_title=title,
        owner_name=given(valuation.owner_name, "Kein Eigentümername gespeichert."),
        address=given(valuation.address, "Keine Anschrift gespeichert."),
        postal_code=valuation.postal_code,
        city=valuation.city,
        property_type=PropertyType(valuation.property_type),
        marketing_type=MarketingType(valuation.marketing_type),
        living_area=given(area, "Keine Wohnfläche gespeichert."),
        value_low=Money(amount=valuation.value_low),
        value_high=Money(amount=valuation.value_high),
        price_per_sqm_low=per_sqm[0],
        price_per_sqm_high=per_sqm[1],
        method=valuation.method,
        comparables_count=len(valuation.comparables or []),
        note=given(valuation.note, "Keine Notiz."),
        created_by=creator or Absent(reason=AbsenceReason.empty_in_source, note="Nicht gespeichert, wer bewertet hat."),
    )


def list_valuations(args: ListValuationsInput, ctx: ToolContext) -> Page[ValuationSummary]:
    office = ctx.office()
    with ctx.db.read_only() as session:
        conditions: list[ColumnElement[bool]] = []
        if args.listing_id:
            conditions.append(Valuation.listing_id == own_listing_id(session, office, args.listing_id))

        def refs_at(as_of: dt.datetime) -> list[str]:
            statement = office.valuations().with_only_columns(Valuation.ref).where(*conditions, Valuation.created_at <= as_of)
            return list(session.scalars(statement.order_by(Valuation.created_at.desc(), Valuation.ref.desc())))

        page = walk(ctx, "list_valuations", office_key(office), args, refs_at)
        rows = session.execute(
            office.valuations()
            .outerjoin(Listing, and_(Listing.id == Valuation.listing_id, Listing.office_id == office.office_id))
            .add_columns(Listing.ref, Listing.title)
            .where(Valuation.ref.in_(page.page))
        ).all()
        names = member_names(session, office, {valuation.created_by for valuation, _, _ in rows})
        by_ref = {v.ref: valuation_summary(v, ref, title, names.get(v.created_by or 0)) for v, ref, title in rows}
        scope = office_scope(session, office)
        fresh = freshness(page, "bewertungen")
    empty = page.total == 0
    return Page(
        items=ordered(by_ref, page.page),
        total=page.total,
        request=request_of(args, page, {}, scope),
        sort_key="created_at desc, valuation_id desc",
        sort_key_label="neueste zuerst",
        freshness=fresh,
        next_cursor=page.next_cursor,
        suggestions=[removal("listing_id", "Bewertungen aller Objekte und Eigentümer-Kontakte")] if empty and args.listing_id else [],
        empty_hint=(
            ("Für dieses Objekt ist keine Bewertung gespeichert." if args.listing_id else "Dein Büro hat keine Bewertung gespeichert.")
            + " Eine neue Schätzung macht estimate_value."
        )
        if empty
        else None,
    )


def save_valuation_tool(args: SaveValuationInput, ctx: ToolContext) -> SaveValuationOutput:
    office = ctx.office()
    caller = ctx.caller
    assert caller is not None
    now = ctx.now()
    values = args.model_dump(mode="json", exclude={"listing_id", "request_id"}, exclude_none=True)

    def write(session: Session) -> SaveValuationOutput:
        outcome = save_valuation(
            session, office_id=office.office_id, user_id=caller.user_id, client_id=caller.client_id, values=values,
            listing_ref=args.listing_id, idempotency_key=args.request_id, now=now,
        )
        valuation, listing = outcome.valuation, outcome.listing
        creator = member_names(session, office, {valuation.created_by}).get(valuation.created_by or 0)
        summary = valuation_summary(valuation, listing.ref if listing else None, listing.title if listing else None, creator)
        subject = f"{listing.ref}" if listing else f"den Eigentümer-Kontakt in {valuation.postal_code} {valuation.city}"
        sentence = (
            f"Bewertung {valuation.ref} für {subject} gespeichert: {german.euro(valuation.value_low)} bis "
            f"{german.euro(valuation.value_high)}; list_valuations zeigt sie."
        )
        if outcome.replayed:
            sentence = "Wiederholung (request_id): nichts doppelt gespeichert. " + sentence
        return SaveValuationOutput(**dict(summary), replayed=outcome.replayed, summary=sentence)

    return in_one_transaction(ctx.db, write)


HANDLERS: dict[str, Handler] = {"list_valuations": list_valuations, "save_valuation": save_valuation_tool}
