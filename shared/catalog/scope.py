"""The scope of one catalog request, shared by the public catalog and an office's own stock.

Both read the same filters (`CatalogFilters`) the same way: places resolved against the catalog
(`shared.catalog.places`), full text, ranges, what a range filter excludes (rule 14), the warnings and, on an
empty result, the hint with each word counted alone and the suggestions. They
differ only in the fixed scope: the public catalog shows published listings of every office
(`PublicScope`: `engine.base_conditions`), an office's stock shows its own listings in the statuses the
caller asks for (`StockScope`: status from the argument, office from `OfficeData`). Both page alike
(`ListingScope.page`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Protocol, TypeVar

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.orm import Session

from contract.catalog import CatalogFilters, IncludeFields, SortOrder
from contract.envelope import ResultWarning, Suggestion, WarningCode
from contract.errors import ErrorCode, ToolFailure
from contract.vocabulary import MarketingType, PropertyType
from shared import german
from shared.catalog import places
from shared.catalog import search as engine
from shared.catalog.probing import TermFrequency
from shared.catalog.query import ParsedQuery, Term, parse
from shared.catalog.rows import SUMMARY_COLUMNS, ListingRow, listing_rows, page_statement
from shared.catalog.spelled import MAX_ALTERNATIVES, spelled_out
from shared.catalog.suggest import suggestions_for
from shared.db.models import Listing
from shared.db.scoped import OfficeData
from shared.paging.cursor import CursorCodec
from shared.paging.keyset import keyset_page
from shared.wording import FILTERS_NARROW, FILTERS_NARROW_SUGGESTED, PRICE_ON_REQUEST
from shared.german import decimal

# What an omitted catalog filter means, spelled out in the echoed request (rule 1); each tool adds its own scope.
ALL_FILTERS: dict[str, Any] = {
    "marketing_type": [m.value for m in MarketingType],
    "property_types": [p.value for p in PropertyType],
    "features": [],
}

UNKNOWN_VALUE = {
    "price": f"ohne Preis ({PRICE_ON_REQUEST})",
    "warm_rent": "ohne bekannte Warmmiete (Kaltmiete, Nebenkosten oder Heizkosten nicht angegeben)",
    "living_area": "ohne Angabe der Wohnfläche",
    "rooms": "ohne Angabe der Zimmerzahl",
}
ArgsT = TypeVar("ArgsT", bound=CatalogFilters)
MAX_COUNTED_WORDS = 8  # an empty result counts each word alone: one query per word, bounded


def parse_query(filters: CatalogFilters) -> ParsedQuery:
    """The parsed full text; a query with nothing searchable left is refused, never run as a search over everything."""
    if not filters.query:
        return ParsedQuery()
    parsed = parse(filters.query)
    if parsed.is_empty:
        ignored = f", nicht gesucht wird {parsed.ignored_text()}" if parsed.ignored else ""
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"In query {filters.query!r} ist nichts zu suchen{ignored}: bitte Wörter aus Buchstaben a–z, Umlauten oder Ziffern "
            "senden oder query weglassen.",
        )
    return parsed


def filter_warnings(filters: CatalogFilters, parsed: ParsedQuery, excluded: dict[str, int]) -> list[ResultWarning]:
    warnings: list[ResultWarning] = []
    if filters.near is not None and "radius_km" not in filters.near.model_fields_set:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message=f"Umkreis nicht angegeben: der Standard von {decimal(filters.near.radius_km)} km wurde verwendet.",
            )
        )
    if engine.warm_rent_filtered(filters) and filters.marketing_type is None:
        warnings.append(
            ResultWarning(
                code=WarningCode.DEFAULT_SCOPE_APPLIED,
                message="Eine Warmmiete haben nur Mietinserate: gesucht wurde nur unter Miete (marketing_type rent).",
            )
        )
    if (ignored := parsed.ignored_warning()) is not None:
        warnings.append(ignored)
    for name, n in excluded.items():
        code = WarningCode.PRICE_ON_REQUEST_EXCLUDED if name == "price" else WarningCode.VALUE_UNKNOWN_EXCLUDED
        arguments = ", ".join(f"{bound}_{name}" for bound in ("min", "max") if getattr(filters, f"{bound}_{name}") is not None)
        listings = german.plural(n, "sonst passendes Inserat", "sonst passende Inserate")
        falls = "fällt" if n == 1 else "fallen"
        warnings.append(ResultWarning(code=code, message=f"{listings} {UNKNOWN_VALUE[name]} {falls} durch den Filter ({arguments})."))
    return warnings


def empty_hint(
    filters: CatalogFilters,
    centre: engine.Centre | None,
    word_counts: dict[str, int] | None = None,
    unindexed: dict[str, list[str]] | None = None,
    suggested: bool = True,
) -> str:
    parts = []
    for word, alike in (unindexed or {}).items():
        spelt = f"; ähnlich geschrieben steht in Inseraten: {', '.join(alike)} (nicht gesucht)" if alike else ""
        parts.append(f"{word!r} steht in keinem Inserat{spelt}.")
    if filters.query:
        parts.append(f"Volltext {filters.query!r} sucht ganze Wörter; ein Wortanfang mit * findet auch Zusammensetzungen.")
    if word_counts:
        counted = ", ".join(f"{word} {n}" for word, n in word_counts.items())
        parts.append(f"Jedes Wort allein (mit den übrigen Filtern) findet so viele Inserate: {counted}.")
    if centre is not None:
        parts.append(f"Umkreis: {decimal(centre.radius_km)} km um {centre.label}.")
    if not parts:
        parts.append(FILTERS_NARROW_SUGGESTED if suggested else FILTERS_NARROW)
    return " ".join(parts)


def _is_status_scope(condition: Any) -> bool:
    left = getattr(condition, "left", None)
    return getattr(left, "key", None) == "status" and getattr(left, "table", None) is Listing.__table__


def filter_conditions(
    filters: CatalogFilters, parsed: ParsedQuery, centre: engine.Centre | None, probed: frozenset[str] = frozenset()
) -> list[ColumnElement[bool]]:
    """`engine.base_conditions` without its fixed public status scope: only what the filters ask for.

    Fails loudly if the engine's conditions no longer carry exactly one status scope, so a change there
    can never silently widen or narrow an office's stock.
    """
    conditions = engine.base_conditions(filters, parsed, centre, probed)
    kept = [c for c in conditions if not _is_status_scope(c)]
    if len(kept) != len(conditions) - 1:
        raise RuntimeError("engine.base_conditions must carry exactly one status condition (the public scope)")
    return kept


class PageRequest(Protocol):
    """What a paged tool input says about its page: the order, the page size and where to continue."""

    sort: SortOrder
    limit: int
    cursor: str | None


@dataclass(frozen=True)
class ListingPage:
    """One page of a scope: the total of the whole scope (None when not counted: then `total_at_least`), the rows
    of this page, the cursor to the next one."""

    total: int | None
    rows: list[ListingRow]
    next_cursor: str | None
    total_at_least: int | None = None


class ListingScope:
    """The resolved scope of one request over listings: the filters (places as the catalog spells them), the parsed
    full text, the centre, the SQL conditions and what each range filter excludes. The public catalog and an
    office's stock differ only in `_base_conditions` (their fixed scope, with every filter but the ranges)."""

    page_reads_description = False  # the description on a page only when the caller asks for it
    page_columns: Collection[str] | None = SUMMARY_COLUMNS  # what a page reads of each listing (None: every column)

    def __init__(self, session: Session, filters: CatalogFilters, *, count_excluded: bool = True) -> None:
        """`count_excluded` False: `excluded` stays empty, without its counts (one per range filter), for a caller
        that reads only `conditions` and shows no warnings."""
        self.parsed = parse_query(filters)
        resolved = places.resolve_filters(filters)
        self.filters, self.centre, self.place_warnings = resolved.filters, resolved.centre, resolved.warnings
        self.base: list[ColumnElement[bool]] = self._base_conditions(self.parsed)
        self.ranges = engine.range_conditions(self.filters)
        self.conditions = [*self.base, *self._range_list()]
        self.excluded = engine.unknown_value_counts(session, self.base, self.ranges) if count_excluded else {}
        self.frequency = TermFrequency(session, engine.COUNT_CAP)
        self._spellings: dict[str, list[str] | None] = {}

    def _base_conditions(self, parsed: ParsedQuery, probed: frozenset[str] = frozenset()) -> list[ColumnElement[bool]]:
        raise NotImplementedError

    def _range_list(self) -> list[ColumnElement[bool]]:
        return [c for parts in self.ranges.values() for c in parts]

    def _probed_conditions(self, parsed: ParsedQuery) -> list[ColumnElement[bool]]:
        """The conditions of `parsed` with its frequent words looked up per listing (shared.catalog.probing): for
        what stops early, a page or the capped count. Exact counts keep `conditions` (they read every match anyway).
        Where words are probed, a prefix is probed as the exact terms it stands for (when they are few)."""
        if not self.frequency.probing:
            return [*self._base_conditions(parsed), *self._range_list()]
        parsed = self._prefixes_spelled(parsed)
        probed = self.frequency.frequent(t for c in parsed.clauses for t in c.terms)
        return [*self._base_conditions(parsed, probed), *self._range_list()]

    def _prefixes_spelled(self, parsed: ParsedQuery) -> ParsedQuery:
        """`parsed` with each prefix of a one-word clause as its exact index terms (the first, the rest as other
        spellings): the same matches; a prefix with more than MAX_ALTERNATIVES terms or none stays a prefix."""
        groups = []
        for group in parsed.groups:
            clauses = []
            for clause in group:
                [term, *more] = clause.terms
                spellings = self.spellings(term) if term.prefix and not more and clause.closed is None else None
                if spellings:
                    clause = replace(clause, terms=(Term(spellings[0], also=tuple(spellings[1:])),))
                clauses.append(clause)
            groups.append(clauses)
        return ParsedQuery(groups=groups, ignored=parsed.ignored)

    def spellings(self, term: Term) -> list[str] | None:
        """The exact index terms of a prefix term (None: more than MAX_ALTERNATIVES), looked up once per request."""
        if term.text not in self._spellings:
            self._spellings[term.text] = engine.index_spellings(self.frequency.session, term, MAX_ALTERNATIVES)
        return self._spellings[term.text]

    @cached_property
    def page_conditions(self) -> list[ColumnElement[bool]]:
        """The conditions a page is read with: the same matches as `conditions`, in the plan that stops early (built
        once per request: the page and the capped count both read them)."""
        return self._probed_conditions(self.parsed) if self.frequency.probing else self.conditions

    def executed(self, args: ArgsT) -> ArgsT:
        """`args` as executed: every place as the catalog spells it (the warnings say which were short forms)."""
        changed = {name: getattr(self.filters, name) for name in ("city", "near") if getattr(self.filters, name) != getattr(args, name)}
        return args.model_copy(update=changed) if changed else args

    @property
    def warnings(self) -> list[ResultWarning]:
        return [*self.place_warnings, *filter_warnings(self.filters, self.parsed, self.excluded)]

    def word_counts(self, session: Session) -> dict[str, int]:
        """On an empty result of several words: how many listings each word alone finds with every other filter
        (the first MAX_COUNTED_WORDS words, one count each), so the caller sees which word finds nothing."""
        words = self.parsed.searched
        if len(words) < 2:
            return {}
        others = [*self._base_conditions(ParsedQuery()), *(c for parts in self.ranges.values() for c in parts)]
        return {
            clause.typed: engine.count(session, [*others, *engine.text_conditions(ParsedQuery(groups=[[clause]]))])
            for clause in words[:MAX_COUNTED_WORDS]
        }

    def unindexed_words(self, session: Session) -> dict[str, list[str]]:
        """The plain searched words no listing contains (the first MAX_COUNTED_WORDS), each with the index terms
        spelt nearly alike: a misspelt word gets a next step."""
        found: dict[str, list[str]] = {}
        for clause in self.parsed.searched[:MAX_COUNTED_WORDS]:
            term = clause.terms[0]
            if len(clause.terms) != 1 or term.prefix or clause.closed is not None:
                continue
            if not any(engine.is_indexed(session, spelling) for spelling in term.spellings):
                found[clause.typed] = engine.alike_terms(session, term.text)
        return found

    def next_steps(self, session: Session) -> tuple[str, list[Suggestion]]:
        """The request-specific hint and the suggestions of an empty result (counting each word alone). Filters that
        exclude each other are named, and each suggestion drops one of them (any other would find nothing again)."""
        conflict = places.contradiction(self.filters, self.centre)
        if conflict is not None:
            return conflict.message, conflict.suggestions
        counts = self.word_counts(session)
        unindexed = self.unindexed_words(session)
        suggestions = suggestions_for(self.filters, counts, unindexed)
        return empty_hint(self.filters, self.centre, counts, unindexed, suggested=bool(suggestions)), suggestions

    def count_alternatives(self, session: Session) -> list[list[ColumnElement[bool]]]:
        """Condition sets whose matches together are this scope's matches: the full text spelled out into exact
        terms where that makes the capped count cheaper (shared.catalog.spelled), else the scope's conditions."""
        alternatives = spelled_out(self.parsed, self.spellings)
        if alternatives is None:
            return [self.page_conditions]
        return [self._probed_conditions(alternative) for alternative in alternatives]

    def distance_km(self, listing: ListingRow) -> float | None:
        """Distance from the centre of `near`; None without one."""
        return engine.distance_km(self.centre, listing.latitude, listing.longitude) if self.centre else None

    def page_select(self, include: IncludeFields | None) -> Select[Any]:
        """The select a page is read with, before its order, limit and cursor. A page shows summaries: the long free
        texts stay in the database (the description only when asked for); the provider's office comes in the same
        statement (one per listing), the features in one more (`page`). Plain rows, not mapped objects: a page is only
        shown (shared.catalog.rows)."""
        unread = ["location_text", "equipment_text", "other_text"]
        unread += [] if self.page_reads_description or (include is not None and include.description) else ["description"]
        return page_statement(self.page_conditions, self.page_columns, unread)

    def page(
        self,
        session: Session,
        cursors: CursorCodec,
        request: PageRequest,
        *,
        binding: str,
        revision: int,
        now: dt.datetime,
        count_cap: int | None = None,
    ) -> ListingPage:
        """The page of `request` (after its cursor; the first without one) in its total order; the cursor is bound
        to `binding` and the catalog `revision`. With `count_cap` the total is counted only up to that many
        (engine.count_up_to); beyond, `total` is None and `total_at_least` the bound."""
        include = getattr(request, "include", None)
        statement = self.page_select(include)
        order = engine.SORTS[request.sort]
        page = keyset_page(
            session,
            statement,
            order,
            limit=request.limit,
            cursor=request.cursor,
            cursors=cursors,
            binding=binding,
            snapshot=revision,
            now=now,
            # Words in one town: the town's newest-first index holds kind, type and price too (migration 0024), so
            # the page's keys are found in the index, and a word rare in the town no longer reads thousands of its
            # listings. Without words the plain walk is as fast (and faster for a price range, measured).
            keys=select(order.unique).where(*self.page_conditions) if self.filters.city and self.parsed.groups else None,
        )
        rows = listing_rows(session, page.rows, with_features=include is None or include.features)
        if count_cap is None:
            return ListingPage(engine.count(session, self.conditions), rows, page.next_cursor)
        counted = engine.count_up_to(session, self.count_alternatives(session), count_cap)
        if counted.exact:
            return ListingPage(counted.counted, rows, page.next_cursor)
        return ListingPage(None, rows, page.next_cursor, total_at_least=counted.counted)


class PublicScope(ListingScope):
    """The public catalog: published listings of every office."""

    def _base_conditions(self, parsed: ParsedQuery, probed: frozenset[str] = frozenset()) -> list[ColumnElement[bool]]:
        return engine.base_conditions(self.filters, parsed, self.centre, probed)


class StockScope(ListingScope):
    """An office's own listings, in the statuses the caller asks for, narrowed by `also` (conditions of the office's
    own tools, such as whether a listing can be published today)."""

    page_reads_description = True  # an item of the stock says which publishing rules fail, the description's among them
    page_columns = None  # an item of the stock shows its status, dates, import and the publishing rules' columns

    def __init__(
        self,
        session: Session,
        filters: CatalogFilters,
        statuses: Sequence[str],
        office: OfficeData,
        also: Sequence[ColumnElement[bool]] = (),
    ) -> None:
        self.statuses = list(statuses)
        self.office = office
        self.also = list(also)
        super().__init__(session, filters)

    def _base_conditions(self, parsed: ParsedQuery, probed: frozenset[str] = frozenset()) -> list[ColumnElement[bool]]:
        office_scope = self.office.listings().whereclause
        assert office_scope is not None  # OfficeData always filters by the office
        conditions = [office_scope, Listing.status.in_(self.statuses), *filter_conditions(self.filters, parsed, self.centre, probed)]
        return [*conditions, *self.also]
