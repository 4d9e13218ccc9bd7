"""What the connector tools `search` and `fetch` of both servers share (contract/connectors.py): reading the one
line against the catalog's places, the echo of the request as executed, suggestions that each drop one piece of
the line, and the honest limit of the shape's single page."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from contract.envelope import EffectiveValue, IncompleteReason, ReasonCode, Suggestion, ValueSource
from contract.errors import ErrorCode, ToolFailure
from shared import german
from shared.catalog import line_words, places
from shared.catalog import search as engine
from shared.catalog.free_text import read_line
from shared.catalog.reading import Reading
from shared.catalog.line_edits import replaced, without
from shared.catalog.text import edits_within, tokens
from shared.db.session import Database

M = TypeVar("M", bound=BaseModel)


MAX_CHECKED_WORDS = 6  # words of a line looked up in the index, one lookup each
SHOWN_CANDIDATES = 5  # suggestions for a name several towns share


def read(line: str, db: Database | None = None) -> Reading:
    """The line read as filters and words (shared.catalog.free_text, places by shared.catalog.places). With `db`, a
    search word that no listing contains and that is spelt nearly like a known word, place or index word is named
    as likely misspelt (never replaced: the caller gets the likely spelling as a suggestion)."""
    reading = read_line(line, places.classify_place)
    if db is not None and reading.free:
        with db.read_only() as session:
            for word in reading.free[:MAX_CHECKED_WORDS]:
                terms = tokens(word)
                if len(terms) != 1 or terms[0].isdigit() or len(terms[0]) < 4 or engine.is_indexed(session, terms[0]):
                    continue
                fixes = _spelt_alike(terms[0], word, word in reading.place_words)
                if not fixes:
                    fixes = [t for t in engine.alike_terms(session, terms[0]) if t != terms[0]][:2]
                if fixes:
                    reading.misspelt(word, fixes)
    return reading


def _spelt_alike(term: str, typed: str, place_position: bool) -> list[str]:
    """Known words of the line reader, then town names, spelt nearly like `term` (a word no listing contains)."""
    limit = 1 if len(term) <= 6 else 2
    words = sorted(
        (distance, key) for key in line_words.SPELLED if (distance := edits_within(term, key, limit)) is not None and key != term
    )
    fixes = [line_words.written(key) for _, key in words[:2]]
    if (place_position or typed[:1].isupper()) and not fixes:
        fixes = places.spelt_alike(typed)[:2]
    return fixes


def filters(reading: Reading, model: type[M], limit: int) -> M:
    """The reading as arguments of a search tool (`model`), or INVALID_ARGUMENT when the line contradicts itself."""
    if not reading.filters and not reading.words and not reading.sort:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, "In der Zeile ist nichts, das gesucht werden kann (nur Füllwörter): bitte Ort, PLZ oder Suchwörter senden."
        )
    try:
        arguments = {**reading.filters, "query": reading.query, "limit": limit}
        if reading.sort:
            arguments["sort"] = reading.sort
        return model.model_validate(arguments)
    except ValidationError as invalid:  # "ab 500.000 € bis 100.000 €"
        problem = str(invalid.errors()[0]["msg"]).removeprefix("Value error, ")
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Die Zeile ergibt keine gültige Suche ({problem}): bitte die Zeile ändern.") from None


def echo(line: str, reading: Reading, inner: dict[str, EffectiveValue]) -> dict[str, EffectiveValue]:
    """The one line as sent, then the request it was executed as; the filters read from the line count as sent."""
    sent = set(reading.filters) | ({"query"} if reading.words else set()) | ({"sort"} if reading.sort else set())
    request = {"line": EffectiveValue(value=line, source=ValueSource.caller)}
    for name, value in inner.items():
        request[name] = EffectiveValue(value=value.value, source=ValueSource.caller if name in sent else value.source)
    return request


def line_suggestions(line: str, reading: Reading) -> list[Suggestion]:
    """Other lines to send, never searched here, narrowest change first: each part not understood as it was likely
    meant (a misspelt word or place spelt right, a town of a shared name), then without it; then the line with one
    piece that was read as a filter taken out."""
    suggestions: list[Suggestion] = []
    for item in reading.unclear:
        for fix in item.fixes:
            suggestions.append(Suggestion(arguments={"query": replaced(line, item.typed, fix)}, reason=f"„{fix}“ statt „{item.typed}“ (ähnlich geschrieben)"))
    for item in reading.ambiguous:
        for name in item.names[:SHOWN_CANDIDATES]:
            suggestions.append(Suggestion(arguments={"query": replaced(line, item.typed, name)}, reason=f"„{item.typed}“ als {name}"))
    for item in reading.unclear:
        if shorter := without(line, item.typed):
            suggestions.append(Suggestion(arguments={"query": shorter}, reason=f"ohne „{item.typed}“ (nicht verstanden)"))
    for piece in reading.pieces:
        if (shorter := without(line, piece)) and shorter != line:
            suggestions.append(Suggestion(arguments={"query": shorter}, reason=f"ohne „{piece}“"))
    unique: dict[str, Suggestion] = {}
    for suggestion in suggestions:
        unique.setdefault(suggestion.arguments["query"], suggestion)
    return list(unique.values())


def not_understood(line: str, reading: Reading) -> list[IncompleteReason]:
    """NOT_UNDERSTOOD naming each part of the line that was not read as meant, with the lines to send instead: never
    a silent `complete` for a line read only in part."""
    if not reading.unclear and not reading.ambiguous:
        return []
    said = []
    for item in reading.ambiguous:
        said.append(f"„{item.typed}“ ist der Name mehrerer Orte ({', '.join(item.shown[:8])}{' …' if len(item.shown) > 8 else ''}); gesucht wurde das Wort")
    for item in reading.unclear:
        likely = f", gemeint vielleicht {' oder '.join(f'„{f}“' for f in item.fixes)}" if item.fixes else ""
        said.append(f"„{item.typed}“ nicht verstanden ({item.why}{likely})")
    lines = [s.arguments["query"] for s in line_suggestions(line, reading)[:3]]
    offer = f" Stattdessen z. B. senden: {'; '.join(f'„{q}“' for q in lines)}." if lines else ""
    return [IncompleteReason(code=ReasonCode.NOT_UNDERSTOOD, message=f"Die Zeile ist nur zum Teil verstanden: {'; '.join(said)}.{offer}")]


def shown_fewer(total: int | None, shown: int, what: str, full_list: str) -> list[IncompleteReason]:
    """RESULT_LIMIT_REACHED when the shape's one page shows fewer than there are (total None: not counted, more)."""
    if total is not None and total <= shown:
        return []
    counted = f"{german.number(total, 0)} {what}" if total is not None else f"Mehr {what}"
    return [
        IncompleteReason(
            code=ReasonCode.RESULT_LIMIT_REACHED,
            message=f"{counted}, als eine Antwort zeigt ({shown}): engere Wörter, oder alle mit {full_list} und cursor.",
        )
    ]


def not_this_kind(ref: str, known: str) -> ToolFailure:
    return ToolFailure(ErrorCode.NOT_FOUND, f"{ref!r} ist keine Nummer, die es hier gibt ({known}): bitte eine id aus den Ergebnissen von search senden.")
