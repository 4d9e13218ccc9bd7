"""One digest of the demo catalog's rows, for the tests that prove seeding writes the same bytes every way."""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, select

from shared.db.models import Listing, ListingFeature, ListingTerm, Office, Place

# sha256 over every catalog row (listings, features, terms, offices, places) of seed_demo(listings=600, seed=7),
# recorded before the accounts existed: adding them must not change a single catalog byte. Re-recorded once when the
# full-text index began to store hyphenated words also closed ("Stuttgart-West" → "stuttgartwest"); only terms changed.
# Re-recorded when two demo places took the names of the German municipality list (issue 20): "Oldenburg (Oldb)" is
# Oldenburg, "Neunkirchen (Saar)" is Neunkirchen (in Saarland), as every postal code of theirs names them.
CATALOG_DIGEST_600 = "33cf6ffbf5513b48a0a73006ae8d3a9b86e78d96c5912b93d9645941d2b35088"

CATALOG_TABLES: tuple[tuple[Any, list[Any]], ...] = (
    (Listing, [Listing.id]),
    (ListingFeature, [ListingFeature.listing_id, ListingFeature.feature]),
    (ListingTerm, [ListingTerm.listing_id, ListingTerm.position, ListingTerm.term]),
    (Office, [Office.id]),
    (Place, [Place.id]),
)
# Columns the write side added later, which the demo catalog leaves at their defaults: an office's settings and a
# listing's edit version, feed origin and what an import last wrote (import_digest) are no catalog content, so the
# recorded digest stays the proof.
LATER_COLUMNS = {"send_without_click", "openimmo_feed_url", "version", "feed", "external_id", "import_digest",
                 # an OpenImmo object's other free texts and why its coordinates are approximate (migration 0020)
                 "location_text", "equipment_text", "other_text", "coordinates_note", "inquiry_email",
                 "photos_note"}  # why a listing has no photos (migration 0021)


def table_digest(engine: Engine, tables: Sequence[tuple[Any, list[Any]]] = CATALOG_TABLES, skip: frozenset[str] = frozenset()) -> str:
    digest = hashlib.sha256()
    with engine.connect() as connection:
        for model, keys in tables:
            columns = [c for c in model.__table__.columns if c.name not in LATER_COLUMNS | skip]
            for row in connection.execute(select(*columns).order_by(*keys)):
                # Times as naive UTC: the digest was taken of the stored values, before they were read back aware.
                plain = tuple(v.astimezone(dt.UTC).replace(tzinfo=None) if isinstance(v, dt.datetime) else v for v in row)
                digest.update(repr(plain).encode())
    return digest.hexdigest()
