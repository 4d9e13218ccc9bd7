"""What the connector tools `search` and `fetch` of both servers share (contract/connectors.py): reading the one
line against the catalog's places, the echo of the request as executed, suggestions that each drop one piece of
the line, and the honest limit of the shape's single page."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ValidationError

from contract.envelope import EffectiveValue, IncompleteReason, ReasonCode, Suggestion, ValueSource
from contract.errors import ErrorCode, ToolFailure
from shared import german
from shared.catalog.free_text import Reading, read_line, without
from shared.catalog import places

M = TypeVar("M", bound=BaseModel)


def read(line: str) -> Reading:
    """The line read as filters and words; a run of words is a place when it is exactly the name of a German town
    (shared.catalog.places.town_named)."""
    return read_line(line, places.town_named)


def filters(reading: Reading, model: type[M], limit: int) -> M:
    """The reading as arguments of a search tool (`model`), or INVALID_ARGUMENT when the line contradicts itself."""
    if not reading.filters and not reading.words:
        raise ToolFailure(
            ErrorCode.INVALID_ARGUMENT, "In der Zeile ist nichts, das gesucht werden kann (nur Füllwörter): bitte Ort, PLZ oder Suchwörter senden."
        )
    try:
        return model.model_validate({**reading.filters, "query": reading.words, "limit": limit})
    except ValidationError as invalid:  # "ab 500.000 € bis 100.000 €"
        problem = str(invalid.errors()[0]["msg"]).removeprefix("Value error, ")
        raise ToolFailure(ErrorCode.INVALID_ARGUMENT, f"Die Zeile ergibt keine gültige Suche ({problem}): bitte die Zeile ändern.") from None


def echo(line: str, reading: Reading, inner: dict[str, EffectiveValue]) -> dict[str, EffectiveValue]:
    """The one line as sent, then the request it was executed as; the filters read from the line count as sent."""
    sent = set(reading.filters) | ({"query"} if reading.words else set())
    request = {"line": EffectiveValue(value=line, source=ValueSource.caller)}
    for name, value in inner.items():
        request[name] = EffectiveValue(value=value.value, source=ValueSource.caller if name in sent else value.source)
    return request


def line_suggestions(line: str, reading: Reading) -> list[Suggestion]:
    """Each the caller's line with one piece that was read as a filter taken out; never searched here."""
    return [
        Suggestion(arguments={"query": shorter}, reason=f"ohne „{piece}“")
        for piece in reading.pieces
        if (shorter := without(line, piece))
    ]


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
