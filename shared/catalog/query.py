"""Parser of the full-text syntax documented on `query` (words, "phrases", prefix*, -exclusion)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shared.catalog.text import STOP_WORDS, normalise

MIN_PREFIX = 3
_TOKEN = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')
_WORD = re.compile(r"[a-z0-9]+\*?")


@dataclass(frozen=True)
class Term:
    text: str
    prefix: bool = False


@dataclass(frozen=True)
class Clause:
    """One or more terms that must stand directly one after another (a single word is a phrase of one)."""

    terms: tuple[Term, ...]
    excluded: bool = False


@dataclass
class ParsedQuery:
    clauses: list[Clause] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # filler words and too-short prefixes, named in a warning

    @property
    def words(self) -> list[str]:
        return [t.text for c in self.clauses if not c.excluded for t in c.terms]


def _terms(raw: str, ignored: list[str]) -> list[Term]:
    terms: list[Term] = []
    for token in _WORD.findall(normalise(raw)):
        prefix = token.endswith("*")
        word = token.rstrip("*")
        if word in STOP_WORDS:
            ignored.append(word)
        elif prefix and len(word) < MIN_PREFIX:
            ignored.append(token)
        else:
            terms.append(Term(word, prefix))
    return terms


def parse(query: str) -> ParsedQuery:
    parsed = ParsedQuery()
    for match in _TOKEN.finditer(query):
        phrase_neg, phrase, word_neg, word = match.groups()
        excluded = bool(phrase_neg or word_neg)
        raw = phrase if phrase is not None else word
        terms = _terms(raw, parsed.ignored)
        if not terms:
            continue
        if phrase is not None or len(terms) > 1:
            # a quoted phrase, or a hyphenated word like 3-Zimmer-Wohnung: its words in order
            parsed.clauses.append(Clause(tuple(terms), excluded))
        else:
            parsed.clauses.append(Clause((terms[0],), excluded))
    return parsed
