"""Next steps for an empty catalog result, derived from the caller's own input and never searched (rule 10).

Order is the recommended order: the narrowest change first, the broadest last.
"""

from __future__ import annotations

from contract.catalog import CatalogFilters
from contract.envelope import Suggestion
from contract.vocabulary import label
from shared.catalog.query import Clause, ParsedQuery, Term, parse
from shared.german import decimal

MIN_SUGGESTED_PREFIX = 4  # shorter prefixes match half the catalog: that is no next step
MAX_DROPPED_ONE_BY_ONE = 3
CITY_WIDENED_KM = 20  # a place alone that finds nothing: the circle around it is the next step
_ENDINGS = ("en", "er", "es", "e", "n", "s")


def shorter_variants(word: str) -> list[str]:
    """Prefix variants of one query word, narrowest first: the word without its ending, then its first half."""
    variants: list[str] = []
    stem = next((word[: -len(e)] for e in _ENDINGS if word.endswith(e) and len(word) - len(e) >= MIN_SUGGESTED_PREFIX), word)
    variants.append(stem)
    half = word[: max(MIN_SUGGESTED_PREFIX, len(word) // 2)]
    if half not in variants and len(half) < len(stem):
        variants.append(half)
    return [v + "*" for v in variants if len(v) >= MIN_SUGGESTED_PREFIX]


def _plain_word(clause: Clause) -> str | None:
    """The word of a clause that is one plain word (no prefix, phrase or exclusion) long enough to shorten."""
    if clause.excluded or len(clause.terms) != 1 or clause.terms[0].prefix or len(clause.terms[0].text) < MIN_SUGGESTED_PREFIX + 2:
        return None
    return clause.terms[0].text


def _query_of(clauses: list[Clause]) -> str:
    return " ".join(c.typed for c in clauses)


def _prefix_suggestions(parsed: ParsedQuery) -> list[Suggestion]:
    """Each plain word searched as a shorter word start, within its own alternative: a suggestion never carries an OR."""
    suggestions: list[Suggestion] = []
    for group in parsed.groups:
        for clause in group:
            word = _plain_word(clause)
            for variant in shorter_variants(word) if word else []:
                query = _query_of([Clause((Term(variant),), typed=variant) if c is clause else c for c in group])
                suggestions.append(Suggestion(arguments={"query": query}, reason=f"'{clause.typed}' als Wortanfang {variant} suchen"))
    return suggestions


def _drop_suggestions(parsed: ParsedQuery, counts: dict[str, int]) -> list[Suggestion]:
    """Without the words that find nothing alone; if every word finds something, without one word at a time (the
    most frequent first: the narrowest change first). Each alternative of an OR on its own."""
    nothing = {word for word, n in counts.items() if n == 0}
    suggestions: list[Suggestion] = []
    for group in parsed.groups:
        kept = [c for c in group if c.typed not in nothing]
        if nothing and kept and len(kept) < len(group) and any(not c.excluded for c in kept):
            dropped = ", ".join(c.typed for c in group if c.typed in nothing)
            suggestions.append(Suggestion(arguments={"query": _query_of(kept)}, reason=f"ohne {dropped} (findet allein nichts)"))
    if nothing or parsed.has_alternatives:
        return suggestions
    group = parsed.groups[0]
    for clause in sorted((c for c in group if c.typed in counts), key=lambda c: -counts[c.typed])[:MAX_DROPPED_ONE_BY_ONE]:
        rest = [c for c in group if c is not clause]
        if any(not c.excluded for c in rest):
            suggestions.append(Suggestion(arguments={"query": _query_of(rest)}, reason=f"ohne {clause.typed}"))
    return suggestions


def prefix_suggestions(query: str) -> list[Suggestion]:
    """The query with one plain word (not a prefix, phrase or exclusion) searched as a shorter word start."""
    return _prefix_suggestions(parse(query))


def _query_suggestions(query: str, counts: dict[str, int]) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    parsed = parse(query)
    if not parsed.has_alternatives and any(c.typed.startswith(('"', '-"')) and len(c.terms) > 1 for c in parsed.clauses):
        unquoted = _query_of(parsed.groups[0]).replace('"', "")
        suggestions.append(Suggestion(arguments={"query": unquoted}, reason="Wörter der Phrase einzeln statt direkt hintereinander suchen"))
    if not counts:  # one word: its shorter starts; several: drop what finds nothing, never keep it in another form
        return suggestions + _prefix_suggestions(parsed)
    return suggestions + _drop_suggestions(parsed, counts)


def _filter_suggestions(filters: CatalogFilters) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    if filters.near is not None and filters.near.radius_km < 200:
        wider = min(200.0, filters.near.radius_km * 2)
        suggestions.append(
            Suggestion(
                arguments={"near": {**filters.near.model_dump(exclude_none=True), "radius_km": wider}},
                reason=f"Umkreis von {decimal(filters.near.radius_km)} auf {decimal(wider)} km vergrößern",
            )
        )
    if filters.city and filters.near is None:
        suggestions.append(
            Suggestion(
                arguments={"city": None, "near": {"place": filters.city, "radius_km": CITY_WIDENED_KM}},
                reason=f"Umkreis von {CITY_WIDENED_KM} km um {filters.city}, nicht nur der Ort selbst",
            )
        )
    for name, text in (
        ("max_price", "ohne Höchstpreis"),
        ("min_price", "ohne Mindestpreis"),
        ("max_warm_rent", "ohne Höchstwarmmiete"),
        ("min_warm_rent", "ohne Mindestwarmmiete"),
        ("min_living_area", "ohne Mindestwohnfläche"),
        ("max_living_area", "ohne Höchstwohnfläche"),
        ("min_rooms", "ohne Mindestzimmerzahl"),
        ("max_rooms", "ohne Höchstzimmerzahl"),
    ):
        if getattr(filters, name) is not None:
            suggestions.append(Suggestion(arguments={name: None}, reason=text))
    if filters.features:
        for feature in filters.features:
            rest = [f.value for f in filters.features if f != feature]
            suggestions.append(Suggestion(arguments={"features": rest or None}, reason=f"ohne Ausstattung {label(feature)}"))
    if filters.property_types:
        suggestions.append(Suggestion(arguments={"property_types": None}, reason="alle Objektarten"))
    if filters.postal_codes and any(len(c) == 5 for c in filters.postal_codes):
        shortened = sorted({c[:2] for c in filters.postal_codes})
        suggestions.append(Suggestion(arguments={"postal_codes": shortened}, reason="ganze PLZ-Region statt genauer PLZ"))
    if filters.marketing_type is not None:
        suggestions.append(Suggestion(arguments={"marketing_type": None}, reason="Kauf und Miete"))
    return suggestions


def _spelling_suggestions(query: str, unindexed: dict[str, list[str]]) -> list[Suggestion]:
    """Each word no listing contains replaced by an index word spelt nearly alike, within its own alternative."""
    suggestions: list[Suggestion] = []
    for group in parse(query).groups:
        misspelt = [c for c in group if unindexed.get(c.typed)]
        if len(misspelt) > 1:  # every such word at once first: fixing one alone still finds nothing
            replaced = _query_of([Clause((Term(unindexed[c.typed][0]),), typed=unindexed[c.typed][0]) if c in misspelt else c for c in group])
            pairs = ", ".join(f"{unindexed[c.typed][0]!r} statt {c.typed!r}" for c in misspelt)
            suggestions.append(Suggestion(arguments={"query": replaced}, reason=f"{pairs} (ähnlich geschrieben, stehen in Inseraten)"))
        for clause in group:
            for alike in unindexed.get(clause.typed, []):
                replaced = _query_of([Clause((Term(alike),), typed=alike) if c is clause else c for c in group])
                suggestions.append(
                    Suggestion(arguments={"query": replaced}, reason=f"{alike!r} statt {clause.typed!r} (ähnlich geschrieben, steht in Inseraten)")
                )
    return suggestions


def suggestions_for(
    filters: CatalogFilters, word_counts: dict[str, int] | None = None, unindexed: dict[str, list[str]] | None = None
) -> list[Suggestion]:
    """Next steps for an empty result; `word_counts` (each word alone, see ListingScope.word_counts) lets the
    suggestions drop what finds nothing instead of changing a harmless word; `unindexed` (words no listing contains,
    with index words spelt alike) puts the likely intended word first."""
    spelling = _spelling_suggestions(filters.query, unindexed) if filters.query and unindexed else []
    query = _query_suggestions(filters.query, word_counts or {}) if filters.query else []
    return [*spelling, *query, *_filter_suggestions(filters)]
