"""The listing as both servers show it: a row mapped to the contract's summary and exposé, with the reason for
every absent value, and its price in words. The broker's stock view adds to it; it never says anything twice."""

from __future__ import annotations

import datetime as dt
from typing import Any

from contract.catalog import (
    Address,
    Areas,
    Availability,
    Costs,
    EnergyCertificate,
    IncludeFields,
    ListingDetail,
    ListingSummary,
    Money,
    Photo,
    Provider,
)
from contract.envelope import AbsenceReason, Absent, Freshness
from contract.search import LISTING_RESOURCE
from contract.vocabulary import EnergyStatus, Feature, ListingStatus, MarketingType, PropertyType, label, labelled
from shared.db.models import Listing
from shared.german import euro
from shared.wording import PRICE_ON_REQUEST

RESOURCE_URI = LISTING_RESOURCE.uri_template  # the public exposé, for both servers


def no_entry(what: str) -> Absent:
    return Absent(reason=AbsenceReason.empty_in_source, note=f"Der Anbieter nennt {what}.")


def not_requested(include_flag: str) -> Absent:
    return Absent(reason=AbsenceReason.not_collected, note=f"include.{include_flag} = true")


PRICE_WITHHELD = Absent(reason=AbsenceReason.withheld, note=f"{PRICE_ON_REQUEST}: der Anbieter nennt ihn erst auf Anfrage.")
CERTIFICATE_AT_VIEWING = Absent(reason=AbsenceReason.withheld, note="Der Energieausweis liegt zur Besichtigung vor.")
OWN_CERTIFICATE_NOT_ENTERED = Absent(
    reason=AbsenceReason.empty_in_source,
    note="nicht erfasst: im eigenen Inserat steht nur, dass der Energieausweis zur Besichtigung vorliegt.",
)
ADDRESS_WITHHELD = Absent(reason=AbsenceReason.withheld, note="Die genaue Adresse nennt der Anbieter erst auf Anfrage.")


def given(value: object, what: str) -> object:
    return no_entry(what) if value is None or value == "" else value


def price_of(listing: Listing) -> Money | Absent:
    if listing.price is not None:
        return Money(amount=listing.price)
    return PRICE_WITHHELD if listing.price_on_request else no_entry("keinen Preis")


def price_text(listing: Listing) -> str:
    """The price in words: the amount (a rent as Kaltmiete), or why there is none."""
    price = price_of(listing)
    if isinstance(price, Absent):
        return PRICE_ON_REQUEST if price.reason is AbsenceReason.withheld else "ohne Preisangabe"
    return euro(price.amount) + (" Kaltmiete" if listing.marketing_type == MarketingType.rent else "")


PURCHASE_HAS_NO_RENT = "nur bei Miete; ein Kauf hat keine Warmmiete"


def warm_rent_of(listing: Listing) -> Money | Absent:
    """Cold rent + service charges + heating costs, only where every part is known: the rule LISTING_WARM_RENT
    applies in SQL (a test keeps both alike)."""
    if listing.marketing_type != MarketingType.rent:
        # Not a value the provider left out: a purchase has no rent, so no call collects one for it.
        return Absent(reason=AbsenceReason.not_collected, note=PURCHASE_HAS_NO_RENT)
    if listing.price is None and listing.price_on_request:
        return Absent(reason=AbsenceReason.withheld, note=f"Kaltmiete auf Anfrage ({PRICE_ON_REQUEST}), daher keine Warmmiete.")
    parts = (("keine Kaltmiete", listing.price), ("keine Nebenkosten", listing.service_charges), ("keine Heizkosten", listing.heating_costs))
    missing = [what for what, value in parts if value is None]
    if missing:
        return Absent(
            reason=AbsenceReason.empty_in_source,
            note=f"Der Anbieter hat {' und '.join(missing)} angegeben; die Warmmiete gibt es nur mit allen Teilen.",
        )
    return Money(amount=sum(value for _, value in parts))  # type: ignore[misc]


def price_per_sqm(listing: Listing) -> float | Absent:
    price = price_of(listing)
    if isinstance(price, Absent):
        return price
    if not listing.living_area:
        return no_entry("keine Wohnfläche")
    return round(price.amount / listing.living_area, 2)


def _at_viewing(own: bool) -> Absent:
    """A certificate 'at the viewing': withheld from the public; to the office itself its values are not entered."""
    return OWN_CERTIFICATE_NOT_ENTERED if own else CERTIFICATE_AT_VIEWING


def _energy_class(listing: Listing, own: bool = False) -> str | Absent:
    if listing.energy_status == EnergyStatus.at_viewing:
        return _at_viewing(own)
    return given(listing.energy_class, "keine Energieeffizienzklasse")  # type: ignore[return-value]


def _energy_item(listing: Listing, value: object, what: str, own: bool = False) -> object:
    if value is not None:
        return value
    if listing.energy_status == EnergyStatus.at_viewing:
        return _at_viewing(own)
    if listing.energy_status == EnergyStatus.not_required:
        return Absent(reason=AbsenceReason.empty_in_source, note="Für dieses Objekt ist kein Energieausweis erforderlich.")
    return no_entry(what)


def photos_of(listing: Listing) -> list[Photo] | Absent:
    if not listing.photos:  # why, where the import found out (shared/stock_import/pictures.py)
        return Absent(reason=AbsenceReason.empty_in_source, note=listing.photos_note) if listing.photos_note else no_entry("keine Fotos")
    return [Photo(url=p["url"], caption=p.get("caption"), group=p.get("group")) for p in listing.photos]


def features_of(listing: Listing) -> list[Feature]:
    return [Feature(f.feature) for f in listing.features]


def summary(listing: Listing, include: IncludeFields, distance: float | None) -> ListingSummary:
    return ListingSummary(**summary_fields(listing, include, distance))


def summary_fields(listing: Listing, include: IncludeFields, distance: float | None) -> dict[str, Any]:
    """The fields of `summary`, unvalidated: for a model that extends ListingSummary, validated once there."""
    return dict(
        listing_id=listing.ref,
        title=listing.title,
        marketing_type=MarketingType(listing.marketing_type),
        property_type=PropertyType(listing.property_type),
        postal_code=listing.postal_code,
        city=listing.city,
        district=given(listing.district, "keinen Stadtteil"),  # type: ignore[arg-type]
        price=price_of(listing),
        warm_rent=warm_rent_of(listing),
        living_area=given(listing.living_area, "keine Wohnfläche"),  # type: ignore[arg-type]
        plot_area=given(listing.plot_area, "keine Grundstücksfläche"),  # type: ignore[arg-type]
        rooms=given(listing.rooms, "keine Zimmerzahl"),  # type: ignore[arg-type]
        energy_class=_energy_class(listing) if include.energy else not_requested("energy"),
        features=features_of(listing) if include.features else not_requested("features"),
        photos=photos_of(listing) if include.photos else not_requested("photos"),
        description=listing.description if include.description else not_requested("description"),
        provider=listing.office.name,
        distance_km=round(distance, 2)
        if distance is not None
        else Absent(reason=AbsenceReason.not_collected, note="nur bei Umkreissuche"),
    )


def address(listing: Listing, *, exact: bool) -> Address:
    """The exact address, or (not `exact`) street and house number withheld and coordinates rounded to about 1 km."""
    return Address(
        street=given(listing.street, "keine Straße") if exact else ADDRESS_WITHHELD,  # type: ignore[arg-type]
        house_number=given(listing.house_number, "keine Hausnummer") if exact else ADDRESS_WITHHELD,  # type: ignore[arg-type]
        postal_code=listing.postal_code,
        city=listing.city,
        district=given(listing.district, "keinen Stadtteil"),  # type: ignore[arg-type]
        state=listing.state,
        latitude=listing.latitude if exact else round(listing.latitude, 2),
        longitude=listing.longitude if exact else round(listing.longitude, 2),
        coordinates_exact=exact and not listing.coordinates_note,
        coordinates_note=listing.coordinates_note or Absent(
            reason=AbsenceReason.empty_in_source, note="Die Koordinaten sind so angegeben, nicht aus der PLZ abgeleitet."
        ),
    )


def detail(listing: Listing, freshness: Freshness, today: dt.date, *, own: bool = False) -> ListingDetail:
    """The exposé; `own`: read by the listing's office, to which a field it did not fill is not entered, not withheld."""
    return ListingDetail(**detail_fields(listing, freshness, today, own=own))


def detail_fields(listing: Listing, freshness: Freshness, today: dt.date, *, own: bool = False) -> dict[str, Any]:
    """The fields of `detail`, unvalidated: for a model that extends ListingDetail, validated once there."""
    office = listing.office
    rent = listing.marketing_type == MarketingType.rent
    valid_until = listing.energy_valid_until
    return dict(
        listing_id=listing.ref,
        resource_uri=RESOURCE_URI.format(listing_id=listing.ref),
        status=ListingStatus(listing.status),
        title=listing.title,
        description=given(listing.description, "keine Beschreibung"),  # type: ignore[arg-type]
        location_text=given(listing.location_text, "keine Lagebeschreibung"),  # type: ignore[arg-type]
        equipment_text=given(listing.equipment_text, "keine Ausstattungsbeschreibung"),  # type: ignore[arg-type]
        other_text=given(listing.other_text, "keine sonstigen Angaben"),  # type: ignore[arg-type]
        marketing_type=MarketingType(listing.marketing_type),
        property_type=PropertyType(listing.property_type),
        property_subtype=given(listing.property_subtype, "keinen Objekttyp"),  # type: ignore[arg-type]
        address=address(listing, exact=listing.address_published),
        costs=Costs(
            price=price_of(listing),
            price_per_sqm=price_per_sqm(listing),
            service_charges=Money(amount=listing.service_charges)
            if listing.service_charges is not None
            else no_entry("kein Hausgeld" if not rent else "keine Nebenkosten"),
            heating_costs=Money(amount=listing.heating_costs) if listing.heating_costs is not None else no_entry("keine Heizkosten"),
            warm_rent=warm_rent_of(listing),
            deposit=given(listing.deposit, "keine Kaution"),  # type: ignore[arg-type]
            commission=given(listing.commission, "keine Provision"),  # type: ignore[arg-type]
            commission_percent=given(listing.commission_percent, "keinen Provisionssatz"),  # type: ignore[arg-type]
        ),
        areas=Areas(
            living_area=given(listing.living_area, "keine Wohnfläche"),  # type: ignore[arg-type]
            plot_area=given(listing.plot_area, "keine Grundstücksfläche"),  # type: ignore[arg-type]
            rooms=given(listing.rooms, "keine Zimmerzahl"),  # type: ignore[arg-type]
            bedrooms=given(listing.bedrooms, "keine Schlafzimmerzahl"),  # type: ignore[arg-type]
            bathrooms=given(listing.bathrooms, "keine Badezimmerzahl"),  # type: ignore[arg-type]
            floor=given(listing.floor, "keine Etage"),  # type: ignore[arg-type]
        ),
        year_built=given(listing.year_built, "kein Baujahr"),  # type: ignore[arg-type]
        condition=given(listing.condition, "keinen Zustand"),  # type: ignore[arg-type]
        energy=EnergyCertificate(
            **labelled("status", EnergyStatus(listing.energy_status)),
            certificate_type=_energy_item(listing, listing.energy_certificate_type, "keine Ausweisart", own),  # type: ignore[arg-type]
            energy_value=_energy_item(listing, listing.energy_value, "keinen Energiekennwert", own),  # type: ignore[arg-type]
            energy_class=_energy_class(listing, own),
            energy_carrier=_energy_item(listing, listing.energy_carrier, "keinen Energieträger", own),  # type: ignore[arg-type]
            year_built=_energy_item(listing, listing.energy_year_built, "kein Baujahr im Energieausweis", own),  # type: ignore[arg-type]
            valid_until=_energy_item(listing, valid_until, "kein Ablaufdatum des Energieausweises", own),  # type: ignore[arg-type]
            expired=valid_until < today if valid_until is not None else _energy_item(listing, None, "kein Ablaufdatum", own),  # type: ignore[arg-type]
        ),
        features=features_of(listing),
        feature_labels=[label(f) for f in features_of(listing)],
        photos=photos_of(listing),
        provider=Provider(
            name=office.name,
            city=office.city,
            phone=given(office.phone, "keine Telefonnummer"),  # type: ignore[arg-type]
            email=given(office.email, "keine E-Mail-Adresse"),  # type: ignore[arg-type]
            website=given(office.website, "keine Website"),  # type: ignore[arg-type]
        ),
        availability=Availability(
            available_from=given(listing.available_from, "kein Bezugsdatum"),  # type: ignore[arg-type]
            note=given(listing.availability_note, "keinen Hinweis zur Verfügbarkeit"),  # type: ignore[arg-type]
        ),
        published_at=listing.published_at or listing.created_at,
        updated_at=listing.updated_at,
        freshness=freshness,
    )
