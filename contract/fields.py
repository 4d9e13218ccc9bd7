"""Input field types shared by the tools: English values, German words accepted and normalised."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, TypeVar

from pydantic import BeforeValidator

from contract.vocabulary import GERMAN_ALIASES

E = TypeVar("E", bound=StrEnum)


def _accept_german(enum: type[StrEnum]):  # type: ignore[no-untyped-def]
    aliases = GERMAN_ALIASES.get(enum, {})

    def convert(value: Any) -> Any:
        if isinstance(value, str):
            key = value.strip().casefold()
            return aliases.get(key, key)
        return value

    return BeforeValidator(convert)


def lenient(enum: type[E]) -> Any:
    """An enum input that also takes the German word (`Wohnung` → `apartment`) and any letter case."""
    return Annotated[enum, _accept_german(enum)]
