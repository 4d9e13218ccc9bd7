"""Input field types shared by the tools: English values, German words accepted and normalised."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator, Field

from contract.vocabulary import GERMAN_ALIASES

E = TypeVar("E", bound=StrEnum)


def _key(text: str) -> str:
    """A word as it is looked up: case folded, `_` and `-` read as spaces, runs of white space as one space."""
    return " ".join(text.casefold().replace("_", " ").replace("-", " ").split())


def _accept_german(enum: type[StrEnum]):  # type: ignore[no-untyped-def]
    aliases = {_key(word): value for word, value in GERMAN_ALIASES.get(enum, {}).items()}

    def convert(value: Any) -> Any:
        if isinstance(value, str):
            key = _key(value)
            return aliases.get(key, key.replace(" ", "_"))
        return value

    return BeforeValidator(convert)


def lenient(enum: type[E]) -> Any:
    """An enum input that also takes the German word (`Wohnung` → `apartment`, `nicht interessant` →
    `not_interested`), any letter case, and spaces or hyphens for underscores (`new listing`)."""
    return Annotated[enum, _accept_german(enum)]


def normalise_ref(value: object) -> object:
    """A reference number as sent, without surrounding spaces and upper-cased (`a-0000042` → `A-0000042`);
    for `field_validator(..., mode="before")`."""
    return value.strip().upper() if isinstance(value, str) else value


# Reference numbers (prefix and at least six digits); one type per kind, shared by both servers.
InquiryId = Annotated[str, Field(pattern=r"^I-\d{6,12}$", description="Nummer der Anfrage, z. B. I-000042.")]


# Upper bounds of the number and text inputs (every input has one: a value past it is INVALID_ARGUMENT with the
# German sentence of shared/runtime/validation.py, before anything reaches the database). Generous for the real
# market, far below what would overflow a column or make a query meaningless.
MAX_PRICE_EUR = 1_000_000_000  # a purchase price, a rent, a valuation; the same cap as calculate_purchase_costs
MAX_MONTHLY_EUR = 100_000  # service charges, heating costs, a warm rent per month
MAX_LIVING_AREA_M2 = 100_000  # living or usable area, also of a commercial building
MAX_PLOT_AREA_M2 = 10_000_000  # a plot of 1,000 ha
MAX_ROOMS = 1_000  # rooms, bedrooms, bathrooms
LOWEST_FLOOR, HIGHEST_FLOOR = -10, 200
LATEST_YEAR = 2100  # a year of construction (planned buildings included)
MAX_ENERGY_VALUE = 2_000  # kWh/(m²·a); real certificates stay below 1,000
MAX_VERSION = 2_147_483_647  # a row version is a 32-bit integer column
MAX_CURSOR_CHARS = 1_000  # a next_cursor is about 170 characters; a sort position of long text stays below this
MAX_PLACE_CHARS = 100  # a place name ("Name (Bundesland)") or a postal code

IDEMPOTENCY_KEY_HOURS = 48  # how long the server keeps a request_id and its first result (housekeeping removes it then)


def request_id_field(*, required: bool = False) -> Any:
    """The idempotency key of a creating or changing tool: the same key with the same arguments returns the first
    result and changes nothing twice, for IDEMPOTENCY_KEY_HOURS. Required on every creating tool (save, draft;
    `contract/tool.py` checks it), optional where a repeat changes nothing anyway (a status change)."""
    need = "Pflicht. " if required else ""
    return Field(
        ... if required else None,
        min_length=8,
        max_length=200,
        description=(
            f"{need}Idempotenzschlüssel (z. B. UUID, {IDEMPOTENCY_KEY_HOURS} h gültig): eine Wiederholung gibt das erste "
            f"Ergebnis zurück; neuer Auftrag, neuer Schlüssel."
        ),
    )
