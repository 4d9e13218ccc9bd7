"""Place names and postal codes as a caller types them, resolved against every German municipality and postal code
(the gazetteer, shared/catalog/gazetteer.py; no database table, no network).

The one resolver for `city`, `near.place`, `postal_codes`, estimate_value's place, the postal code of a listing written
and the Bundesland of purchase costs, so every tool understands a place alike:

- case, umlauts (ü = ue), hyphens, brackets, spaces and "St."/"Sankt" do not matter ("halle saale" is Halle (Saale));
- a unique short form is applied and said ("Freiburg i. Br." is Freiburg im Breisgau: VALUE_NORMALISED);
- a name several municipalities share, or a short form of several ("Neustadt", "Frankfurt"), asks one question
  listing the candidates with their Bundesland; the answer "Neunkirchen (Saarland)" names one of namesakes;
- a district the data names ("Heidingsfeld", "Köln-Altstadt Nord") is its municipality, centred on the district;
- an unknown name is INVALID_ARGUMENT naming the names spelt nearly alike (never unrelated places), an unknown postal
  code names the nearest existing ones.

`resolve_filters` applies it to catalog filters (search_listings, count_listings, the broker's stock); the others call
the single resolvers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from contract.catalog import CatalogFilters
from contract.envelope import ResultWarning, Suggestion, WarningCode
from contract.errors import ErrorCode, InputNeeded, Question, ToolFailure
from shared.catalog import search as engine
from shared.catalog.gazetteer import Gazetteer, Municipality, load, split_state
from shared.catalog.text import edits_within, tokens
from shared.german import coordinates, decimal

NEAREST_SHOWN = 3
LARGER = 10  # a typed name that is one small place's whole name still asks when a place it shortens is this much larger
_SAINT = {"st": "sankt"}
_CONNECTING = frozenset("a am an auf bei d der die i im in ob vor".split())  # Frankfurt a. M., Freiburg i. Br.


@dataclass(frozen=True)
class PlaceMatch:
    name: str  # the municipality as a filter names it: 'Leipzig', or 'Neunkirchen (Saarland)' among namesakes
    state: str  # Bundesland
    latitude: float  # the municipality's centre, or its district's
    longitude: float
    short_form: bool = False  # the caller gave a unique short form of `name`
    district: str | None = None  # the caller named this district of the municipality
    namesakes: tuple[str, ...] = ()  # the caller's name also names these (far smaller) places
    residents: int = 0  # of the municipality (0: unknown)


def place_key(text: str) -> str:
    """What a place name is compared by: 'St. Ingbert' = 'sankt-ingbert', 'Halle (Saale)' = 'halle saale'."""
    return " ".join(_SAINT.get(word, word) for word in tokens(text))


def gazetteer() -> Gazetteer:
    return load(place_key)


def filter_name(place: Municipality) -> str:
    """The name a filter carries: the municipality's, with its Bundesland where namesakes share it."""
    return place.label if len(gazetteer().by_key[place_key(place.name)]) > 1 else place.name


def _match(place: Municipality, *, short_form: bool = False) -> PlaceMatch:
    return PlaceMatch(filter_name(place), place.state, place.latitude, place.longitude, short_form, residents=place.residents)


def _shortens(short: str, key: str) -> bool:
    """`short` names the place `key` in fewer letters: its leading words ('frankfurt' of 'frankfurt am main'), later
    words abbreviated ('frankfurt m', 'freiburg i br'), connecting words left out ('frankfurt main'). The first
    word must be whole: 'frank' shortens nothing."""
    typed = [w for w in short.split() if w not in _CONNECTING]
    full = [w for w in key.split() if w not in _CONNECTING]
    if not typed or len(typed) > len(full) or typed[0] != full[0] or short == key:
        return False
    return all(f.startswith(t) for t, f in zip(typed[1:], full[1:], strict=False))


def _spelt_alike(key: str) -> list[str]:
    """The names spelt nearly like `key` (a few edits, fewer for short words; against the whole name and its leading
    words as many as typed), largest first among equals; none when nothing is that close."""
    limit = 1 if len(key) <= 5 else 2 if len(key) <= 10 else 3
    width = len(key.split())
    scored: list[tuple[int, int, str]] = []
    for other, found in gazetteer().by_key.items():
        lead = " ".join(other.split()[:width])
        distances = [d for d in (edits_within(key, other, limit), edits_within(key, lead, limit) if lead != other else None) if d is not None]
        if distances:
            scored.extend((min(distances), -place.residents, filter_name(place)) for place in found)
    return list(dict.fromkeys(name for _, _, name in sorted(scored)))[:NEAREST_SHOWN]


def _listed(names: list[str], last: str = "und") -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} {names[-1]}"


def candidate_names(text: str, candidates: list[Municipality]) -> tuple[list[str], list[str]]:
    """The candidates of an ambiguous name, largest first: as a filter takes each (a name that was itself asked
    about carries its Bundesland: 'Halle (Niedersachsen)'), and as a sentence names each ('… in Hessen')."""
    ranked = sorted(candidates, key=lambda p: (-p.residents, p.name, p.state))
    asked = place_key(text)
    names = [p.label if place_key(p.name) == asked else filter_name(p) for p in ranked]
    shown = [name if p.state in name else f"{name} in {p.state}" for name, p in zip(names, ranked, strict=True)]
    return names, shown


def _ask(text: str, argument: str, candidates: list[Municipality]) -> InputNeeded:
    """One question naming the candidates, largest first; each offered value resolves to its place without a question."""
    names, shown = candidate_names(text, candidates)
    return InputNeeded(
        Question(
            argument=argument,
            message=f"Welcher Ort ist mit {text.strip()!r} gemeint: {_listed(shown, 'oder')}?",
            schema={"type": "string", "enum": names, "title": "Ort"},
        )
    )


@dataclass(frozen=True)
class Namesakes:
    """A name several places share, none far larger than the others: the caller must say which."""

    candidates: list[Municipality]


def classify_place(text: str) -> PlaceMatch | Namesakes | None:
    """What `text` (a name, not a postal code) names: one place, namesakes to choose from, or nothing known."""
    stripped = text.strip()
    places = gazetteer()
    name, state = split_state(stripped)
    if state is None and stripped.endswith(")") and " (" in stripped:  # 'Neunkirchen (Saar)': a Bundesland abbreviated
        head, _, qualifier = stripped[:-1].rpartition(" (")
        states = {p.state for p in places.by_key.get(place_key(head), []) if len(qualifier) >= 3 and p.state.casefold().startswith(qualifier.casefold())}
        name, state = (head, states.pop()) if len(states) == 1 else (name, None)
    if state is not None:
        chosen = [p for p in places.by_key.get(place_key(name), []) if p.state == state]
        if len(chosen) == 1:
            return _match(chosen[0])
    key = place_key(stripped)
    exact = places.by_key.get(key, [])
    first = key.split()[0] if key else ""
    shortened = [p for other in places.keys_beginning(first) if _shortens(key, other) for p in places.by_key[other]]
    if len(exact) == 1 and not any(p.residents > LARGER * max(exact[0].residents, 1) for p in shortened):
        return _match(exact[0])
    if len(exact) > 1:  # namesakes: one far larger than every other candidate is meant ("Schwerin"), and said so
        top = max(exact, key=lambda p: p.residents)
        others = [p for p in exact + shortened if p is not top]
        if all(top.residents > LARGER * max(p.residents, 1) for p in others):
            chosen = _match(top)
            return PlaceMatch(
                chosen.name, chosen.state, chosen.latitude, chosen.longitude, namesakes=tuple(filter_name(p) for p in others), residents=top.residents
            )
    if not exact and len(shortened) == 1:
        return _match(shortened[0], short_form=True)
    if exact or shortened:
        return Namesakes(exact + shortened)
    districts = places.districts_by_key.get(key, [])
    if len({d.municipality for d in districts}) == 1:
        district = districts[0]
        town = district.municipality
        return PlaceMatch(filter_name(town), town.state, district.latitude, district.longitude, district=district.name, residents=town.residents)
    if districts:
        return Namesakes(list(dict.fromkeys(d.municipality for d in districts)))
    return None


def km_apart(one: PlaceMatch, other: PlaceMatch) -> float:
    return engine.distance_km(engine.Centre(one.latitude, one.longitude, 0.0, one.name), other.latitude, other.longitude)


def names_municipality(text: str) -> bool:
    """Whether `text` is the name of a municipality, not only of districts ('Altstadt')."""
    return place_key(text) in gazetteer().by_key


def district_of_town(text: str, town: str) -> PlaceMatch | None:
    """The district `text` names of a municipality `town` names ('Göggingen', 'Augsburg'), as classify_place gives a
    district; None when no municipality of that name has a district so named."""
    wanted = place_key(town)
    for district in gazetteer().districts_by_key.get(place_key(text), []):
        municipality = district.municipality
        if wanted in (place_key(municipality.name), place_key(municipality.label)):
            return PlaceMatch(
                filter_name(municipality), municipality.state, district.latitude, district.longitude,
                district=district.name, residents=municipality.residents,
            )
    return None


def spelt_alike(text: str) -> list[str]:
    """The place names spelt nearly like `text`, as filters name them (closest first)."""
    key = place_key(text)
    return _spelt_alike(key) if key else []


def resolve_place(text: str, argument: str, *, district_in_query: bool = False) -> PlaceMatch:
    """The municipality (or district) that `text` (a name, not a postal code) names; `argument` is the input field,
    for the question and the error; `district_in_query`: the tool's query finds districts, and an error says so."""
    stripped = text.strip()
    if stripped.isdigit():
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{stripped!r} ist kein Ortsname: bitte den Ort als Namen erneut senden ({argument}); eine PLZ hat 5 Ziffern "
            "und gehört zu den PLZ.",
        )
    found = classify_place(stripped)
    if isinstance(found, PlaceMatch):
        return found
    if isinstance(found, Namesakes):
        raise _ask(stripped, argument, found.candidates)
    key = place_key(stripped)
    nearest = _spelt_alike(key) if key else []
    known = f"; ähnlich geschrieben sind {_listed(nearest)}" if nearest else "; kein Ort ist ähnlich geschrieben"
    district = "; einen Ortsteil findet der Volltext (query)" if district_in_query else ""
    raise ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"Einen Ort {stripped!r} gibt es im Ortsverzeichnis (alle Gemeinden Deutschlands) nicht{known}: bitte mit einem "
        f"Ortsnamen oder einer PLZ erneut senden ({argument}){district}.",
    )


def _near_codes(code: str) -> list[str]:
    """The existing postal codes (or code beginnings of the same length) numerically nearest to `code`, with places."""
    width = len(code)
    known: dict[str, str] = {}
    for postal_code, found in sorted(gazetteer().by_code.items()):
        known.setdefault(postal_code[:width], min(found, key=lambda p: (-p.residents, p.name)).name)
    ranked = sorted(known.items(), key=lambda row: (abs(int(row[0]) - int(code)), row[0]))[:NEAREST_SHOWN]
    return [f"{prefix} ({name})" if width == 5 else f"{prefix}… (z. B. {name})" for prefix, name in sorted(ranked)]


def check_postal_codes(codes: list[str], argument: str) -> None:
    """Every code (5 digits) or code beginning (2–4 digits) exists; else INVALID_ARGUMENT naming the nearest ones."""
    places = gazetteer()
    for code in codes:
        if not (code in places.by_code if len(code) == 5 else places.has_code_beginning(code)):
            what = "Die PLZ" if len(code) == 5 else "Den PLZ-Bereich"
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{what} {code} gibt es nicht; nahe sind {_listed(_near_codes(code))}: bitte damit erneut senden ({argument}).",
            )


def places_of_code(code: str) -> list[Municipality]:
    """The municipalities a 5-digit postal code serves, largest first; [] for a code that does not exist."""
    return sorted(gazetteer().by_code.get(code, []), key=lambda p: (-p.residents, p.name))


def resolve_postal_code(code: str, argument: str) -> PlaceMatch:
    """The place of a 5-digit postal code (the largest of those it serves), centred on the code's places."""
    check_postal_codes([code], argument)
    found = places_of_code(code)
    main = found[0]
    return PlaceMatch(
        filter_name(main), main.state, sum(p.latitude for p in found) / len(found), sum(p.longitude for p in found) / len(found)
    )


def resolve_place_or_code(text: str, argument: str, *, district_in_query: bool = False) -> PlaceMatch:
    """A place name or a 5-digit postal code, as `near.place` takes it."""
    code = text.strip()
    if code.isdigit() and len(code) == 5:
        return resolve_postal_code(code, argument)
    return resolve_place(text, argument, district_in_query=district_in_query)


def district_place(match: PlaceMatch) -> str | None:
    """'Würzburg-Heidingsfeld' for a match on a district: what the resolver reads back as that district."""
    return f"{split_state(match.name)[0]}-{match.district}" if match.district else None


def normalised_warning(argument: str, typed: str, match: PlaceMatch) -> ResultWarning | None:
    """VALUE_NORMALISED when a short form was applied or a district stood for its municipality, naming both; None
    when the caller named the place itself."""
    if match.district and argument != "near.place":
        message = (
            f"{typed.strip()!r} ist ein Ortsteil von {match.name}: gesucht wurde in ganz {match.name} ({argument}); "
            "den Ortsteil allein findet der Volltext (query) oder ein Umkreis (near)."
        )
    elif match.district:
        message = f"{typed.strip()!r} ist der Ortsteil {match.district} von {match.name}: der Umkreis zählt ab seiner Mitte ({argument})."
    elif match.namesakes:
        message = (
            f"{typed.strip()!r} ist hier {match.name}, der weitaus größte Ort dieses Namens; gemeint sein kann auch "
            f"{_listed(list(match.namesakes), 'oder')}: dann diesen Namen senden ({argument})."
        )
    elif match.short_form:
        message = f"Der Ort {typed.strip()!r} ist eindeutig {match.name}: danach wurde gesucht ({argument})."
    else:
        return None
    return ResultWarning(code=WarningCode.VALUE_NORMALISED, message=message)


@dataclass(frozen=True)
class ResolvedPlaces:
    """The filters with every place as a filter names it, the centre of `near`, and what was normalised."""

    filters: CatalogFilters
    centre: engine.Centre | None
    warnings: list[ResultWarning]


def resolve_filters(filters: CatalogFilters) -> ResolvedPlaces:
    """`city`, `postal_codes` and `near.place` of catalog filters resolved; the centre of `near`."""
    updates: dict[str, Any] = {}
    warnings: list[ResultWarning] = []
    if filters.city:
        match = resolve_place(filters.city, "city", district_in_query=True)
        updates["city"] = match.name
        warnings += filter(None, [normalised_warning("city", filters.city, match)])
    if filters.postal_codes:
        check_postal_codes(filters.postal_codes, "postal_codes")
    centre = None
    near = filters.near
    if near is not None and near.place:
        match = resolve_place_or_code(near.place, "near.place", district_in_query=True)
        warnings += filter(None, [normalised_warning("near.place", near.place, match)])
        is_code = near.place.strip().isdigit()
        place = district_place(match) or match.name
        if not is_code:
            updates["near"] = near.model_copy(update={"place": place})
        label = f"{near.place.strip()} ({match.name})" if is_code else place
        centre = engine.Centre(match.latitude, match.longitude, near.radius_km, label)
    elif near is not None:
        assert near.latitude is not None and near.longitude is not None  # the contract validates the pair
        centre = engine.Centre(near.latitude, near.longitude, near.radius_km, coordinates(near.latitude, near.longitude))
    return ResolvedPlaces(filters.model_copy(update=updates) if updates else filters, centre, warnings)


def completions(prefix: str, limit: int) -> list[str]:
    """Postal codes (for digits) or place names that start with `prefix`, the largest places first."""
    text = prefix.strip()
    places = gazetteer()
    if text.isdigit():
        return [code for code in places.codes if code.startswith(text)][:limit]
    key = place_key(text)
    found = [p for other in places.keys_beginning(key) for p in places.by_key[other]]
    return [filter_name(p) for p in sorted(found, key=lambda p: (-p.residents, p.name))[:limit]]


FAR_KM = 20.0  # a municipality's extent beyond its centre: a centre farther than radius + this from it cannot overlap


@dataclass(frozen=True)
class Contradiction:
    """Filters that exclude each other, named, with one suggestion per filter dropped."""

    message: str
    suggestions: list[Suggestion]


def _lies_in(code: str) -> str:
    if len(code) < 5:
        return f"PLZ {code}…"
    return f"{code} liegt in {_listed([filter_name(p) for p in places_of_code(code)])}"


def contradiction(filters: CatalogFilters, centre: engine.Centre | None) -> Contradiction | None:
    """`city` against `postal_codes` (no code of the place) or against `near` (the place lies beyond the radius)."""
    if not filters.city:
        return None
    name, state = split_state(filters.city)
    towns = [p for p in gazetteer().by_key.get(place_key(name), []) if state is None or p.state == state]
    if not towns:
        return None
    city = filters.city
    own_codes = {code for p in towns for code in p.postal_codes}
    drop_city = Suggestion(arguments={"city": None}, reason=f"ohne Ort {city}")
    if filters.postal_codes and not any(own.startswith(code) for code in filters.postal_codes for own in own_codes):
        where = "; ".join(_lies_in(code) for code in filters.postal_codes)
        return Contradiction(
            f"Ort und PLZ schließen sich aus: {where}, nicht in {city}. Bitte eines von beiden weglassen (suggestions).",
            [Suggestion(arguments={"postal_codes": None}, reason=f"ohne PLZ {', '.join(filters.postal_codes)}"), drop_city],
        )
    if centre is not None:
        km = min(engine.distance_km(centre, p.latitude, p.longitude) for p in towns)
        if km > centre.radius_km + FAR_KM:
            return Contradiction(
                f"Ort und Umkreis schließen sich aus: {city} liegt etwa {km:.0f} km von {centre.label} entfernt, der Umkreis "
                f"reicht {decimal(centre.radius_km)} km. Bitte eines von beiden weglassen (suggestions).",
                [Suggestion(arguments={"near": None}, reason=f"ohne Umkreis um {centre.label}"), drop_city],
            )
    return None
