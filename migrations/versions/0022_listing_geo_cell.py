"""A listing's grid cell of a tenth of a degree (`shared.db.geo_cells`), as an expression index: a search around a
place names the cells of its box, which the database estimates from where listings really are and reads directly;
with the status and the coordinates in the index, the capped count of such a search reads no listing (index only).

Searches around a place at 10^6 listings took up to 150 ms (p95) against 18 ms at 10^4: PostgreSQL estimated the box
from latitude and longitude separately, far too low where listings cluster in a town, and read and sorted tens of
thousands of them where the newest-first order would have found a page in a few hundred. The statistics target is
raised so that the most common cells of a whole country are known one by one; ANALYZE of `listings` then samples
300,000 rows (18 s at 10^6 listings on a 2-core machine; with 250, radius searches were up to twice as slow in the
bench).

Revision ID: 0022
Revises: 0021
"""

from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None

# Exactly what shared.db.geo_cells.GeoCell compiles to (tests/test_geo_cells.py compares them).
CELL = {
    "postgresql": "(CAST(trunc(latitude * 10) * 10000 + trunc(longitude * 10) AS INTEGER))",
    "sqlite": "(CAST(latitude * 10 AS INTEGER) * 10000 + CAST(longitude * 10 AS INTEGER))",
}
STATISTICS_TARGET = 1000


def upgrade() -> None:
    dialect = op.get_bind().dialect.name
    op.execute(f"CREATE INDEX ix_listings_geo_cell ON listings ({CELL[dialect]}, status, latitude, longitude)")
    if dialect == "postgresql":
        op.execute(f"ALTER INDEX ix_listings_geo_cell ALTER COLUMN 1 SET STATISTICS {STATISTICS_TARGET}")


def downgrade() -> None:
    op.drop_index("ix_listings_geo_cell", table_name="listings")
