"""Element and attribute names of an OpenImmo file, normalised once at the parse boundary (data-fidelity rule 13).

Feeds spell the same element differently: `<WohnFlaeche>`, `<oi:wohnflaeche>`, `<wohnfläche>`, `<objektnr-extern>`.
Every name is turned into one canonical spelling as the element arrives, so no code above the reader ever
compares a raw name. Two names of one element (two attributes) or two children of one parent whose raw
spellings differ but normalise to the same name are a collision: the reader refuses them and names both,
because it cannot know which of the two the sender meant.
"""

from __future__ import annotations

import re
from functools import lru_cache

# Spellings seen in feeds besides the schema's own, mapped to the OpenImmo 1.2.7 name. Applied after the
# mechanical steps (namespace and prefix dropped, casefolded, umlauts and ß spelled out, '-' and ' ' → '_').
KNOWN_VARIANTS: dict[str, str] = {
    "objektnrextern": "objektnr_extern",
    "objekt_nr_extern": "objektnr_extern",
    "objektnummer_extern": "objektnr_extern",
    "objektnrintern": "objektnr_intern",
    "objekt_nr_intern": "objektnr_intern",
    "openimmoobid": "openimmo_obid",
    "verwaltungtechn": "verwaltung_techn",
    "verwaltungobjekt": "verwaltung_objekt",
    "zustandangaben": "zustand_angaben",
    "anzahlzimmer": "anzahl_zimmer",
    "zimmeranzahl": "anzahl_zimmer",
    "anzahlschlafzimmer": "anzahl_schlafzimmer",
    "anzahlbadezimmer": "anzahl_badezimmer",
    "anzahlbalkone": "anzahl_balkone",
    "anzahlterrassen": "anzahl_terrassen",
    "anzahlstellplaetze": "anzahl_stellplaetze",
    "grundstueckflaeche": "grundstuecksflaeche",
    "objekt_titel": "objekttitel",
    "objekt_beschreibung": "objektbeschreibung",
    "gueltigbis": "gueltig_bis",
    "verfuegbarab": "verfuegbar_ab",
    "objektadressefreigeben": "objektadresse_freigeben",
    "mietepacht": "miete_pacht",
    "aussencourtage": "aussen_courtage",
    "regionalerzusatz": "regionaler_zusatz",
}

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_SEPARATORS = re.compile(r"[\s\-.]+")


@lru_cache(maxsize=4096)  # a transfer spells a few hundred names, each thousands of times
def normalise_name(raw: str) -> str:
    """The canonical spelling of one element or attribute name: `{ns}WohnFläche` → `wohnflaeche`."""
    name = raw.rsplit("}", 1)[-1]  # a namespace URI as ElementTree spells it
    name = name.rsplit(":", 1)[-1]  # a prefix that reached us unresolved
    name = name.strip().casefold().translate(_UMLAUTS)
    name = _SEPARATORS.sub("_", name).strip("_")
    return KNOWN_VARIANTS.get(name, name)


class NameCollision(ValueError):
    """Two raw names that normalise to the same one; `first` and `second` are the names as the file spells them."""

    def __init__(self, where: str, first: str, second: str, normalised: str) -> None:
        self.where = where
        self.first = first
        self.second = second
        self.normalised = normalised
        super().__init__(f"{where}: {first!r} and {second!r} both mean {normalised!r}")

    def german(self) -> str:
        return (
            f"In ‹{self.where}› stehen ‹{self.first}› und ‹{self.second}›, die beide ‹{self.normalised}› bedeuten; "
            "welcher Wert gilt, ist nicht zu entscheiden."
        )


def local_name(raw: str) -> str:
    """The raw name without namespace URI, as the sender wrote it (for messages)."""
    return raw.rsplit("}", 1)[-1]


def normalise_attributes(where: str, attrib: dict[str, str]) -> dict[str, str]:
    """The attributes under their canonical names; raises NameCollision when two spellings meet."""
    result: dict[str, str] = {}
    raw_of: dict[str, str] = {}
    for raw, value in attrib.items():
        name = normalise_name(raw)
        if name in result:
            raise NameCollision(where, local_name(raw_of[name]), local_name(raw), name)
        result[name] = value
        raw_of[name] = raw
    return result
