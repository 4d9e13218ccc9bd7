"""The one parser of every full-text `query` argument: words, "phrases", prefix*, -exclusion.

The catalog search uses all of the syntax. A search that offers less (the inquiry search takes words and
prefixes, no phrases, no exclusion) reads what the parser found and refuses what its syntax lacks; it never
parses on its own, so both agree on what a word, a prefix and an ignored term are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field

from contract.envelope import ResultWarning, WarningCode
from shared.catalog.text import STOP_WORDS, tokens

MIN_PREFIX = 3  # letters before the star; a shorter prefix matches too much to be a search
_TOKEN = re.compile(r'(-?)"([^"]*)"|(-?)(\S+)')
_PIECE = re.compile(r"[^\W_]+\*?")  # letters and digits as the caller typed them, with a prefix star


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
    ignored: list[str] = field(default_factory=list)  # filler words and too-short prefixes as typed, named in a warning

    @property
    def words(self) -> list[str]:
        """The searched terms (of clauses that are not excluded)."""
        return [t.text for c in self.clauses if not c.excluded for t in c.terms]

    @property
    def has_exclusion(self) -> bool:
        return any(c.excluded for c in self.clauses)

    def found_in(self, terms: Collection[str]) -> bool:
        """Every searched term is among `terms` (a prefix as the start of one), in any order: the matching of a
        syntax without phrases and exclusion."""
        searched = [t for c in self.clauses if not c.excluded for t in c.terms]
        return all(any(w.startswith(t.text) for w in terms) if t.prefix else t.text in terms for t in searched)

    def ignored_warning(self) -> ResultWarning | None:
        """TERMS_IGNORED naming the terms that were not searched, or None when every term was."""
        if not self.ignored:
            return None
        return ResultWarning(
            code=WarningCode.TERMS_IGNORED,
            message=f"Nicht gesucht (Füllwort oder Wortanfang unter {MIN_PREFIX} Zeichen): " + ", ".join(self.ignored) + ".",
        )


def _terms(raw: str, ignored: list[str]) -> list[Term]:
    """The terms of one token or phrase; filler words and too-short prefixes go to `ignored` as typed."""
    terms: list[Term] = []
    for piece in _PIECE.findall(raw):
        star = piece.endswith("*")
        found = tokens(piece.rstrip("*"))
        for position, word in enumerate(found):
            prefix = star and position == len(found) - 1
            if word in STOP_WORDS or (prefix and len(word) < MIN_PREFIX):
                ignored.append(piece)
            else:
                terms.append(Term(word, prefix))
    return terms


def parse(query: str) -> ParsedQuery:
    parsed = ParsedQuery()
    for match in _TOKEN.finditer(unicodedata.normalize("NFC", query)):
        phrase_neg, phrase, word_neg, word = match.groups()
        excluded = bool(phrase_neg or word_neg)
        raw = phrase if phrase is not None else word
        terms = _terms(raw, parsed.ignored)
        if terms:
            # a quoted phrase, or a hyphenated word like 3-Zimmer-Wohnung, is its words in order
            parsed.clauses.append(Clause(tuple(terms), excluded))
    return parsed
