"""The documented demo logins (README): they exist in every catalog size."""

from __future__ import annotations

from dataclasses import dataclass

from shared.demo.offices import default_office_names

DEMO_DOMAIN = "athaus-demo.example"
BROKER_PASSWORD = "makler-demo"
SEEKER_PASSWORD = "suche-demo"

_OFFICE_NAMES = default_office_names()


@dataclass(frozen=True)
class DemoAccount:
    """A documented demo login. `office` is the office's name in the default seed (7); for other seeds the
    account belongs to the office with the same `office_id`, whose name differs."""

    email: str
    password: str
    name: str
    role: str  # German, for people
    office: str | None
    office_id: int | None = None
    office_role: str | None = None  # owner | staff; None for seekers

    @property
    def kind(self) -> str:
        return "seeker" if self.office_id is None else "broker"


DEMO_ACCOUNTS: tuple[DemoAccount, ...] = (
    DemoAccount(
        f"inhaberin@{DEMO_DOMAIN}", BROKER_PASSWORD, "Katrin Albers", "Inhaberin des Maklerbüros",
        _OFFICE_NAMES[1], 1, "owner",
    ),
    DemoAccount(
        f"mitarbeiter@{DEMO_DOMAIN}", BROKER_PASSWORD, "Jonas Petersen", "Makler, Mitarbeiter im selben Büro",
        _OFFICE_NAMES[1], 1, "staff",
    ),
    DemoAccount(
        f"inhaber-zweitbuero@{DEMO_DOMAIN}", BROKER_PASSWORD, "Stefan Brückner",
        "Inhaber eines zweiten Maklerbüros (zum Prüfen der Trennung zwischen Büros)", _OFFICE_NAMES[2], 2, "owner",
    ),
    DemoAccount(f"suchende@{DEMO_DOMAIN}", SEEKER_PASSWORD, "Lena Hartwig", "Suchende mit Suchaufträgen, Treffern und Anfragen", None),
    DemoAccount(f"suchender@{DEMO_DOMAIN}", SEEKER_PASSWORD, "Tobias Reuter", "Suchender, zweites Konto (zum Prüfen der Trennung zwischen Suchenden)", None),
)


def is_documented(email: str) -> bool:
    """One of the logins above (or a generated user of the demo domain, of which there are none)."""
    return email.endswith(f"@{DEMO_DOMAIN}")
