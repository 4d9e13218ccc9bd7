"""The one parser of every full-text `query` argument: words, "phrases", prefix*, -exclusion, OR.

Grammar (what `CatalogFilters.query` documents): words separated by spaces must all occur (AND); `OR` between
words offers alternatives, and AND binds tighter than OR (`Altbau Balkon OR Loggia` = (Altbau und Balkon) oder
Loggia). A hyphenated word (`DG-Wohnung`) is its words in order or its closed spelling (`dgwohnung`), as the index
stores it. Whatever cannot be searched is named, never silently dropped: filler words, too short prefixes, words
without Latin letters or digits, and operators this syntax does not have (`~`, `?`, `+`, `NOT`, brackets, `field:`).

The catalog search uses all of the syntax. A search that offers less (the inquiry search takes words, prefixes and
OR, no phrases, no exclusion) reads what the parser found and refuses what its syntax lacks; it never parses on its
own, so both agree on what a word, a prefix and an ignored term are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field

from contract.envelope import ResultWarning, WarningCode
from contract.errors import ErrorCode, ToolFailure
from shared.catalog.text import ABBREVIATIONS, STOP_WORDS, joined, other_spellings, tokens

MIN_PREFIX = 3  # letters before the star; a shorter prefix matches too much to be a search
# The cost of a full-text search is bounded: at most this many search terms in one query (alternatives and
# exclusions included), at most this many words in one phrase or hyphenated word. More is refused
# (INVALID_ARGUMENT naming what to drop), never silently cut: a cut query would answer a different question.
MAX_TERMS = 12
MAX_PHRASE_WORDS = 6
AND_WORDS = {"and", "&&", "&"}  # AND in any case: words are joined by AND anyway
_TOKEN = re.compile(r'(-?)"([^"]*)"|(\S+)')
_PIECE = re.compile(r"[^\W_]+\*?")  # letters and digits as the caller typed them, with a prefix star
_FIELD_PREFIX = re.compile(r"^[^\W\d_]+:(?=\S)")  # Lucene's field:word
_UNSUPPORTED = re.compile(r"[~?^()\[\]{}|!\\]")  # fuzzy, wildcard, boost, grouping, boolean signs


@dataclass(frozen=True)
class Term:
    text: str
    prefix: bool = False
    also: tuple[str, ...] = ()  # other spellings that match as well (an abbreviation and its word)

    @property
    def spellings(self) -> tuple[str, ...]:
        return (self.text, *self.also)


@dataclass(frozen=True)
class Clause:
    """One or more terms that must stand directly one after another (a single word is a phrase of one).

    `closed` is the closed spelling of a hyphenated word, which matches as well; `typed` is the clause as the
    caller wrote it, for messages and suggestions."""

    terms: tuple[Term, ...]
    excluded: bool = False
    closed: Term | None = None
    typed: str = field(default="", compare=False)


@dataclass(frozen=True)
class Ignored:
    typed: str
    why: str  # German: why it was not searched (and what was searched instead, if anything)


FILLER = "Füllwort"
SHORT_PREFIX = f"Wortanfang unter {MIN_PREFIX} Zeichen"
NOTHING_SEARCHABLE = "keine Buchstaben a–z, Umlaute oder Ziffern"
FILLER_OR = "Füllwort; Alternativen mit OR"
_PLURALS = {FILLER: "Füllwörter"}


@dataclass
class ParsedQuery:
    groups: list[list[Clause]] = field(default_factory=list)  # alternatives (OR); within one, every clause holds
    ignored: list[Ignored] = field(default_factory=list)

    @property
    def clauses(self) -> list[Clause]:
        return [c for group in self.groups for c in group]

    @property
    def searched(self) -> list[Clause]:
        """The clauses that are searched for (not excluded), each once, in the order typed."""
        seen: dict[str, Clause] = {}
        for clause in self.clauses:
            if not clause.excluded:
                seen.setdefault(clause.typed, clause)
        return list(seen.values())

    @property
    def words(self) -> list[str]:
        """The searched terms (of clauses that are not excluded)."""
        return [t.text for c in self.clauses if not c.excluded for t in c.terms]

    @property
    def is_empty(self) -> bool:
        """Nothing left to search: a search with this query would be a search over everything."""
        return not self.groups

    @property
    def has_exclusion(self) -> bool:
        return any(c.excluded for c in self.clauses)

    @property
    def has_alternatives(self) -> bool:
        return len(self.groups) > 1

    def found_in(self, terms: Collection[str]) -> bool:
        """Some alternative has every searched term among `terms` (a prefix as the start of one), in any order: the
        matching of a syntax without phrases and exclusion."""

        def has(term: Term) -> bool:
            return any(w.startswith(term.text) for w in terms) if term.prefix else any(s in terms for s in term.spellings)

        def holds(clause: Clause) -> bool:
            return all(has(t) for t in clause.terms) or (clause.closed is not None and has(clause.closed))

        return any(all(holds(c) for c in group if not c.excluded) for group in self.groups)

    def ignored_text(self) -> str:
        """What was not searched and why, grouped by reason: 'mit, am (Füllwörter); Квартира (keine Buchstaben …)'."""
        reasons: dict[str, list[str]] = {}
        for item in self.ignored:
            reasons.setdefault(item.why, []).append(item.typed)
        return "; ".join(f"{', '.join(typed)} ({_PLURALS.get(why, why) if len(typed) > 1 else why})" for why, typed in reasons.items())

    def ignored_warning(self) -> ResultWarning | None:
        """TERMS_IGNORED naming what was not searched and why, or None when everything was."""
        if not self.ignored:
            return None
        return ResultWarning(code=WarningCode.TERMS_IGNORED, message=f"Nicht gesucht: {self.ignored_text()}.")


def _terms(raw: str, ignored: list[Ignored]) -> tuple[list[Term], Term | None]:
    """The terms of one token or phrase, and the closed spelling if it is one hyphenated word; filler words and
    too short prefixes go to `ignored` as typed."""
    terms: list[Term] = []
    every: list[str] = []
    star = False
    for piece in _PIECE.findall(raw):
        star = piece.endswith("*")
        found = tokens(piece.rstrip("*"))
        if not found:
            ignored.append(Ignored(piece, NOTHING_SEARCHABLE))
        every += found
        for position, word in enumerate(found):
            prefix = star and position == len(found) - 1
            if word in STOP_WORDS:
                ignored.append(Ignored(piece, FILLER_OR if word == "oder" else FILLER))
            elif prefix and len(word) < MIN_PREFIX:
                ignored.append(Ignored(piece, SHORT_PREFIX))
            else:
                terms.append(Term(word, prefix, () if prefix else other_spellings(word)))
    hyphenated = len(every) > 1 and re.fullmatch(r"[^\W_]+(?:-[^\W_]+)+\*?", raw) is not None
    if not (hyphenated and terms):
        return terms, None
    expanded = joined(ABBREVIATIONS.get(word, word) for word in every)
    return terms, Term(joined(every), star, (expanded,) if expanded != joined(every) and not star else ())


def _strip_operators(token: str, ignored: list[Ignored]) -> str:
    """The token without the operators this syntax lacks, each named with what was searched instead."""
    word = token
    if (field_prefix := _FIELD_PREFIX.match(word)) is not None:
        word = word[field_prefix.end() :]
    if word.startswith("+"):
        word = word[1:]
    word = _UNSUPPORTED.sub("", word)
    if "*" in word.rstrip("*") or word.endswith("**"):
        word = word.replace("*", "")
    if word != token:
        ignored.append(Ignored(token, f"Operator gibt es nicht, gelesen als {word}" if _PIECE.search(word) else NOTHING_SEARCHABLE))
    return word


def _clause(raw: str, typed: str, excluded: bool, ignored: list[Ignored]) -> Clause | None:
    terms, closed = _terms(raw, ignored)
    # a quoted phrase, or a hyphenated word like 3-Zimmer-Wohnung, is its words in order
    return Clause(tuple(terms), excluded, closed, typed) if terms else None


def parse(query: str) -> ParsedQuery:
    parsed = ParsedQuery()
    group: list[Clause] = []
    pending_or: str | None = None  # an OR seen after a group, waiting for its right-hand side
    tokens_ = list(_TOKEN.finditer(unicodedata.normalize("NFC", query)))
    skip_next = False
    for index, match in enumerate(tokens_):
        if skip_next:
            skip_next = False
            continue
        phrase_neg, phrase, token = match.groups()
        clause: Clause | None = None
        if phrase is not None:
            clause = _clause(phrase, match.group(0), bool(phrase_neg), parsed.ignored)
        elif _is_or(token):
            if not group:
                parsed.ignored.append(Ignored(token, "OR ohne Wort davor"))
                continue
            parsed.groups.append(group)
            group, pending_or = [], token
            continue
        elif token.casefold() in AND_WORDS or token == "UND":
            continue
        elif token.casefold() == "not":
            # never search the word NOT was meant to exclude: the answer would be the opposite of the question
            following = tokens_[index + 1].group(0) if index + 1 < len(tokens_) else ""
            why = f"NOT gibt es nicht, ausschließen mit -{following.lstrip('-')}" if following else "NOT gibt es nicht, ausschließen mit -Wort"
            parsed.ignored.append(Ignored(f"{token} {following}".strip(), why))
            skip_next = True
            continue
        else:
            word = _strip_operators(token, parsed.ignored)
            excluded = word.startswith("-") and len(word) > 1
            word = word[1:] if excluded else word
            if not _PIECE.search(word):
                if word == token:  # a lone "-", "***", "€": named, nothing to search
                    parsed.ignored.append(Ignored(token, NOTHING_SEARCHABLE))
                continue
            clause = _clause(word, ("-" if excluded else "") + word, excluded, parsed.ignored)
        if clause is not None:
            group.append(clause)
            pending_or = None
    if group:
        parsed.groups.append(group)
    elif pending_or is not None:
        parsed.ignored.append(Ignored(pending_or, "OR ohne Wort danach"))
    _check_bounds(parsed)
    return parsed


def _check_bounds(parsed: ParsedQuery) -> None:
    """INVALID_ARGUMENT past MAX_TERMS search terms or MAX_PHRASE_WORDS words in one phrase, with the next step."""
    for clause in parsed.clauses:
        if len(clause.terms) > MAX_PHRASE_WORDS:
            raise ToolFailure(
                ErrorCode.INVALID_ARGUMENT,
                f"Die Phrase {clause.typed} in query hat {len(clause.terms)} Wörter, gesucht werden höchstens "
                f"{MAX_PHRASE_WORDS} direkt hintereinander: bitte die Phrase auf ihre kennzeichnenden Wörter kürzen "
                "(oder ohne Anführungszeichen einzeln suchen) und erneut aufrufen.",
            )
    terms = sum(len(clause.terms) for clause in parsed.clauses)
    if terms > MAX_TERMS:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT,
            f"query hat {terms} Suchwörter, gesucht werden höchstens {MAX_TERMS}: bitte auf die wichtigsten Wörter "
            "kürzen (Ort, Preis, Zimmer und Ausstattung haben eigene Filter) und erneut aufrufen.",
        )


def _is_or(token: str) -> bool:
    return token.casefold() == "or" or token == "ODER"
