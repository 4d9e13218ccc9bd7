"""An office's stock exported as OpenImmo reads back, with the importer's own reader, into the same listing fields (both
databases); a listing of another office is never in it."""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from shared.accounts.personal_data import office_stock
from shared.db.models import Listing, ListingFeature
from shared.db.session import Database
from shared.openimmo import ParsedObject, read_transfer
from tests.conftest import seeded_database

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
COMPARED = (
    "marketing_type", "property_type", "property_subtype", "title", "description", "postal_code", "city", "district", "street",
    "house_number", "state", "address_published", "price", "price_on_request", "service_charges", "heating_costs", "deposit",
    "commission", "living_area", "plot_area", "rooms", "bedrooms", "bathrooms", "floor", "year_built", "condition",
    "energy_status", "energy_certificate_type", "energy_value", "energy_class", "energy_carrier", "energy_valid_until",
    "available_from", "availability_note", "latitude", "longitude",
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    with seeded_database(Path(tmp_path_factory.mktemp("export")), "export", listings=300) as database:
        yield database


def normal(value: object) -> object:
    return round(value, 2) if isinstance(value, float) else value


def test_every_office_s_exported_stock_reads_back_into_the_same_fields(db: Database) -> None:
    with db.read_only() as session:
        office_ids = list(session.scalars(select(Listing.office_id).distinct()))
        features: dict[int, list[str]] = {}
        for listing_id, feature in session.execute(select(ListingFeature.listing_id, ListingFeature.feature)):
            features.setdefault(listing_id, []).append(feature)
    read = 0
    for office_id in office_ids:
        with db.read_only() as session:
            text = "".join(office_stock(session, office_id, NOW))
            listings = {row.external_id or row.ref: row for row in session.scalars(select(Listing).where(Listing.office_id == office_id))}
            session.expunge_all()
        objects = [item for item in read_transfer(io.BytesIO(text.encode()), max_bytes=len(text.encode()) + 1) if isinstance(item, ParsedObject)]
        assert sorted(item.key or "" for item in objects) == sorted(listings)  # this office's stock, all of it, nothing else
        for item in objects:
            listing = listings[item.key or ""]
            # every value reads back as written, a floor below ground (Tiefgarage, Souterrain: -1) included
            assert item.refusal is None and item.excluded == [], item.key
            differences = {
                name: (normal(getattr(listing, name)), normal(item.fields.get(name)))
                for name in COMPARED
                if normal(getattr(listing, name)) != normal(item.fields.get(name))
            }
            assert differences == {}, item.key
            assert sorted(item.features) == sorted(features.get(listing.id, []))
            assert [p["url"] for p in item.fields["photos"]] == [p["url"] for p in listing.photos]
            read += 1
    assert read == 300
