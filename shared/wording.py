"""Sentences and terms that both servers write, each written once."""

from __future__ import annotations

# A price the provider names only on request: the term itself, quoted in sentences of both servers.
PRICE_ON_REQUEST = "Preis auf Anfrage"


def not_widened(what: str) -> str:
    """That the server did not widen `what` (rule 10), as the start of a sentence."""
    return f"Der Server hat {what} nicht erweitert"


NOT_WIDENED = f"{not_widened('die Anfrage')}; die Antwort nennt die Anfrage, wie sie ausgeführt wurde."
SUGGESTIONS_UNSEARCHED = (
    "Die Vorschläge sind aus deiner Eingabe abgeleitet und vom Server nicht gesucht: "
    "rufe das Werkzeug damit erneut auf, wenn einer passt."
)

# The request-specific part of an empty result's hint when only plain filters were set.
FILTERS_NARROW = "Jeder gesetzte Filter schränkt ein."
# said only beside suggestions that do: a hint never promises suggestions the answer does not carry
FILTERS_NARROW_SUGGESTED = "Jeder gesetzte Filter schränkt ein; die Vorschläge lassen je einen davon weg oder weiten ihn."
