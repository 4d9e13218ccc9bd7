"""A listing of the office's stock as the broker tools read it (`broker_server.lookups.own_listing`: one Core select,
no ORM entity) holds what the entity holds: every column, the office's shown fields, the features in their order."""

from __future__ import annotations

from sqlalchemy import inspect, select
from sqlalchemy.orm import selectinload

from broker_server.lookups import own_listing
from shared.db.models import Listing
from shared.db.scoped import OfficeData
from shared.db.session import Database


def test_own_listing_reads_what_the_entity_holds(demo_db: Database) -> None:
    with demo_db.read_only() as session:
        entities = session.scalars(
            select(Listing).where(Listing.office_id.in_([1, 2])).options(selectinload(Listing.office), selectinload(Listing.features))
        ).all()
        with_features = 0
        for entity in entities:
            read = own_listing(session, OfficeData(entity.office_id), entity.ref)
            for attribute in inspect(Listing).column_attrs:
                assert getattr(read, attribute.key) == getattr(entity, attribute.key), (entity.ref, attribute.key)
            for name in ("name", "city", "phone", "email", "website"):
                assert getattr(read.office, name) == getattr(entity.office, name)
            assert [f.feature for f in read.features] == [f.feature for f in entity.features]
            with_features += len(entity.features) > 1
    assert len(entities) > 10 and with_features > 0
