"""The search results as an app in the chat (results.html beside this module): cards of a search_listings page, the
next page, the exposé of get_listing and "Anfrage stellen", all through the host.

What the app must say exactly as the rest of Athaus does is filled in when it is served, not copied into its script:
the German labels of the vocabulary, the drawing of each property type (the one the pages show where no photo loads),
and the confirmation card itself, which the app shows for a drafted inquiry (the same card, its host being the app).
Which origins images may come from is filled in per deployment by the runtime (`RESOURCE_DOMAINS_SLOT`): exactly the
origins the resource's CSP declares, so the app never asks for an image its CSP would block."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from contract.confirmations import RESOURCE_DOMAINS_SLOT
from contract.vocabulary import MarketingType, PropertyType, label
from shared.confirmations.card import card_html
from shared.webapp.illustrations import illustration

RESULTS_FILE = Path(__file__).with_name("results.html")
LABELS_SLOT = "/*ATHAUS_LABELS*/"
DRAWINGS_SLOT = "/*ATHAUS_DRAWINGS*/"
CARD_SLOT = "/*ATHAUS_CARD*/"


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element (no "</script>" or "<!--" can end or bend it)."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@cache
def results_html() -> str:
    html = RESULTS_FILE.read_text(encoding="utf-8")
    for slot in (RESOURCE_DOMAINS_SLOT, LABELS_SLOT, DRAWINGS_SLOT, CARD_SLOT):
        assert html.count(slot) == 1, slot
    labels = {
        "marketing_type": {value.value: label(value) for value in MarketingType},
        "property_type": {value.value: label(value) for value in PropertyType},
    }
    drawings = {value.value: illustration(value.value, label(value)) for value in PropertyType}
    html = html.replace(LABELS_SLOT, _script_json(labels)).replace(DRAWINGS_SLOT, _script_json(drawings))
    return html.replace(CARD_SLOT, _script_json(card_html()))

