"""The demo catalog: deterministic, plausible enough to search in, and never mixed into existing data."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from contract.vocabulary import Feature
from shared.catalog.indexing import search_fields, term_rows
from shared.db.migrate import upgrade
from shared.db.models import CatalogState, Listing, ListingFeature, ListingTerm, Office, Place
from shared.db.session import make_engine
from shared.demo import DEMO_NOW, CatalogNotEmptyError, SeedSummary, seed_demo
from shared.demo.places import DEMO_PLACES

LISTINGS = 600
BUNDESLAENDER = {
    "Baden-Württemberg", "Bayern", "Berlin", "Brandenburg", "Bremen", "Hamburg", "Hessen", "Mecklenburg-Vorpommern",
    "Niedersachsen", "Nordrhein-Westfalen", "Rheinland-Pfalz", "Saarland", "Sachsen", "Sachsen-Anhalt",
    "Schleswig-Holstein", "Thüringen",
}


def _migrated_engine(path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    return engine


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Engine, SeedSummary]]:
    engine = _migrated_engine(tmp_path_factory.mktemp("demo") / "demo.sqlite3")
    summary = seed_demo(engine, listings=LISTINGS)
    yield engine, summary
    engine.dispose()


def _snapshot(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as connection:
        return {
            model.__tablename__: [tuple(row) for row in connection.execute(select(model).order_by(*keys))]
            for model, keys in (
                (Listing, [Listing.id]),
                (ListingFeature, [ListingFeature.listing_id, ListingFeature.feature]),
                (ListingTerm, [ListingTerm.listing_id, ListingTerm.position, ListingTerm.term]),
                (Office, [Office.id]),
                (Place, [Place.id]),
            )
        }


def test_same_seed_gives_identical_rows(tmp_path: Path) -> None:
    snapshots = []
    for name in ("a", "b"):
        engine = _migrated_engine(tmp_path / f"{name}.sqlite3")
        seed_demo(engine, listings=300, seed=11)
        snapshots.append(_snapshot(engine))
        engine.dispose()
    assert len(snapshots[0]["listings"]) == 300
    assert snapshots[0] == snapshots[1]

    other = _migrated_engine(tmp_path / "other.sqlite3")
    seed_demo(other, listings=300, seed=12)
    assert _snapshot(other)["listings"] != snapshots[0]["listings"]
    other.dispose()


def test_summary_matches_the_database(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, summary = seeded
    with engine.connect() as connection:
        listings = connection.scalar(select(func.count()).select_from(Listing))
        published = connection.scalar(select(func.count()).select_from(Listing).where(Listing.status == "published"))
        offices = connection.scalar(select(func.count()).select_from(Office))
        places = connection.scalar(select(func.count()).select_from(Place))
        state = connection.execute(select(CatalogState.revision, CatalogState.updated_at)).one()
    assert (summary.listings, summary.published, summary.offices, summary.places) == (
        listings, published, offices, places
    )
    assert listings == LISTINGS and offices >= 30
    assert state.revision == 1
    assert state.updated_at.replace(tzinfo=DEMO_NOW.tzinfo) == DEMO_NOW


def test_places_are_real_and_cover_every_bundesland(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    with engine.connect() as connection:
        names = set(connection.scalars(select(Place.name)))
        states = set(connection.scalars(select(Place.state)))
        munich = set(connection.scalars(select(Place.postal_code).where(Place.name_key == "muenchen")))
        cities = set(connection.scalars(select(Listing.city)))
    assert len(names) >= 30 and states == BUNDESLAENDER
    assert {"80331", "80469"} <= munich
    assert len(cities) >= 30


def test_most_listings_are_published(seeded: tuple[Engine, SeedSummary]) -> None:
    _, summary = seeded
    assert summary.published / summary.listings >= 0.85


def test_prices_follow_the_place(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    cheap = [place.name for place in DEMO_PLACES if place.buy_per_sqm <= 1500]

    def median_per_sqm(*cities: str) -> float:
        with engine.connect() as connection:
            rows = connection.execute(
                select(Listing.price, Listing.living_area).where(
                    Listing.city.in_(cities),
                    Listing.marketing_type == "buy",
                    Listing.property_type == "apartment",
                    Listing.price.is_not(None),
                )
            ).all()
        assert len(rows) >= 3, cities
        return statistics.median(price / area for price, area in rows)

    assert median_per_sqm("München") > 2 * median_per_sqm(*cheap)


def test_some_prices_are_on_request(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    with engine.connect() as connection:
        flags = connection.execute(select(Listing.price.is_(None), Listing.price_on_request)).all()
    assert any(on_request for _, on_request in flags)
    assert all(missing == on_request for missing, on_request in flags)


def test_energy_certificates_are_present_withheld_or_missing(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    with engine.connect() as connection:
        statuses = set(connection.scalars(select(Listing.energy_status)))
        classes = connection.execute(
            select(Listing.energy_value, Listing.energy_class).where(
                Listing.energy_status == "present", Listing.property_type.in_(["apartment", "house"])
            )
        ).all()
        undisclosed = connection.scalar(
            select(func.count()).select_from(Listing).where(
                Listing.energy_status != "present", Listing.energy_value.is_not(None)
            )
        )
    assert statuses == {"present", "at_viewing", "not_required", "missing"}
    assert undisclosed == 0
    bounds = {"A+": (0, 30), "A": (30, 50), "B": (50, 75), "C": (75, 100), "D": (100, 130), "E": (130, 160),
              "F": (160, 200), "G": (200, 250), "H": (250, 10_000)}
    assert classes and all(bounds[cls][0] <= value < bounds[cls][1] for value, cls in classes)


def test_every_listing_is_indexed_from_its_search_fields(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    with engine.connect() as connection:
        indexed = connection.scalar(select(func.count(func.distinct(ListingTerm.listing_id))))
        sample = connection.execute(select(Listing).order_by(Listing.id).limit(25)).all()
        for listing in sample:
            features = [
                Feature(f) for f in connection.scalars(
                    select(ListingFeature.feature).where(ListingFeature.listing_id == listing.id)
                )
            ]
            fields = search_fields(
                title=listing.title, description=listing.description, city=listing.city,
                district=listing.district, subtype=listing.property_subtype,
                features=sorted(features, key=list(Feature).index),
            )
            stored = connection.execute(
                select(ListingTerm.listing_id, ListingTerm.position, ListingTerm.term)
                .where(ListingTerm.listing_id == listing.id)
                .order_by(ListingTerm.position, ListingTerm.term)
            ).all()
            expected = sorted(term_rows(listing.id, fields), key=lambda r: (r["position"], r["term"]))
            assert [tuple(row) for row in stored] == [(r["listing_id"], r["position"], r["term"]) for r in expected]
    assert indexed == LISTINGS


def test_seeding_a_filled_catalog_is_refused(seeded: tuple[Engine, SeedSummary]) -> None:
    engine, _ = seeded
    with pytest.raises(CatalogNotEmptyError, match="empty database"):
        seed_demo(engine, listings=10)
    with engine.connect() as connection:
        assert connection.scalar(select(func.count()).select_from(Listing)) == LISTINGS
