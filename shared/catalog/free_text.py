"""One line as a person types it ("2-3 Zimmer Wohnung Balkon Würzburg"), read as catalog filters plus full-text words.

The connector tools `search` take a single string (ChatGPT's shape), while the catalog takes filters. The reader
reads the line as people who know German listings mean it, from tables (shared/catalog/line_words.py) and one
pattern for quantities (shared/catalog/line_numbers.py):

- a listing number (A-0000042) or an inquiry number (I-000042) names one record;
- rooms, living area, price, warm and cold rent and radius, with every German bound and range ("2-3 Zimmer",
  "zwischen 500 und 800 €", "max. 250 Tsd.", "ab 70 m²", "800 € warm", "im Umkreis von 30 km um Kassel");
  "3 Zimmer" is 3 to 3,5 rooms, and the reading says so;
- five digits are a postal code ("04155 oder 04157"; "79100 Freiburg" is the code with its town);
- marketing words, property types and subtypes (a subtype stays a search word: the catalog has no subtype
  filter), features by their everyday names ("EBK", "Fahrstuhl", "Hund erlaubt", "rollstuhlgerecht");
- a place: a run of words that names a town ("Frankfurt am Main", "Halle (Saale)"), a district and its town
  ("Leipzig-Gohlis": the town, the district kept as a word), near a place ("bei", "nahe", "im Raum", "20 km");
  a name several towns share is not chosen: it is named with its candidates (`ambiguous`);
- what is left is searched as words; a number left over, or a second place, is named as not understood (`unclear`).

Every part of the line is accounted for in `parts` (German). Pure: the caller passes the place lookup, and may later
mark words that no listing contains as likely misspellings (`Reading.misspelt`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from shared.catalog import line_words as W
from shared.catalog.line_numbers import MONEY_WITHOUT_UNIT, Quantity, quantities
from shared.catalog.places import (
    Namesakes,
    PlaceMatch,
    candidate_names,
    classify_place,
    district_of_town,
    km_apart,
    names_municipality,
    places_of_code,
    spelt_alike,
)
from shared.catalog.reading import Ambiguous, Reading, Token, Unclear
from shared.catalog.text import STOP_WORDS
from shared.german import decimal, number

LISTING_REF = re.compile(r"^A-\d{7}$", re.IGNORECASE)
INQUIRY_REF = re.compile(r"^I-\d{6,}$", re.IGNORECASE)
_POSTAL_CODE = re.compile(r"(?<![\d.,])(?:D-)?(\d{5})(?![\d.,])")
_BARRIER = re.compile(r"[,;|!?&]|\s[-–+]\s|\s\+|\bplz\b\.?:?", re.IGNORECASE)
_HOLE = "\x01"  # a consumed quantity or postal code, as one token that keeps its place in the line
MAX_PLACE_WORDS = 5
TOWN = 10_000  # residents from which a bare word (no "in", "bei" before it) is read as a place
RENT_BELOW = 5_000  # an amount of money under this is a rent; from BUY_FROM a purchase price
BUY_FROM = 30_000
# Words that are small towns too: a place only after "in", "bei" and the like.
COMMON_WORDS = frozenset({"lage", "hof", "haar", "lauf", "senden", "weiden", "linden", "wald", "berg", "bad", "mitte", "halle"})
SMALL_PLACE = 5_000  # a place this small, spelt nearly like a far larger town, is named with the town as likely meant
LARGER_ALIKE = 20
NEIGHBOURS_KM = 30  # "Kasel, Trier": a village this near a town is itself meant; farther off, the name is the town's district
ADJECTIVE_GUARD = 100_000  # a town smaller than this after an inflected adjective ("ruhiger Lage") is the noun
CONNECTIVES = frozenset("ab bis unter max maximal mind mindestens min hoechstens ueber von um zwischen ca circa etwa und".split())

PlaceOf = Callable[[str], "PlaceMatch | Namesakes | None"]


def _residents(name: str) -> int:
    found = classify_place(name)
    return found.residents if isinstance(found, PlaceMatch) else 0


def _rooms_text(low: float | None, high: float | None) -> str:
    if low is not None and high is not None and low == high:
        return f"{decimal(low)} Zimmer"
    if low is not None and high is not None:
        return f"{decimal(low)} bis {decimal(high)} Zimmer"
    return f"ab {decimal(low)} Zimmer" if low is not None else f"bis {decimal(high or 0)} Zimmer"


def _span(low: float | None, high: float | None, unit: str) -> str:
    if low is not None and high is not None:
        return f"{number(low)} bis {number(high)} {unit}" if low != high else f"{number(low)} {unit}"
    return f"ab {number(low or 0)} {unit}" if low is not None else f"bis {number(high or 0)} {unit}"


class _Reader:
    def __init__(self, line: str, place_of: PlaceOf) -> None:
        self.line = line
        self.place_of = place_of
        self.reading = Reading()
        self.holes: list[Quantity | str] = []
        self.tokens: list[Token] = []
        self.radius: Quantity | None = None
        self.money: list[Quantity] = []
        self.subtypes: list[str] = []
        self.types: list[str] = []
        self.parking: list[Token] = []
        self.deferred: list[tuple[list[Token], PlaceMatch, Token | None, str]] = []

    # --- numbers -----------------------------------------------------------------------------------------------
    def cut(self) -> str:
        """The line with each quantity and postal code replaced by a hole token."""
        text = self.line
        spans: list[tuple[int, int, Quantity | str]] = [(q.start, q.end, q) for q in quantities(text)]
        for match in _POSTAL_CODE.finditer(text):
            if not any(s < match.end() and match.start() < e for s, e, _ in spans):
                spans.append((match.start(), match.end(), match.group(1)))
        out, at = [], 0
        for start, end, item in sorted(spans, key=lambda s: s[0]):
            out.append(text[at:start])
            out.append(f" {_HOLE}{len(self.holes)}{_HOLE} ")
            self.holes.append(item)
            at = end
        out.append(text[at:])
        return "".join(out)

    def quantity(self, q: Quantity) -> None:
        filters = self.reading.filters
        if q.kind == "rooms":
            low, high = q.low, q.high
            said = ""
            if q.how == "bare" and low is not None and low % 1 == 0:
                high = low + 0.5
                said = f" („{decimal(low)} Zimmer“ schließt {decimal(high)} ein)"
            if low is not None:
                filters["min_rooms"] = low
            if high is not None:
                filters["max_rooms"] = high
            self.reading.parts.append(_rooms_text(low, high) + said)
        elif q.kind == "area":
            low = q.low
            high = None if q.how == "bare" else q.high
            filters.update({k: v for k, v in (("min_living_area", low), ("max_living_area", high)) if v is not None})
            self.reading.parts.append(f"Wohnfläche {_span(low, high, 'm²')}")
        elif q.kind == "money":
            self.money.append(q)
            return  # after the words: "warm" or "Miete" may stand elsewhere in the line
        elif q.kind == "radius":
            if self.radius is not None:
                self.reading.unclear.append(Unclear(q.typed, "zweiter Umkreis"))
                return
            self.radius = q
            return
        self.reading.pieces.append(q.typed)

    def settle_money(self, warm_word: bool, rent_word: bool) -> None:
        filters = self.reading.filters
        for q in self.money:
            high = q.high
            low = None if q.how == "bare" else q.low
            warm = q.money == "warm" or (warm_word and q.money is None)
            prefix = "min_warm_rent" if warm else "min_price"
            if low is not None:
                filters[prefix] = low
            if high is not None:
                filters[prefix.replace("min", "max")] = high
            amounts = [v for v in (low, high) if v is not None]
            label = "Warmmiete" if warm else "Kaltmiete" if q.money == "cold" else "Kaufpreis" if q.money == "buy" else "Preis"
            said = " (Zahl ohne € als Betrag gelesen)" if q.unitless else ""
            self.reading.parts.append(f"{label} {_span(low, high, '€')}{said}")
            self.reading.pieces.append(q.typed)
            marketing = "rent" if warm or q.money in {"cold", "rent"} or rent_word else "buy" if q.money == "buy" else None
            why = ""
            if marketing is None and amounts and max(amounts) < RENT_BELOW:
                marketing, why = "rent", " (nach dem Betrag)"
            elif marketing is None and amounts and min(amounts) >= BUY_FROM:
                marketing, why = "buy", " (nach dem Betrag)"
            if marketing and "marketing_type" not in filters:
                filters["marketing_type"] = marketing
                self.reading.parts.append(f"Vermarktung {W.MARKETING_LABEL[marketing]}{why}")

    # --- words -------------------------------------------------------------------------------------------------
    def tokenise(self, text: str) -> None:
        for segment, part in enumerate(_BARRIER.split(text.replace("/", " "))):
            for typed in part.split():
                hole = re.fullmatch(rf"{_HOLE}(\d+){_HOLE}", typed)
                if hole:
                    self.tokens.append(Token(typed, "", segment, role="hole", hole=int(hole.group(1))))
                    continue
                stripped = typed.strip("\"'„“”‚‘’:").removeprefix("-")
                if stripped.endswith(".") and not re.search(r"\.\w", stripped) and len(stripped) > 4:
                    stripped = stripped[:-1]
                if W.key(stripped):
                    self.tokens.append(Token(stripped, W.key(stripped), segment))

    def phrases(self) -> None:
        longest = max(len(p) for p in W.PHRASES)
        i = 0
        while i < len(self.tokens):
            for width in range(longest, 0, -1):
                run = self.tokens[i : i + width]
                if len(run) < width or any(t.role or t.segment != run[0].segment for t in run):
                    continue
                meaning = W.PHRASES.get(tuple(t.key for t in run))
                if meaning is None:
                    continue
                kind, value = meaning
                for t in run:
                    t.role = kind
                    t.cue = value if kind == "near" else None
                    t.phrase = " ".join(x.typed for x in run)
                if kind == "feature":
                    self.feature(value, " ".join(t.typed for t in run))
                elif kind == "marketing":
                    self.marketing(value, " ".join(t.typed for t in run))
                i += width - 1
                break
            i += 1

    def feature(self, feature: str, typed: str) -> None:
        self.reading.named.append(typed)
        features = self.reading.filters.setdefault("features", [])
        if feature not in features:
            features.append(feature)
            self.reading.parts.append(f"Ausstattung {W.FEATURE_LABEL[feature]}")
        self.reading.pieces.append(typed)

    def marketing(self, value: str, typed: str) -> None:
        filters = self.reading.filters
        if filters.get("marketing_type") not in (None, value):
            self.reading.unclear.append(Unclear(typed, "Kauf und Miete zugleich"))
            return
        if "marketing_type" not in filters:
            filters["marketing_type"] = value
            self.reading.parts.append(f"Vermarktung {W.MARKETING_LABEL[value]}")
        self.reading.pieces.append(typed)

    def vocabulary(self) -> tuple[bool, bool]:
        """Single words of the tables; returns whether a warm-rent word and a rent word stood on their own."""
        warm = rent = False
        for index, t in enumerate(self.tokens):
            if t.role or t.typed.startswith("("):  # "Frankfurt (Oder)": a qualifier of a place
                continue
            previous = self.tokens[index - 1].key if index else ""
            if (kind := W.lookup(W.PROPERTY_WORDS, t.key)) is not None:
                if kind in W.FEATURE_OR_PARKING:
                    t.role = "parking?"
                    self.parking.append(t)
                    t.cue = previous
                    continue
                t.role = "type"
                self.kind(W.PROPERTY_WORDS[kind], t.typed)
            elif (name := W.lookup(W.FEATURE_WORDS, t.key)) is not None:
                t.role = "feature"
                self.feature(W.FEATURE_WORDS[name], t.typed)
                if name in W.FEATURE_KEEPS_WORD:
                    self.reading.words.append(W.FEATURE_KEEPS_WORD[name])
            elif (name := W.lookup(W.MARKETING_WORDS, t.key)) is not None:  # type: ignore[arg-type]
                t.role = "marketing"
                warm = warm or name in {"warm", "warmmiete"}
                rent = rent or name in {"kalt", "kaltmiete", "miete", "mieten"}
                if name in {"warm", "warmmiete", "kalt", "kaltmiete"} and self.money:
                    continue  # said of an amount: the amount says it
                self.marketing(W.MARKETING_WORDS[name], t.typed)
            elif (name := W.lookup(W.SORT_WORDS, t.key)) is not None:  # type: ignore[arg-type]
                t.role = "sort"
                if self.reading.sort is None:
                    self.reading.sort = W.SORT_WORDS[name]
                    self.reading.parts.append(f"„{t.typed}“: {W.SORT_LABEL[self.reading.sort]}")
            elif W.in_set(W.FILLERS, t.key) or t.key in CONNECTIVES:
                t.role = "filler"
        return warm, rent

    def kind(self, kind: W.Kind, typed: str) -> None:
        if kind.property_type not in self.types:
            self.types.append(kind.property_type)
            self.reading.parts.append(f"Objektart {W.PROPERTY_LABEL[kind.property_type]}")
        if kind.word and kind.word not in self.subtypes:
            self.subtypes.append(kind.word)
        if kind.marketing:
            self.marketing(kind.marketing, typed)
        self.reading.pieces.append(typed)

    def parking_words(self) -> None:
        for t in self.parking:
            if [k for k in self.types if k != "parking"] or t.cue in {"mit", "und", "inkl", "inklusive", "plus"}:
                t.role = "feature"
                self.feature(W.PARKING_FEATURE, t.typed)
            else:
                t.role = "type"
                self.kind(W.PROPERTY_WORDS[W.lookup(W.PROPERTY_WORDS, t.key) or "stellplatz"], t.typed)

    # --- places ------------------------------------------------------------------------------------------------
    def cue_before(self, index: int) -> Token | None:
        """The token that says where the run starting at `index` lies ("in", "bei", a postal code), stop words skipped."""
        at = index - 1
        while at >= 0 and self.tokens[at].role is None and self.tokens[at].key in STOP_WORDS - W.CITY_CUES:
            at -= 1
        if at < 0 or self.tokens[at].segment != self.tokens[index].segment:
            return None
        before = self.tokens[at]
        if before.role == "near" or (before.role is None and before.key in W.CITY_CUES) or before.role == "hole":
            return before
        return None

    def places(self) -> None:
        i = 0
        while i < len(self.tokens):
            t = self.tokens[i]
            if t.role is not None or t.key in STOP_WORDS or t.key.isdigit():
                i += 1
                continue
            cue = self.cue_before(i)
            taken = self.place_at(i, cue)
            if taken:
                i += taken
                continue
            if cue is not None and cue.role != "hole":
                self.reading.place_words.add(t.typed)
            i += 1
        for run, found, cue, typed in self.deferred:
            if found.name in self.chosen_places():
                self.district_word(run, typed)
            elif self.chosen_places():
                for t in run:
                    t.role = None  # a word, like any district the data does not name
            else:
                self.take_place(run, found, cue, typed)
        self.settle_namesakes()

    def chosen_places(self) -> set[str]:
        filters = self.reading.filters
        return {name for name in (filters.get("city"), filters.get("near", {}).get("place")) if name}

    def district_word(self, run: list[Token], typed: str) -> None:
        for t in run:
            t.role = "district"
        self.reading.words.append(typed)
        self.reading.parts.append(f"Ortsteil {typed} als Suchwort")

    def district_of_named_town(self, run: list[Token], typed: str, found: PlaceMatch | Namesakes) -> PlaceMatch | None:
        """The district `typed` names of a town the line names elsewhere: one the gazetteer lists ("Paradies,
        Konstanz"), or a small place right before a far larger town ("Göggingen, Augsburg": the district of Augsburg,
        not the village Göggingen 150 km away, which the gazetteer's districts do not list; a village near the town is
        that village: "Kasel, Trier"); None otherwise."""
        if isinstance(found, PlaceMatch) and not found.district and found.residents < SMALL_PLACE:
            after = self.tokens.index(run[-1]) + 1
            for width in range(MAX_PLACE_WORDS, 0, -1):
                town = self.tokens[after : after + width]
                if len(town) < width or any(t.role is not None or t.key.isdigit() for t in town):
                    continue
                larger = self.place_of(" ".join(t.typed for t in town))
                if (
                    isinstance(larger, PlaceMatch)
                    and not larger.district
                    and larger.residents >= LARGER_ALIKE * max(found.residents, 1)
                    and km_apart(found, larger) > NEIGHBOURS_KM
                ):
                    return PlaceMatch(larger.name, larger.state, larger.latitude, larger.longitude, district=typed, residents=larger.residents)
        taken = {id(t) for t in run}
        for start in range(len(self.tokens)):
            for width in range(1, MAX_PLACE_WORDS + 1):
                other = self.tokens[start : start + width]
                if len(other) < width or any(id(t) in taken or t.key.isdigit() for t in other):
                    break
                found = district_of_town(typed, " ".join(t.typed for t in other))
                if found is not None:
                    return found
        return None

    def settle_namesakes(self) -> None:
        """A name several towns share, one of them the town the line's district settled on ("Wiebelskirchen,
        Neunkirchen": Neunkirchen (Saarland)), is that town named again, not a word."""
        chosen = self.chosen_places()
        for item in list(self.reading.ambiguous):
            if chosen and not names_municipality(item.typed):  # a district of other towns ("Altstadt"), here a word
                self.reading.ambiguous.remove(item)
                for t in self.tokens:
                    if t.role == "ambiguous" and t.typed in item.typed.split():
                        t.role = "district"
            elif chosen & set(item.names):
                self.reading.ambiguous.remove(item)
                self.reading.words.remove(item.typed)
                self.reading.pieces.append(item.typed)
                for t in self.tokens:
                    if t.role == "ambiguous" and t.typed in item.typed.split():
                        t.role = "place"

    def place_at(self, i: int, cue: Token | None) -> int:
        """Read a place starting at token `i`; returns how many tokens it took (0: none)."""
        for width in range(MAX_PLACE_WORDS, 0, -1):
            run = self.tokens[i : i + width]
            if len(run) < width or any(t.role is not None or t.segment != run[0].segment or t.key.isdigit() for t in run):
                continue
            if run[-1].key in STOP_WORDS and not run[-1].typed.startswith("("):
                continue
            typed = " ".join(t.typed for t in run)
            found = self.place_of(typed)
            if found is None and width == 1 and "-" in typed:  # "Würzburg-Heidingsfeld": the town, the district a word
                town, _, district = typed.partition("-")
                found = self.place_of(town)
                if isinstance(found, PlaceMatch) and not found.district and district:
                    self.take_place(run, found, cue, typed, district=district)
                    return 1
                continue
            if found is None or not self.acceptable(found, run, cue):
                continue
            district = self.district_of_named_town(run, typed, found)
            if district is not None:
                for t in run:  # "Göggingen, Augsburg": a district of the town the line names, not the village Göggingen
                    t.role = "district?"
                self.deferred.append((run, district, cue, typed))
                return width
            if isinstance(found, Namesakes) and i and self.tokens[i - 1].role == "place" and self.tokens[i - 1].segment == run[0].segment:
                for t in run:  # "Dresden Neustadt": a name right after the town is its district, a word
                    t.role = "district"
                self.reading.words.append(typed)
                self.reading.parts.append(f"Ortsteil {typed} als Suchwort")
                return width
            if isinstance(found, PlaceMatch) and found.district and W.key(typed) == W.key(found.district):
                for t in run:  # a district alone ("in Gohlis"): its town only if the line names no town
                    t.role = "district?"
                self.deferred.append((run, found, cue, typed))
                return width
            if isinstance(found, Namesakes):
                if self.postal_town(found, cue, run):
                    return width
                names, shown = candidate_names(typed, found.candidates)
                self.reading.ambiguous.append(Ambiguous(typed, names, shown))
                for t in run:
                    t.role = "ambiguous"
                self.reading.words.append(typed)
                return width
            self.take_place(run, found, cue, typed)
            return width
        return 0

    def acceptable(self, found: PlaceMatch | Namesakes, run: list[Token], cue: Token | None) -> bool:
        key = run[0].key
        size = found.residents if isinstance(found, PlaceMatch) else max(p.residents for p in found.candidates)
        if cue is not None:
            return True
        if len(run) == 1 and (key in COMMON_WORDS or (isinstance(found, PlaceMatch) and found.district)):
            return False
        index = self.tokens.index(run[0])
        before = self.tokens[index - 1] if index else None
        if len(run) == 1 and before is not None and before.segment == run[0].segment and before.key in {"mit", "ohne"}:
            return False
        if (
            len(run) == 1
            and before is not None
            and before.role is None
            and before.typed[:1].islower()
            and before.key not in STOP_WORDS
            and before.key.endswith(("e", "er", "en", "es", "em"))
            and size < ADJECTIVE_GUARD
        ):
            return False  # "ruhiger Lage": an adjective before it
        if isinstance(found, Namesakes) and any(p.residents == 0 for p in found.candidates) and size < TOWN:
            return False
        return size >= TOWN or len(run) > 1

    def postal_town(self, found: PlaceMatch | Namesakes, cue: Token | None, run: list[Token]) -> bool:
        """'79100 Freiburg': the town after a postal code is that code's town, no filter of its own."""
        if cue is None or cue.role != "hole" or not isinstance(self.holes[cue.hole or 0], str):
            return False
        code = str(self.holes[cue.hole or 0])
        served = {p.name for p in places_of_code(code)}
        names = [p.name for p in found.candidates] if isinstance(found, Namesakes) else [found.name.split(" (")[0]]
        if not served & set(names):
            return False
        for t in run:
            t.role = "postal town"
        self.reading.pieces.append(" ".join(t.typed for t in run))
        return True

    def take_place(self, run: list[Token], found: PlaceMatch, cue: Token | None, typed: str, district: str | None = None) -> None:
        if self.postal_town(found, cue, run):
            return
        for t in run:
            t.role = "place"
        filters = self.reading.filters
        if found.name in (filters.get("city"), filters.get("near", {}).get("place")):
            self.reading.pieces.append(typed)  # "Stuttgart-West, Stuttgart": the town named again, nothing new
            return
        if "city" in filters or "near" in filters:
            self.reading.unclear.append(Unclear(typed, "zweiter Ort; gesucht wird in einem Ort je Suche"))
            self.reading.words.append(typed)
            return
        name = found.name
        district = district or found.district
        radius = None
        after = self.tokens.index(run[-1]) + 1
        if (cue is None or cue.role != "near") and after < len(self.tokens) and self.tokens[after].role == "near":
            cue = self.tokens[after]  # "Stuttgart und Umgebung"
        if self.radius is not None:
            radius = self.radius.low
        elif cue is not None and cue.role == "near":
            radius = float(cue.cue or 10)
        if radius is not None:
            filters["near"] = {"place": name, "radius_km": radius}
            how = f"Umkreis {decimal(radius)} km um {name}"
            if self.radius is None and cue is not None:
                how += f" („{cue.phrase or cue.typed}“ als {decimal(radius)} km gelesen)"
            self.reading.parts.append(how)
            if self.radius is not None:
                self.reading.pieces.append(self.radius.typed)
                self.radius = None
        else:
            filters["city"] = name
            self.reading.parts.append(f"Ort {name}")
        self.reading.pieces.append(typed)
        if found.residents < SMALL_PLACE and not district:
            larger = [n for n in spelt_alike(typed) if n != name and _residents(n) >= LARGER_ALIKE * max(found.residents, 1)]
            if larger:  # "Kasel": a village of that name exists, but Kassel was likely meant
                self.reading.unclear.append(Unclear(typed, f"gelesen als der kleine Ort {name} ({found.state})", larger[:2]))
        if district:
            self.reading.words.append(district)
            self.reading.parts.append(f"Ortsteil {district} als Suchwort")

    # --- the rest ----------------------------------------------------------------------------------------------
    def postal_codes(self) -> None:
        codes = [h for h in self.holes if isinstance(h, str)]
        if not codes:
            return
        if self.radius is not None and "near" not in self.reading.filters and "city" not in self.reading.filters and len(codes) == 1:
            self.reading.filters["near"] = {"place": codes[0], "radius_km": self.radius.low}
            self.reading.parts.append(f"Umkreis {decimal(self.radius.low or 0)} km um PLZ {codes[0]}")
            self.reading.pieces += [codes[0], self.radius.typed]
            self.radius = None
            return
        near_code = next((t for t in self.tokens if t.role == "hole" and isinstance(self.holes[t.hole or 0], str) and self.near_cue(t)), None)
        if near_code is not None and len(codes) == 1 and "near" not in self.reading.filters:
            cue = self.near_cue(near_code)
            radius = float((cue.cue if cue else None) or 10)
            self.reading.filters["near"] = {"place": codes[0], "radius_km": radius}
            self.reading.parts.append(f"Umkreis {decimal(radius)} km um PLZ {codes[0]}")
            self.reading.pieces.append(codes[0])
            return
        self.reading.filters["postal_codes"] = codes
        self.reading.parts.append(f"PLZ {', '.join(codes)}")
        self.reading.pieces += codes

    def near_cue(self, token: Token) -> Token | None:
        index = self.tokens.index(token)
        cue = self.cue_before(index)
        return cue if cue is not None and cue.role == "near" else None

    def leftovers(self) -> None:
        for index, t in enumerate(self.tokens):
            if t.role is not None or t.key in STOP_WORDS:
                continue
            if any(ch.isdigit() for ch in t.key):
                before = self.tokens[index - 1] if index else None
                typed = f"{before.typed} {t.typed}" if before is not None and before.key in CONNECTIVES else t.typed
                self.reading.unclear.append(Unclear(typed, "Zahl ohne Einheit"))
                self.reading.words.append(t.typed)
                continue
            self.reading.words.append(t.typed)
            self.reading.free.append(t.typed)
        if self.radius is not None:
            self.reading.unclear.append(Unclear(self.radius.typed, "Umkreis ohne Ort"))

    def read(self) -> Reading:
        text = self.cut()
        self.tokenise(text)
        for q in [h for h in self.holes if isinstance(h, Quantity)]:
            self.quantity(q)
        self.phrases()
        warm, rent = self.vocabulary()
        self.parking_words()
        self.settle_money(warm, rent)
        self.places()
        self.postal_codes()
        if self.types:
            self.reading.filters["property_types"] = self.types
        if len(self.subtypes) == 1:
            self.reading.words.insert(0, self.subtypes[0])
            self.reading.parts.append(f"Unterart {self.subtypes[0].rstrip('*')} als Suchwort")
        self.leftovers()
        return self.reading


def read_line(line: str, place_of: PlaceOf) -> Reading:
    """Read `line`; `place_of(text)` classifies a run of words as a place (shared.catalog.places.classify_place)."""
    text = " ".join(line.split())
    single = text.strip().rstrip(".")
    if LISTING_REF.match(single):
        reading = Reading(listing_id=single.upper())
        reading.parts.append(f"Inseratsnummer {reading.listing_id}")
        return reading
    if INQUIRY_REF.match(single):
        reading = Reading(inquiry_id=single.upper())
        reading.parts.append(f"Anfragenummer {reading.inquiry_id}")
        return reading
    return _Reader(text, place_of).read()


__all__ = ["MONEY_WITHOUT_UNIT", "Reading", "read_line"]
