"""What an object lacks or contradicts, said all at once, and what it sends that no listing field holds.

`problems` lists every reason an object cannot become a listing (German, each with its element path), so a broker
corrects the file once, not once per reason. A contradiction (KAUF with a purchase price of 0 beside rent figures)
is named as one. `inferred` reads a marketing type or property kind the file leaves out from what the object's other
data leaves no doubt about; the listing then stays a draft and the result says what was assumed.
`not_imported` names the sections the mapping has no place for, so nothing is dropped in silence.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

TRUE = {"true", "1", "ja", "yes", "j"}
_POSTAL_CODE = re.compile(r"\d{5}")
RENT_FIGURES = ("preise/kaltmiete", "preise/nettokaltmiete", "preise/warmmiete")
# what the mapping reads; anything else carrying data is named as not imported (by its first two path steps)
READ = frozenset({
    "objektkategorie/vermarktungsart", "objektkategorie/objektart", "objektkategorie/nutzungsart",
    "geo/plz", "geo/ort", "geo/strasse", "geo/hausnummer", "geo/bundesland", "geo/regionaler_zusatz", "geo/geokoordinaten",
    "geo/etage", "geo/land",
    "preise/kaufpreis", "preise/kaltmiete", "preise/nettokaltmiete", "preise/warmmiete", "preise/nebenkosten",
    "preise/hausgeld", "preise/heizkosten", "preise/heizkosten_enthalten", "preise/kaution", "preise/kaution_text",
    "preise/aussen_courtage", "preise/provisionspflichtig", "preise/waehrung",
    "flaechen/wohnflaeche", "flaechen/grundstuecksflaeche", "flaechen/anzahl_zimmer", "flaechen/anzahl_schlafzimmer",
    "flaechen/anzahl_badezimmer", "flaechen/anzahl_balkone", "flaechen/anzahl_terrassen", "flaechen/anzahl_stellplaetze",
    "flaechen/anzahl_sep_wc",
    "ausstattung/balkon", "ausstattung/terrasse", "ausstattung/gartennutzung", "ausstattung/fahrstuhl",
    "ausstattung/unterkellert", "ausstattung/stellplatzart", "ausstattung/kueche", "ausstattung/barrierefrei",
    "ausstattung/rollstuhlgerecht", "ausstattung/gaestewc", "ausstattung/kamin", "ausstattung/heizungsart",
    "ausstattung/befeuerung", "ausstattung/haustiere",
    "zustand_angaben/baujahr", "zustand_angaben/zustand", "zustand_angaben/energiepass",
    "zustand_angaben/user_defined_simplefield",
    "freitexte/objekttitel", "freitexte/objektbeschreibung", "freitexte/objekt_text", "freitexte/lage",
    "freitexte/ausstatt_beschr", "freitexte/sonstige_angaben",
    "anhaenge/anhang", "anhang",
    "verwaltung_objekt/objektadresse_freigeben", "verwaltung_objekt/verfuegbar_ab", "verwaltung_objekt/haustiere",
})
# sections that say nothing about the property (how the file was made, who sends it): read elsewhere or not needed
USER_FIELDS = frozenset({"epass_baujahr", "epass_wertklasse"})  # onOffice's certificate fields the mapping reads
TECHNICAL = ("verwaltung_techn", "kontaktperson", "objektkategorie/nutzungsart")
WHY = {
    "kontaktperson": "Ansprechpartner: Athaus nennt die Kontaktdaten des Büros.",
}


def _text(element: Any, path: str) -> str | None:
    found = element.find(path)
    if found is None:
        return None
    text = "".join(found.itertext()).strip()
    return text or None


def _amount(element: Any, path: str) -> float | None:
    text = _text(element, path)
    if text is None:
        return None
    try:
        return float(text.replace(",", ".")) if re.fullmatch(r"-?\d+([.,]\d+)?", text) else None
    except ValueError:
        return None


def _both(element: Any) -> bool:
    found = element.find("objektkategorie/vermarktungsart")
    return found is not None and all((found.get(k) or "").lower() in TRUE for k in ("kauf", "miete_pacht"))


def problems(element: Any, marketing: str | None, kind: ET.Element | None, postal_code: str | None, city: str | None,
             title: str | None, property_types: dict[str, str]) -> list[str]:
    """Every reason the object cannot become a listing, in German with the element's path; [] when it can."""
    found: list[str] = []
    if postal_code is None:
        found.append("‹geo/plz› fehlt.")
    elif not _POSTAL_CODE.fullmatch(postal_code):
        found.append(f"Die Postleitzahl ‹{postal_code}› in ‹geo/plz› ist keine fünfstellige deutsche Postleitzahl.")
    if city is None and (postal_code is None or not _POSTAL_CODE.fullmatch(postal_code)):
        found.append("‹geo/ort› fehlt (und keine Postleitzahl, aus der der Ort folgt).")
    if _both(element):
        found.append("Widerspruch: ‹objektkategorie/vermarktungsart› nennt Kauf und Miete zugleich (KAUF und MIETE_PACHT).")
    elif marketing == "buy" and not _amount(element, "preise/kaufpreis"):
        rent = [(p, v) for p in RENT_FIGURES if (v := _amount(element, p))]
        if rent:
            shown = ", ".join(f"‹{p}› {v:g}" for p, v in rent)
            found.append(f"Widerspruch: ‹objektkategorie/vermarktungsart› sagt Kauf, aber ‹preise/kaufpreis› ist "
                         f"{_text(element, 'preise/kaufpreis') or 'leer'} und {shown} nennt eine Miete.")
    if marketing is None and not _both(element) and inferred_marketing(element) is None:
        found.append("‹objektkategorie/vermarktungsart› fehlt, und die Preise lassen Kauf oder Miete nicht erkennen.")
    if (kind is None or kind.tag not in property_types) and inferred_kind(element) is None:
        found.append("‹objektkategorie/objektart› fehlt, und die Angaben lassen die Objektart nicht erkennen.")
    if found:
        found.append("Bitte im Maklerprogramm ergänzen oder berichtigen und erneut übertragen.")
    return found


def inferred_marketing(element: Any) -> str | None:
    rent = any(_amount(element, p) for p in RENT_FIGURES)
    buy = bool(_amount(element, "preise/kaufpreis"))
    return "rent" if rent and not buy else "buy" if buy and not rent else None


_FLAT = re.compile(r"wohnung", re.IGNORECASE)
_HOUSE = re.compile(r"einfamilienhaus|doppelhaush|reihenhaus|reihenend|reihenmittel|villa|bungalow|mehrfamilienhaus",
                    re.IGNORECASE)


def inferred_kind(element: Any) -> str | None:
    """A flat or a house as the object's title and texts name it (only one of them, and with rooms or a living area)."""
    words = " ".join(filter(None, (_text(element, f"freitexte/{n}") for n in ("objekttitel", "objektbeschreibung", "objekt_text"))))
    if _amount(element, "flaechen/anzahl_zimmer") is None and _amount(element, "flaechen/wohnflaeche") is None:
        return None
    flat, house = bool(_FLAT.search(words)), bool(_HOUSE.search(words))
    return "apartment" if flat and not house else "house" if house and not flat else None


def _carries_data(node: ET.Element) -> bool:
    for inner in node.iter():
        if (inner.text or "").strip() or any(v.strip() and v.strip().lower() not in ("0", "false") for v in inner.attrib.values()):
            return True
    return False


def not_imported(element: ET.Element) -> list[tuple[str, str]]:
    """(path, German why) of every element with data the mapping has no place for, by its first two path steps."""
    found: dict[str, str] = {}
    for section in element:
        if section.tag in TECHNICAL:
            if section.tag in WHY and _carries_data(section):
                found.setdefault(section.tag, WHY[section.tag])
            continue
        children = list(section) or [section]
        for child in children:
            path = section.tag if child is section else f"{section.tag}/{child.tag}"
            if child.tag == "user_defined_simplefield" and (child.get("feldname") or "").strip().lower() not in USER_FIELDS:
                if (child.text or "").strip():
                    found.setdefault(f"{path}[@feldname='{child.get('feldname') or ''}']",
                                     "Ein eigenes Feld des Maklerprogramms, das Athaus nicht kennt.")
                continue
            if path in READ or path in TECHNICAL or not _carries_data(child):
                continue
            found.setdefault(path, "Dafür hat ein Inserat kein Feld; der Wert steht nur in der Übertragung.")
    return sorted(found.items())
