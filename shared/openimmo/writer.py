"""An office's stock as an OpenImmo 1.2.7 transfer (VOLL): what the office takes along to another system.

The inverse of `mapping.py` for every field the reader maps, so a transfer written here reads back into the same
listing fields (`tests/test_openimmo_export.py` reads an exported stock with the reader and compares). Fields OpenImmo
has no element for (the Athaus status) travel as `user_defined_simplefield`. Written one object at a time; every value
passes through the XML escaper.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from shared.openimmo.mapping import CERTIFICATE_TYPES, CONDITIONS, SUBTYPE_ATTRIBUTE, SUBTYPES

KIND_ELEMENT = {"apartment": "wohnung", "house": "haus", "land": "grundstueck", "parking": "parken"}
COMMERCIAL_ELEMENT = {"Büro": "buero_praxen", "Ladenlokal": "einzelhandel"}
SUBTYPE_VALUE = {value: key for key, value in reversed(list(SUBTYPES.items()))}
CONDITION_VALUE = {value: key for key, value in reversed(list(CONDITIONS.items()))}
CERTIFICATE_VALUE = {value: key for key, value in CERTIFICATE_TYPES.items()}
FEATURE_ELEMENTS = {
    "balcony": "<balkon>true</balkon>",
    "terrace": "<terrasse>true</terrasse>",
    "garden": "<gartennutzung>true</gartennutzung>",
    "elevator": '<fahrstuhl PERSONEN="true"/>',
    "cellar": '<unterkellert keller="JA"/>',
    "parking_space": '<stellplatzart STELLPLATZ="true"/>',
    "fitted_kitchen": '<kueche EBK="true"/>',
    "barrier_free": "<barrierefrei>true</barrierefrei>",
    "guest_wc": "<gaestewc>true</gaestewc>",
    "fireplace": "<kamin>true</kamin>",
    "underfloor_heating": '<heizungsart FUSSBODEN="true"/>',
    "pets_allowed": "<haustiere>true</haustiere>",
}


def transfer_chunks(office: Any, listings: Iterable[Any], features: dict[int, list[str]], *, now: dt.datetime) -> Iterator[str]:
    """The transfer as text chunks: the header, one `<immobilie>` per listing, the footer."""
    yield (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<openimmo><uebertragung art="OFFLINE" umfang="VOLL" modus="NEW" version="1.2.7" sendersoftware="Athaus" '
        f'techn_email="" timestamp={quoteattr(now.strftime("%Y-%m-%dT%H:%M:%S"))}/>\n'
        f"<anbieter><anbieternr>{office.id}</anbieternr><firma>{escape(office.name)}</firma>"
        f"<openimmo_anid>ATHAUS{office.id:06d}</openimmo_anid>\n"
    )
    for listing in listings:
        yield immobilie(listing, features.get(listing.id, []))
    yield "</anbieter></openimmo>\n"


def immobilie(listing: Any, features: list[str]) -> str:
    key = listing.external_id or listing.ref
    return (
        "<immobilie>"
        + _category(listing)
        + _geo(listing)
        + _prices(listing)
        + _areas(listing)
        + "<ausstattung>" + "".join(FEATURE_ELEMENTS[f] for f in features if f in FEATURE_ELEMENTS) + "</ausstattung>"
        + _condition(listing)
        + f"<freitexte><objekttitel>{escape(listing.title)}</objekttitel>"
        + f"<objektbeschreibung>{escape(listing.description or '')}</objektbeschreibung></freitexte>"
        + _photos(listing)
        + _administration(listing)
        + f"<verwaltung_techn><objektnr_intern>{escape(listing.ref)}</objektnr_intern><objektnr_extern>{escape(key)}</objektnr_extern>"
        + '<aktion/><user_defined_simplefield feldname="athaus_status">' + escape(listing.status) + "</user_defined_simplefield>"
        + "</verwaltung_techn></immobilie>\n"
    )


def _element(name: str, value: object) -> str:
    if value is None or value == "":
        return ""
    if isinstance(value, float):  # at most two decimals: three after a dot would read as a thousands separator
        text = f"{value:.2f}".rstrip("0").rstrip(".")
    elif isinstance(value, dt.date):
        text = value.isoformat()
    else:
        text = str(value)
    return f"<{name}>{escape(text)}</{name}>"


def _category(listing: Any) -> str:
    buy = listing.marketing_type == "buy"
    commercial = listing.property_type == "commercial"
    if commercial:
        kind = f"<{COMMERCIAL_ELEMENT.get(listing.property_subtype or '', 'sonstige')}/>"
    else:
        tag = KIND_ELEMENT[listing.property_type]
        subtype = SUBTYPE_VALUE.get(listing.property_subtype or "") or (listing.property_subtype or "").upper().replace(" ", "_")
        attribute = f" {SUBTYPE_ATTRIBUTE[tag]}={quoteattr(subtype)}" if subtype and tag in SUBTYPE_ATTRIBUTE else ""
        kind = f"<{tag}{attribute}/>"
    return (
        f'<objektkategorie><nutzungsart WOHNEN="{str(not commercial).lower()}" GEWERBE="{str(commercial).lower()}"/>'
        f'<vermarktungsart KAUF="{str(buy).lower()}" MIETE_PACHT="{str(not buy).lower()}"/><objektart>{kind}</objektart></objektkategorie>'
    )


def _geo(listing: Any) -> str:
    # Six decimals: "49.954" would read as ambiguous (a German thousands separator?), "49.954000" cannot.
    coordinates = f'<geokoordinaten breitengrad="{listing.latitude:.6f}" laengengrad="{listing.longitude:.6f}"/>'
    return (
        f"<geo>{_element('plz', listing.postal_code)}{_element('ort', listing.city)}{_element('strasse', listing.street)}"
        f"{_element('hausnummer', listing.house_number)}{_element('bundesland', listing.state)}{coordinates}"
        f"{_element('regionaler_zusatz', listing.district)}{_element('etage', listing.floor)}</geo>"
    )


def _prices(listing: Any) -> str:
    price_name, charges_name = ("kaufpreis", "hausgeld") if listing.marketing_type == "buy" else ("kaltmiete", "nebenkosten")
    if listing.price_on_request:
        price = f'<{price_name} auf_anfrage="true"/>'
    else:
        price = _element(price_name, listing.price)
    return (
        f"<preise>{price}{_element(charges_name, listing.service_charges)}{_element('heizkosten', listing.heating_costs)}"
        f"{_element('kaution_text', listing.deposit)}{_element('aussen_courtage', listing.commission)}</preise>"
    )


def _areas(listing: Any) -> str:
    return (
        f"<flaechen>{_element('wohnflaeche', listing.living_area)}{_element('grundstuecksflaeche', listing.plot_area)}"
        f"{_element('anzahl_zimmer', listing.rooms)}{_element('anzahl_schlafzimmer', listing.bedrooms)}"
        f"{_element('anzahl_badezimmer', listing.bathrooms)}</flaechen>"
    )


def _condition(listing: Any) -> str:
    condition = CONDITION_VALUE.get(listing.condition or "")
    state = f"<zustand zustand_art={quoteattr(condition)}/>" if condition else ""
    if listing.energy_status == "present" and listing.energy_certificate_type in CERTIFICATE_VALUE:
        kind = CERTIFICATE_VALUE[listing.energy_certificate_type]
        value_name = "endenergiebedarf" if kind == "BEDARF" else "energieverbrauchkennwert"
        energy = (
            f"<energiepass><epart>{kind}</epart>{_element('gueltig_bis', listing.energy_valid_until)}"
            f"{_element(value_name, listing.energy_value)}{_element('primaerenergietraeger', listing.energy_carrier)}"
            f"{_element('wertklasse', listing.energy_class)}{_element('baujahr', listing.energy_year_built)}</energiepass>"
        )
    elif listing.energy_status == "at_viewing":
        energy = "<energiepass><epart>BEI_BESICHTIGUNG</epart></energiepass>"
    elif listing.energy_status == "not_required":
        energy = "<energiepass><epart>OHNE</epart></energiepass>"
    else:
        energy = ""
    return f"<zustand_angaben>{_element('baujahr', listing.year_built)}{state}{energy}</zustand_angaben>"


def _photos(listing: Any) -> str:
    attachments = "".join(
        f'<anhang location="EXTERN" gruppe="BILD"><anhangtitel>{escape(photo.get("caption") or "")}</anhangtitel>'
        f'<format>jpg</format><daten><pfad>{escape(photo["url"])}</pfad></daten></anhang>'
        for photo in listing.photos or []
        if isinstance(photo, dict) and photo.get("url")
    )
    return f"<anhaenge>{attachments}</anhaenge>" if attachments else ""


def _administration(listing: Any) -> str:
    available = listing.available_from.isoformat() if listing.available_from else listing.availability_note
    return (
        f"<verwaltung_objekt><objektadresse_freigeben>{str(bool(listing.address_published)).lower()}</objektadresse_freigeben>"
        f"{_element('verfuegbar_ab', available)}</verwaltung_objekt>"
    )
