"""Place names and postal codes as a caller types them, resolved against the catalog's places (the `places` table).

The one resolver for `city`, `near.place`, `postal_codes` and estimate_value's place, so every tool understands a
place alike, and none answers "nothing there" because it did not understand one:

- case, umlauts (ü = ue), hyphens, brackets, spaces and "St."/"Sankt" do not matter ("halle saale" is Halle (Saale));
- a unique short form is applied and said ("Freiburg", "Freiburg i. Br." are Freiburg im Breisgau: VALUE_NORMALISED);
- an ambiguous short form asks one question naming the candidates;
- an unknown name or postal code is INVALID_ARGUMENT naming the nearest known ones.

`resolve_filters` applies it to catalog filters (search_listings, count_listings, the broker's stock); estimate_value
calls the single resolvers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from contract.catalog import CatalogFilters
from contract.envelope import ResultWarning, WarningCode
from contract.errors import ErrorCode, InputNeeded, Question, ToolFailure
from shared.catalog import search as engine
from shared.catalog.text import normalise, tokens
from shared.db.models import Place

NEAREST_SHOWN = 3
_SAINT = {"st": "sankt"}
_CONNECTING = frozenset("a am an auf bei d der die i im in ob vor".split())  # Frankfurt a. M., Freiburg i. Br.


@dataclass(frozen=True)
class PlaceMatch:
    name: str  # as the catalog spells it
    latitude: float  # centre: mean of its postal areas
    longitude: float
    short_form: bool = False  # the caller gave a unique short form of `name`


def place_key(text: str) -> str:
    """What a place name is compared by: 'St. Ingbert' = 'sankt-ingbert', 'Halle (Saale)' = 'halle saale'."""
    return " ".join(_SAINT.get(word, word) for word in tokens(text))


def _edits(a: str, b: str) -> int:
    """Levenshtein distance."""
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        previous = current
    return previous[-1]


def _shortens(short: str, key: str) -> bool:
    """`short` names the place `key` in fewer letters: its leading words ('frankfurt' of 'frankfurt am main'), later
    words abbreviated ('frankfurt m', 'freiburg i br'), connecting words left out ('frankfurt main'). The first
    word must be whole: 'frank' shortens nothing."""
    typed = [w for w in short.split() if w not in _CONNECTING]
    full = [w for w in key.split() if w not in _CONNECTING]
    if not typed or len(typed) > len(full) or typed[0] != full[0] or short == key:
        return False
    return all(f.startswith(t) for t, f in zip(typed[1:], full[1:], strict=False))


def _all_places(session: Session) -> list[PlaceMatch]:
    rows = session.execute(
        select(Place.name, func.avg(Place.latitude), func.avg(Place.longitude)).group_by(Place.name).order_by(Place.name)
    )
    return [PlaceMatch(name, float(lat), float(lon)) for name, lat, lon in rows]


def _exact(session: Session, text: str) -> PlaceMatch | None:
    """The common case through the index: the name as the catalog spells it, in any case."""
    row = session.execute(
        select(func.min(Place.name), func.avg(Place.latitude), func.avg(Place.longitude)).where(Place.name_key == normalise(text.strip()))
    ).one()
    return None if row[0] is None else PlaceMatch(str(row[0]), float(row[1]), float(row[2]))


def _nearest(places: list[PlaceMatch], key: str) -> list[str]:
    """The known places nearest to `key` in edits, measured against the whole name and its short form of as many
    words, so a misspelt short form ('Frankfrt') finds its place too."""
    width = len(key.split())

    def distance(place: PlaceMatch) -> int:
        full = place_key(place.name)
        return min(_edits(key, full), _edits(key, " ".join(full.split()[:width])))

    return [p.name for p in sorted(places, key=lambda p: (distance(p), p.name))[:NEAREST_SHOWN]]


def _listed(names: list[str], last: str = "und") -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} {names[-1]}"


def resolve_place(session: Session, text: str, argument: str, *, district_in_query: bool = False) -> PlaceMatch:
    """The catalog's place that `text` (a name, not a postal code) names; `argument` is the input field, for the
    question and the error; `district_in_query`: the tool's query finds districts, and an error says so."""
    if (exact := _exact(session, text)) is not None:
        return exact
    if text.strip().isdigit():
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"{text.strip()!r} ist kein Ortsname: bitte den Ort als Namen erneut senden ({argument}); eine PLZ hat 5 Ziffern "
            "und gehört zu den PLZ.",
        )
    key = place_key(text)
    places = _all_places(session)
    same = [p for p in places if place_key(p.name) == key]
    if len(same) == 1:
        return same[0]
    shortened = same or [p for p in places if _shortens(key, place_key(p.name))]
    if len(shortened) == 1:
        return PlaceMatch(shortened[0].name, shortened[0].latitude, shortened[0].longitude, short_form=True)
    if shortened:
        names = [p.name for p in shortened]
        raise InputNeeded(
            Question(
                argument=argument,
                message=f"Welcher Ort ist mit {text.strip()!r} gemeint: {_listed(names, 'oder')}?",
                schema={"type": "string", "enum": names, "title": "Ort"},
            )
        )
    nearest = _nearest(places, key) if key else []
    known = f"; am ähnlichsten sind {_listed(nearest)}" if nearest else ""
    district = "; einen Stadtteil findet der Volltext (query)" if district_in_query else ""
    raise ToolFailure(
        ErrorCode.INVALID_ARGUMENT,
        f"Den Ort {text.strip()!r} kennt der Katalog nicht{known}: bitte mit einem bekannten Ortsnamen oder einer PLZ "
        f"erneut senden ({argument}){district}.",
    )


def _near_codes(session: Session, code: str) -> list[str]:
    """The known postal codes (or code beginnings of the same length) numerically nearest to `code`, with places."""
    width = len(code)
    known: dict[str, str] = {}
    for postal_code, name in session.execute(select(Place.postal_code, Place.name).order_by(Place.postal_code, Place.name)):
        known.setdefault(postal_code[:width], name)  # only on an error: the whole list is small enough to rank here
    ranked = sorted(known.items(), key=lambda row: (abs(int(row[0]) - int(code)), row[0]))[:NEAREST_SHOWN]
    return [f"{prefix} ({name})" if width == 5 else f"{prefix}… (z. B. {name})" for prefix, name in sorted(ranked)]


def check_postal_codes(session: Session, codes: list[str], argument: str) -> None:
    """Every code (5 digits) or code beginning (2–4 digits) is one some place has; else INVALID_ARGUMENT naming the
    nearest known ones."""
    for code in codes:
        upper = code[:-1] + chr(ord(code[-1]) + 1)
        if session.scalar(select(Place.id).where(Place.postal_code >= code, Place.postal_code < upper).limit(1)) is None:
            what = "Die PLZ" if len(code) == 5 else "Einen PLZ-Bereich"
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"{what} {code} kennt der Katalog nicht; nahe bekannte sind {_listed(_near_codes(session, code))}: "
                f"bitte damit erneut senden ({argument}).",
            )


def resolve_postal_code(session: Session, code: str, argument: str) -> PlaceMatch:
    """The place of a 5-digit postal code, its centre the code's own."""
    check_postal_codes(session, [code], argument)
    row = session.execute(
        select(func.min(Place.name), func.avg(Place.latitude), func.avg(Place.longitude)).where(Place.postal_code == code)
    ).one()
    return PlaceMatch(str(row[0]), float(row[1]), float(row[2]))


def resolve_place_or_code(session: Session, text: str, argument: str, *, district_in_query: bool = False) -> PlaceMatch:
    """A place name or a 5-digit postal code, as `near.place` takes it."""
    code = text.strip()
    if code.isdigit() and len(code) == 5:
        return resolve_postal_code(session, code, argument)
    return resolve_place(session, text, argument, district_in_query=district_in_query)


def normalised_warning(argument: str, typed: str, match: PlaceMatch) -> ResultWarning | None:
    """VALUE_NORMALISED when a short form was applied, naming both; None when the caller named the place itself."""
    if not match.short_form:
        return None
    return ResultWarning(
        code=WarningCode.VALUE_NORMALISED,
        message=f"Der Ort {typed.strip()!r} ist im Katalog eindeutig {match.name}: danach wurde gesucht ({argument}).",
    )


@dataclass(frozen=True)
class ResolvedPlaces:
    """The filters with every place as the catalog spells it, the centre of `near`, and what was normalised."""

    filters: CatalogFilters
    centre: engine.Centre | None
    warnings: list[ResultWarning]


def resolve_filters(session: Session, filters: CatalogFilters) -> ResolvedPlaces:
    """`city`, `postal_codes` and `near.place` of catalog filters resolved; the centre of `near`."""
    updates: dict[str, Any] = {}
    warnings: list[ResultWarning] = []
    if filters.city:
        match = resolve_place(session, filters.city, "city", district_in_query=True)
        updates["city"] = match.name
        warnings += filter(None, [normalised_warning("city", filters.city, match)])
    if filters.postal_codes:
        check_postal_codes(session, filters.postal_codes, "postal_codes")
    centre = None
    near = filters.near
    if near is not None and near.place:
        match = resolve_place_or_code(session, near.place, "near.place", district_in_query=True)
        warnings += filter(None, [normalised_warning("near.place", near.place, match)])
        is_code = near.place.strip().isdigit()
        if not is_code:
            updates["near"] = near.model_copy(update={"place": match.name})
        label = f"{near.place.strip()} ({match.name})" if is_code else match.name
        centre = engine.Centre(match.latitude, match.longitude, near.radius_km, label)
    elif near is not None:
        assert near.latitude is not None and near.longitude is not None  # the contract validates the pair
        centre = engine.Centre(near.latitude, near.longitude, near.radius_km, f"{near.latitude:.4f}, {near.longitude:.4f}")
    return ResolvedPlaces(filters.model_copy(update=updates) if updates else filters, centre, warnings)
