"""Rights (OAuth scopes) in the order of SPEC section 4; tools/list and the docs are grouped by them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ServerName(StrEnum):
    broker = "makler"
    search = "suche"


@dataclass(frozen=True)
class Right:
    scope: str | None  # None: public, no login
    label: str  # German, shown on the consent page and in the docs
    server: ServerName

    @property
    def key(self) -> str:
        return self.scope or "none"


SEARCH_PUBLIC = Right(None, "Öffentlich, ohne Anmeldung", ServerName.search)
SEARCH_ACCOUNT_READ = Right("suche:konto", "Dein Konto lesen", ServerName.search)
SEARCH_ACCOUNT_WRITE = Right("suche:konto.schreiben", "Dein Konto ändern", ServerName.search)
SEARCH_CONTACT = Right("suche:anfragen", "Anbieter kontaktieren", ServerName.search)

BROKER_READ = Right("makler:lesen", "Büro lesen", ServerName.broker)
BROKER_WRITE = Right("makler:schreiben", "Bestand und Entwürfe bearbeiten", ServerName.broker)
BROKER_SEND = Right("makler:senden", "Hinausgehen lassen (mit deinem Klick)", ServerName.broker)

RIGHTS: dict[ServerName, tuple[Right, ...]] = {
    ServerName.search: (SEARCH_PUBLIC, SEARCH_ACCOUNT_READ, SEARCH_ACCOUNT_WRITE, SEARCH_CONTACT),
    ServerName.broker: (BROKER_READ, BROKER_WRITE, BROKER_SEND),
}


def right_rank(right: Right) -> int:
    return RIGHTS[right.server].index(right)
