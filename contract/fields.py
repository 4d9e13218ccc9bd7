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
InquiryId = Annotated[str, Field(pattern=r"^I-\d{6,}$", description="Nummer der Anfrage, z. B. I-000042.")]


IDEMPOTENCY_KEY_HOURS = 48  # how long the server keeps a request_id and its first result (housekeeping removes it then)


def request_id_field(*, required: bool = False) -> Any:
    """The idempotency key of a creating or changing tool: the same key with the same arguments returns the first
    result and changes nothing twice, for IDEMPOTENCY_KEY_HOURS."""
    need = "Pflicht. " if required else ""
    return Field(
        ... if required else None,
        min_length=8,
        max_length=200,
        description=(
            f"{need}Idempotenzschlüssel (z. B. UUID, {IDEMPOTENCY_KEY_HOURS} Stunden gültig): eine Wiederholung gibt "
            f"das erste Ergebnis zurück und ändert nichts doppelt; neuer Auftrag, neuer Schlüssel."
        ),
    )
