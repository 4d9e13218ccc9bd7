"""A full-text query spelled out for counting: each searched prefix, and each word with other spellings, replaced
by the exact index terms it stands for, as alternative queries of one spelling each whose matches together are
exactly the query's matches.

Why: the postings of one exact term come out of the term index in listing order, so the first n listings with
that term are a merge along the listings' primary key that stops after n rows. A prefix or a choice of spellings
mixes the postings of several terms, out of listing order, and the database reads every one of them before it
can count the first match ("Dachgeschoss*" in a catalog of 10^6: a hash over 578,000 postings). Counting each
alternative up to the cap and uniting them (shared.catalog.search.count_up_to) costs a few short merges instead.

Only clauses that are searched for and are not hyphenated words are spelled out: the matches of those grow with
every spelling a term may take, so the alternatives together match exactly what the query matches. An excluded
clause (its matches are removed) and a hyphenated word (several forms, one of which suffices) stay as they are in
every alternative.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from itertools import product

from shared.catalog.query import Clause, ParsedQuery, Term

MAX_ALTERNATIVES = 8  # more alternatives cost more than the one count over every posting they replace

# The exact index terms a term stands for (all of them, in any order), or None when they are more than
# MAX_ALTERNATIVES or unknown.
Spellings = Callable[[Term], Sequence[str] | None]


def spelled_out(parsed: ParsedQuery, spellings: Spellings, limit: int = MAX_ALTERNATIVES) -> list[ParsedQuery] | None:
    """Alternatives of `parsed` in which every spelled-out term has one exact spelling; their matches together are
    `parsed`'s matches. An empty list: no listing can match (a searched prefix with no term in the index).

    None when spelling out gains nothing (no prefix and no word with other spellings among the spelled-out terms),
    when there would be more than `limit` alternatives, or when `spellings` cannot name a term's spellings."""
    if not any(_spelled(clause) and (term.prefix or term.also) for clause in parsed.clauses for term in clause.terms):
        return None
    alternatives: list[ParsedQuery] = []
    for group in parsed.groups:
        options: list[list[Clause]] = []
        for clause in group:
            if not _spelled(clause):
                options.append([clause])
                continue
            per_term: list[Sequence[str]] = []
            for term in clause.terms:
                found = spellings(term) if term.prefix else term.spellings
                if found is None:
                    return None
                per_term.append(found)
            if math.prod(len(found) for found in per_term) > limit:
                return None
            options.append([replace(clause, terms=tuple(Term(text) for text in chosen)) for chosen in product(*per_term)])
        if len(alternatives) + math.prod(len(choice) for choice in options) > limit:
            return None
        alternatives.extend(ParsedQuery(groups=[list(chosen)], ignored=parsed.ignored) for chosen in product(*options))
    return alternatives


def _spelled(clause: Clause) -> bool:
    return not clause.excluded and clause.closed is None
