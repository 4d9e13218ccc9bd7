"""Indexes that serve the descending orders (price_desc, living_area_desc) without a sort.

ORDER BY price DESC NULLS LAST, id ASC cannot be read from (status, price, id) on PostgreSQL: scanned backwards
that index gives NULLs first and ids descending, so the whole match set was sorted in memory. These indexes have
the order exactly. SQLite puts NULLs last in a DESC index and has no NULLS clause in DDL.

Revision ID: 0007
Revises: 0005
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

INDEXES = {"ix_listings_price_desc": "price", "ix_listings_area_desc": "living_area"}


def upgrade() -> None:
    nulls = " NULLS LAST" if op.get_bind().dialect.name == "postgresql" else ""
    for name, column in INDEXES.items():
        op.execute(f"CREATE INDEX {name} ON listings (status, {column} DESC{nulls}, id)")


def downgrade() -> None:
    for name in INDEXES:
        op.drop_index(name, table_name="listings")
