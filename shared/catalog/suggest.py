"""Next steps for an empty catalog result, derived from the caller's own input and never searched (rule 10).

Order is the recommended order: the narrowest change first, the broadest last.
"""

from __future__ import annotations

from contract.catalog import CatalogFilters
from contract.envelope import Suggestion
from contract.vocabulary import label
from shared.catalog.query import parse
from shared.catalog.text import normalise

MIN_SUGGESTED_PREFIX = 4  # shorter prefixes match half the catalog: that is no next step
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


def prefix_suggestions(query: str) -> list[Suggestion]:
    """The query with one plain word (not a prefix, phrase or exclusion) searched as a shorter word start."""
    suggestions: list[Suggestion] = []
    raw_tokens = query.split()
    for token in raw_tokens:
        word = normalise(token)
        if token.endswith("*") or len(word) < MIN_SUGGESTED_PREFIX + 2 or not word.isalnum():
            continue
        for variant in shorter_variants(word):
            replaced = " ".join(variant if t == token else t for t in raw_tokens)
            suggestions.append(Suggestion(arguments={"query": replaced}, reason=f"'{token}' als Wortanfang {variant} suchen"))
    return suggestions


def _query_suggestions(query: str) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    parsed = parse(query)
    if any(len(c.terms) > 1 for c in parsed.clauses) and '"' in query:
        suggestions.append(
            Suggestion(arguments={"query": query.replace('"', "")}, reason="Wörter der Phrase einzeln statt direkt hintereinander suchen")
        )
    return suggestions + prefix_suggestions(query)


def _filter_suggestions(filters: CatalogFilters) -> list[Suggestion]:
    suggestions: list[Suggestion] = []
    if filters.near is not None and filters.near.radius_km < 200:
        wider = min(200.0, filters.near.radius_km * 2)
        suggestions.append(
            Suggestion(
                arguments={"near": {**filters.near.model_dump(exclude_none=True), "radius_km": wider}},
                reason=f"Umkreis von {filters.near.radius_km:g} auf {wider:g} km vergrößern",
            )
        )
    for name, text in (
        ("max_price", "ohne Höchstpreis"),
        ("min_price", "ohne Mindestpreis"),
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


def suggestions_for(filters: CatalogFilters) -> list[Suggestion]:
    query = _query_suggestions(filters.query) if filters.query else []
    return [*query, *_filter_suggestions(filters)]
