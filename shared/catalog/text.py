"""German text normalisation and tokenising, shared by the index writer and the query parser.

One function decides what a "word" is, so indexing and searching can never disagree.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from itertools import repeat

_UMLAUTS = str.maketrans({"ä": "ae", "ö": "oe", "ü": "ue", "ß": "ss"})
_WORD = re.compile(r"[a-z0-9]+")

# Filler words are neither indexed nor searched, so "Wohnung mit Balkon" needs no "mit" in the text.
STOP_WORDS = frozenset(
    "und oder mit ohne in im am an auf aus bei beim der die das den dem des ein eine einer eines einem einen "
    "zu zum zur von vom fuer ist sind wird sehr auch als nach noch nur so wie sich es sie er wir ihr".split()
)

# Parts of German compounds that are indexed on their own: "Südbalkon" is found by "Balkon".
# A part matches at the start or the end of a word; parts of five letters or more also inside it.
COMPOUND_PARTS = frozenset(
    """
    altbau neubau balkon loggia terrasse dachterrasse garten wintergarten wohnung haus villa loft penthouse
    maisonette dach dachgeschoss erdgeschoss souterrain geschoss keller garage tiefgarage stellplatz carport
    kueche einbaukueche bad dusche wanne gaeste aufzug lift parkett dielen fliesen kamin heizung
    fussbodenheizung waermepumpe fernwaerme solar photovoltaik fenster blick seeblick see fluss park wald
    lage zentrum stadt altstadt familie familien reihenhaus reihen doppelhaus doppelhaushaelfte einfamilienhaus
    mehrfamilienhaus zimmer wohnzimmer schlafzimmer kinderzimmer arbeitszimmer abstellraum hobbyraum
    grundstueck baugrundstueck sanierung saniert renoviert kapitalanlage ruhig hell
    """.split()
)


# Abbreviations of listing texts, read as the word they stand for and back ("DG-Wohnung" finds "Dachgeschosswohnung",
# "Dachgeschoss" finds "DG"). Applied when a query is parsed, so the index needs no second spelling.
ABBREVIATIONS = {
    "dg": "dachgeschoss",
    "eg": "erdgeschoss",
    "og": "obergeschoss",
    "ug": "untergeschoss",
    "ebk": "einbaukueche",
    "tg": "tiefgarage",
    "efh": "einfamilienhaus",
    "mfh": "mehrfamilienhaus",
    "dhh": "doppelhaushaelfte",
    "whg": "wohnung",
    "wfl": "wohnflaeche",
}
_EXPANDED = {full: short for short, full in ABBREVIATIONS.items()}


def other_spellings(word: str) -> tuple[str, ...]:
    """What else a searched word matches: its abbreviation or what it abbreviates (normalised words)."""
    other = ABBREVIATIONS.get(word) or _EXPANDED.get(word)
    return (other,) if other else ()


def normalise(text: str) -> str:
    """Casefold, spell umlauts out (ä → ae), drop accents: 'Süd-Balkon' → 'sued-balkon'."""
    folded = text.casefold().translate(_UMLAUTS)
    if folded.isascii():  # nothing to decompose (most text once umlauts are spelled out): the same, much faster
        return folded
    decomposed = unicodedata.normalize("NFKD", folded)
    # only the non-ASCII runs can hold combining marks; looking at just those is the same and much faster
    return _NON_ASCII.sub(_without_combining, decomposed)


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _without_combining(run: re.Match[str]) -> str:
    return "".join(ch for ch in run.group(0) if not unicodedata.combining(ch))


def tokens(text: str) -> list[str]:
    """The words of a text, in order, filler words included."""
    return _WORD.findall(normalise(text))


def words(text: str) -> list[str]:
    """The searchable words of a text, in order, without filler words."""
    return [w for w in tokens(text) if w not in STOP_WORDS]


_SORTED_PARTS = tuple(sorted(COMPOUND_PARTS))
# any part anywhere in a word: most words (numbers, object numbers, names) hold none, and one search in C says so
_ANY_PART = re.compile("|".join(sorted(COMPOUND_PARTS, key=len)))


@lru_cache(maxsize=65536)  # words repeat across listings; splitting is most of the indexing time
def compound_parts(word: str) -> tuple[str, ...]:
    """Lexicon parts a compound word contains (never the word itself), in a stable order."""
    if _ANY_PART.search(word) is None:  # every part found below occurs in the word
        return ()
    parts = []
    for part in _SORTED_PARTS:
        if part == word or len(part) >= len(word):
            continue
        if word.startswith(part) or word.endswith(part) or (len(part) >= 5 and part in word):
            parts.append(part)
    return tuple(parts)


FIELD_GAP = 10  # position gap between fields, so a phrase never spans title and description
_RUN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")  # a word, or words joined by hyphens ("dg-wohnung")


def hyphen_runs(text: str) -> list[list[str]]:
    """The words of a text grouped by hyphenation, in order: 'Süd-Balkon und Garten' → [[sued, balkon], [und], [garten]]."""
    return [run.split("-") for run in _RUN.findall(normalise(text))]


def joined(parts: Iterable[str]) -> str:
    """The closed spelling of a hyphenated word ('dg-wohnung' → 'dgwohnung'): indexed and searched alike, so
    'Süd-Balkon' and 'Südbalkon' find each other."""
    return "".join(parts)[:64]


def index_terms(fields: Iterable[str]) -> list[tuple[int, str]]:
    """(position, term) pairs for a listing's text fields, sorted, each once: every word plus its compound parts; a
    hyphenated word also as its closed spelling (and that one's parts) at the position of its first word."""
    terms: list[tuple[int, str]] = []
    position = 0
    for field in fields:
        found, width = _field_terms(field) if len(field) <= _CACHED_FIELD else _terms_of_field(field)
        if position:
            terms += [(position + p, term) for p, term in found]
        else:
            terms += found
        position += width + FIELD_GAP
    return terms  # sorted already: a field's positions come after the previous field's


_CACHED_FIELD = 2000  # characters: fields repeat across a feed's listings (city, type, features, a standard text)


@lru_cache(maxsize=256)
def _field_terms(field: str) -> tuple[tuple[tuple[int, str], ...], int]:
    return _terms_of_field(field)


def _terms_of_field(field: str) -> tuple[tuple[tuple[int, str], ...], int]:
    """One field's (position, term) pairs from position 0, sorted and each once, and how many positions it takes."""
    terms: list[tuple[int, str]] = []
    position = 0
    for run in hyphen_runs(field):
        if len(run) > 1:
            closed = joined(run)
            terms.append((position, closed))
            terms.extend(zip(repeat(position), compound_parts(closed)))
        for word in run:
            indexed = _word_terms(word)
            if indexed:
                terms.extend(zip(repeat(position), indexed))
                position += 1
    return tuple(sorted(set(terms))), position


@lru_cache(maxsize=65536)
def _word_terms(word: str) -> tuple[str, ...]:
    """What one word puts into the index: itself (at most 64 characters) and its compound parts; nothing for a
    filler word."""
    if word in STOP_WORDS:
        return ()
    return (word[:64], *compound_parts(word))


def edits_within(a: str, b: str, limit: int) -> int | None:
    """The Levenshtein distance of a and b if it is at most `limit`, else None (stops as soon as it must exceed it)."""
    if abs(len(a) - len(b)) > limit:
        return None
    previous = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        current = [i]
        for j, y in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x != y)))
        if min(current) > limit:
            return None
        previous = current
    return previous[-1] if previous[-1] <= limit else None


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def one_edit_away(word: str) -> set[str]:
    """Every word one deletion, transposition, replacement or insertion (a–z) away from `word`."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    found = {a + b[1:] for a, b in splits if b}
    found |= {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    found |= {a + c + b[1:] for a, b in splits if b for c in _LETTERS}
    found |= {a + c + b for a, b in splits for c in _LETTERS}
    found.discard(word)
    return found
