"""Catalog search: filters and full text to SQL, a total order, keyset pages, counts and facets.

Everything runs in the database through indexes (the inverted term index, status/price/area and
geo indexes); nothing loads the catalog into memory. The SQL is the same on SQLite and PostgreSQL, except that on
SQLite a frequent word of a page or a capped count is looked up per listing (shared.catalog.probing).
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, Select, and_, case, distinct, func, literal, or_, select, union, union_all
from sqlalchemy.orm import Session, aliased

from contract.catalog import CatalogFilters, SortOrder
from contract.envelope import Freshness
from contract.vocabulary import ListingStatus, MarketingType
from shared.catalog.gazetteer import split_state
from shared.catalog.query import Clause, ParsedQuery, Term
from shared.catalog.text import edits_within, normalise, one_edit_away
from shared.db.geo_cells import cells_covering
from shared.db.models import LISTING_GEO_CELL, LISTING_WARM_RENT, CatalogState, Listing, ListingFeature, ListingTerm
from shared.db.value_lists import one_of
from shared.paging.cursor import binding_hash
from shared.paging.keyset import KeysetOrder

if TYPE_CHECKING:
    from shared.db.session import Database

PUBLIC_STATUSES = (ListingStatus.published.value,)
KM_PER_DEGREE_LAT = 110.574
KM_PER_DEGREE_LON_EQUATOR = 111.320


@dataclass(frozen=True)
class Centre:
    latitude: float
    longitude: float
    radius_km: float
    label: str


@dataclass(frozen=True)
class Snapshot:
    revision: int
    updated_at: dt.datetime

    @property
    def freshness(self) -> Freshness:
        return Freshness(data_as_of=self.updated_at, snapshot=f"katalog-{self.revision}")


_SNAPSHOT = select(CatalogState.revision, CatalogState.updated_at).where(CatalogState.id == 1)  # built once: its cache key is memoized


def snapshot(session: Session, known: Snapshot | None = None) -> Snapshot:
    """The catalog's revision and time of its last change; `known`, when the runtime read it for this call already."""
    if known is not None:
        return known
    return _snapshot_of(session.execute(_SNAPSHOT).first())


def current_snapshot(db: Database) -> Snapshot:
    """The same, read as a statement on its own outside any transaction (`Database.read_alone`): the read cache asks
    for it on every public read, and the handler then takes it as its own (ToolContext.catalog) instead of a second
    read."""
    return _snapshot_of(db.read_alone(_SNAPSHOT, row=True))


def _snapshot_of(state: Any) -> Snapshot:
    if state is None:  # before the first listing
        return Snapshot(0, dt.datetime(1970, 1, 1, tzinfo=dt.UTC))
    return Snapshot(state.revision, state.updated_at)


def _upper_bound(prefix: str) -> str:
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def _term_condition(table: Any, term: Term) -> ColumnElement[bool]:
    if term.prefix:
        return and_(table.term >= term.text, table.term < _upper_bound(term.text))
    return table.term == term.text if not term.also else table.term.in_(term.spellings)


def _listing_ids(terms: tuple[Term, ...], step: int) -> Select[Any]:
    """Listings with `terms` at positions `step` apart: 1 for words in order, 0 for parts of one compound word.

    One index range scan per term (the covering index term, listing, position), each posting shifted back to where the
    phrase would start, then grouped: a phrase matches where every one of its words starts the same phrase. The cost
    grows with the postings read, linearly in the number of words, never as a join of n copies of the index."""
    if len(terms) == 1:
        return select(ListingTerm.listing_id).where(_term_condition(ListingTerm, terms[0]))
    postings = []
    for index, term in enumerate(terms):
        table = aliased(ListingTerm)
        postings.append(
            select(
                table.listing_id.label("listing_id"),
                (table.position - index * step).label("start"),
                literal(index).label("word"),
            ).where(_term_condition(table, term))
        )
    shifted = union_all(*postings).subquery()
    return (
        select(shifted.c.listing_id)
        .group_by(shifted.c.listing_id, shifted.c.start)
        .having(func.count(distinct(shifted.c.word)) == len(terms))
    )


def _clause_condition(clause: Clause, probed: frozenset[str] = frozenset()) -> ColumnElement[bool]:
    """A hyphenated word matches however the text spells the compound: as separate words in order ("DG-Wohnung",
    "Dachgeschoss Wohnung"), closed ("Dachgeschosswohnung") or as parts of a longer compound the index split.

    A single exact word in `probed` is looked up per listing (EXISTS) instead of through the list of its postings
    (shared.catalog.probing): the same matches, the plan SQLite needs for a frequent word."""
    [term, *more] = clause.terms
    if not more and clause.closed is None and not term.prefix and term.text in probed:
        posted = select(ListingTerm.listing_id).where(_term_condition(ListingTerm, term), ListingTerm.listing_id == Listing.id)
        return ~posted.exists() if clause.excluded else posted.exists()
    matches = Listing.id.in_(_listing_ids(clause.terms, 1))
    if clause.closed is not None:
        matches = or_(matches, Listing.id.in_(_listing_ids((clause.closed,), 1)), Listing.id.in_(_listing_ids(clause.terms, 0)))
    return ~matches if clause.excluded else matches


def text_conditions(parsed: ParsedQuery, probed: frozenset[str] = frozenset()) -> list[ColumnElement[bool]]:
    """The full text as conditions: one per clause without OR; with OR one condition over the alternatives. Words in
    `probed` are looked up per listing (_clause_condition)."""
    groups = [[_clause_condition(clause, probed) for clause in group] for group in parsed.groups]
    if len(groups) == 1:
        return groups[0]
    return [or_(*(and_(*group) for group in groups))] if groups else []


def near_conditions(centre: Centre) -> list[ColumnElement[bool]]:
    """The grid cells of the bounding box (shared.db.geo_cells: estimated from where listings are, read through its
    index), or for a box of too many cells the box itself (the geo index), then the equirectangular distance, exact
    enough below 200 km."""
    dlat = centre.radius_km / KM_PER_DEGREE_LAT
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre.latitude))
    dlon = centre.radius_km / km_per_lon
    south, north, west, east = centre.latitude - dlat, centre.latitude + dlat, centre.longitude - dlon, centre.longitude + dlon
    dy = (Listing.latitude - centre.latitude) * KM_PER_DEGREE_LAT
    dx = (Listing.longitude - centre.longitude) * km_per_lon
    within = dx * dx + dy * dy <= centre.radius_km * centre.radius_km
    cells = cells_covering(south, north, west, east)
    if cells is not None:
        return [LISTING_GEO_CELL.in_(cells), within]
    return [Listing.latitude.between(south, north), Listing.longitude.between(west, east), within]


def distance_km(centre: Centre, latitude: float, longitude: float) -> float:
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre.latitude))
    return math.hypot((latitude - centre.latitude) * KM_PER_DEGREE_LAT, (longitude - centre.longitude) * km_per_lon)


RANGE_COLUMNS = {
    "price": Listing.price,
    "warm_rent": LISTING_WARM_RENT,
    "living_area": Listing.living_area,
    "rooms": Listing.rooms,
}


def warm_rent_filtered(filters: CatalogFilters) -> bool:
    return filters.min_warm_rent is not None or filters.max_warm_rent is not None


def range_conditions(filters: CatalogFilters) -> dict[str, list[ColumnElement[bool]]]:
    """Range filters by the column they narrow; a listing without that value never matches a range."""
    conditions: dict[str, list[ColumnElement[bool]]] = {}
    for name, column in RANGE_COLUMNS.items():
        low, high = getattr(filters, f"min_{name}"), getattr(filters, f"max_{name}")
        parts = []
        if low is not None:
            parts.append(column >= low)
        if high is not None:
            parts.append(column <= high)
        if parts:
            conditions[name] = parts
    return conditions


def base_conditions(
    filters: CatalogFilters, parsed: ParsedQuery, centre: Centre | None, probed: frozenset[str] = frozenset()
) -> list[ColumnElement[bool]]:
    """Every filter except the ranges (those are kept apart to count what they exclude); words in `probed` are looked
    up per listing (_clause_condition)."""
    conditions: list[ColumnElement[bool]] = [Listing.status.in_(PUBLIC_STATUSES)]
    if filters.marketing_type is not None:
        conditions.append(Listing.marketing_type == filters.marketing_type.value)
    elif warm_rent_filtered(filters):  # only a rental has a warm rent; the scope says so (DEFAULT_SCOPE_APPLIED)
        conditions.append(Listing.marketing_type == MarketingType.rent.value)
    if filters.property_types:
        conditions.append(Listing.property_type.in_(sorted({p.value for p in filters.property_types})))
    if filters.city:
        name, state = split_state(filters.city)  # 'Neunkirchen (Saarland)': one of namesakes
        conditions.append(Listing.city_key == normalise(name))
        if state is not None:
            conditions.append(Listing.state == state)
    if filters.postal_codes:
        conditions.append(
            or_(
                *(
                    Listing.postal_code == code if len(code) == 5 else and_(Listing.postal_code >= code, Listing.postal_code < _upper_bound(code))
                    for code in filters.postal_codes
                )
            )
        )
    if centre is not None:
        conditions.extend(near_conditions(centre))
    for feature in sorted({f.value for f in filters.features or []}):
        conditions.append(
            Listing.id.in_(select(ListingFeature.listing_id).where(ListingFeature.feature == feature))
        )
    conditions.extend(text_conditions(parsed, probed))
    return conditions


SORTS: dict[SortOrder, KeysetOrder] = {
    SortOrder.newest: KeysetOrder(Listing.published_at, True, Listing.id),
    SortOrder.price_asc: KeysetOrder(Listing.price, False, Listing.id),
    SortOrder.price_desc: KeysetOrder(Listing.price, True, Listing.id),
    SortOrder.living_area_desc: KeysetOrder(Listing.living_area, True, Listing.id),
}


def binding(filters: CatalogFilters, sort: SortOrder) -> str:
    """What a cursor is bound to: the catalog filters of `filters` (a tool's input may carry more: page size,
    include, cursor, which may change) and the order."""
    catalog = CatalogFilters.model_validate(filters.model_dump(include=set(CatalogFilters.model_fields)))
    return binding_hash({"filters": catalog.model_dump(mode="json"), "sort": sort.value})


def count(session: Session, conditions: list[ColumnElement[bool]]) -> int:
    return int(session.scalar(select(func.count()).select_from(Listing).where(*conditions)) or 0)


# search_listings counts its matches exactly up to this many. Counting every match of a broad search costs time in
# proportion to the matches (a full text word can match a third of a million-listing catalog); counting at most
# COUNT_CAP costs what counting COUNT_CAP costs at any catalog size. count_listings always counts exactly.
COUNT_CAP = 1_000


@dataclass(frozen=True)
class CappedCount:
    counted: int
    exact: bool  # False: there are at least `counted` matches (the count stopped there)


def count_up_to(session: Session, alternatives: list[list[ColumnElement[bool]]], cap: int) -> CappedCount:
    """The exact number of matches if below `cap`, else the lower bound `cap`. `alternatives` are condition sets whose
    matches together are the matches (a listing may meet several; shared.catalog.spelled); mostly there is one.

    Each alternative's first `cap` matches, united: while the union holds fewer than `cap` listings, no alternative
    reached `cap`, so each was counted whole and the union is exact; otherwise there are at least `cap`. Each
    alternative reads at most `cap` matches."""
    if not alternatives:
        return CappedCount(0, True)
    firsts = [select(Listing.id.label("id")).where(*conditions).limit(cap).subquery() for conditions in alternatives]
    matches = union(*(select(first.c.id) for first in firsts)).subquery() if len(firsts) > 1 else firsts[0]
    counted = min(cap, int(session.scalar(select(func.count()).select_from(matches)) or 0))
    return CappedCount(counted, counted < cap)


def index_spellings(session: Session, term: Term, limit: int) -> list[str] | None:
    """The distinct index terms starting with a prefix term's text, or None when they are more than `limit`: one
    seek in the term index per term found, never a read of their postings."""
    upper = _upper_bound(term.text)
    found: list[str] = []
    while len(found) <= limit:
        after = ListingTerm.term > found[-1] if found else ListingTerm.term >= term.text
        following = session.scalar(
            select(ListingTerm.term).where(after, ListingTerm.term < upper).order_by(ListingTerm.term).limit(1)
        )
        if following is None:
            return found
        found.append(following)
    return None


ALIKE_SHOWN = 3
_ALIKE_SEEKS = 80  # distinct index terms read when no term is one edit away


def is_indexed(session: Session, word: str) -> bool:
    return session.scalar(select(ListingTerm.listing_id).where(ListingTerm.term == word).limit(1)) is not None


def alike_terms(session: Session, word: str) -> list[str]:
    """Index terms spelt nearly like `word` (which no listing contains): those one edit away (one lookup), else those
    two edits away among the terms sharing its first three letters (one seek per distinct term, bounded); the
    terms used by more listings first."""
    near = sorted(one_edit_away(word))
    found = set(session.scalars(select(ListingTerm.term).where(one_of(session, ListingTerm.term, near, "near")).distinct())) if near else set()
    if not found and len(word) >= 5:
        starts = index_spellings(session, Term(word[:3], prefix=True), _ALIKE_SEEKS) or []
        found = {term for term in starts if edits_within(word, term, 2) is not None}
    def used_by(term: str) -> int:  # postings, counted up to 1,000: enough to order a few words
        capped = select(ListingTerm.listing_id).where(ListingTerm.term == term).limit(1_000).subquery()
        return int(session.scalar(select(func.count()).select_from(capped)) or 0)

    used = {term: used_by(term) for term in sorted(found)[:10]}
    return sorted(used, key=lambda term: (-used[term], term))[:ALIKE_SHOWN]


def unknown_value_counts(
    session: Session, base: list[ColumnElement[bool]], ranges: dict[str, list[ColumnElement[bool]]]
) -> dict[str, int]:
    """Per range filter: listings that match everything else but have no value there (rule 14)."""
    excluded: dict[str, int] = {}
    for name in ranges:
        others = [c for other, parts in ranges.items() if other != name for c in parts]
        missing = count(session, [*base, *others, RANGE_COLUMNS[name].is_(None)])
        if missing:
            excluded[name] = missing
    return excluded


def facet_counts(session: Session, conditions: list[ColumnElement[bool]], column: Any) -> list[tuple[Any, int]]:
    rows = session.execute(
        select(column, func.count()).select_from(Listing).where(*conditions).group_by(column).order_by(func.count().desc(), column)
    ).all()
    return [(value, int(n)) for value, n in rows]


def price_band_counts(session: Session, conditions: list[ColumnElement[bool]], bands: list[tuple[float, float | None]]) -> list[int]:
    """Listings per price band [low, high), in one query; the extra last count is 'Preis auf Anfrage' (no price)."""
    band = case(
        *(
            (and_(Listing.price >= low, *([Listing.price < high] if high is not None else [])), index)
            for index, (low, high) in enumerate(bands)
        ),
        else_=len(bands),
    )
    counts = [0] * (len(bands) + 1)
    for index, n in session.execute(select(band, func.count()).select_from(Listing).where(*conditions).group_by(band)).all():
        counts[int(index)] = int(n)
    return counts
