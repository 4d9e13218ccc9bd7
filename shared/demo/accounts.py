"""Demo accounts: brokers in every office, seekers with saved searches and Treffer, inquiries with their
threads, valuations, proposals, listing status history and waiting confirmations, so that every read tool
of both servers has something real to show.

`seed_accounts` runs at the end of `seed_demo`, inside the same transaction, on the listings just written.
It is deterministic like the catalog: its own `random.Random`, derived from the catalog seed (the catalog's
stream is never touched, so the catalog rows stay byte-identical), every query in a total order, and all
times relative to DEMO_NOW, never the clock. Two columns differ between runs on purpose, because they must
be secret: the salted password hashes and the token hashes of pending actions (random tokens, discarded).

The logins in DEMO_ACCOUNTS exist in every catalog size. Every other demo user signs in with the password of
their kind too (brokers BROKER_PASSWORD, seekers SEEKER_PASSWORD): this is demo data, never production data.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import random
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, func, insert, select

from contract.catalog import CatalogFilters, Near
from shared.auth.passwords import hash_password
from shared.catalog.search import KM_PER_DEGREE_LAT, KM_PER_DEGREE_LON_EQUATOR
from shared.catalog.text import normalise
from shared.db.models import (
    Inquiry,
    InquiryMessage,
    Listing,
    ListingStatusChange,
    Match,
    OfficeMember,
    PendingAction,
    Place,
    Proposal,
    SearchOrder,
    User,
    Valuation,
)
from shared.demo.generate import (
    _STREETS,
    _SURNAMES,
    CHUNK_SIZE,
    DEFAULT_SEED,
    DEMO_NOW,
    MAX_JITTER_KM,
    _de_number,
    _DemoOffice,
    _offices,
    _Weighted,
)
from shared.demo.places import DEMO_PLACES, DemoPlace

Row = dict[str, Any]

DEMO_DOMAIN = "athaus-demo.example"
BROKER_PASSWORD = "makler-demo"
SEEKER_PASSWORD = "suche-demo"

SEEKER_COUNT = 150  # including the documented ones
INQUIRIES_PER_PUBLISHED = 1 / 6
MAX_INQUIRIES = 2_000
MATCH_WINDOW = dt.timedelta(days=30)
OFFICE_ONE_UNANSWERED = 6  # open inquiries to office 1, 3–10 days old (the situation report shows them)
OFFICE_ONE_PROPOSAL_SEARCHES = 4  # approachable searches of generated seekers around office 1's listings


def _default_office_names() -> dict[int, str]:
    """Office names of the default seed: `_offices` is the first draw of seed_demo's random stream."""
    return {office.id: office.name for office in _offices(random.Random(DEFAULT_SEED))}


_OFFICE_NAMES = _default_office_names()


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


@dataclass(frozen=True)
class AccountsSummary:
    users: int
    search_orders: int
    matches: int
    inquiries: int
    messages: int
    valuations: int
    proposals: int
    status_changes: int
    pending_actions: int


# --- people --------------------------------------------------------------------------------------------

_FEMALE = (
    "Anna", "Laura", "Julia", "Sarah", "Lisa", "Katharina", "Johanna", "Sophie", "Marie", "Lea", "Hannah", "Miriam",
    "Christina", "Sabine", "Claudia", "Petra", "Andrea", "Nicole", "Stefanie", "Melanie", "Franziska", "Carolin",
    "Jana", "Nina", "Elena", "Theresa", "Ines", "Birgit", "Susanne", "Monika", "Ayşe", "Natalia", "Emilia",
)
_MALE = (
    "Lukas", "Jan", "Felix", "Maximilian", "Paul", "Leon", "David", "Tim", "Niklas", "Philipp", "Simon", "Florian",
    "Thomas", "Michael", "Andreas", "Stefan", "Christian", "Markus", "Matthias", "Daniel", "Sebastian", "Alexander",
    "Tobias", "Benjamin", "Jörg", "Frank", "Uwe", "Ralf", "Mehmet", "Piotr", "Konstantin", "Moritz", "Jonas",
)
_MORE_SURNAMES = (
    "Albrecht", "Arnold", "Bauer", "Beck", "Böhm", "Dietrich", "Ernst", "Frank", "Franke", "Friedrich", "Günther",
    "Hahn", "Heinrich", "Herrmann", "Horn", "Huber", "Jäger", "Keller", "König", "Kraus", "Kuhn", "Ludwig", "Martin",
    "Mayer", "Möller", "Nowak", "Otto", "Roth", "Schäfer", "Schmitt", "Schubert", "Schulte", "Schumacher", "Seidel",
    "Simon", "Stein", "Thomas", "Voigt", "Walter", "Winkler", "Wolff", "Yılmaz", "Ziegler", "Kowalski", "Petrović",
)
_ALL_SURNAMES = tuple(sorted(set(_SURNAMES) | set(_MORE_SURNAMES)))
_MOBILE_PREFIXES = ("0151", "0152", "0157", "0160", "0162", "0170", "0171", "0172", "0175", "0176", "0177", "0179")
_HOUSEHOLDS = _Weighted(
    {"1 Erwachsener": 25, "2 Erwachsene": 35, "2 Erwachsene, 1 Kind": 20, "2 Erwachsene, 2 Kinder": 15,
     "1 Erwachsener, 1 Kind": 5}
)
_FINANCING = _Weighted(
    {"Finanzierungsbestätigung liegt vor": 45, "Finanzierung in Vorbereitung": 30,
     "Eigenkapital rund 30 %, Finanzierung in Vorbereitung": 15, "Barkauf ohne Finanzierung": 10}
)
_FREQUENCIES = _Weighted({"instant": 45, "daily": 40, "weekly": 15})
_ORDER_STATUSES = _Weighted({"active": 78, "paused": 13, "ended": 9})
_INQUIRY_STATUSES = _Weighted({"open": 25, "answered": 50, "closed": 25})
_MATCH_STATES_NEW = _Weighted({"new": 80, "seen": 20})
_MATCH_STATES_OLD = _Weighted({"new": 20, "seen": 45, "interesting": 20, "not_interested": 15})
_PROPOSAL_STATUSES = _Weighted({"open": 40, "accepted": 35, "rejected": 25})

_WEEKDAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")
# How messages name the object: nominative, accusative, "Interesse …", pronoun
_OBJECT_WORDS = {
    "apartment": ("die Wohnung", "die Wohnung", "an der Wohnung", "Sie"),
    "house": ("das Haus", "das Haus", "am Haus", "Es"),
    "land": ("das Grundstück", "das Grundstück", "am Grundstück", "Es"),
    "commercial": ("die Fläche", "die Fläche", "an der Fläche", "Sie"),
    "parking": ("der Stellplatz", "den Stellplatz", "am Stellplatz", "Er"),
}
# The shared profile's household, as the seeker says it in a message.
_HOUSEHOLD_SENTENCES = {
    "1 Erwachsener": "Ich suche für mich allein.",
    "2 Erwachsene": "Wir sind ein Paar ohne Kinder.",
    "2 Erwachsene, 1 Kind": "Wir sind eine Familie mit einem Kind.",
    "2 Erwachsene, 2 Kinder": "Wir sind eine Familie mit zwei Kindern.",
    "1 Erwachsener, 1 Kind": "Ich bin alleinerziehend mit einem Kind.",
}
_SEARCH_NOUNS = {
    "apartment": "Wohnung", "house": "Haus", "land": "Grundstück", "commercial": "Gewerbefläche",
    "parking": "Stellplatz",
}
_PLACES_BY_NAME = {place.name: place for place in DEMO_PLACES}

# Columns the generator reads back from the listings it has just written.
_LISTING_COLUMNS = (
    Listing.id, Listing.ref, Listing.office_id, Listing.status, Listing.marketing_type, Listing.property_type,
    Listing.title, Listing.city, Listing.postal_code, Listing.street, Listing.house_number, Listing.price,
    Listing.service_charges, Listing.heating_costs, Listing.living_area, Listing.rooms, Listing.energy_status,
    Listing.available_from, Listing.availability_note, Listing.published_at, Listing.created_at, Listing.updated_at,
)


def _utc(value: dt.datetime) -> dt.datetime:
    """SQLite returns naive datetimes; all stored times are UTC."""
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


_SEARCH_FIELDS = {"city", "near", "marketing_type", "property_types", "min_price", "max_price", "min_rooms", "max_rooms"}


def _within(low: float | None, high: float | None, value: float | None) -> bool:
    """A range filter; a listing without the value never matches a range."""
    if low is None and high is None:
        return True
    return value is not None and (low is None or value >= low) and (high is None or value <= high)


def _distance(centre: tuple[float, float], latitude: float, longitude: float) -> float:
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre[0]))
    return math.hypot((latitude - centre[0]) * KM_PER_DEGREE_LAT, (longitude - centre[1]) * km_per_lon)


def _in_circle(centre: tuple[float, float], radius_km: float, latitude: float, longitude: float) -> bool:
    """The catalog search's circle test (shared.catalog.search.near_conditions), same arithmetic."""
    km_per_lon = KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(centre[0]))
    dlat, dlon = radius_km / KM_PER_DEGREE_LAT, radius_km / km_per_lon
    if not (centre[0] - dlat <= latitude <= centre[0] + dlat and centre[1] - dlon <= longitude <= centre[1] + dlon):
        return False
    dy = (latitude - centre[0]) * KM_PER_DEGREE_LAT
    dx = (longitude - centre[1]) * km_per_lon
    return dx * dx + dy * dy <= radius_km * radius_km


def _ascii(text: str) -> str:
    return "".join(re.findall(r"[a-z0-9]+", normalise(text.replace("ı", "i"))))


@dataclass(frozen=True)
class _Lst:
    """A listing as read back: only what the accounts need."""

    id: int
    ref: str
    office_id: int
    status: str
    marketing_type: str
    property_type: str
    title: str
    city: str
    postal_code: str
    street: str | None
    house_number: str | None
    price: float | None
    service_charges: float | None
    heating_costs: float | None
    living_area: float | None
    rooms: float | None
    energy_status: str
    available_from: dt.date | None
    availability_note: str | None
    published_at: dt.datetime | None
    created_at: dt.datetime
    updated_at: dt.datetime

    @classmethod
    def of(cls, row: Any) -> _Lst:
        values = row._asdict()
        for name in ("published_at", "created_at", "updated_at"):
            if values[name] is not None:
                values[name] = _utc(values[name])
        return cls(**values)


@dataclass
class _User:
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


@dataclass
class _Order:
    id: int
    ref: str
    user: _User
    filters: CatalogFilters
    status: str
    frequency: str
    approachable: bool
    created_at: dt.datetime
    seed: _Lst | None  # the listing the criteria were drawn around
    row: Row = field(default_factory=dict)


@dataclass
class _Event:
    """Something that happened to a listing after it was published: a price drop or reserved → published."""

    kind: str
    at: dt.datetime
    detail: dict[str, Any]


@dataclass
class _Thread:
    listing: _Lst
    seeker: _User
    status: str
    created_at: dt.datetime
    messages: list[tuple[str, int | None, str, dt.datetime]] = field(default_factory=list)
    profile: dict[str, Any] = field(default_factory=dict)
    letters: _Letters | None = None
    ref: str = ""
    id: int = 0


# --- the generator ---------------------------------------------------------------------------------------


def seed_accounts(connection: Connection, offices: Sequence[_DemoOffice], seed: int) -> AccountsSummary:
    """Write the demo accounts for the catalog just written on `connection` (same transaction)."""
    return _Accounts(connection, offices, random.Random(f"athaus-demo-accounts/{seed}")).run()


class _Accounts:
    def __init__(self, connection: Connection, offices: Sequence[_DemoOffice], rng: random.Random) -> None:
        self.connection = connection
        self.rng = rng
        self.offices = {office.id: office for office in offices}
        self.users: list[_User] = []
        self.members: dict[int, list[_User]] = {}
        self.seekers: list[_User] = []
        self.emails: set[str] = set()
        self.events: dict[int, _Event | None] = {}
        self.orders: list[_Order] = []
        self.matches: list[Row] = []
        self.proposals: list[Row] = []
        self.threads: list[_Thread] = []
        self.inquired: set[tuple[int, int]] = set()
        self.known: dict[int, _Lst] = {}  # every listing read back, by id
        self.comparable_rows: dict[tuple[str, str, str], list[Any]] = {}  # (city, marketing, type) → listings

    def run(self) -> AccountsSummary:
        self._users()
        published = self.connection.scalar(
            select(func.count()).select_from(Listing).where(Listing.status == "published")
        ) or 0
        inquiry_target = min(MAX_INQUIRIES, round(published * INQUIRIES_PER_PUBLISHED))
        self.pool = self._published_sample(inquiry_target + 400)
        self.office_listings = {
            office_id: [
                _Lst.of(row)
                for row in self.connection.execute(
                    select(*_LISTING_COLUMNS).where(Listing.office_id == office_id).order_by(Listing.id)
                )
            ]
            for office_id in (1, 2)
            if office_id in self.offices
        }
        self._search_orders()
        self._inquiries(inquiry_target)
        valuations = self._valuations()
        status_changes = self._status_history()
        pending = self._pending_actions()
        self._write(valuations, status_changes, pending)
        return AccountsSummary(
            users=len(self.users),
            search_orders=len(self.orders),
            matches=len(self.matches),
            inquiries=len(self.threads),
            messages=sum(len(thread.messages) for thread in self.threads),
            valuations=len(valuations),
            proposals=len(self.proposals),
            status_changes=len(status_changes),
            pending_actions=len(pending),
        )

    # --- users ---

    def _users(self) -> None:
        rng = self.rng
        # scrypt costs ~50–150 ms per hash, so each distinct demo password is hashed once and that hash string is
        # shared by every user with the password (the salt travels inside the hash, so it verifies for all).
        self.password_hashes = {password: hash_password(password) for password in (BROKER_PASSWORD, SEEKER_PASSWORD)}
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
                found = [(m.start(), name) for name in _SURNAMES if (m := re.search(rf"\b{name}\b", office.name))]
                self._add_broker(office, "owner", max(found)[1] if found else None)
            staff_wanted = rng.randint(1, 3)
            while sum(member.role == "staff" for member in self.members.get(office.id, [])) < staff_wanted:
                self._add_broker(office, "staff", None)
        for _ in range(SEEKER_COUNT - len(self.seekers)):
            self._add_seeker()

    def _person(self, surname: str | None = None) -> tuple[str, str, bool]:
        rng = self.rng
        female = rng.random() < 0.5
        first = rng.choice(_FEMALE if female else _MALE)
        return first, surname or rng.choice(_ALL_SURNAMES), female

    def _unique(self, local: str, domain: str) -> str:
        email = f"{local}@{domain}"
        number = 2
        while email in self.emails:
            email = f"{local}{number}@{domain}"
            number += 1
        return email

    def _add_broker(self, office: _DemoOffice, role: str, surname: str | None) -> None:
        first, last, female = self._person(surname)
        email = self._unique(f"{_ascii(first)}.{_ascii(last)}", f"{office.slug}.example.org")
        phone = f"{office.place.area_code} {self.rng.randrange(200_000, 9_999_999)}"
        since = DEMO_NOW - dt.timedelta(days=self.rng.randint(200, 2500), seconds=self.rng.randrange(86_400))
        self._add_user(f"{first} {last}", email, phone, "broker", female, since, BROKER_PASSWORD, office.id, role)

    def _add_seeker(self) -> None:
        rng = self.rng
        first, last, female = self._person()
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
            "income": f"Nettohaushaltseinkommen rund {_de_number(rng.randrange(2_400, 7_600, 100))} €",
        }

    def _add_user(
        self, name: str, email: str, phone: str | None, kind: str, female: bool, since: dt.datetime,
        password: str, office_id: int | None, role: str | None,
    ) -> None:
        user = _User(len(self.users) + 1, name, email, phone, kind, female, since, office_id, role, password)
        self.users.append(user)
        self.emails.add(email)
        if office_id is None:
            user.situation = self._situation()
            self.seekers.append(user)
        else:
            self.members.setdefault(office_id, []).append(user)

    # --- listings read back ---

    def _published_sample(self, wanted: int) -> list[_Lst]:
        """Published listings in random order, fetched by primary key (flat in memory at any catalog size)."""
        highest = self.connection.scalar(select(func.max(Listing.id))) or 0
        ids = self.rng.sample(range(1, highest + 1), min(highest, wanted + wanted // 8))
        found: dict[int, _Lst] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start:start + 500]
            rows = self.connection.execute(
                select(*_LISTING_COLUMNS).where(Listing.id.in_(chunk), Listing.status == "published")
            )
            found.update((row.id, _Lst.of(row)) for row in rows)
        return [found[i] for i in ids if i in found]

    def _fitting(self, filters: CatalogFilters, office_id: int | None = None, limit: int = 80) -> list[_Lst]:
        """Published listings that fit the filters, newest first, with the catalog search's semantics for the
        filters demo searches use (place or circle, marketing type, property types, price and rooms).

        Filtered here, not in SQL: the city index is the selective one, but without ANALYZE statistics SQLite
        prefers the price index and scans a large part of a 10^5 catalog for every saved search.
        """
        unsupported = set(filters.model_dump(exclude_none=True)) - _SEARCH_FIELDS
        if unsupported:
            raise ValueError(f"demo searches do not filter by {sorted(unsupported)}")
        near, centre = filters.near, None
        if near is not None:
            centre = self._centre(near.place or "")
            if centre is None:
                return []
            reach = near.radius_km + MAX_JITTER_KM + 1
            keys = sorted({normalise(p.name) for p in DEMO_PLACES if _distance(centre, p.latitude, p.longitude) <= reach})
        else:
            keys = [normalise((filters.city or "").strip())]
        types = {p.value for p in filters.property_types or []}
        marketing = filters.marketing_type.value if filters.marketing_type is not None else None
        rows = self.connection.execute(
            select(Listing.id, Listing.office_id, Listing.status, Listing.marketing_type, Listing.property_type,
                   Listing.price, Listing.rooms, Listing.latitude, Listing.longitude, Listing.published_at)
            .where(Listing.city_key.in_(keys))
        )
        hits = []
        for row in rows:
            if (
                row.status == "published"
                and (office_id is None or row.office_id == office_id)
                and (marketing is None or row.marketing_type == marketing)
                and (not types or row.property_type in types)
                and _within(filters.min_price, filters.max_price, row.price)
                and _within(filters.min_rooms, filters.max_rooms, row.rooms)
                and (centre is None or near is None or _in_circle(centre, near.radius_km, row.latitude, row.longitude))
            ):
                hits.append((_utc(row.published_at), row.id))
        hits.sort(key=lambda hit: (-hit[0].timestamp(), hit[1]))
        ids = [listing_id for _, listing_id in hits[:limit]]
        found = {
            row.id: _Lst.of(row)
            for row in self.connection.execute(select(*_LISTING_COLUMNS).where(Listing.id.in_(ids)))
        } if ids else {}
        self.known.update(found)
        return [found[listing_id] for listing_id in ids]

    def _centre(self, place: str) -> tuple[float, float] | None:
        """The centre of a place as the catalog search takes it: the mean of its postal areas."""
        latitude, longitude = self.connection.execute(
            select(func.avg(Place.latitude), func.avg(Place.longitude)).where(Place.name_key == normalise(place.strip()))
        ).one()
        return None if latitude is None else (float(latitude), float(longitude))

    # --- saved searches, Treffer, proposals ---

    def _search_orders(self) -> None:
        rng = self.rng
        residential = [lst for lst in self.pool if lst.property_type in ("apartment", "house")] or self.pool
        seeds = iter(residential)
        office_seeds = {
            office_id: [lst for lst in listings if lst.status == "published" and lst.property_type in ("apartment", "house")]
            for office_id, listings in self.office_listings.items()
        }
        home_seeds = {  # in the office's own city, where it has the most listings
            office_id: [lst for lst in listings if lst.city == self.offices[office_id].place.name] or listings
            for office_id, listings in office_seeds.items()
        }

        def next_seed(office_id: int | None = None, home: bool = False) -> _Lst | None:
            if office_id is not None and office_seeds.get(office_id):
                return rng.choice((home_seeds if home else office_seeds)[office_id])
            return next(seeds, None) or (rng.choice(residential) if residential else None)

        documented = [s for s in self.seekers if s.email.endswith(f"@{DEMO_DOMAIN}")]
        plans: list[tuple[_User, _Lst | None, str, bool, int | None, str]] = []
        # (seeker, seed, status, approachable, office to propose from, frequency)
        for seeker in documented:
            if seeker.email.startswith("suchende@"):
                plans += [
                    (seeker, next_seed(1, home=True), "active", True, 1, "instant"),
                    (seeker, next_seed(), "active", False, None, "weekly"),
                    (seeker, next_seed(), "paused", False, None, "daily"),
                ]
            else:
                plans += [
                    (seeker, next_seed(1, home=True), "active", True, 1, "daily"),
                    (seeker, next_seed(2, home=True), "active", True, 2, "instant"),
                ]
        forced = OFFICE_ONE_PROPOSAL_SEARCHES
        for seeker in self.seekers:
            if seeker in documented or rng.random() >= 2 / 3:
                continue
            for n in range(rng.choices((1, 2, 3), weights=(55, 30, 15))[0]):
                if n == 0 and forced > 0:
                    forced -= 1
                    plans.append((seeker, next_seed(1), "active", True, 1, _FREQUENCIES.pick(rng)))
                    continue
                seed = next_seed()
                plans.append((seeker, seed, _ORDER_STATUSES.pick(rng), rng.random() < 0.4, None,
                              _FREQUENCIES.pick(rng)))
        for seeker, seed, status, approachable, office_id, frequency in plans:
            self._search_order(seeker, seed, status, approachable, office_id, frequency)
        # Treffer in the order they arrived: T-000001 is the oldest.
        self.matches.sort(key=lambda m: (m["created_at"], m["search_order_id"], m["listing_id"], m["kind"]))
        for number, match in enumerate(self.matches, start=1):
            match.update(id=number, ref=f"T-{number:06d}")

    def _criteria(self, seed: _Lst | None, broad: bool = False) -> tuple[CatalogFilters, str]:
        """Criteria drawn around a listing, so that at least that listing fits; `broad` for the documented
        accounts, whose searches should find something even in a small catalog."""
        rng = self.rng
        if seed is None:  # an empty catalog: a plausible search all the same
            place = rng.choice(DEMO_PLACES)
            city, marketing, property_type, rooms = place.name, rng.choice(("buy", "rent")), "apartment", 3.0
            price: float | None = 75 * (place.buy_per_sqm if marketing == "buy" else place.rent_per_sqm)
        else:
            city, marketing, property_type = seed.city, seed.marketing_type, seed.property_type
            rooms, price = seed.rooms, seed.price
        buy = marketing == "buy"
        if broad and price is not None:  # at least what 110 m² cost there
            place = _PLACES_BY_NAME[city]
            price = max(price, 110 * (place.buy_per_sqm if buy else place.rent_per_sqm) / 1.5)
        property_types = [property_type]
        if broad and property_type in ("apartment", "house"):
            property_types = ["apartment", "house"]
        arguments: dict[str, Any] = {"marketing_type": marketing, "property_types": property_types}
        if broad or rng.random() < 0.75:
            arguments["city"] = city
            where = f"in {city}"
        else:
            radius = rng.choice((10, 15, 20, 25, 30))
            arguments["near"] = Near(place=city, radius_km=radius)
            where = f"im Umkreis von {radius} km um {city}"
        details = []
        if rooms is not None and property_type in ("apartment", "house") and rng.random() < (0.4 if broad else 0.7):
            low = max(1.0, math.floor(rooms) - (1 if broad else rng.choice((0, 0, 1))))
            high = float(math.ceil(rooms) + rng.choice((0, 1))) if not broad and rng.random() < 0.2 else None
            if low > 1:  # "ab 1 Zimmer" says nothing
                arguments["min_rooms"] = low
            if high is not None:
                arguments["max_rooms"] = high
            if low > 1 and high is not None:
                details.append(f"{_de_number(low)}–{_de_number(high)} Zimmer")
            elif low > 1:
                details.append(f"ab {_de_number(low)} Zimmer")
            elif high is not None:
                details.append(f"bis {_de_number(high)} Zimmer")
        if price is not None:
            step = 10_000 if buy else 50
            factor = rng.uniform(1.4, 1.6) if broad else rng.uniform(1.05, 1.5)
            arguments["max_price"] = float(math.ceil(price * factor / step) * step)
            if not broad and rng.random() < 0.25:
                arguments["min_price"] = float(math.floor(price * rng.uniform(0.55, 0.9) / step) * step)
                details.append(f"{_de_number(arguments['min_price'])}–{_de_number(arguments['max_price'])} €")
            else:
                details.append(f"bis {_de_number(arguments['max_price'])} €")
        filters = CatalogFilters(**arguments)
        noun = " oder ".join(_SEARCH_NOUNS[p] for p in property_types)
        name = f"{noun} {'kaufen' if buy else 'mieten'} {where}"
        return filters, ", ".join([name, *details])

    def _search_order(
        self, seeker: _User, seed: _Lst | None, status: str, approachable: bool, office_id: int | None,
        frequency: str,
    ) -> None:
        rng = self.rng
        documented = seeker.email.endswith(f"@{DEMO_DOMAIN}")
        filters, name = self._criteria(seed, broad=documented)
        earliest = max(seeker.created_at, DEMO_NOW - dt.timedelta(days=180))
        if documented or rng.random() < 0.85:
            span = (DEMO_NOW - MATCH_WINDOW - earliest).total_seconds()
            created = earliest + dt.timedelta(seconds=rng.uniform(0, max(span, 0)))
        else:  # a fresh search
            created = DEMO_NOW - dt.timedelta(seconds=rng.uniform(86_400, MATCH_WINDOW.total_seconds()))
        if status == "active" and rng.random() < 0.7:
            updated = created
        else:
            updated = created + (DEMO_NOW - created) * rng.uniform(0.2, 0.95)
        number = len(self.orders) + 1
        order = _Order(number, f"S-{number:06d}", seeker, filters, status, frequency, approachable, created, seed)
        self.orders.append(order)
        order.row = {
            "id": number,
            "ref": order.ref,
            "user_id": seeker.id,
            "name": name[:200],
            "criteria": filters.model_dump(mode="json", exclude_none=True),
            "frequency": frequency,
            "status": status,
            "approachable": approachable,
            "created_at": created,
            "updated_at": updated,
        }
        if status != "active":
            return
        proposed: set[int] = set()
        if approachable and seed is not None:
            proposed = self._proposals(order, office_id or seed.office_id, guaranteed=office_id is not None)
        wanted = rng.randint(5, 10) if documented else rng.randint(0, 12)
        candidates = [lst for lst in self._fitting(filters) if lst.id not in proposed]
        rng.shuffle(candidates)
        made = 0
        for lst in candidates:
            if made >= wanted:
                break
            made += self._matches_for(order, lst, room=wanted - made)

    def _delivery(self, event_at: dt.datetime, frequency: str) -> dt.datetime:
        """When the Treffer reaches the seeker: at once, with the next morning's or next Monday's digest."""
        if frequency == "instant":
            return event_at + dt.timedelta(minutes=self.rng.randint(1, 15))
        morning = dt.datetime.combine(event_at.date(), dt.time(6, 0), tzinfo=dt.UTC)
        days = 1 if frequency == "daily" else 7 - event_at.weekday()
        return morning + dt.timedelta(days=days)

    def _event(self, lst: _Lst) -> _Event | None:
        """At most one change per listing, shared by every search that reports it; never after updated_at."""
        if lst.id in self.events:
            return self.events[lst.id]
        rng = self.rng
        event = None
        assert lst.published_at is not None
        earliest = max(lst.published_at + dt.timedelta(days=2), DEMO_NOW - MATCH_WINDOW)
        if lst.updated_at > earliest and rng.random() < 0.35:
            at = earliest + (lst.updated_at - earliest) * rng.random()
            if lst.price is not None and rng.random() < 0.6:
                step = -3 if lst.marketing_type == "buy" else -1
                old = round(lst.price * rng.uniform(1.04, 1.15), step)
                if old <= lst.price:
                    old = lst.price + 10 ** -step
                event = _Event("price_drop", at, {"old_price": old, "new_price": lst.price})
            else:
                event = _Event("status_change", at, {"old_status": "reserved", "new_status": "published"})
        self.events[lst.id] = event
        return event

    def _matches_for(self, order: _Order, lst: _Lst, room: int) -> int:
        """Up to `room` Treffer for one listing: it was new, and/or its price dropped or its reservation ended."""
        rng = self.rng
        assert lst.published_at is not None
        found: list[tuple[str, dt.datetime, dict[str, Any]]] = []
        if lst.published_at >= order.created_at:
            found.append(("new_listing", self._delivery(lst.published_at, order.frequency), {}))
        event = self._event(lst)
        if event is not None and event.at >= order.created_at and (not found or rng.random() < 0.5):
            found.append((event.kind, self._delivery(event.at, order.frequency), event.detail))
        made = 0
        for kind, at, detail in found:
            if made < room and DEMO_NOW - MATCH_WINDOW <= at <= DEMO_NOW:
                self._match(order, lst, kind, at, dict(detail))
                made += 1
        return made

    def _match(self, order: _Order, lst: _Lst, kind: str, at: dt.datetime, detail: dict[str, Any]) -> None:
        states = _MATCH_STATES_NEW if DEMO_NOW - at < dt.timedelta(days=2) else _MATCH_STATES_OLD
        self.matches.append(
            {
                "search_order_id": order.id,
                "listing_id": lst.id,
                "kind": kind,
                "detail": detail,
                "state": states.pick(self.rng),
                "created_at": at,
            }
        )

    def _proposals(self, order: _Order, office_id: int, guaranteed: bool) -> set[int]:
        """Listings of one office that fit an approachable search; the first one of a guaranteed search is open."""
        rng = self.rng
        candidates = self._fitting(order.filters, office_id=office_id, limit=20)
        rng.shuffle(candidates)
        count = rng.randint(1, 3) if guaranteed else rng.choice((0, 1, 1, 2, 3))
        chosen: set[int] = set()
        for lst in candidates[:count]:
            assert lst.published_at is not None
            earliest = max(order.created_at, lst.published_at, DEMO_NOW - dt.timedelta(days=21))
            latest = DEMO_NOW - dt.timedelta(hours=1)
            if earliest >= latest:
                continue
            status = "open" if guaranteed and not chosen else _PROPOSAL_STATUSES.pick(rng)
            created = earliest + (latest - earliest) * rng.random()
            decided = None
            if status != "open":
                decided = min(DEMO_NOW, created + dt.timedelta(hours=rng.uniform(1, 72)))
            self.proposals.append(
                {
                    "office_id": office_id,
                    "listing_id": lst.id,
                    "search_order_id": order.id,
                    "status": status,
                    "created_at": created,
                    "decided_at": decided,
                }
            )
            if status == "accepted" and decided is not None:  # the exposé went to the seeker as a Treffer
                self._match(order, lst, "proposal", decided, {"office": self.offices[office_id].name})
            chosen.add(lst.id)
        return chosen

    # --- inquiries ---

    def _inquiries(self, target: int) -> None:
        rng = self.rng
        documented = {s.email.split("@")[0]: s for s in self.seekers if s.email.endswith(f"@{DEMO_DOMAIN}")}
        one = [lst for lst in self.office_listings.get(1, []) if lst.status == "published"]
        two = [lst for lst in self.office_listings.get(2, []) if lst.status == "published"]
        others = [s for s in self.seekers if s.email not in {d.email for d in documented.values()}] or self.seekers
        # Each plan: (seekers to pick from, listings to pick from, status, age range in days of an open one)
        lena, tobias = documented.get("suchende"), documented.get("suchender")
        old_enough = [lst for lst in one if lst.published_at and lst.published_at < DEMO_NOW - dt.timedelta(days=11)]
        plans: list[tuple[list[_User], list[_Lst], str, tuple[float, float] | None]] = []
        if lena:
            plans += [([lena], old_enough, "open", (3.5, 5)), ([lena], one, "answered", None),
                      ([lena], self.pool, "closed", None), ([lena], self.pool, "answered", None)]
        if tobias:
            plans += [([tobias], two, "open", (1.0, 1.8)), ([tobias], one, "answered", None)]
        # Office 1 always has unanswered inquiries for the situation report, old ones and new ones.
        plans += [(others, old_enough, "open", (3, 10))] * OFFICE_ONE_UNANSWERED
        plans += [(others, one, "open", (0.05, 1.5))] * 2
        for seekers, listings, status, ages in plans:
            for _ in range(50):  # until one fits (a pair may exist already, a listing may be too new)
                if not listings or self._thread(rng.choice(seekers), rng.choice(listings), status, ages):
                    break
        # The rest: seekers who found something, some of them through their Treffer.
        interesting = [m for m in self.matches if m["state"] == "interesting"]
        orders = {order.id: order for order in self.orders}
        listings = {**self.known, **{lst.id: lst for lst in self.pool}}
        for match in interesting:
            if len(self.threads) >= target:
                break
            order, lst = orders[match["search_order_id"]], listings.get(match["listing_id"])
            if lst is not None and rng.random() < 0.5:
                self._thread(order.user, lst, self._status(), None, after=match["created_at"])
        for lst in self.pool:
            if len(self.threads) >= target:
                break
            self._thread(rng.choice(others), lst, self._status(), None)
        # I-000001 is the oldest inquiry.
        self.threads.sort(key=lambda t: (t.created_at, t.listing.id, t.seeker.id))
        for number, thread in enumerate(self.threads, start=1):
            thread.id, thread.ref = number, f"I-{number:06d}"

    def _status(self) -> str:
        return _INQUIRY_STATUSES.pick(self.rng)

    def _thread(
        self, seeker: _User, lst: _Lst, status: str, ages: tuple[float, float] | None,
        after: dt.datetime | None = None,
    ) -> bool:
        rng = self.rng
        if (seeker.id, lst.id) in self.inquired or lst.published_at is None:
            return False
        earliest = max(lst.published_at + dt.timedelta(hours=1), DEMO_NOW - MATCH_WINDOW, seeker.created_at)
        if after is not None:
            earliest = max(earliest, after + dt.timedelta(minutes=20))
        latest = DEMO_NOW - dt.timedelta(minutes=20)
        if status == "open":
            if ages is None:
                ages = (0.02, 2.0) if rng.random() < 0.6 else (3.0, 10.0)
            created = DEMO_NOW - dt.timedelta(days=rng.uniform(*ages))
            if created < earliest:
                return False
        else:
            latest_start = latest - dt.timedelta(days=1)
            if earliest >= latest_start:
                return False
            created = earliest + (latest_start - earliest) * rng.random()
        self.inquired.add((seeker.id, lst.id))
        thread = _Thread(lst, seeker, status, created)
        thread.profile = self._profile(seeker, lst)
        self._write_thread(thread, latest)
        self.threads.append(thread)
        return True

    def _profile(self, seeker: _User, lst: _Lst) -> dict[str, Any]:
        rng = self.rng
        profile: dict[str, Any] = {"name": seeker.name, "email": seeker.email}
        if seeker.phone and rng.random() < 0.7:
            profile["phone"] = seeker.phone
        profile["household"] = seeker.situation["household"]
        key = "financing" if lst.marketing_type == "buy" else "income"
        profile[key] = seeker.situation[key]
        return profile

    def _write_thread(self, thread: _Thread, latest: dt.datetime) -> None:
        """1–4 messages, seeker and office in turn: open has only the seeker's, answered ends with the office."""
        rng = self.rng
        lengths = {"open": (1,), "answered": (2, 4), "closed": (2, 3, 4)}[thread.status]
        wanted = rng.choice(lengths)
        times = [thread.created_at]
        for n in range(1, wanted):
            hours = rng.uniform(0.5, 26) if n % 2 else rng.uniform(1, 40)  # office replies, then the seeker
            times.append(times[-1] + dt.timedelta(hours=hours))
        while len(times) > 1 and times[-1] > latest:
            times.pop()
        if thread.status == "answered" and len(times) % 2:
            times.pop()
        if len(times) == 1:
            thread.status = "open"
        thread.letters = _Letters(rng, thread, self.offices[thread.listing.office_id],
                                  self.members.get(thread.listing.office_id, []))
        thread.messages = thread.letters.messages(times, closing=thread.status == "closed")

    # --- valuations ---

    def _valuations(self) -> list[Row]:
        rng = self.rng
        rows: list[Row] = []
        for office in self.offices.values():
            own = [
                _Lst.of(row)
                for row in self.connection.execute(
                    select(*_LISTING_COLUMNS)
                    .where(Listing.office_id == office.id, Listing.property_type.in_(("apartment", "house")),
                           Listing.living_area.is_not(None))
                    .order_by(Listing.id).limit(40)
                )
            ]
            for _ in range(rng.randint(2, 6)):
                if own and rng.random() < 0.5:
                    rows.append(self._listing_valuation(office, rng.choice(own)))
                else:
                    rows.append(self._lead_valuation(office))
        rows.sort(key=lambda r: (r["created_at"], r["office_id"]))
        for number, row in enumerate(rows, start=1):
            row.update(id=number, ref=f"V-{number:06d}")
        return rows

    def _comparables(self, city: str, marketing: str, property_type: str, area: float, exclude: int | None) -> list[Any]:
        """The published listings of the place closest in living area (3–6 of them)."""
        key = (city, marketing, property_type)
        if key not in self.comparable_rows:
            # Only the city key in SQL: the index SQLite picks reliably; the rest is filtered here.
            self.comparable_rows[key] = [
                row
                for row in self.connection.execute(
                    select(Listing.id, Listing.ref, Listing.status, Listing.marketing_type, Listing.property_type,
                           Listing.price, Listing.living_area)
                    .where(Listing.city_key == normalise(city)).order_by(Listing.id)
                )
                if row.status == "published" and row.marketing_type == marketing
                and row.property_type == property_type and row.price is not None and (row.living_area or 0) > 0
            ]
        rows = [row for row in self.comparable_rows[key] if row.id != exclude]
        rows.sort(key=lambda row: (abs(row.living_area - area), row.id))
        return rows[: self.rng.randint(3, 6)]

    def _value(self, place: DemoPlace, marketing: str, property_type: str, area: float, exclude: int | None) -> Row:
        rng = self.rng
        comparables = self._comparables(place.name, marketing, property_type, area, exclude)
        buy = marketing == "buy"
        unit = "€/m²" if buy else "€/m² Kaltmiete"
        if len(comparables) >= 3:
            per_sqm = sorted(row.price / row.living_area for row in comparables)[len(comparables) // 2]
            spread = rng.choice((6, 8, 10))
            method = (
                f"Vergleichswertverfahren: Median von {len(comparables)} Vergleichsangeboten in {place.name} "
                f"({_de_number(round(per_sqm, 1 if not buy else 0))} {unit}), ±{spread} % für Lage, Zustand und "
                f"Ausstattung"
            )
        else:
            per_sqm = (place.buy_per_sqm if buy else place.rent_per_sqm) * (0.95 if property_type == "house" else 1.0)
            spread = 12
            method = (
                f"Marktwertschätzung aus dem örtlichen Preisniveau ({_de_number(per_sqm)} {unit}); zu wenige "
                f"Vergleichsangebote, daher ±{spread} %"
            )
        value = per_sqm * area
        step = 5_000 if buy else 10
        low = math.floor(value * (1 - spread / 100) / step) * step
        high = math.ceil(value * (1 + spread / 100) / step) * step
        return {
            "value_low": float(low),
            "value_high": float(max(high, low + step)),
            "method": method[:300],
            "comparables": [row.ref for row in comparables] if len(comparables) >= 3 else [],
        }

    def _valuation_meta(self, office: _DemoOffice) -> Row:
        rng = self.rng
        members = self.members.get(office.id) or [None]
        author = rng.choice(members)
        return {
            "office_id": office.id,
            "created_by": author.id if author else None,
            "created_at": DEMO_NOW - dt.timedelta(days=rng.uniform(0.5, 90)),
        }

    def _listing_valuation(self, office: _DemoOffice, lst: _Lst) -> Row:
        rng = self.rng
        place = _PLACES_BY_NAME[lst.city]
        area = float(lst.living_area or 0)
        row = {
            **self._valuation_meta(office),
            "listing_id": lst.id,
            "owner_name": None,
            "address": f"{lst.street} {lst.house_number}" if lst.street else None,
            "postal_code": lst.postal_code,
            "city": lst.city,
            "property_type": lst.property_type,
            "marketing_type": lst.marketing_type,
            "living_area": area,
            **self._value(place, lst.marketing_type, lst.property_type, area, lst.id),
        }
        note = None
        if lst.price is not None:
            if lst.price > row["value_high"]:
                note = "Der Angebotspreis liegt über der Spanne; Preisanpassung mit den Eigentümern besprechen."
            elif lst.price < row["value_low"]:
                note = "Der Angebotspreis liegt unter der Spanne; mit hoher Nachfrage rechnen."
            else:
                note = "Der Angebotspreis liegt innerhalb der Spanne."
        row["note"] = note if rng.random() < 0.8 else None
        return row

    def _lead_valuation(self, office: _DemoOffice) -> Row:
        rng = self.rng
        nearby = [p for p in DEMO_PLACES if p.state == office.place.state]
        place = office.place if rng.random() < 0.6 else rng.choice(nearby)
        property_type = "apartment" if rng.random() < 0.55 else "house"
        marketing = "buy" if rng.random() < 0.85 else "rent"
        area = float(rng.randint(45, 130) if property_type == "apartment" else rng.randint(100, 220))
        first, last, female = self._person()
        owner = rng.choice((f"{'Frau' if female else 'Herr'} {first} {last}", f"Familie {last}",
                            f"Erbengemeinschaft {last}"))
        note = rng.choice((
            "Eigentümer denkt über einen Verkauf im Frühjahr nach; Rückruf vereinbart.",
            "Erbfall, Objekt steht leer. Unterlagen (Grundbuch, Teilungserklärung) angefordert.",
            "Empfehlung über einen früheren Käufer. Besichtigung vor Ort ist erfolgt.",
            "Eigentümerin möchte zunächst nur den Marktwert wissen.",
            None,
        ))
        if marketing == "rent":
            note = "Eigentümer überlegt, nach dem Auszug der Mieter neu zu vermieten."
        return {
            **self._valuation_meta(office),
            "listing_id": None,
            "owner_name": owner,
            "address": f"{rng.choice(_STREETS)} {rng.randint(1, 90)}",
            "postal_code": rng.choice(place.postal_codes),
            "city": place.name,
            "property_type": property_type,
            "marketing_type": marketing,
            "living_area": area,
            **self._value(place, marketing, property_type, area, None),
            "note": note,
        }

    # --- status history ---

    def _status_history(self) -> list[Row]:
        rng = self.rng
        rows: list[Row] = []
        for office_id, listings in self.office_listings.items():
            members = self.members.get(office_id) or [None]

            def change(lst: _Lst, old: str | None, new: str, at: dt.datetime) -> None:
                author = rng.choice(members)
                rows.append({"listing_id": lst.id, "old_status": old, "new_status": new,
                             "changed_by": author.id if author else None, "changed_at": at})

            fell_through = 0
            for lst in listings:
                change(lst, None, "draft", lst.created_at)
                if lst.published_at is None:
                    continue
                change(lst, "draft", "published", lst.published_at)
                event = self.events.get(lst.id)
                if event is not None and event.kind == "status_change":
                    reserved = lst.published_at + (event.at - lst.published_at) * rng.uniform(0.3, 0.9)
                    change(lst, "published", "reserved", reserved)
                    change(lst, "reserved", "published", event.at)
                elif (
                    lst.status == "published" and lst.updated_at - lst.published_at > dt.timedelta(days=2)
                    and (rng.random() < 0.1 or fell_through < 2)
                ):  # a reservation that fell through, at least twice per office
                    fell_through += 1
                    reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.2, 0.8)
                    change(lst, "published", "reserved", reserved)
                    change(lst, "reserved", "published", lst.updated_at)
                if lst.status in ("sold", "let"):
                    reserved = lst.published_at + (lst.updated_at - lst.published_at) * rng.uniform(0.3, 0.9)
                    change(lst, "published", "reserved", reserved)
                    change(lst, "reserved", lst.status, lst.updated_at)
                elif lst.status in ("reserved", "withdrawn"):
                    change(lst, "published", lst.status, lst.updated_at)
        for number, row in enumerate(rows, start=1):
            row["id"] = number
        return rows

    # --- confirmations waiting for a click ---

    def _pending_actions(self) -> list[Row]:
        rng = self.rng
        office = self.offices.get(1)
        waiting = [t for t in self.threads if t.status == "open" and t.listing.office_id == 1]
        if office is None or not waiting:
            return []
        waiting.sort(key=lambda t: t.created_at)  # oldest first
        expired, drafts = waiting[0], waiting[1:4]
        rows = []
        members = self.members.get(1, [])
        for thread, status in [*((t, "pending") for t in drafts), (expired, "expired")]:
            author = members[len(rows) % len(members)] if members else None
            if status == "pending":
                created = max(thread.created_at, DEMO_NOW - dt.timedelta(hours=20)) + dt.timedelta(
                    minutes=rng.randint(5, 60)
                )
                created = min(created, DEMO_NOW - dt.timedelta(minutes=2))
                expires = DEMO_NOW + dt.timedelta(days=2)
            else:  # a draft nobody confirmed in time
                created = thread.created_at + (DEMO_NOW - thread.created_at) * 0.3
                expires = created + dt.timedelta(days=2)
                if expires >= DEMO_NOW:
                    continue
            assert thread.letters is not None
            body = thread.letters.office_reply(created, first=True, author=author)
            token = secrets.token_urlsafe(32)  # never stored; nobody can click a demo confirmation
            rows.append(
                {
                    "id": len(rows) + 1,
                    "ref": f"C-{len(rows) + 1:06d}",
                    "kind": "send_reply",
                    "user_id": author.id if author else self.users[0].id,
                    "office_id": 1,
                    "subject_ref": thread.ref,
                    "payload": {"body": body},
                    "summary": (
                        f"Antwort an {thread.seeker.name} auf die Anfrage {thread.ref} zum Inserat "
                        f"{thread.listing.ref}"
                    )[:500],
                    "status": status,
                    "token_hash": hashlib.sha256(token.encode()).hexdigest(),
                    "created_at": created,
                    "expires_at": expires,
                }
            )
        return rows

    # --- writing ---

    def _write(self, valuations: list[Row], status_changes: list[Row], pending: list[Row]) -> None:
        users = [
            {
                "id": u.id,
                "email": u.email,
                "name": u.name,
                "password_hash": self.password_hashes[u.password],
                "kind": u.kind,
                "phone": u.phone,
                "created_at": u.created_at,
            }
            for u in self.users
        ]
        members = [
            {"office_id": u.office_id, "user_id": u.id, "role": u.role} for u in self.users if u.office_id is not None
        ]
        for number, proposal in enumerate(sorted(self.proposals, key=lambda p: (p["created_at"], p["listing_id"])), 1):
            proposal.update(id=number, ref=f"P-{number:06d}")
        inquiries = [
            {
                "id": t.id,
                "ref": t.ref,
                "listing_id": t.listing.id,
                "office_id": t.listing.office_id,
                "seeker_id": t.seeker.id,
                "status": t.status,
                "shared_profile": t.profile,
                "created_at": t.created_at,
                "last_message_at": t.messages[-1][3],
            }
            for t in self.threads
        ]
        messages = [
            {"inquiry_id": t.id, "author": author, "author_user_id": user_id, "body": body, "created_at": at}
            for t in self.threads
            for author, user_id, body, at in t.messages
        ]
        for number, message in enumerate(messages, start=1):
            message["id"] = number
        for model, rows in (
            (User, users),
            (OfficeMember, members),
            (SearchOrder, [order.row for order in self.orders]),
            (Match, self.matches),
            (Proposal, sorted(self.proposals, key=lambda p: p["id"])),
            (Inquiry, inquiries),
            (InquiryMessage, messages),
            (Valuation, valuations),
            (ListingStatusChange, status_changes),
            (PendingAction, pending),
        ):
            for start in range(0, len(rows), CHUNK_SIZE):
                self.connection.execute(insert(model), rows[start:start + CHUNK_SIZE])


# Models with explicit integer ids (PostgreSQL sequences must continue after them).
ACCOUNT_MODELS_WITH_IDS = (
    User, SearchOrder, Match, Proposal, Inquiry, InquiryMessage, Valuation, ListingStatusChange, PendingAction,
)


# --- German letters --------------------------------------------------------------------------------------


class _Letters:
    """The messages of one inquiry thread: plausible German, about one topic (viewing, documents, …)."""

    def __init__(self, rng: random.Random, thread: _Thread, office: _DemoOffice, members: Sequence[_User]) -> None:
        self.rng = rng
        self.thread = thread
        self.office = office
        self.members = list(members)
        lst = thread.listing
        topics = ["viewing", "viewing", "documents"]
        if lst.property_type in ("apartment", "house", "commercial"):
            topics += ["energy", "available"]
        if lst.service_charges is not None and lst.property_type in ("apartment", "house"):
            topics.append("costs")
        self.topic = rng.choice(topics)
        self.slot: str | None = None  # a viewing appointment the office offered
        self.confirmed = False  # … and the seeker accepted
        self.broker = rng.choice(self.members) if self.members else None

    @property
    def words(self) -> tuple[str, str, str, str]:
        return _OBJECT_WORDS[self.thread.listing.property_type]

    def messages(self, times: Sequence[dt.datetime], closing: bool) -> list[tuple[str, int | None, str, dt.datetime]]:
        seeker = self.thread.seeker
        result = []
        # A closed thread of three or four messages ends with the seeker withdrawing (and the office's thanks).
        for n, at in enumerate(times):
            if n % 2 == 0:
                body = self.seeker_opening() if n == 0 else self.seeker_follow_up(at, closing)
                result.append(("seeker", seeker.id, body, at))
            else:
                body = self.office_reply(at, first=n == 1, author=self.broker, final=closing and n == 3)
                result.append(("office", self.broker.id if self.broker else None, body, at))
        return result

    # seeker

    def _seeker_signature(self) -> str:
        return f"\n\nViele Grüße\n{self.thread.seeker.name}"

    def seeker_opening(self) -> str:
        rng, lst = self.rng, self.thread.listing
        nom, acc, _, _ = self.words
        household = _HOUSEHOLD_SENTENCES.get(self.thread.profile.get("household", ""), "")
        match self.topic:
            case "viewing":
                text = rng.choice((
                    f"Guten Tag,\n\nich interessiere mich sehr für Ihr Angebot „{lst.title}“ ({lst.ref}) und würde "
                    "gern einen Besichtigungstermin vereinbaren. Ich bin werktags ab 17 Uhr und samstags flexibel.",
                    f"Hallo,\n\nist {nom} ({lst.ref}) noch verfügbar? {household} Gern würde ich mir {acc} bei einer "
                    "Besichtigung ansehen. Passt Ihnen ein Termin in der kommenden Woche?",
                ))
            case "documents":
                extra = (
                    " sowie die Protokolle der letzten Eigentümerversammlungen"
                    if lst.property_type == "apartment" and lst.marketing_type == "buy" else ""
                )
                text = (
                    f"Guten Tag,\n\nkönnten Sie mir bitte das vollständige Exposé zu {lst.ref} mit Grundriss{extra} "
                    f"zusenden? {acc[0].upper() + acc[1:]} klingt sehr interessant."
                )
            case "energy":
                text = (
                    f"Guten Tag,\n\nim Inserat {lst.ref} finde ich nicht alle Angaben zum Energieausweis. Können Sie "
                    "mir den Ausweis schicken oder mir Kennwert, Energieträger und Art des Ausweises nennen?"
                )
            case "costs":
                if lst.marketing_type == "buy":
                    text = (
                        f"Guten Tag,\n\nwie hoch ist das Hausgeld für {acc} ({lst.ref}), und wie hoch ist die "
                        "Erhaltungsrücklage der Eigentümergemeinschaft?"
                    )
                else:
                    text = (
                        f"Guten Tag,\n\nwie setzen sich die Nebenkosten für {acc} ({lst.ref}) zusammen, und sind die "
                        "Heizkosten schon enthalten?"
                    )
            case _:
                month = _MONTHS[(self.thread.created_at.month + rng.randint(1, 3) - 1) % 12]
                text = (
                    f"Hallo,\n\nab wann wäre {nom} ({lst.ref}) frei? Ein Einzug zum 1. {month} wäre ideal. "
                    f"{household}"
                )
        return text + self._seeker_signature()

    def seeker_follow_up(self, at: dt.datetime, closing: bool) -> str:
        rng = self.rng
        _, acc, _, _ = self.words
        if closing:
            text = rng.choice((
                "Guten Tag,\n\nvielen Dank für Ihre Mühe. Wir haben uns inzwischen für ein anderes Objekt entschieden "
                "und ziehen unsere Anfrage zurück.",
                f"Hallo,\n\nnach reiflicher Überlegung passt {acc} leider doch nicht zu uns. Danke für Ihre schnelle "
                "Rückmeldung!",
            ))
        elif self.slot:
            self.confirmed = True
            documents = (
                "die Finanzierungsbestätigung" if self.thread.listing.marketing_type == "buy"
                else "die Selbstauskunft und die letzten drei Gehaltsnachweise"
            )
            text = f"Guten Tag,\n\nvielen Dank, der Termin {self.slot} passt mir gut. Ich bringe {documents} mit."
        else:
            text = rng.choice((
                f"Guten Tag,\n\nvielen Dank für die Informationen! Ich würde {acc} gern besichtigen – wann wäre das "
                "möglich?",
                "Hallo,\n\ndanke für die schnelle Antwort. Gibt es in den nächsten Tagen noch einen freien "
                "Besichtigungstermin?",
            ))
        return text + self._seeker_signature()

    # office

    def _slot(self, at: dt.datetime) -> str:
        day = (at + dt.timedelta(days=self.rng.randint(2, 6))).date()
        if day.weekday() == 6:
            day += dt.timedelta(days=1)
        hour = self.rng.choice(("10:00", "11:00", "11:30") if day.weekday() == 5 else ("16:30", "17:00", "17:30", "18:00"))
        return f"am {_WEEKDAYS[day.weekday()]}, {day:%d.%m.}, um {hour} Uhr"

    def _office_signature(self, author: _User | None) -> str:
        name = f"{author.name}\n" if author else ""
        return f"\n\nMit freundlichen Grüßen\n{name}{self.office.name}"

    def office_reply(self, at: dt.datetime, first: bool, author: _User | None, final: bool = False) -> str:
        lst, seeker = self.thread.listing, self.thread.seeker
        nom, acc, dat, pronoun = self.words
        greeting = f"Guten Tag {seeker.salutation},\n\n"
        address = f"{lst.street} {lst.house_number}, {lst.postal_code} {lst.city}" if lst.street else lst.city
        if final:
            text = (
                "vielen Dank für Ihre Rückmeldung, schade! Wir schließen Ihre Anfrage damit ab. Gern informieren wir "
                "Sie, wenn wir ein ähnliches Objekt anbieten können."
            )
        elif not first and self.confirmed:
            text = (
                f"sehr gern – dann sehen wir uns {self.slot}. Die genaue Adresse lautet {address}. Bitte geben Sie "
                "kurz Bescheid, falls Ihnen etwas dazwischenkommt."
            )
        elif not first:
            self.slot = self._slot(at)
            text = (
                f"gern biete ich Ihnen einen Besichtigungstermin {self.slot} an. Die genaue Adresse lautet {address}. "
                "Geben Sie mir bitte kurz Bescheid, ob Ihnen der Termin passt."
            )
        else:
            match self.topic:
                case "viewing":
                    self.slot = self._slot(at)
                    text = (
                        f"vielen Dank für Ihr Interesse {dat} ({lst.ref}). {pronoun} ist noch verfügbar. Gern "
                        f"biete ich Ihnen einen Besichtigungstermin {self.slot} an. Passt Ihnen das?"
                    )
                case "documents":
                    text = (
                        "vielen Dank für Ihre Anfrage. Anbei erhalten Sie das Exposé mit Grundriss. "
                        + ("Die Protokolle und den Wirtschaftsplan stellen wir Ihnen nach der Besichtigung zur "
                           "Verfügung. " if lst.property_type == "apartment" and lst.marketing_type == "buy" else "")
                        + "Bei Fragen bin ich gern für Sie da."
                    )
                case "energy":
                    text = {
                        "present": "gern, den Energieausweis habe ich Ihnen angehängt. Die Pflichtangaben "
                                   "(Kennwert, Energieträger, Baujahr) stehen auch im Exposé.",
                        "at_viewing": "der Energieausweis wird gerade erstellt und liegt spätestens bei der "
                                      "Besichtigung vor. Ich schicke ihn Ihnen, sobald wir ihn haben.",
                        "not_required": "das Gebäude steht unter Denkmalschutz, deshalb ist kein Energieausweis "
                                        "erforderlich. Zur Heizung und zu den Verbrauchskosten gebe ich Ihnen gern "
                                        "Auskunft.",
                        "missing": "der Energieausweis liegt uns leider noch nicht vor; die Eigentümer haben ihn "
                                   "beauftragt. Ich melde mich, sobald er da ist.",
                    }.get(lst.energy_status, "den Energieausweis reiche ich Ihnen gern nach.")
                case "costs":
                    charges = _de_number(lst.service_charges or 0)
                    if lst.marketing_type == "buy":
                        text = (
                            f"das Hausgeld beträgt {charges} € im Monat, davon sind etwa zwei Drittel auf Mieter "
                            "umlegbar. Die Erhaltungsrücklage nenne ich Ihnen nach Rücksprache mit der Verwaltung."
                        )
                    else:
                        heating = (
                            f"; die Heizkosten kommen mit {_de_number(lst.heating_costs)} € hinzu"
                            if lst.heating_costs else "; die Heizkosten sind darin enthalten"
                        )
                        text = (
                            f"die Nebenkostenvorauszahlung beträgt {charges} € im Monat{heating}. Die letzte "
                            "Abrechnung lege ich Ihnen zur Besichtigung vor."
                        )
                case _:
                    if lst.available_from:
                        when = f"ab dem {lst.available_from:%d.%m.%Y}"
                    else:
                        when = {"sofort": "sofort", "nach Vereinbarung": "nach Vereinbarung"}.get(
                            lst.availability_note or "", "nach Absprache"
                        )
                    text = f"{nom} ist {when} bezugsfrei. Gern vereinbaren wir vorher einen Besichtigungstermin."

        return greeting + text + self._office_signature(author)


_MONTHS = (
    "Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November",
    "Dezember",
)


