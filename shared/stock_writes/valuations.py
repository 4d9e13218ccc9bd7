"""Storing a valuation of an office: for one of its listings (the listing's data apply) or for an owner lead."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.orm import Session

from contract.errors import ErrorCode, ToolFailure
from shared.db.models import Listing, Valuation
from shared.stock_writes.listings import NOT_IN_STOCK
from shared.write_log import audit, remember, replayed, temporary_ref

DEFAULT_METHOD = "Einschätzung des Büros"
STORED = ("listing_id", "owner_name", "address", "postal_code", "city", "property_type", "marketing_type", "living_area", "value_low", "value_high", "method", "comparables", "note")


# Built once (the values bound at execution): building them with the values was half of the write's statement CPU
_INSERT = insert(Valuation).returning(Valuation.id)
_NUMBER = update(Valuation).where(Valuation.id == bindparam("valuation_id")).values(ref=bindparam("number"))


@dataclass(frozen=True)
class ValuationOutcome:
    valuation: Valuation
    listing: Listing | None
    replayed: bool


def _state(valuation: Valuation, listing_ref: str | None) -> dict[str, Any]:
    state = {name: getattr(valuation, name) for name in STORED if name != "listing_id"}
    return {"listing": listing_ref, **state}


def save_valuation(
    session: Session,
    *,
    office_id: int,
    user_id: int | None,
    client_id: str | None,
    values: dict[str, Any],
    listing_ref: str | None,
    idempotency_key: str | None,
    now: dt.datetime,
) -> ValuationOutcome:
    """Store a new valuation. `values`: value_low, value_high (required), method, comparables (listing refs), note;
    without `listing_ref` also owner_name, address, postal_code, city, property_type, marketing_type, living_area."""
    request = {"listing_ref": listing_ref, "values": values}
    if user_id is not None and (stored := replayed(session, user_id=user_id, operation="save_valuation", key=idempotency_key, request=request, now=now)):
        valuation = session.scalar(select(Valuation).where(Valuation.office_id == office_id, Valuation.ref == stored["valuation_ref"]))
        assert valuation is not None
        listing = session.get(Listing, valuation.listing_id) if valuation.listing_id else None
        return ValuationOutcome(valuation, listing, True)
    listing = None
    subject = {k: values.get(k) for k in ("owner_name", "address", "postal_code", "city", "property_type", "marketing_type", "living_area")}
    if listing_ref is not None:
        listing = session.scalar(select(Listing).where(Listing.office_id == office_id, Listing.ref == listing_ref))
        if listing is None:
            raise ToolFailure(ErrorCode.NOT_FOUND, NOT_IN_STOCK)
        street = " ".join(filter(None, [listing.street, listing.house_number])) or None
        subject = {
            "owner_name": None, "address": street, "postal_code": listing.postal_code, "city": listing.city,
            "property_type": listing.property_type, "marketing_type": listing.marketing_type, "living_area": listing.living_area,
        }
    row = {
        "office_id": office_id,
        "listing_id": listing.id if listing else None,
        **subject,
        "value_low": float(values["value_low"]),
        "value_high": float(values["value_high"]),
        "method": values.get("method") or DEFAULT_METHOD,
        "comparables": list(values.get("comparables") or []),
        "note": values.get("note"),
        "created_by": user_id,
        "created_at": now,
    }
    # Core statements, not the unit of work: the row is written once and never changed in this session, and two
    # flushes of the entity were a quarter of the call's CPU. The number comes from the row id, hence the update.
    connection = session.connection()
    valuation_id = connection.execute(_INSERT, {"ref": temporary_ref(), **row}).scalar_one()
    ref = f"V-{valuation_id:06d}"
    connection.execute(_NUMBER, {"valuation_id": valuation_id, "number": ref})
    valuation = Valuation(id=valuation_id, ref=ref, **row)  # what was stored, to answer with (not added to the session)
    audit(
        session, now=now, user_id=user_id, client_id=client_id, office_id=office_id, action="valuation.save",
        subject_ref=valuation.ref, before=None, after=_state(valuation, listing_ref),
    )
    if user_id is not None:
        remember(session, user_id=user_id, operation="save_valuation", key=idempotency_key, request=request, outcome={"valuation_ref": valuation.ref}, now=now)
    session.flush()
    return ValuationOutcome(valuation, listing, False)
