"""The words of a German search line and what each means, as tables (read by shared/catalog/free_text.py).

Keys are normalised and closed ("Gäste-WC" → "gaestewc", see `key`); a phrase is a tuple of keys. Endings of
inflected words ("rollstuhlgerechte", "Balkonen", "günstiges") are tried off when the whole word is not a key.
Every table is complete as written; the reader adds nothing to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared.catalog.text import tokens


def key(typed: str) -> str:
    """'Gäste-WC' → 'gaestewc': the letters and digits of a typed word, normalised, as one key."""
    return "".join(tokens(typed))


@dataclass(frozen=True)
class Kind:
    """A property type a word names; `word` is the subtype kept as a search word (the catalog has no subtype
    filter: "Villa" is a house whose text says Villa); `marketing` when the word says that too (Eigentumswohnung)."""

    property_type: str
    word: str | None = None
    marketing: str | None = None


_FLAT, _HOUSE, _LAND, _COMMERCIAL, _PARKING = "apartment", "house", "land", "commercial", "parking"

PROPERTY_WORDS: dict[str, Kind] = {
    # flats
    "wohnung": Kind(_FLAT), "whg": Kind(_FLAT), "etw": Kind(_FLAT, marketing="buy"),
    "eigentumswohnung": Kind(_FLAT, marketing="buy"), "mietwohnung": Kind(_FLAT, marketing="rent"),
    "apartment": Kind(_FLAT), "appartement": Kind(_FLAT), "apartement": Kind(_FLAT), "appartment": Kind(_FLAT),
    "singlewohnung": Kind(_FLAT), "studentenwohnung": Kind(_FLAT), "stadtwohnung": Kind(_FLAT),
    "penthouse": Kind(_FLAT, "Penthouse"), "penthousewohnung": Kind(_FLAT, "Penthouse"),
    "maisonette": Kind(_FLAT, "Maisonette"), "maisonettewohnung": Kind(_FLAT, "Maisonette"),
    "dachgeschosswohnung": Kind(_FLAT, "Dachgeschoss"), "dgwohnung": Kind(_FLAT, "Dachgeschoss"),
    "dachwohnung": Kind(_FLAT, "Dachgeschoss"),
    "erdgeschosswohnung": Kind(_FLAT, "Erdgeschoss"), "egwohnung": Kind(_FLAT, "Erdgeschoss"),
    "etagenwohnung": Kind(_FLAT, "Etagenwohnung"), "altbauwohnung": Kind(_FLAT, "Altbau"),
    "neubauwohnung": Kind(_FLAT, "Neubau"), "loft": Kind(_FLAT, "Loft"), "souterrainwohnung": Kind(_FLAT, "Souterrain"),
    "gartenwohnung": Kind(_FLAT, "Garten"), "ferienwohnung": Kind(_FLAT, "Ferienwohnung"),
    # houses
    "haus": Kind(_HOUSE), "haeuser": Kind(_HOUSE), "eigenheim": Kind(_HOUSE),
    "einfamilienhaus": Kind(_HOUSE, "Einfamilienhaus"), "efh": Kind(_HOUSE, "Einfamilienhaus"),
    "villa": Kind(_HOUSE, "Villa"), "stadtvilla": Kind(_HOUSE, "Villa"), "bungalow": Kind(_HOUSE, "Bungalow"),
    "reihenhaus": Kind(_HOUSE, "Reihenhaus"), "reihenendhaus": Kind(_HOUSE, "Reihenendhaus"),
    "reihenmittelhaus": Kind(_HOUSE, "Reihenmittelhaus"), "rh": Kind(_HOUSE, "Reihenhaus"),
    "doppelhaus": Kind(_HOUSE, "Doppelhaus"), "doppelhaushaelfte": Kind(_HOUSE, "Doppelhaushälfte"),
    "dhh": Kind(_HOUSE, "Doppelhaushälfte"), "mehrfamilienhaus": Kind(_HOUSE, "Mehrfamilienhaus"),
    "mfh": Kind(_HOUSE, "Mehrfamilienhaus"), "zweifamilienhaus": Kind(_HOUSE, "Zweifamilienhaus"),
    "bauernhaus": Kind(_HOUSE, "Bauernhaus"), "stadthaus": Kind(_HOUSE, "Stadthaus"),
    "ferienhaus": Kind(_HOUSE, "Ferienhaus"), "landhaus": Kind(_HOUSE, "Landhaus"),
    "fachwerkhaus": Kind(_HOUSE, "Fachwerkhaus"), "reihenhaeuser": Kind(_HOUSE, "Reihenhaus"),
    # land
    "grundstueck": Kind(_LAND), "baugrundstueck": Kind(_LAND), "bauland": Kind(_LAND), "bauplatz": Kind(_LAND),
    "grundstuecke": Kind(_LAND),
    # commercial
    "gewerbe": Kind(_COMMERCIAL), "gewerbeimmobilie": Kind(_COMMERCIAL), "gewerbeflaeche": Kind(_COMMERCIAL),
    "buero": Kind(_COMMERCIAL, "Büro*"), "bueros": Kind(_COMMERCIAL, "Büro*"), "bueroflaeche": Kind(_COMMERCIAL, "Büro*"),
    "bueroraum": Kind(_COMMERCIAL, "Büro*"), "bueroraeume": Kind(_COMMERCIAL, "Büro*"),
    "laden": Kind(_COMMERCIAL, "Laden*"), "ladenlokal": Kind(_COMMERCIAL, "Laden*"), "ladenflaeche": Kind(_COMMERCIAL, "Laden*"),
    "geschaeft": Kind(_COMMERCIAL, "Laden*"), "praxis": Kind(_COMMERCIAL, "Praxis*"), "praxisraeume": Kind(_COMMERCIAL, "Praxis*"),
    "lager": Kind(_COMMERCIAL, "Lager*"), "lagerhalle": Kind(_COMMERCIAL, "Lager*"),
    # parking (Stellplatz and Garage are parking alone, a feature beside another type: see FEATURE_OR_PARKING)
    "stellplatz": Kind(_PARKING, "Stellplatz"), "stellplaetze": Kind(_PARKING, "Stellplatz"),
    "parkplatz": Kind(_PARKING, "Stellplatz"), "garage": Kind(_PARKING, "Garage"), "garagen": Kind(_PARKING, "Garage"),
    "tiefgaragenstellplatz": Kind(_PARKING, "Tiefgarage*"), "tgstellplatz": Kind(_PARKING, "Tiefgarage*"),
    "tiefgarage": Kind(_PARKING, "Tiefgarage*"), "duplexstellplatz": Kind(_PARKING, "Duplex*"),
    "carport": Kind(_PARKING, "Carport"),
}
PROPERTY_LABEL = {_FLAT: "Wohnung", _HOUSE: "Haus", _LAND: "Grundstück", _COMMERCIAL: "Gewerbe", _PARKING: "Stellplatz/Garage"}

FEATURE_WORDS: dict[str, str] = {
    "balkon": "balcony", "balkone": "balcony", "suedbalkon": "balcony", "westbalkon": "balcony", "loggia": "balcony",
    "terrasse": "terrace", "dachterrasse": "terrace", "suedterrasse": "terrace",
    "garten": "garden", "gaerten": "garden", "gartenanteil": "garden", "gartennutzung": "garden", "privatgarten": "garden",
    "aufzug": "elevator", "fahrstuhl": "elevator", "lift": "elevator", "personenaufzug": "elevator",
    "keller": "cellar", "kellerraum": "cellar", "kellerabteil": "cellar", "kellerraeume": "cellar",
    "ebk": "fitted_kitchen", "einbaukueche": "fitted_kitchen", "kueche": "fitted_kitchen", "einbaukuechen": "fitted_kitchen",
    "barrierefrei": "barrier_free", "rollstuhlgerecht": "barrier_free", "behindertengerecht": "barrier_free",
    "rollstuhlgeeignet": "barrier_free", "seniorengerecht": "barrier_free", "altersgerecht": "barrier_free",
    "barrierearm": "barrier_free", "stufenlos": "barrier_free", "schwellenlos": "barrier_free",
    "gaestewc": "guest_wc", "gaestetoilette": "guest_wc", "gaestebad": "guest_wc",
    "kamin": "fireplace", "kaminofen": "fireplace", "schwedenofen": "fireplace",
    "fussbodenheizung": "underfloor_heating", "fbh": "underfloor_heating",
    "haustiere": "pets_allowed", "haustier": "pets_allowed", "hund": "pets_allowed", "hunde": "pets_allowed",
    "katze": "pets_allowed", "katzen": "pets_allowed", "tierhaltung": "pets_allowed", "haustierfreundlich": "pets_allowed",
    "hundefreundlich": "pets_allowed", "tiere": "pets_allowed",
}
# A feature whose own word narrows it (a roof terrace is a terrace the text calls so): kept as a search word too.
FEATURE_KEEPS_WORD = {"dachterrasse": "Dachterrasse"}
# Parking words: the parking type alone ("Garage mieten"), a feature beside another type ("Wohnung mit Stellplatz").
FEATURE_OR_PARKING = {"stellplatz", "stellplaetze", "parkplatz", "garage", "garagen", "tiefgarage", "tiefgaragenstellplatz",
                      "tgstellplatz", "carport", "duplexstellplatz"}
PARKING_FEATURE = "parking_space"
FEATURE_LABEL = {
    "balcony": "Balkon", "terrace": "Terrasse", "garden": "Garten", "elevator": "Aufzug", "cellar": "Keller",
    "parking_space": "Stellplatz", "fitted_kitchen": "Einbauküche", "barrier_free": "barrierefrei", "guest_wc": "Gäste-WC",
    "fireplace": "Kamin", "underfloor_heating": "Fußbodenheizung", "pets_allowed": "Haustiere erlaubt",
}

MARKETING_WORDS: dict[str, str] = {
    "kauf": "buy", "kaufen": "buy", "kaufe": "buy", "eigentum": "buy", "erwerb": "buy", "erwerben": "buy",
    "kaufobjekt": "buy", "verkauf": "buy",
    "miete": "rent", "mieten": "rent", "miet": "rent", "vermietung": "rent", "mietobjekt": "rent", "anmieten": "rent",
    "warm": "rent", "kalt": "rent", "warmmiete": "rent", "kaltmiete": "rent",
}
MARKETING_LABEL = {"buy": "Kauf", "rent": "Miete"}

# Phrases read as one (keys of their words), longest first when several start alike.
PHRASES: dict[tuple[str, ...], tuple[str, str]] = {
    ("hund", "erlaubt"): ("feature", "pets_allowed"), ("hunde", "erlaubt"): ("feature", "pets_allowed"),
    ("haustiere", "erlaubt"): ("feature", "pets_allowed"), ("tiere", "erlaubt"): ("feature", "pets_allowed"),
    ("katze", "erlaubt"): ("feature", "pets_allowed"), ("katzen", "erlaubt"): ("feature", "pets_allowed"),
    ("haustiere", "gestattet"): ("feature", "pets_allowed"), ("tierhaltung", "erlaubt"): ("feature", "pets_allowed"),
    ("haustiere", "willkommen"): ("feature", "pets_allowed"), ("hund", "ok"): ("feature", "pets_allowed"),
    ("gaeste", "wc"): ("feature", "guest_wc"), ("kueche", "bad"): ("filler", ""), ("kueche", "diele", "bad"): ("filler", ""),
    ("zur", "miete"): ("marketing", "rent"), ("zu", "mieten"): ("marketing", "rent"),
    ("zum", "kauf"): ("marketing", "buy"), ("zu", "kaufen"): ("marketing", "buy"), ("zum", "kaufen"): ("marketing", "buy"),
    ("ich", "suche"): ("filler", ""), ("wir", "suchen"): ("filler", ""), ("zeig", "mir"): ("filler", ""),
    ("zeige", "mir"): ("filler", ""), ("ab", "sofort"): ("filler", ""),
    # places near: the radius each means (km)
    ("in", "der", "naehe", "von"): ("near", "10"), ("in", "der", "naehe"): ("near", "10"), ("in", "naehe"): ("near", "10"),
    ("naehe",): ("near", "10"), ("nahe",): ("near", "10"), ("bei",): ("near", "10"), ("nahe", "bei"): ("near", "10"),
    ("nah", "bei"): ("near", "10"), ("im", "raum"): ("near", "20"), ("raum",): ("near", "20"), ("grossraum",): ("near", "25"),
    ("im", "grossraum"): ("near", "25"), ("umgebung",): ("near", "20"), ("umgebung", "von"): ("near", "20"),
    ("in", "der", "umgebung", "von"): ("near", "20"), ("und", "umgebung"): ("near", "20"), ("rund", "um"): ("near", "20"),
    ("umland",): ("near", "20"), ("landkreis",): ("near", "25"), ("im", "landkreis"): ("near", "25"), ("kreis",): ("near", "25"), ("im", "umland", "von"): ("near", "20"), ("region",): ("near", "25"),
    ("im", "umkreis", "von"): ("near", "10"), ("umkreis",): ("near", "10"), ("umkreis", "von"): ("near", "10"),
}
# Words before a place that say "in this town" (stop words of the index too: never searched).
CITY_CUES = frozenset({"in", "im", "aus", "ort", "stadt", "innerhalb"})

# Words of a wish the catalog has no filter for: read as an order of the results, or named as not searched.
SORT_WORDS = {
    "guenstig": "price_asc", "billig": "price_asc", "preiswert": "price_asc", "bezahlbar": "price_asc",
    "preisguenstig": "price_asc", "guenstigste": "price_asc", "billigste": "price_asc",
    "gross": "living_area_desc", "geraeumig": "living_area_desc", "groesste": "living_area_desc",
}
SORT_LABEL = {"price_asc": "günstigste zuerst", "living_area_desc": "größte zuerst"}
FILLERS = frozenset(
    """
    ich wir suche suchen gesucht brauche brauchen benoetige hätte haette gerne gern bitte zeige zeig mir uns finde
    finden moechte moechten will wollen alle immobilie immobilien objekt objekte angebot angebote inserat inserate
    sofort verfuegbar etwa ca circa rund ungefaehr plz postleitzahl stadtteil viertel oder erlaubt gestattet
    schoen schoene schoenes toll tolle tolles super traum traumhaft gemuetlich nett nette perfekt ideal neu neue neues
    moeglichst gibt es was welche
    """.split()
)

ENDINGS = ("en", "er", "es", "em", "e", "n", "s")


def lookup(table: dict[str, str] | dict[str, Kind], word_key: str) -> str | None:
    """The key of `table` that `word_key` is, or is with an inflection ending off ('rollstuhlgerechte')."""
    if word_key in table:
        return word_key
    for ending in ENDINGS:
        stem = word_key[: -len(ending)]
        if word_key.endswith(ending) and len(stem) >= 3 and stem in table:
            return stem
    return None


def in_set(words: frozenset[str], word_key: str) -> bool:
    return word_key in words or any(word_key.endswith(e) and word_key[: -len(e)] in words for e in ENDINGS)


# Every word the tables know, for likely spellings of a word no listing contains ("Terrase" → Terrasse).
SPELLED = {
    **{k: k for k in PROPERTY_WORDS if len(k) >= 5},
    **{k: k for k in FEATURE_WORDS if len(k) >= 5},
    **{k: k for k in MARKETING_WORDS if len(k) >= 5},
}
# How a known word is written when a suggestion puts it into the line.
WRITTEN = {
    "terrasse": "Terrasse", "dachterrasse": "Dachterrasse", "balkon": "Balkon", "garten": "Garten", "aufzug": "Aufzug",
    "fahrstuhl": "Fahrstuhl", "keller": "Keller", "einbaukueche": "Einbauküche", "kueche": "Küche",
    "barrierefrei": "barrierefrei", "rollstuhlgerecht": "rollstuhlgerecht", "fussbodenheizung": "Fußbodenheizung",
    "wohnung": "Wohnung", "haus": "Haus", "grundstueck": "Grundstück", "stellplatz": "Stellplatz", "garage": "Garage",
    "kaufen": "kaufen", "mieten": "mieten", "einfamilienhaus": "Einfamilienhaus", "doppelhaushaelfte": "Doppelhaushälfte",
    "reihenhaus": "Reihenhaus", "penthouse": "Penthouse", "maisonette": "Maisonette", "bungalow": "Bungalow",
    "villa": "Villa", "eigentumswohnung": "Eigentumswohnung", "dachgeschosswohnung": "Dachgeschosswohnung",
    "gaestewc": "Gäste-WC", "haustiere": "Haustiere", "loggia": "Loggia", "kamin": "Kamin",
}


def written(word_key: str) -> str:
    return WRITTEN.get(word_key, word_key.replace("ae", "ä").replace("oe", "ö").replace("ue", "ü").capitalize())
