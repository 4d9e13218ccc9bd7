"""An imported object's town, district and coordinates, resolved through the gazetteer (shared.catalog.places).

CRMs write `<ort>` as town and district together ("Aachen / Brand", "Mainz / Lerchenberg") or as the district alone
("Heidingsfeld, Heidingsfeld" for 97084 Würzburg). The town a city search looks for is the municipality the postal
code serves that `<ort>` names, or whose district it names; with one municipality for the code, that one. Whatever
differs from `<ort>` as written is said as an assumption. Coordinates far from the postal code's centre (CRMs send
placeholders such as 50.12345 / 6.12345) are replaced by that centre, and coordinates taken from the postal code are
said so.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

from shared.catalog import places
from shared.catalog.gazetteer import Municipality
from shared.german import decimal, number
from shared.openimmo import ParsedObject

KINDS = {"apartment": "Wohnung", "house": "Haus", "land": "Grundstück", "commercial": "Gewerbeobjekt", "parking": "Stellplatz"}
MARKETING = {"buy": "zum Kauf", "rent": "zur Miete"}
FAR_KM = 30.0  # farther from the postal code's centre than any German postal code area reaches
_PARTS = re.compile(r"\s*/\s*|\s*,\s*|\s+-\s+|\s*\(\s*|\s*\)\s*")


def _km(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2
    return 6371.0 * 2 * math.asin(math.sqrt(min(1.0, a)))


def _town_and_district(served: list[Municipality], written: str | None) -> tuple[Municipality | None, str | None]:
    parts = list(dict.fromkeys(p for p in _PARTS.split(written or "") if p.strip()))
    keys = {places.place_key(m.name): m for m in served}
    gazetteer = places.gazetteer()
    for at, part in enumerate(parts):  # a part names the municipality: the rest is its district
        town = keys.get(places.place_key(part))
        if town is not None:
            rest = [p for i, p in enumerate(parts) if i != at and places.place_key(p) != places.place_key(town.name)]
            return town, (rest[0] if rest else None)
    for part in parts:  # a part names a district of a municipality the code serves
        for district in gazetteer.districts_by_key.get(places.place_key(part), []):
            if district.municipality in served:
                return district.municipality, district.name
    if len(served) == 1:  # the code serves one municipality: <ort> is a part of it
        return served[0], (parts[0] if parts else None)
    return None, None


@lru_cache(maxsize=4096)  # a feed names few places, each many times
def _resolved(code: str, written: str | None) -> tuple[Municipality | None, str | None, tuple[str, ...], tuple[float, float] | None]:
    """Town, district, the names of the municipalities the code serves, and the code's centre (None: no such code)."""
    served = places.places_of_code(code)
    if not served:
        return None, None, (), None
    town, district = _town_and_district(served, written)
    centre = places.resolve_postal_code(code, "geo/plz")
    return town, district, tuple(m.name for m in served), (centre.latitude, centre.longitude)


def place_object(obj: ParsedObject) -> ParsedObject:
    """Town, district and coordinates of an object about to be written, with what was assumed."""
    f = obj.fields
    code = f.get("postal_code")
    if obj.refusal is not None or not code:
        return obj
    written = obj.place_as_sent
    town, district, served, centre = _resolved(code, written)
    if centre is None:
        return obj  # save_listing names a postal code that does not exist
    if town is not None:
        f["city"] = town.name
        if not f.get("district") and district and places.place_key(district) != places.place_key(town.name):
            f["district"] = district[:100]
        if written is None:
            obj.assumptions.append(("city", f"‹geo/ort› fehlt; Ort {town.name} aus der Postleitzahl {code}."))
        elif places.place_key(written) != places.place_key(town.name):
            shown = f", Ortsteil {f['district']}" if f.get("district") else ""
            obj.assumptions.append(("city", f"‹geo/ort› ‹{written}› gelesen als Ort {town.name}{shown} "
                                    f"(Postleitzahl {code})."))
    elif written is not None:
        obj.assumptions.append(("city", f"‹geo/ort› ‹{written}› ist keiner der Orte der Postleitzahl {code} "
                                f"({', '.join(served[:3])}); übernommen wie geschrieben."))
    if not f.get("title") and f.get("city"):
        kind = f.get("property_subtype") or KINDS.get(f.get("property_type") or "", "Objekt")
        f["title"] = f"{kind} {MARKETING.get(f.get('marketing_type') or '', '')} in {f['city']}".replace("  ", " ")[:300]
        obj.assumptions.append(("title", f"‹freitexte/objekttitel› fehlt; vorläufiger Titel ‹{f['title']}›, bitte ersetzen."))
    lat, lon = f.get("latitude"), f.get("longitude")
    if lat is None or lon is None:  # save_listing takes the postal code's centre and notes it on the listing
        obj.assumptions.append(("latitude", f"Keine Koordinaten in ‹geo/geokoordinaten›: die Mitte der Postleitzahl {code} "
                                "(ungefähr)."))
        return obj
    distance = _km(lat, lon, *centre)
    if distance > FAR_KM:
        note = (f"Die Koordinaten {decimal(lat)}, {decimal(lon)} liegen {number(distance, 0)} km von der Postleitzahl "
                f"{code} entfernt (ein Platzhalter?); ersetzt durch die Mitte der Postleitzahl (ungefähr).")
        f["latitude"] = f["longitude"] = None
        f["coordinates_note"] = note[:300]
        obj.assumptions.append(("latitude", note))
    return obj
