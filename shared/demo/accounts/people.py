"""The people of the demo accounts: the documented logins, an owner and staff in every office, seekers."""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field

from shared.catalog.text import normalise
from shared.demo.accounts.logins import BROKER_PASSWORD, DEMO_ACCOUNTS, SEEKER_PASSWORD
from shared.demo.clock import DEMO_NOW
from shared.demo.german import de_number
from shared.demo.names import ALL_SURNAMES, FEMALE_FIRST_NAMES, MALE_FIRST_NAMES, SURNAMES
from shared.demo.offices import DemoOffice
from shared.demo.randomness import Weighted

SEEKER_COUNT = 150  # including the documented ones
_MOBILE_PREFIXES = ("0151", "0152", "0157", "0160", "0162", "0170", "0171", "0172", "0175", "0176", "0177", "0179")
_HOUSEHOLDS = Weighted(
    {"1 Erwachsener": 25, "2 Erwachsene": 35, "2 Erwachsene, 1 Kind": 20, "2 Erwachsene, 2 Kinder": 15,
     "1 Erwachsener, 1 Kind": 5}
)
_FINANCING = Weighted(
    {"Finanzierungsbestätigung liegt vor": 45, "Finanzierung in Vorbereitung": 30,
     "Eigenkapital rund 30 %, Finanzierung in Vorbereitung": 15, "Barkauf ohne Finanzierung": 10}
)


@dataclass
class DemoUser:
    id: int
    name: str
    email: str
    phone: str | None
    kind: str
    female: bool
    created_at: dt.datetime
    office_id: int | None = None
    role: str | None = None
    password: str = SEEKER_PASSWORD
    situation: dict[str, str] = field(default_factory=dict)  # a seeker's household, financing, income

    @property
    def last_name(self) -> str:
        return self.name.rsplit(" ", 1)[-1]

    @property
    def salutation(self) -> str:
        return f"{'Frau' if self.female else 'Herr'} {self.last_name}"


def draw_person(rng: random.Random, surname: str | None = None) -> tuple[str, str, bool]:
    """First name, surname and whether female."""
    female = rng.random() < 0.5
    first = rng.choice(FEMALE_FIRST_NAMES if female else MALE_FIRST_NAMES)
    return first, surname or rng.choice(ALL_SURNAMES), female


class People:
    def __init__(self, rng: random.Random, offices: dict[int, DemoOffice]) -> None:
        self.rng = rng
        self.offices = offices
        self.users: list[DemoUser] = []
        self.members: dict[int, list[DemoUser]] = {}  # office id → its brokers
        self.seekers: list[DemoUser] = []
        self.emails: set[str] = set()

    def draw(self) -> None:
        """The documented logins first, then an owner and 1–3 staff per office, then the other seekers."""
        rng = self.rng
        for account in DEMO_ACCOUNTS:
            if account.office_id is not None and account.office_id not in self.offices:
                continue
            female = account.email.startswith(("inhaberin@", "suchende@"))
            since = DEMO_NOW - dt.timedelta(days=900 if account.office_id else 60)
            phone = "0171 4455667" if account.office_id is None and account.email.startswith("suchende@") else None
            if account.office_id is not None:
                phone = f"{self.offices[account.office_id].place.area_code} {4_000_100 + len(self.users)}"
            self._add_user(account.name, account.email, phone, account.kind, female, since, account.password,
                           account.office_id, account.office_role)
        documented_roles = {(a.office_id, a.office_role) for a in DEMO_ACCOUNTS if a.office_id is not None}
        for office in self.offices.values():
            if (office.id, "owner") not in documented_roles:
                # The owner usually gave the office its name (the last surname in it, as a whole word).
                found = [(m.start(), name) for name in SURNAMES if (m := re.search(rf"\b{name}\b", office.name))]
                self._add_broker(office, "owner", max(found)[1] if found else None)
            staff_wanted = rng.randint(1, 3)
            while sum(member.role == "staff" for member in self.members.get(office.id, [])) < staff_wanted:
                self._add_broker(office, "staff", None)
        for _ in range(SEEKER_COUNT - len(self.seekers)):
            self._add_seeker()

    def _unique(self, local: str, domain: str) -> str:
        email = f"{local}@{domain}"
        number = 2
        while email in self.emails:
            email = f"{local}{number}@{domain}"
            number += 1
        return email

    def _add_broker(self, office: DemoOffice, role: str, surname: str | None) -> None:
        first, last, female = draw_person(self.rng, surname)
        email = self._unique(f"{_ascii(first)}.{_ascii(last)}", f"{office.slug}.example.org")
        phone = f"{office.place.area_code} {self.rng.randrange(200_000, 9_999_999)}"
        since = DEMO_NOW - dt.timedelta(days=self.rng.randint(200, 2500), seconds=self.rng.randrange(86_400))
        self._add_user(f"{first} {last}", email, phone, "broker", female, since, BROKER_PASSWORD, office.id, role)

    def _add_seeker(self) -> None:
        rng = self.rng
        first, last, female = draw_person(rng)
        local = rng.choice(
            (f"{_ascii(first)}.{_ascii(last)}", f"{_ascii(first)[0]}.{_ascii(last)}",
             f"{_ascii(first)}{_ascii(last)}{rng.randint(70, 99)}", f"{_ascii(last)}.{_ascii(first)}")
        )
        email = self._unique(local, rng.choice(("example.org", "example.org", "example.com")))
        phone = None
        if rng.random() < 0.45:
            phone = f"{rng.choice(_MOBILE_PREFIXES)} {rng.randrange(1_000_000, 99_999_999)}"
        since = DEMO_NOW - dt.timedelta(days=rng.randint(35, 700), seconds=rng.randrange(86_400))
        self._add_user(f"{first} {last}", email, phone, "seeker", female, since, SEEKER_PASSWORD, None, None)

    def _situation(self) -> dict[str, str]:
        rng = self.rng
        return {
            "household": _HOUSEHOLDS.pick(rng),
            "financing": _FINANCING.pick(rng),
            "income": f"Nettohaushaltseinkommen rund {de_number(rng.randrange(2_400, 7_600, 100))} €",
        }

    def _add_user(
        self, name: str, email: str, phone: str | None, kind: str, female: bool, since: dt.datetime,
        password: str, office_id: int | None, role: str | None,
    ) -> None:
        user = DemoUser(len(self.users) + 1, name, email, phone, kind, female, since, office_id, role, password)
        self.users.append(user)
        self.emails.add(email)
        if office_id is None:
            user.situation = self._situation()
            self.seekers.append(user)
        else:
            self.members.setdefault(office_id, []).append(user)


def _ascii(text: str) -> str:
    return "".join(re.findall(r"[a-z0-9]+", normalise(text.replace("ı", "i"))))
