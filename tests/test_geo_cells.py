"""Searches around a place through grid cells (`shared.db.geo_cells`): the cells cover every point of the circle, the
query's cell expression is the index's (else the index and its statistics are silently unused), and a search finds
exactly the listings inside its circle where it spans several cells, on the suite's database (SQLite, or PostgreSQL
with ATHAUS_TEST_DATABASE_URL)."""

from __future__ import annotations

import importlib.util
import math
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import literal, select, text, update
from sqlalchemy.dialects import postgresql, sqlite

from contract.catalog import CatalogFilters
from shared.catalog import search as engine
from shared.catalog.query import ParsedQuery
from shared.db.geo_cells import MAX_CELLS, GeoCell, cell_of, cells_covering
from shared.db.models import LISTING_GEO_CELL, Listing
from shared.db.session import Database

MIGRATION = Path(__file__).parents[1] / "migrations" / "versions" / "0022_listing_geo_cell.py"


def _migration() -> Any:
    spec = importlib.util.spec_from_file_location("migration_0022", MIGRATION)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dialect", [postgresql.dialect(), sqlite.dialect()], ids=["postgresql", "sqlite"])
def test_the_migration_indexes_the_expression_queries_use(dialect: Any) -> None:
    cell = GeoCell(text("latitude"), text("longitude"))
    assert str(cell.compile(dialect=dialect)) == _migration().CELL[dialect.name]


def _circle_points(rng: random.Random, latitude: float, longitude: float, radius_km: float) -> list[tuple[float, float]]:
    """Points on and just inside the circle (the engine's own arithmetic), in every direction, and its centre."""
    km_per_lon = engine.KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(latitude))
    points = [(latitude, longitude)]
    for step in range(72):
        angle = step * math.tau / 72 + rng.random() * 0.01
        for share in (1.0, 0.999999, rng.random()):
            points.append(
                (
                    latitude + share * radius_km * math.cos(angle) / engine.KM_PER_DEGREE_LAT,
                    longitude + share * radius_km * math.sin(angle) / km_per_lon,
                )
            )
    return points


def test_the_cells_cover_every_point_of_the_circle() -> None:
    rng = random.Random(22)
    centres = [(50.0, 8.0), (-0.02, -0.03), (0.0, 0.0), (48.7823, 9.177), (-33.9, 18.4), (64.1, -21.9)]
    centres += [(rng.uniform(-70, 70), rng.uniform(-179, 179)) for _ in range(200)]
    covered = 0
    for latitude, longitude in centres:
        radius = rng.choice([0.05, 1.0, 5.0, 12.5, 25.0, rng.uniform(0.1, 40.0)])
        centre = engine.Centre(latitude, longitude, radius, "Testort")
        dlat = radius / engine.KM_PER_DEGREE_LAT
        dlon = radius / (engine.KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(latitude)))
        cells = cells_covering(latitude - dlat, latitude + dlat, longitude - dlon, longitude + dlon)
        if cells is None:
            continue
        covered += 1
        for point in _circle_points(rng, latitude, longitude, radius):
            if engine.distance_km(centre, *point) <= radius:
                assert cell_of(*point) in cells, (centre, point)
    assert covered > 150  # the random centres mostly take the cells' path


def test_a_box_of_too_many_cells_stays_a_box() -> None:
    assert cells_covering(50.0, 50.9, 8.0, 8.9) is not None  # 10 × 10
    assert cells_covering(48.0, 51.0, 7.0, 13.0) is None  # 31 × 61
    assert len(cells_covering(50.0, 51.9, 8.0, 8.9) or []) <= MAX_CELLS


def test_the_index_serves_the_cells_of_a_search(demo_db: Database) -> None:
    """The planner may choose another index for the demo catalog's size; it must be able to seek this one by the
    cells. An expression not written exactly as the index's could not (the failing half): on SQLite the same text
    with its constants bound as parameters, on PostgreSQL a cast without trunc (which rounds instead)."""
    cells = cells_covering(51.25, 51.43, 12.23, 12.51)
    assert cells is not None
    latitude, longitude = Listing.latitude, Listing.longitude
    bound = ((latitude * literal(10)).cast(Listing.id.type) * literal(10000) + (longitude * literal(10)).cast(Listing.id.type)).in_(cells)
    with demo_db.read_only() as session:
        connection = session.connection()
        for condition, seekable in ((LISTING_GEO_CELL.in_(cells), True), (bound, False)):
            compiled = select(Listing.id).where(condition).compile(connection, compile_kwargs={"render_postcompile": True})
            if connection.dialect.name == "sqlite":
                forced = str(compiled).replace("FROM listings", "FROM listings INDEXED BY ix_listings_geo_cell")
                parameters = tuple(compiled.params[name] for name in compiled.positiontup or ())
                plan = "\n".join(row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {forced}", parameters))
                assert ("SEARCH listings USING COVERING INDEX ix_listings_geo_cell" in plan) is seekable, plan
            else:
                connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
                plan = "\n".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {compiled}", compiled.params))
                assert ("Index Cond: ((((trunc" in plan) is seekable, plan


def _counted(db: Database, centre: engine.Centre) -> int:
    with db.read_only() as session:
        return engine.count(session, engine.base_conditions(CatalogFilters(), ParsedQuery(), centre))


@pytest.mark.parametrize(
    ("latitude", "longitude", "cells"), [(50.0, 8.0, 4), (-0.1, -0.1, 4), (0.0, 0.0, 1)], ids=["cell_corner", "negative_corner", "zero"]
)
def test_a_search_finds_exactly_the_listings_inside_its_circle(scratch_db: Database, latitude: float, longitude: float, cells: int) -> None:
    """Listings just inside the circle in every direction (in several cells; around zero in the one cell truncation
    makes twice as wide) are found, those just outside are not."""
    radius = 3.0
    centre = engine.Centre(latitude, longitude, radius, "Testort")
    km_per_lon = engine.KM_PER_DEGREE_LON_EQUATOR * math.cos(math.radians(latitude))
    inside, outside = [], []
    for step in range(12):
        angle = step * math.tau / 12 + 0.1
        for share, kept in ((0.999, inside), (1.001, outside)):
            kept.append(
                (latitude + share * radius * math.cos(angle) / engine.KM_PER_DEGREE_LAT, longitude + share * radius * math.sin(angle) / km_per_lon)
            )
    assert len({cell_of(*point) for point in inside}) == cells
    with scratch_db.read_only() as session:
        published = list(session.scalars(select(Listing.id).where(Listing.status == "published").order_by(Listing.id).limit(24)))
    before = _counted(scratch_db, centre)
    with scratch_db.unit_of_work() as session:
        for listing_id, (lat, lon) in zip(published, inside + outside, strict=True):
            session.execute(update(Listing).where(Listing.id == listing_id).values(latitude=lat, longitude=lon))
    assert before == 0
    assert _counted(scratch_db, centre) == len(inside)
