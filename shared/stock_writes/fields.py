"""A listing's writable fields: validated against the contract (`contract.broker_writes.ListingFields`), checked for
what only makes sense together, and the listing's state before and after as a JSON-safe dict (for the audit row
and the version conflict)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError
from sqlalchemy.orm import Session

from contract.broker_writes import REQUIRED_ON_CREATE, ListingFields
from contract.errors import ErrorCode, ToolFailure
from contract.labels import label_of
from shared.catalog import places
from shared.db.models import Listing
from shared.runtime.validation import german_message
from shared.write_log import json_safe

WRITABLE: tuple[str, ...] = tuple(ListingFields.model_fields)
FIELD_LABELS: dict[str, str] = {
    **{name: (label_of(info).text or name) if label_of(info) else name for name, info in ListingFields.model_fields.items()},
    "status": "Status",
    "reason": "Grund",  # of a status change (update_listing_status), recorded beside the status
}
TEXT_FIELDS = frozenset({"title", "description", "city", "district", "property_subtype", "features"})
DEFAULTS_ON_CREATE: dict[str, Any] = {
    "description": "",
    "address_published": False,
    "price_on_request": False,
    "energy_status": "missing",
    "photos": [],
    "features": [],
}
NOT_NULL = frozenset({*REQUIRED_ON_CREATE, *DEFAULTS_ON_CREATE, "state", "latitude", "longitude"}) - {"photos", "features"}


def field_labels(names: list[str]) -> list[str]:
    """The German labels of listing fields, in the given order."""
    return [FIELD_LABELS.get(name, name) for name in names]


def named(names: list[str]) -> str:
    """Fields for a sentence that tells the caller what to send: "Preis (price), Titel (title)"."""
    return ", ".join(f"{FIELD_LABELS.get(name, name)} ({name})" for name in names)


def invalid(message: str) -> ToolFailure:
    return ToolFailure(ErrorCode.INVALID_ARGUMENT, message)


def validated(fields: dict[str, Any]) -> dict[str, Any]:
    """The sent fields (and only those), as stored values: enums as their value, photos as dicts, features as a
    sorted list of values. A field that fails is named in German."""
    try:
        model = ListingFields.model_validate(fields)
    except ValidationError as error:
        raise invalid(german_message(error).replace("Das Argument ", "Das Feld ", 1)) from None
    values: dict[str, Any] = {}
    for name in model.model_fields_set:
        value = getattr(model, name)
        if name == "photos":
            value = [p.model_dump() for p in value] if value is not None else None
        elif name == "features":
            value = sorted({f.value for f in value}) if value is not None else None
        elif hasattr(value, "value"):
            value = value.value
        values[name] = value
    return values


def state_of(listing: Listing, features: list[str] | None = None) -> dict[str, Any]:
    """Every writable field of the listing, plus its status, JSON-safe. `features`: the listing's features when the
    caller knows them (a listing just created), so they are not loaded."""
    state = {name: getattr(listing, name) for name in WRITABLE if name != "features"}
    state["features"] = sorted(f.feature for f in listing.features) if features is None else sorted(features)
    state["photos"] = list(listing.photos or [])
    state["status"] = listing.status
    return json_safe(state)


# fields a change always writes from the merged values (derived from the postal code, or tied to each other)
ALWAYS_APPLIED = frozenset({"state", "latitude", "longitude", "coordinates_note", "price", "price_on_request"})


def planned_state(before: dict[str, Any], values: dict[str, Any], sent: set[str] | dict[str, Any]) -> dict[str, Any]:
    """The state a change of a listing in state `before` will leave (as `state_of` will read it after the write),
    without touching the listing: what `save_listing` compares to decide whether anything changes."""
    after = dict(before)
    for name in WRITABLE:
        if name == "features":
            if "features" in sent:
                after["features"] = sorted(values["features"] or [])
        elif name in sent or name in ALWAYS_APPLIED:
            after[name] = values[name]
    after["photos"] = list(after["photos"] or [])
    return json_safe(after)


def merged(session: Session, current: dict[str, Any] | None, sent: dict[str, Any]) -> dict[str, Any]:
    """The listing as it will be: `current` (None: a new listing) with `sent` applied, checked as a whole."""
    creating = current is None
    values = {**(DEFAULTS_ON_CREATE if creating else current), **sent}
    for name in WRITABLE:
        values.setdefault(name, None)
    if creating:
        missing = [name for name in REQUIRED_ON_CREATE if values.get(name) in (None, "")]
        if missing:
            raise invalid(
                f"Zum Anlegen fehlt: {', '.join(missing)}. Bitte in fields mitsenden (Pflicht beim Anlegen: "
                f"{', '.join(REQUIRED_ON_CREATE)})."
            )
    cleared = [name for name in sorted(NOT_NULL) if name in sent and sent[name] is None]
    if cleared:
        raise invalid(f"Diese Felder können nicht geleert werden: {', '.join(cleared)}. Bitte einen Wert senden oder das Feld weglassen.")
    # a price given ends "Preis auf Anfrage" unless that is sent too; "Preis auf Anfrage" clears the price
    if "price" in sent and sent["price"] is not None and "price_on_request" not in sent:
        values["price_on_request"] = False
    if sent.get("price_on_request") is True:
        if sent.get("price") is not None:
            raise invalid("price und price_on_request = true schließen sich aus: bitte nur eines davon senden.")
        values["price"] = None
    _place(values, sent, creating)
    return values


def _place(values: dict[str, Any], sent: dict[str, Any], creating: bool) -> None:
    """State and coordinates from the postal code (every German one, shared.catalog.gazetteer) when not sent: of the
    municipality named by `city` among those the code serves, else of the largest; a code that does not exist needs
    them sent (a brand-new code) or is a typo."""
    if "latitude" in sent and "coordinates_note" not in sent:  # coordinates sent: as exact as the sender says
        values["coordinates_note"] = None
    if not creating and "postal_code" not in sent:
        return
    served = places.places_of_code(values["postal_code"])
    city = places.place_key(str(values.get("city") or ""))
    place = next((p for p in served if places.place_key(p.name) == city), served[0] if served else None)
    needed = [n for n in ("state", "latitude", "longitude") if n not in sent]
    if place is None and needed:
        raise invalid(
            f"Die PLZ {values['postal_code']} (postal_code) gibt es nicht: bitte die PLZ prüfen oder, wenn sie neu ist, "
            f"{', '.join(needed)} mitsenden."
        )
    for name in needed:
        values[name] = getattr(place, name)
    if "latitude" in needed and "coordinates_note" not in sent:
        values["coordinates_note"] = f"Mitte der PLZ {values['postal_code']} ({place.name}): keine Koordinaten angegeben."
