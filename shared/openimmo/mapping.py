"""One `<immobilie>` (names already normalised by the reader) → the fields of a catalog listing.

Structure is confirmed before it is read (data-fidelity rule 6): an object without `objektnr_extern`, without
a marketing type, a property type, postal code, place or title is refused with the element that is missing,
never stored with a silent gap. Numbers go through `numbers.parse_number` (rule 14): what is no number is
excluded and declared per field, with the raw value and the reason.
"""

from __future__ import annotations

import datetime as dt
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from contract.vocabulary import Feature
from shared.openimmo.numbers import Excluded, parse_coordinate, parse_number
from shared.openimmo.reader import RawObject
from shared.openimmo.checks import inferred_kind, inferred_marketing, not_imported, problems
from shared.openimmo.texts import plain


@dataclass(frozen=True)
class ExcludedValue:
    field: str  # the listing field, e.g. "living_area"
    element: str  # where the value stood, e.g. "flaechen/wohnflaeche"
    raw: str
    reason: Excluded


@dataclass
class ParsedObject:
    position: int
    key: str | None  # objektnr_extern
    action: str  # "new", "change" or "delete"
    fields: dict[str, Any] = field(default_factory=dict)
    features: list[str] = field(default_factory=list)
    excluded: list[ExcludedValue] = field(default_factory=list)
    refusal: str | None = None  # German: why the object cannot be imported
    provider: str | None = None  # openimmo_anid (or anbieternr) of the object's <anbieter>
    assumptions: list[tuple[str, str]] = field(default_factory=list)  # (listing field, German: what was assumed)
    not_imported: list[tuple[str, str]] = field(default_factory=list)  # (element path, German: why it has no place)
    draft_only: list[str] = field(default_factory=list)  # German: what a portal needs and the object lacks (stays a draft)
    place_as_sent: str | None = None  # <ort> as written, resolved through the gazetteer by the import
    files: list[dict[str, str]] = field(default_factory=list)  # photos named by a path in the transfer: url, caption, group, where


TRUE = {"true", "1", "ja", "yes", "j"}
FALSE = {"false", "0", "nein", "no", "n"}

# (listing field, element path, whole number)
NUMBERS_COMMON: tuple[tuple[str, str, bool], ...] = (
    ("living_area", "flaechen/wohnflaeche", False),
    ("plot_area", "flaechen/grundstuecksflaeche", False),
    ("rooms", "flaechen/anzahl_zimmer", False),
    ("bedrooms", "flaechen/anzahl_schlafzimmer", True),
    ("bathrooms", "flaechen/anzahl_badezimmer", True),
    ("floor", "geo/etage", True),
    ("year_built", "zustand_angaben/baujahr", True),
    ("heating_costs", "preise/heizkosten", False),
)
SIGNED = frozenset({"floor"})  # a basement (Souterrain) flat is on floor -1
PRICE_ELEMENT = {"buy": "preise/kaufpreis", "rent": "preise/kaltmiete"}
RENT_FALLBACK = "preise/nettokaltmiete"
CHARGES_ELEMENT = {"buy": "preise/hausgeld", "rent": "preise/nebenkosten"}

PROPERTY_TYPES = {
    "wohnung": "apartment", "zimmer": "apartment", "haus": "house", "grundstueck": "land", "parken": "parking",
    "buero_praxen": "commercial", "einzelhandel": "commercial", "gastgewerbe": "commercial",
    "hallen_lager_prod": "commercial", "land_und_forstwirtschaft": "commercial", "freizeitimmobilie_gewerblich": "commercial",
    "zinshaus_renditeobjekt": "commercial", "sonstige": "commercial",
}
SUBTYPE_ATTRIBUTE = {"wohnung": "wohnungtyp", "haus": "haustyp", "grundstueck": "grundst_typ", "parken": "parken_typ"}
SUBTYPES = {
    "ETAGE": "Etagenwohnung", "DACHGESCHOSS": "Dachgeschosswohnung", "ERDGESCHOSS": "Erdgeschosswohnung",
    "MAISONETTE": "Maisonette", "PENTHOUSE": "Penthouse", "EINFAMILIENHAUS": "Einfamilienhaus",
    "DOPPELHAUSHAELFTE": "Doppelhaushälfte", "REIHENHAUS": "Reihenhaus", "REIHENEND": "Reihenhaus",
    "REIHENMITTEL": "Reihenhaus", "VILLA": "Villa", "MEHRFAMILIENHAUS": "Mehrfamilienhaus", "BUNGALOW": "Bungalow",
    "WOHNEN": "Baugrundstück", "TIEFGARAGE": "Tiefgaragenstellplatz", "TIEFGARAGENSTELLPLATZ": "Tiefgaragenstellplatz",
    "GARAGE": "Garage", "EINZELGARAGE": "Garage", "DOPPELGARAGE": "Garage",
}
COMMERCIAL_SUBTYPES = {"buero_praxen": "Büro", "einzelhandel": "Ladenlokal"}
CONDITIONS = {
    "ERSTBEZUG": "Erstbezug", "NEUWERTIG": "neuwertig", "GEPFLEGT": "gepflegt", "MODERNISIERT": "modernisiert",
    "VOLL_SANIERT": "saniert", "SANIERT": "saniert", "TEIL_SANIERT": "teilsaniert", "RENOVIERT": "renoviert",
    "RENOVIERUNGSBEDUERFTIG": "renovierungsbedürftig", "TEIL_VOLLRENOVIERUNGSBED": "renovierungsbedürftig",
}
CONDITIONS.update({
    "TEIL_VOLLSANIERT": "teil-/vollsaniert", "TEIL_VOLLRENOVIERT": "teil-/vollrenoviert", "TEIL_RENOVIERT": "teilrenoviert",
    "SANIERUNGSBEDUERFTIG": "sanierungsbedürftig", "BAUFAELLIG": "baufällig", "NACH_VEREINBARUNG": "nach Vereinbarung",
    "ROHBAU": "Rohbau", "ENTKERNT": "entkernt", "ABRISSOBJEKT": "Abrissobjekt", "PROJEKTIERT": "projektiert",
})
SUBTYPES.update({
    "LOFT-STUDIO-ATELIER": "Loft/Studio/Atelier", "TERRASSEN": "Terrassenwohnung", "SOUTERRAIN": "Souterrainwohnung",
    "APARTMENT": "Apartment", "FERIENWOHNUNG": "Ferienwohnung", "GALERIE": "Galeriewohnung", "ROHDACHBODEN": "Rohdachboden",
    "ATTIKAWOHNUNG": "Attikawohnung", "REIHENECK": "Reiheneckhaus", "STADTHAUS": "Stadthaus", "RESTHOF": "Resthof",
    "BAUERNHAUS": "Bauernhaus", "LANDHAUS": "Landhaus", "SCHLOSS": "Schloss", "ZWEIFAMILIENHAUS": "Zweifamilienhaus",
    "FERIENHAUS": "Ferienhaus", "BERGHUETTE": "Berghütte", "CHALET": "Chalet", "STRANDHAUS": "Strandhaus",
    "LAUBE-DATSCHE-GARTENHAUS": "Gartenhaus", "APARTMENTHAUS": "Apartmenthaus", "BURG": "Burg", "HERRENHAUS": "Herrenhaus",
    "FINCA": "Finca", "FERTIGHAUS": "Fertighaus", "CARPORT": "Carport", "DUPLEX": "Duplex-Stellplatz",
    "STELLPLATZ": "Stellplatz", "AUSSENSTELLPLATZ": "Außenstellplatz", "PARKHAUS": "Parkhaus",
    "GEWERBE": "Gewerbegrundstück", "LAND_FORSTWIRSCHAFT": "Land-/Forstwirtschaft", "FREIZEIT": "Freizeitgrundstück",
})
NO_SUBTYPE = {"KEINE_ANGABE"}
# primaerenergietraeger (and befeuerung) as feeds write them (OpenImmo 1.2.7 codes) → German
ENERGY_CARRIERS = {
    "OEL": "Öl", "GAS": "Gas", "ERDGAS_LEICHT": "Erdgas", "ERDGAS_SCHWER": "Erdgas", "FLUESSIGGAS": "Flüssiggas",
    "ELEKTRO": "Strom", "STROM": "Strom", "STROM_MIX": "Strom", "FERNWAERME": "Fernwärme", "FERNWAERME_DAMPF": "Fernwärme",
    "NAHWAERME": "Nahwärme", "BLOCK": "Blockheizkraftwerk", "KWK_FOSSIL": "Kraft-Wärme-Kopplung (fossil)",
    "KWK_ERNEUERBAR": "Kraft-Wärme-Kopplung (erneuerbar)", "KWK_REGENERATIV": "Kraft-Wärme-Kopplung (erneuerbar)",
    "KWK_BIO": "Kraft-Wärme-Kopplung (Biomasse)", "WAERMEPUMPE": "Wärmepumpe", "LUFTWP": "Luft-Wärmepumpe",
    "ERDWAERME": "Erdwärme", "SOLAR": "Solarthermie", "PELLET": "Holzpellets", "HOLZ": "Holz",
    "HOLZ_HACKSCHNITZEL": "Holzhackschnitzel", "STUECKHOLZ": "Stückholz", "KOHLE": "Kohle", "BRAUNKOHLE": "Braunkohle",
    "STEINKOHLE": "Steinkohle", "KOKS": "Koks", "ALTERNATIV": "alternative Energieträger", "BIOENERGIE": "Bioenergie",
    "WIND": "Windenergie", "WASSER": "Wasserkraft", "UMWELTWAERME": "Umweltwärme", "BIOGAS": "Biogas", "BIOOEL": "Bioöl",
    "BIOMASSE": "Biomasse",
}
COMMISSION_FREE = "provisionsfrei (provisionspflichtig: nein)"
COMMISSION_DUE = "provisionspflichtig, Höhe nicht angegeben"
CERTIFICATE_TYPES = {"BEDARF": "demand", "VERBRAUCH": "consumption"}
ENERGY_STATUS_WORDS = {"BEI_BESICHTIGUNG": "at_viewing", "OHNE": "not_required", "NICHT_NOETIG": "not_required"}
_PERCENT = re.compile(r"^\s*(\d{1,2}(?:[,.]\d{1,2})?)\s*%")
_GERMAN_DATE = re.compile(r"^(\d{1,2})\.(\d{1,2})\.(\d{4})$")
_POSTAL_CODE = re.compile(r"\d{5}")


class _Indexed(dict):  # type: ignore[type-arg]
    """An object read with its path index: `find("geo/plz")` is one dict lookup (the first in document order, as
    `Element.find` returns it); iterfind walks the element."""

    __slots__ = ("element",)
    find = dict.get

    def __init__(self, element: ET.Element, paths: dict[str, ET.Element]) -> None:
        super().__init__(paths or _paths_of(element))
        self.element = element

    def iterfind(self, path: str) -> Any:
        return self.element.iterfind(path)


def _paths_of(element: ET.Element) -> dict[str, ET.Element]:
    paths: dict[str, ET.Element] = {}
    todo = [(child, child.tag) for child in element]
    while todo:
        node, path = todo.pop(0)
        paths.setdefault(path, node)
        todo[0:0] = [(child, f"{path}/{child.tag}") for child in node]
    return paths


def map_object(raw: RawObject) -> ParsedObject:
    element: Any = _Indexed(raw.element, raw.paths)
    key = _text(element, "verwaltung_techn/objektnr_extern")
    action = _action(element)
    result = ParsedObject(position=raw.position, key=key, action=action, provider=raw.provider)
    if raw.collision is not None:
        result.refusal = raw.collision.german()
        return result
    if key is None:
        result.refusal = " ".join([
            "Das Objekt hat keine ‹verwaltung_techn/objektnr_extern›; ohne sie ist es keinem Objekt im Bestand zuzuordnen.",
            *(_problems_of(element) if action != "delete" else ["Bitte im Maklerprogramm ergänzen und erneut übertragen."]),
        ]).replace(" Bitte im Maklerprogramm ergänzen oder berichtigen", " Bitte im Maklerprogramm ergänzen")
        return result
    if action == "delete":
        return result
    _fill(element, result)
    return result


def _fill(element: ET.Element, result: ParsedObject) -> None:
    marketing = _marketing(element)
    kind = element.find("objektkategorie/objektart")
    kind_child = next(iter(kind), None) if kind is not None else None
    postal_code = _text(element, "geo/plz")
    city = _text(element, "geo/ort")
    title = plain(_text(element, "freitexte/objekttitel"))
    problems = _problems(element, marketing, kind_child, postal_code, city, title)
    if problems:
        result.refusal = " ".join(problems)
        return
    assert postal_code is not None
    f = result.fields
    if marketing is None or kind_child is None or kind_child.tag not in PROPERTY_TYPES:
        marketing, property_type = _inferred(element, marketing, kind_child, result)
        f["property_subtype"] = None
    else:
        property_type = PROPERTY_TYPES[kind_child.tag]
        f["property_subtype"] = _subtype(kind_child)
    f["marketing_type"] = marketing
    f["property_type"] = property_type
    f["title"] = title[:300] if title else None  # none: the import names one from kind and town (placing)
    if title is None:
        result.draft_only.append("Titel (‹freitexte/objekttitel›)")
    _texts(element, result)
    f["postal_code"] = postal_code
    f["city"] = city
    result.place_as_sent = city
    f["district"] = _text(element, "geo/regionaler_zusatz")
    f["street"] = _text(element, "geo/strasse")
    f["house_number"] = _text(element, "geo/hausnummer")
    f["state"] = _text(element, "geo/bundesland")
    f["address_published"] = _flag(element, "verwaltung_objekt/objektadresse_freigeben")
    coordinates = element.find("geo/geokoordinaten")
    f["latitude"] = f["longitude"] = None
    if coordinates is not None:
        for name, attribute in (("latitude", "breitengrad"), ("longitude", "laengengrad")):
            value = coordinates.get(attribute)
            parsed = parse_coordinate(value) if value is not None else None
            if parsed is not None and parsed.value is None and parsed.reason is not None:
                result.excluded.append(ExcludedValue(name, f"geo/geokoordinaten@{attribute}", value or "", parsed.reason))
            f[name] = parsed.value if parsed is not None else None
        if f["latitude"] is None or f["longitude"] is None:  # half a point joined to the postal code's is no place
            f["latitude"] = f["longitude"] = None
    for name, path, whole in NUMBERS_COMMON:
        f[name] = _number(element, path, name, result, whole=whole, signed=name in SIGNED)
    _prices(element, marketing, result)
    f["condition"] = _condition(element)
    _energy(element, result)
    _availability(element, result)
    f["photos"] = _photos(element, result)
    f["photos_note"] = None if f["photos"] or result.files else NO_PHOTOS_SENT
    result.features = _features(element)
    result.not_imported += not_imported(element.element)
    if (_attribute(element, "ausstattung/unterkellert", "keller") or "").upper() == "TEIL":
        result.assumptions.append(("features", "‹ausstattung/unterkellert keller=\"TEIL\"›: teilweise unterkellert, als Keller übernommen."))


def _problems(element: Any, marketing: str | None, kind: ET.Element | None, postal_code: str | None, city: str | None,
              title: str | None) -> list[str]:
    return problems(element, marketing, kind, postal_code, city, title, PROPERTY_TYPES)


def _problems_of(element: Any) -> list[str]:
    """Every problem of an object (or the closing request alone, when it has none besides its key)."""
    kind = element.find("objektkategorie/objektart")
    found = _problems(element, _marketing(element), next(iter(kind), None) if kind is not None else None,
                      _text(element, "geo/plz"), _text(element, "geo/ort"), _text(element, "freitexte/objekttitel"))
    return found or ["Bitte im Maklerprogramm ergänzen oder berichtigen und erneut übertragen."]


KIND_WORDS = {"apartment": "Wohnung", "house": "Haus"}
MARKETING_WORDS = {"buy": "Kauf", "rent": "Miete"}


def _inferred(element: Any, marketing: str | None, kind: ET.Element | None, result: ParsedObject) -> tuple[str, str]:
    """Marketing type and property kind where the file leaves one out (checks.problems made sure they can be read):
    said as assumptions, and the listing stays a draft until the broker confirms them."""
    if marketing is None:
        marketing = inferred_marketing(element)
        assert marketing is not None
        result.assumptions.append(("marketing_type", f"‹objektkategorie/vermarktungsart› fehlt; angenommen "
                                   f"{MARKETING_WORDS[marketing]}, weil nur {'Mietpreise' if marketing == 'rent' else 'ein Kaufpreis'} angegeben "
                                   "ist."))
        result.draft_only.append(f"Vermarktungsart ({MARKETING_WORDS[marketing]} angenommen)")
    if kind is not None and kind.tag in PROPERTY_TYPES:
        return marketing, PROPERTY_TYPES[kind.tag]
    property_type = inferred_kind(element)
    assert property_type is not None
    result.assumptions.append(("property_type", f"‹objektkategorie/objektart› fehlt; angenommen {KIND_WORDS[property_type]}, "
                               "wie Titel und Beschreibung das Objekt nennen."))
    result.draft_only.append(f"Objektart ({KIND_WORDS[property_type]} angenommen)")
    return marketing, property_type


TEXTS = (("location_text", "freitexte/lage"), ("equipment_text", "freitexte/ausstatt_beschr"),
         ("other_text", "freitexte/sonstige_angaben"))


def _texts(element: Any, result: ParsedObject) -> None:
    """Each free text in its own field, as plain text; objekt_text is the description where objektbeschreibung is
    missing, and follows it where both are sent."""
    f = result.fields
    described = plain(_text(element, "freitexte/objektbeschreibung"))
    other = plain(_text(element, "freitexte/objekt_text"))
    f["description"] = "\n\n".join(filter(None, (described, other)))[:20000]
    for name, path in TEXTS:
        text = plain(_text(element, path))
        f[name] = text[:5000] if text else None
    if _text(element, "freitexte/dreizeiler"):
        result.not_imported.append(("freitexte/dreizeiler", "Kurztext: ein Inserat hat dafür kein Feld."))


def _prices(element: ET.Element, marketing: str, result: ParsedObject) -> None:
    f = result.fields
    path = PRICE_ELEMENT[marketing]
    if marketing == "rent" and element.find(path) is None:
        path = RENT_FALLBACK
    price_element = element.find(path)
    on_request = price_element is not None and (price_element.get("auf_anfrage") or "").lower() in TRUE
    f["price"] = None if on_request else _number(element, path, "price", result)
    if not on_request and result.excluded and result.excluded[-1].field == "price":
        on_request = result.excluded[-1].reason is Excluded.on_request
    if f["price"] == 0:  # a price of 0 is no price (CRMs write it for "not entered")
        f["price"] = None
        result.assumptions.append(("price", f"‹{path}› ist 0; das ist kein Preis, gespeichert ist keiner."))
    f["price_on_request"] = on_request
    f["service_charges"] = _number(element, CHARGES_ELEMENT[marketing], "service_charges", result)
    if marketing == "rent":
        _heating(element, result)
    f["deposit"] = _short(_text(element, "preise/kaution_text") or _text(element, "preise/kaution"), 100)
    commission = _text(element, "preise/aussen_courtage")
    f["commission"] = _short(commission, 200)
    match = _PERCENT.match(commission or "")
    f["commission_percent"] = float(match.group(1).replace(",", ".")) if match else None
    due = _text(element, "preise/provisionspflichtig")
    if commission is None and due is not None:  # no amount, but whether the buyer or tenant pays one
        if due.lower() in TRUE:
            f["commission"] = COMMISSION_DUE
        elif due.lower() in FALSE:
            f["commission"], f["commission_percent"] = COMMISSION_FREE, 0.0


def _heating(element: Any, result: ParsedObject) -> None:
    """Heating included in the service charges (`heizkosten_enthalten`) counts as 0 € of its own, so the warm rent is
    cold rent + service charges; a warm rent sent without heating costs gives them as the difference. Both said."""
    f = result.fields
    if _flag(element, "preise/heizkosten_enthalten"):
        if f.get("heating_costs"):
            result.assumptions.append(("heating_costs", f"‹preise/heizkosten› {f['heating_costs']:g} € sind laut "
                                       "‹preise/heizkosten_enthalten› in den Nebenkosten enthalten; nicht doppelt gezählt."))
        f["heating_costs"] = 0.0
        result.assumptions.append(("warm_rent", "Heizkosten in den Nebenkosten enthalten (‹preise/heizkosten_enthalten›): "
                                   "Warmmiete = Kaltmiete + Nebenkosten, abgeleitet."))
        return
    warm = _number(element, "preise/warmmiete", "warm_rent", result)
    if warm and f.get("heating_costs") is None and f.get("price") and f.get("service_charges") is not None:
        rest = round(warm - f["price"] - f["service_charges"], 2)
        if rest >= 0:
            f["heating_costs"] = rest
            result.assumptions.append(("heating_costs", f"Heizkosten {rest:g} € abgeleitet aus ‹preise/warmmiete› "
                                       f"{warm:g} € − Kaltmiete − Nebenkosten."))


USER_FIELDS = {"epass_baujahr": "energy_year_built", "epass_wertklasse": "energy_class"}  # as checks.USER_FIELDS names them


def _user_fields(element: Any) -> dict[str, str]:
    """onOffice's own certificate fields (`user_defined_simplefield feldname="epass_*"`), by listing field."""
    found: dict[str, str] = {}
    for section in ("zustand_angaben", "ausstattung", "freitexte"):
        node = element.find(section)
        for user in node.findall("user_defined_simplefield") if node is not None else ():
            name = USER_FIELDS.get((user.get("feldname") or "").strip().lower())
            if name and (user.text or "").strip():
                found.setdefault(name, user.text.strip())
    return found


def _firing(element: Any) -> str | None:
    """The heating fuel of `<befeuerung GAS="1"/>`: its codes as German words."""
    found = element.find("ausstattung/befeuerung")
    if found is None:
        return None
    codes = [key.upper() for key, value in found.attrib.items() if value.strip().lower() in TRUE]
    words = list(dict.fromkeys(ENERGY_CARRIERS.get(code.replace("-", "_"), code.title()) for code in codes))
    return ", ".join(words)[:40] or None


def _energy(element: ET.Element, result: ParsedObject) -> None:
    f = result.fields
    certificate = element.find("zustand_angaben/energiepass")
    for name in ("energy_certificate_type", "energy_value", "energy_class", "energy_carrier", "energy_year_built",
                 "energy_valid_until"):
        f[name] = None
    user = _user_fields(element)
    if certificate is None:
        f["energy_status"] = "missing"
        f["energy_carrier"] = _firing(element)
        return
    kind = (_text(certificate, "epart") or "").upper()
    vintage = (_text(certificate, "jahrgang") or "").upper()
    if kind in CERTIFICATE_TYPES:
        f["energy_status"] = "present"
        f["energy_certificate_type"] = CERTIFICATE_TYPES[kind]
        value_path = "endenergiebedarf" if kind == "BEDARF" else "energieverbrauchkennwert"
        f["energy_value"] = _number(certificate, value_path, "energy_value", result, prefix="zustand_angaben/energiepass/")
        f["energy_class"] = _short(_text(certificate, "wertklasse"), 3)
        f["energy_carrier"] = _carrier(_text(certificate, "primaerenergietraeger")) or _firing(element)
        f["energy_year_built"] = _number(certificate, "baujahr", "energy_year_built", result, whole=True,
                                         prefix="zustand_angaben/energiepass/")
        year = user.get("energy_year_built", "")
        if f["energy_year_built"] is None and year.isdigit() and 1000 <= int(year) <= 2100:
            f["energy_year_built"] = int(year)
        if f["energy_class"] is None and "energy_class" in user:
            f["energy_class"] = _short(user["energy_class"].upper(), 3)
        f["energy_valid_until"] = _date(certificate, "gueltig_bis", "energy_valid_until", result,
                                        prefix="zustand_angaben/energiepass/")
    else:
        f["energy_status"] = ENERGY_STATUS_WORDS.get(kind) or ENERGY_STATUS_WORDS.get(vintage) or "missing"


def _availability(element: ET.Element, result: ParsedObject) -> None:
    text = _text(element, "verwaltung_objekt/verfuegbar_ab")
    result.fields["available_from"] = None
    result.fields["availability_note"] = None
    if text is None:
        return
    day = _parse_date(text)
    if day is not None:
        result.fields["available_from"] = day
    else:
        result.fields["availability_note"] = _short(text, 100)


def _features(element: ET.Element) -> list[str]:
    a = "ausstattung/"
    found: set[str] = set()
    checks = {
        Feature.balcony: _count(element, "flaechen/anzahl_balkone") or _flag(element, a + "balkon"),
        Feature.terrace: _count(element, "flaechen/anzahl_terrassen") or _flag(element, a + "terrasse"),
        Feature.garden: _flag(element, a + "gartennutzung"),
        Feature.elevator: _any_attribute(element, a + "fahrstuhl") or _flag(element, a + "fahrstuhl"),
        Feature.cellar: (_attribute(element, a + "unterkellert", "keller") or "").upper() in ("JA", "TEIL"),
        Feature.parking_space: _any_attribute(element, a + "stellplatzart") or _count(element, "flaechen/anzahl_stellplaetze"),
        Feature.fitted_kitchen: (_attribute(element, a + "kueche", "ebk") or "").lower() in TRUE,
        Feature.barrier_free: _flag(element, a + "barrierefrei") or _flag(element, a + "rollstuhlgerecht"),
        Feature.guest_wc: _flag(element, a + "gaestewc") or _count(element, "flaechen/anzahl_sep_wc"),
        Feature.fireplace: _flag(element, a + "kamin"),
        Feature.underfloor_heating: (_attribute(element, a + "heizungsart", "fussboden") or "").lower() in TRUE,
        Feature.pets_allowed: _flag(element, a + "haustiere") or _flag(element, "verwaltung_objekt/haustiere"),
    }
    found = {feature.value for feature, present in checks.items() if present}
    return sorted(found)


NO_PHOTOS_SENT = "Der Anbieter hat keine Fotos geschickt."
GROUPS = {"TITELBILD": "title", "BILD": "photo", "INNENANSICHTEN": "photo", "AUSSENANSICHTEN": "photo", "GRUNDRISS": "floor_plan"}
IMAGE_ENDINGS = (".jpg", ".jpeg", ".png", ".webp")


def _photos(element: Any, result: ParsedObject) -> list[dict[str, str]]:
    """Photos and floor plans: those at public URLs as links, title photo first; files named by a path in the
    transfer (a CRM's ZIP export) go to `result.files`, for the import to store. Other attachments (documents, links)
    are named as not imported."""
    photos = []
    attachments = [a for found in element.element.findall("anhaenge") for a in found.findall("anhang")]
    loose = len(attachments)
    attachments += element.element.findall("anhang")  # some exporters put <anhang> straight under <immobilie>
    others: dict[str, list[str]] = {}
    for at, attachment in enumerate(attachments):
        where = "anhaenge/anhang" if at < loose else "anhang"
        path = _text_of(_first(attachment, "daten", "pfad")) or ""
        raw_group = (attachment.get("gruppe") or "").strip().upper()
        group = GROUPS.get(raw_group) or ("photo" if not raw_group and path.lower().split("?")[0].endswith(IMAGE_ENDINGS) else None)
        if group is None or not path:
            others.setdefault(where, []).append(raw_group or path or "ohne Pfad")
            continue
        photo = {"url": path, "caption": plain(_text(attachment, "anhangtitel")) or "", "group": group}
        if path.startswith(("https://", "http://")) and (attachment.get("location") or "").strip().upper() == "REMOTE":
            result.files.append({**photo, "where": where, "remote": "yes"})  # to fetch into the store (shared/stock_import/pictures.py)
        elif path.startswith(("https://", "http://")):
            photos.append(photo)
        else:
            result.files.append({**photo, "where": where})
    for where, names in others.items():
        result.not_imported.append((where, f"{len(names)} Anhänge, die weder Foto noch Grundriss sind ({', '.join(names[:3])}): "
                                    "ein Inserat zeigt nur Fotos und Grundrisse."))
    return sorted(photos, key=lambda p: p["group"] != "title")


def _first(element: ET.Element, child: str, grandchild: str) -> ET.Element | None:
    """`element.find("child/grandchild")` (the first in document order) with the C finder, not ElementPath."""
    for found in element.findall(child):
        inner = found.find(grandchild)
        if inner is not None:
            return inner
    return None


# --- small readers ------------------------------------------------------------------------------------------


def _text(element: ET.Element, path: str) -> str | None:
    """The element's text, stripped; None when empty. The reader keeps texts as parsed: text after a child element
    (a `<br/>` in a description) is the element's too."""
    return _text_of(element.find(path))


def _text_of(found: ET.Element | None) -> str | None:
    if found is None:
        return None
    text = found.text
    if len(found):
        text = (text or "") + "".join(child.tail or "" for child in found)
    return (text.strip() or None) if text else None


def _short(text: str | None, limit: int) -> str | None:
    return text[:limit] if text else None


def _flag(element: ET.Element, path: str) -> bool:
    found = element.find(path)
    return found is not None and (_text_of(found) or "").lower() in TRUE


def _attribute(element: ET.Element, path: str, name: str) -> str | None:
    found = element.find(path)
    return found.get(name) if found is not None else None


def _any_attribute(element: ET.Element, path: str) -> bool:
    found = element.find(path)
    return found is not None and any(value.lower() in TRUE for value in found.attrib.values())


def _count(element: ET.Element, path: str) -> bool:
    found = element.find(path)
    if found is None:
        return False
    text = _text_of(found)
    parsed = parse_number(text) if text else None
    return parsed is not None and parsed.value is not None and parsed.value > 0


def _number(element: ET.Element, path: str, name: str, result: ParsedObject, *, whole: bool = False,
            prefix: str = "", signed: bool = False) -> float | int | None:
    text = _text(element, path)
    if text is None:
        return None
    parsed = parse_number(text, whole=whole, signed=signed)
    if parsed.value is None:
        assert parsed.reason is not None
        result.excluded.append(ExcludedValue(name, prefix + path, text, parsed.reason))
        return None
    return int(parsed.value) if whole else parsed.value


def _parse_date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text[:10])
    except ValueError:
        pass
    match = _GERMAN_DATE.match(text)
    if match:
        try:
            return dt.date(int(match.group(3)), int(match.group(2)), int(match.group(1)))
        except ValueError:
            return None
    return None


def _date(element: ET.Element, path: str, name: str, result: ParsedObject, *, prefix: str = "") -> dt.date | None:
    text = _text(element, path)
    if text is None:
        return None
    day = _parse_date(text)
    if day is None:
        result.excluded.append(ExcludedValue(name, prefix + path, text, Excluded.not_a_date))
    return day


def _action(element: ET.Element) -> str:
    action = element.find("verwaltung_techn/aktion")
    kind = (action.get("aktionart") or "").strip().upper() if action is not None else ""
    return {"CHANGE": "change", "DELETE": "delete"}.get(kind, "new")


def _marketing(element: ET.Element) -> str | None:
    found = element.find("objektkategorie/vermarktungsart")
    if found is None:
        return None
    buy = (found.get("kauf") or "").lower() in TRUE
    rent = (found.get("miete_pacht") or "").lower() in TRUE
    return "buy" if buy and not rent else "rent" if rent and not buy else None


def _carrier(text: str | None) -> str | None:
    """The energy carrier in German: an OpenImmo code ("GAS", "FERNWAERME") as its word, free text as written."""
    if text is None:
        return None
    code = text.strip().upper().replace("-", "_").replace(" ", "_")
    return ENERGY_CARRIERS.get(code) or _short(text.strip(), 40)


def _subtype(kind: ET.Element) -> str | None:
    if kind.tag in COMMERCIAL_SUBTYPES:
        return COMMERCIAL_SUBTYPES[kind.tag]
    value = (kind.get(SUBTYPE_ATTRIBUTE.get(kind.tag, "")) or "").strip().upper()
    if not value or value in NO_SUBTYPE:
        return None
    return SUBTYPES.get(value) or value.replace("_", " ").replace("-", "/").title()[:40]


def _condition(element: ET.Element) -> str | None:
    value = (_attribute(element, "zustand_angaben/zustand", "zustand_art") or "").strip().upper()
    if not value or value in NO_SUBTYPE:
        return None
    return CONDITIONS.get(value) or value.lower().replace("_", " ")[:40]
